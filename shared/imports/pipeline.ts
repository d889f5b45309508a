import { randomUUID } from 'node:crypto';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { stringify as stringifyLossless } from 'lossless-json';
import { companyRepository, type CompanyRecord } from '../companies/repository';
import { ConditionsFailed, unitOfWork } from '../db/unit-of-work';
import { outboxEventWrite } from '../outbox/repository';
import type { Principal } from '../identity/principal';
import { jobRepository, type JobPlacement } from '../jobs/repository';
import { bucketName, s3, sqs } from '../platform/aws';
import { ProblemError, problems } from '../platform/problem';
import { toFieldErrors } from '../platform/validation';
import { queues } from '../queues';
import { companyNotApiManagedReason, failImport } from './completion';
import { maxImportRows } from './fields';
import { importJobType, type ImportKind } from './kind';
import { emptyProgress, importRepository, toImportRecord, type ImportItem } from './repository';
import type { ImportRecord } from './schemas';

/**
 * Accepting an import (the synchronous part), in the order an integrator meets the rules:
 * (the runner: 403 not a system client, 404 company) -> 409 company_not_api_managed -> 413 more than
 * 10,000 rows -> 422 structure (errors[], nothing accepted) -> the kind's checks against stored
 * data (422 unknown_account_codes, 409 *_in_use) -> 409 job_in_flight -> 202 queued.
 * The payload goes to S3 (an SQS message cannot hold 10,000 rows) and a message to the queue.
 */
export const submitImport = async (principal: Principal, company: CompanyRecord, kind: ImportKind, body: unknown): Promise<ImportRecord> => {
  const companyId = company.id;
  if (company.accountingSystem !== 'Api') throw companyNotApiManaged(company);
  const rows = body && typeof body === 'object' ? (body as Record<string, unknown>)[kind.rowsField] : undefined;
  if (Array.isArray(rows) && rows.length > maxImportRows) {
    throw problems.payloadTooLarge(`An import holds at most ${maxImportRows} rows; this one has ${rows.length} in ${kind.rowsField}.`);
  }
  const parsed = kind.bodySchema.safeParse(body);
  if (!parsed.success) {
    const errors = toFieldErrors(parsed.error.issues, kind.rowsField);
    throw new ProblemError({
      status: 422,
      error: 'validation_failed',
      title: 'Invalid import',
      detail: `The import has ${parsed.error.issues.length} structural problem(s); nothing was accepted.`,
      errors,
    });
  }
  await kind.precheck?.(companyId, parsed.data);
  return acceptImport(companyId, { rootOrganizationId: company.rootOrganizationId, organizationPath: company.organizationPath }, kind, parsed.data, body);
};

export const companyNotApiManaged = (company: Pick<CompanyRecord, 'accountingSystem'>) =>
  problems.conflict(`The company is bound to ${company.accountingSystem}, not to Api; its books cannot be pushed.`, { reason: companyNotApiManagedReason });

/**
 * Why a company check of a transaction failed, read again: 404 (deleted) or 409
 * company_not_api_managed; undefined when the company is live and bound to Api again.
 */
export const companyRefusal = async (companyId: string): Promise<ProblemError | undefined> => {
  const company = await companyRepository.getLive(companyId);
  if (!company) return problems.notFound('company');
  return company.accountingSystem === 'Api' ? undefined : companyNotApiManaged(company);
};

/**
 * Accepts a valid body: claim check, lane, job, import and event, then the queue message. The
 * transaction checks that the company is live and bound to Api, so a change committed after the
 * caller read the company refuses the import as the check up front would (404, 409). A SAF-T
 * import (shared/saft/worker.ts) accepts its per-kind imports with its own ids and applies them
 * itself (`enqueue: false`).
 */
