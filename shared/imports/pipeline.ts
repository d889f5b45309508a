import { randomUUID } from 'node:crypto';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { stringify as stringifyLossless } from 'lossless-json';
import { companyRepository, type CompanyRecord } from '../companies/repository';
import { ConditionsFailed, unitOfWork } from '../db/unit-of-work';
import { outboxEventWrite } from '../outbox/repository';
import { callerKey, type Principal } from '../identity/principal';
import { jobRepository, type JobPlacement } from '../jobs/repository';
import { bucketName, s3, sqs } from '../platform/aws';
import { logger } from '../platform/logger';
import { ProblemError, problems } from '../platform/problem';
import { toFieldErrors } from '../platform/validation';
import { queueUrl } from '../queues';
import { companyNotApiManagedReason, failImport } from './completion';
import { maxImportRows } from './fields';
import { importJobType, type ImportKind } from './kind';
import { emptyProgress, importRepository, toImportRecord, type ImportItem, type ImportKeyEntry } from './repository';
import type { ImportRecord } from './schemas';

/**
 * Accepting an import (the synchronous part), in the order an integrator meets the rules:
 * (the runner: 403 not a system client, 404 company) -> [with an Idempotency-Key that accepted an
 * import before: 202 that import, or 422 idempotency_key_reused] -> 409 company_not_api_managed -> 413 more than
 * 10,000 rows -> 422 structure (errors[], nothing accepted) -> the kind's checks against stored
 * data (422 unknown_account_codes, 409 *_in_use) -> 409 job_in_flight -> 202 queued.
 * The payload goes to S3 (an SQS message cannot hold 10,000 rows) and a message to the queue.
 */
export const submitImport = async (principal: Principal, company: CompanyRecord, kind: ImportKind, body: unknown): Promise<ImportRecord> =>
  (await submitKeyedImport(principal, company, kind, body)).record;

/** The request's Idempotency-Key and the fingerprint of the request, as the runner keeps them (OperationRequest.idempotency). */
export interface ImportRequestKey {
  key: string;
  fingerprint: string;
}

/** An accepted import; `replayed` when the request's Idempotency-Key had accepted it before (no new import). */
export interface SubmittedImport {
  record: ImportRecord;
  replayed: boolean;
}

/** The import's Idempotency-Key as kept beside it: the caller's idempotency scope (callerKey, as the runner's records), the key, the fingerprint. */
export type ImportIdempotency = Pick<ImportKeyEntry, 'caller' | 'idempotencyKey' | 'fingerprint'>;

/**
 * submitImport with the request's Idempotency-Key (spec: Import rules 6, for good). A key that
 * accepted an import before answers it as it is now, before any other rule (the books may have
 * moved on since): the same request 202 with that import, another request 422
 * idempotency_key_reused. The runner's request-control record answers a retry within 24 h; this
 * covers the key after that record is gone. Otherwise the key is written with the import, in its
 * accept transaction (acceptImport).
 */
export const submitKeyedImport = async (principal: Principal, company: CompanyRecord, kind: ImportKind, body: unknown, requestKey?: ImportRequestKey): Promise<SubmittedImport> => {
  const idempotency: ImportIdempotency | undefined = requestKey && { caller: callerKey(principal), idempotencyKey: requestKey.key, fingerprint: requestKey.fingerprint };
  if (idempotency) {
    const earlier = await importOfKey(idempotency);
    if (earlier) return { record: earlier, replayed: true };
  }
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
  const placement = { rootOrganizationId: company.rootOrganizationId, organizationPath: company.organizationPath };
  return acceptKeyedImport(companyId, placement, kind, parsed.data, body, { ...(idempotency && { idempotency }) });
};

/**
 * The import an Idempotency-Key accepted, as it is now; undefined when the key accepted none.
 * Another request with the key: 422 idempotency_key_reused.
 */
const importOfKey = async (idempotency: ImportIdempotency): Promise<ImportRecord | undefined> => {
  const entry = await importRepository.idempotencyKeyEntry(idempotency.caller, idempotency.idempotencyKey);
  if (!entry) return undefined;
  if (entry.fingerprint !== idempotency.fingerprint) throw problems.idempotencyKeyReused();
  const item = await importRepository.get(entry.importId);
  // Written in one transaction with the key: an import the key names exists.
  if (!item) throw new Error(`Import ${entry.importId} of an Idempotency-Key is missing`);
  return toImportRecord(item);
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
): Promise<ImportRecord> => (await acceptKeyedImport(companyId, placement, kind, validBody, body, options)).record;

/**
 * acceptImport with the request's Idempotency-Key, kept for good in the same transaction as the
 * import (a key that accepted an import meanwhile refuses it: the answer is that import, or 422).
 */
export const acceptKeyedImport = async (
  companyId: string,
  placement: JobPlacement,
  kind: ImportKind,
  validBody: unknown,
  body: unknown,
  options: { importId?: string; enqueue?: boolean; idempotency?: ImportIdempotency } = {},
): Promise<SubmittedImport> => {
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
      const work = unitOfWork()
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
        .add('company', companyRepository.apiManagedCheck(companyId));
      // The key, never to accept a second import: all or nothing with the import.
      if (options.idempotency) work.add('idempotencyKey', importRepository.idempotencyKeyWrite({ ...options.idempotency, companyId, importId, createdAt: at }));
      await work.commit();
      break;
    } catch (error) {
      if (error instanceof ConditionsFailed && options.idempotency && error.names.includes('idempotencyKey')) {
        await s3().send(new DeleteObjectCommand({ Bucket: bucketName(), Key: payloadKey }));
        const earlier = await importOfKey(options.idempotency);
        if (earlier) return { record: earlier, replayed: true };
        throw error;
      }
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

  if (options.enqueue === false) return { record: toImportRecord(item), replayed: false };
  try {
    await sqs().send(new SendMessageCommand({ QueueUrl: importsQueueUrl(), MessageBody: JSON.stringify({ importId }) }));
  } catch (error) {
    await failImport(item, 'internal_error', 'The import could not be queued; submit it again.');
    // The answer is a 500 (the runner releases its record): the key may submit it again.
    if (options.idempotency) {
      await importRepository.releaseIdempotencyKey(options.idempotency.caller, options.idempotency.idempotencyKey, importId).catch((releaseError: unknown) =>
        logger.error('The Idempotency-Key of an import that could not be queued was not released', { error: releaseError as Error, importId }),
      );
    }
    throw error;
  }
  return { record: toImportRecord(item), replayed: false };
};

export const importsQueueUrl = (): string => queueUrl('imports');