export const acceptImport = async (
  companyId: string,
  placement: JobPlacement,
  kind: ImportKind,
  validBody: unknown,
  body: unknown,
  options: { importId?: string; enqueue?: boolean } = {},
): Promise<ImportRecord> => {
  const importId = options.importId ?? randomUUID();
  const jobId = randomUUID();
  const now = Date.now();
  const at = new Date(now).toISOString();
  const payloadKey = `imports/${companyId}/${importId}.json`; // IAM grants cover exactly this prefix (infra/stacks/api-stack.ts)
  const item: ImportItem = {
    id: importId,
    companyId,
    kind: kind.name,
    lane: kind.lane,
    year: kind.year(validBody),
    mode: kind.mode(validBody),
    status: 'queued',
    jobId,
    datasetId: randomUUID(),
    lineCount: kind.rows(validBody).length,
    rowsDiscovered: 0,
    rowsValid: 0,
    rowsFailed: 0,
    rowsInserted: 0,
    rowsUpdated: 0,
    rowsDeleted: null,
    sampleErrors: [],
    warnings: kind.warnings(validBody),
    failureReason: null,
    createdAt: at,
    updatedAt: at,
    completedAt: null,
    payloadKey,
    reportsDeletions: kind.reportsDeletions,
    progress: emptyProgress(),
    ...(kind.postFetch && { fetchCompletion: { status: 'unreported' as const, fetchRunId: null, recordedAt: null } }),
  };

  // The claim check is in place before anything can reference it.
  await s3().send(new PutObjectCommand({ Bucket: bucketName(), Key: payloadKey, Body: stringifyLossless(body) ?? '', ContentType: 'application/json' }));
  // A lane held at the commit but free again at the look that follows (its import ended meanwhile) is taken on the next attempt.
  for (let attempt = 1; ; attempt++) {
    try {
      await unitOfWork()
        .add('laneLock', jobRepository.takeLaneWrite(companyId, kind.lane, jobId, importId, now))
        .add(
          'job',
          jobRepository.createWrite(
            {
              id: jobId,
              type: importJobType(kind.lane),
              scope: { companyId, lane: kind.lane },
              status: 'queued',
              createdAt: at,
              startedAt: null,
              finishedAt: null,
              resultUrl: `/v1/companies/${companyId}/imports/${importId}`,
              error: null,
              companyId,
            },
            placement,
          ),
        )
        // In the sweep index while queued: a message lost between this commit and the send below is sent again (shared/saft/requeue.ts).
        .add('import', importRepository.createWrite(item, { sweepable: options.enqueue !== false }))
        .add('event', outboxEventWrite(kind.requestedEvent, companyId, { importId, jobId, kind: kind.name }, at))
        .add('company', companyRepository.apiManagedCheck(companyId))
        .commit();
      break;
    } catch (error) {
      if (error instanceof ConditionsFailed && error.names.includes('company')) {
        const refusal = await companyRefusal(companyId);
        if (!refusal && attempt < 3) continue; // bound to Api again by now
        await s3().send(new DeleteObjectCommand({ Bucket: bucketName(), Key: payloadKey }));
        throw refusal ?? error;
      }
      // The lane is held, or a concurrent submission was taking it (the transactions conflicted): when
      // the other one won, this one is in flight too late.
      const laneContested = error instanceof ConditionsFailed && (error.names.includes('laneLock') || (error.names.length === 0 && error.conflicts.includes('laneLock')));
      const holder = laneContested ? await jobRepository.laneHolder(companyId, kind.lane) : undefined;
      if (laneContested && !holder && attempt < 3) continue;
      await s3().send(new DeleteObjectCommand({ Bucket: bucketName(), Key: payloadKey }));
      if (laneContested && (holder || error.names.includes('laneLock'))) {
        throw problems.conflict(`An import of this kind is already running for the company; wait for job ${holder?.jobId}.`, {
          reason: 'job_in_flight',
          ...(holder && { jobId: holder.jobId }),
        });
      }
      throw error;
    }
  }

  if (options.enqueue === false) return toImportRecord(item);
  try {
    await sqs().send(new SendMessageCommand({ QueueUrl: importsQueueUrl(), MessageBody: JSON.stringify({ importId }) }));
  } catch (error) {
    await failImport(item, 'internal_error', 'The import could not be queued; submit it again.');
    throw error;
  }
  return toImportRecord(item);
};

export const importsQueueUrl = (): string => {
  const queue = queues.find((q) => q.name === 'imports')!;
  const url = process.env[queue.urlEnv];
  if (!url) throw new Error(`Missing environment variable ${queue.urlEnv}`);
  return url;
};
