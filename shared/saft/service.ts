import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { companyRepository, type CompanyRecord } from '../companies/repository';
import type { Page } from '../db/query-page';
import { ConditionsFailed, unitOfWork } from '../db/unit-of-work';
import { presignUpload, readUpload } from '../documents/storage';
import { cursorCaller, type Principal } from '../identity/principal';
import type { ImportLane } from '../imports/kind';
import { companyNotApiManagedReason } from '../imports/completion';
import { companyNotApiManaged, companyRefusal, importsQueueUrl } from '../imports/pipeline';
import { jobRepository } from '../jobs/repository';
import { bucketName, s3, sqs } from '../platform/aws';
import { ProblemError, problems } from '../platform/problem';
import { checkHeader } from './header';
import { field, parseSaft, SaftFileError, type SaftSink } from './parser';
import { endSaftJob, saftLane } from './completion';
import { saftRepository, toSaftImport, type SaftItem } from './repository';
import type { SaftImport, SaftReport } from './schemas';

/** The lanes a SAF-T import writes through; they must be free when it starts. Its own lane keeps one SAF-T import per company. */
export const saftLanes: readonly ImportLane[] = ['accounts', 'dimensions', 'sub_ledgers', 'opening_balances', 'general_ledger_lines'];
export { saftLane };
const uploadSeconds = 15 * 60;

const notApiManaged = companyNotApiManaged;

export const saftProblems = {
  uploadMissing: () => new ProblemError({ status: 409, error: 'upload_missing', title: 'Upload missing', detail: 'Nothing has been uploaded to the upload URL yet. PUT the file to it, then start again.' }),
  uploadMismatch: (field: 'sizeBytes' | 'sha256', message: string) =>
    new ProblemError({
      status: 422,
      error: 'upload_mismatch',
      title: 'Upload does not match the declaration',
      detail: `The uploaded bytes do not match the declaration: ${field} ${message}. Nothing was imported; PUT the declared bytes and start again.`,
      errors: [{ field, message }],
    }),
  invalidFile: (error: SaftFileError) =>
    new ProblemError({
      status: 422,
      error: 'validation_failed',
      title: 'Not a SAF-T Financial file',
      detail: `${error.message}${error.line ? ` (line ${error.line})` : ''} Nothing was imported.`,
      reason: `saft_${error.code}`,
    }),
  organizationNumberMismatch: (inFile: string | undefined, company: string | null) =>
    new ProblemError({
      status: 422,
      error: 'validation_failed',
      title: 'Organization number differs',
      detail: `The file is for organization number ${inFile ?? '(none)'}, the company has ${company ?? '(none)'}. Start with allowOrganizationNumberMismatch true to import it anyway.`,
      reason: 'organization_number_mismatch',
    }),
};

/** The stored file as a stream of bytes. */
export const readSaftObject = async (key: string): Promise<Readable> => {
  const response = await s3().send(new GetObjectCommand({ Bucket: bucketName(), Key: key }));
  return response.Body as Readable;
};

/** Declares a SAF-T upload: the record (awaiting_upload) and a presigned PUT bound to size and checksum. */
export const createSaftImport = async (company: CompanyRecord, body: { fileName: string; sizeBytes: number; sha256: string }) => {
  if (company.accountingSystem !== 'Api') throw notApiManaged(company);
  const id = randomUUID();
  const at = new Date().toISOString();
  // Under imports/: the import payload grants (functions and workers) cover it.
  const objectKey = `imports/saft/${company.id}/${id}.xml`;
  const item: SaftItem = {
    id,
    companyId: company.id,
    status: 'awaiting_upload',
    fileName: body.fileName,
    sizeBytes: body.sizeBytes,
    sha256: body.sha256,
    jobId: null,
    failureReason: null,
    problems: [],
    importIds: [],
    report: null,
    createdAt: at,
    updatedAt: at,
    completedAt: null,
    objectKey,
    allowOrganizationNumberMismatch: false,
    deleteMissing: false,
    rootOrganizationId: company.rootOrganizationId,
    organizationPath: company.organizationPath,
  };
  const upload = await presignUpload(objectKey, { contentType: 'application/xml', sizeBytes: body.sizeBytes, sha256: body.sha256 }, uploadSeconds);
  await saftRepository.create(item);
  return { ...toSaftImport(item), upload: { url: upload.url, method: 'PUT' as const, headers: upload.headers, expiresAt: new Date(Date.parse(at) + uploadSeconds * 1000).toISOString() } };
};

export const getSaftImport = async (companyId: string, id: string): Promise<SaftItem> => {
  const item = await saftRepository.get(id);
  if (!item || item.companyId !== companyId) throw problems.notFound('SAF-T import');
  return item;
};

export const listSaftImports = async (principal: Principal, companyId: string, query: { cursor?: string; page_size: number }): Promise<Page<SaftImport>> => {
  const page = await saftRepository.listOfCompany(companyId, {
    pageSize: query.page_size,
    ...(query.cursor && { cursor: query.cursor }),
    binding: { ...cursorCaller(principal, 'listSaftImports'), filters: { companyId } },
  });
  return { ...page, data: page.data.map(toSaftImport) };
};

/** A sink that reads the header only. */
const headerOnly = (): SaftSink => ({
  header: () => undefined,
  account: () => undefined,
  customer: () => undefined,
  supplier: () => undefined,
  analysisType: () => undefined,
  taxTableEntry: () => undefined,
  transaction: () => undefined,
  controlTotals: () => undefined,
  notRead: () => undefined,
  recordChild: () => undefined,
});

/**
 * Starts a SAF-T import, in the order an integrator meets the rules: 409 company_not_api_managed
 * -> 409 upload_missing -> 422 upload_mismatch -> 422 not a SAF-T Financial file (read up to the
 * end of its header: XML, no DTD, namespace, version) -> 422 organization_number_mismatch ->
 * 409 job_in_flight (a lane it writes through is busy) -> 202 queued. Starting again answers the record.
 */
export const startSaftImport = async (company: CompanyRecord, id: string, options: { allowOrganizationNumberMismatch?: boolean; deleteMissing?: boolean }): Promise<SaftImport> => {
  if (company.accountingSystem !== 'Api') throw notApiManaged(company);
  const item = await getSaftImport(company.id, id);
  if (item.status !== 'awaiting_upload') return toSaftImport(item);
  const upload = await readUpload(item.objectKey, item.sizeBytes);
  if (!upload) throw saftProblems.uploadMissing();
  if (upload.size !== item.sizeBytes) throw saftProblems.uploadMismatch('sizeBytes', `is ${upload.size} bytes, declared ${item.sizeBytes}`);
  if (upload.sha256 !== item.sha256) throw saftProblems.uploadMismatch('sha256', `of the stored bytes is ${upload.sha256}, declared ${item.sha256}`);

  const stream = await readSaftObject(item.objectKey);
  let organizationNumber: string | undefined;
  try {
    const { header } = await parseSaft(stream, headerOnly(), { headerOnly: true });
    checkHeader(header);
    organizationNumber = field(header, 'Company/RegistrationNumber');
  } catch (error) {
    if (error instanceof SaftFileError) throw saftProblems.invalidFile(error);
    throw error;
  } finally {
    stream.destroy();
  }
  const allow = options.allowOrganizationNumberMismatch ?? false;
  const digits = (text: string | null | undefined) => (text ?? '').replace(/\D/g, '');
  if (!allow && digits(organizationNumber) !== digits(company.organizationNumber)) throw saftProblems.organizationNumberMismatch(organizationNumber, company.organizationNumber);

  const jobId = randomUUID();
  const now = Date.now();
  const at = new Date(now).toISOString();
  let work = unitOfWork().add('laneLock', jobRepository.takeLaneWrite(company.id, saftLane, jobId, id, now));
  for (const lane of saftLanes) work = work.add(`lane:${lane}`, jobRepository.laneFreeCheck(company.id, lane, now));
  work = work
    .add(
      'job',
      jobRepository.createWrite(
        {
          id: jobId,
          type: 'import:saft',
          scope: { companyId: company.id, lane: saftLane },
          status: 'queued',
          createdAt: at,
          startedAt: null,
          finishedAt: null,
          resultUrl: `/v1/companies/${company.id}/imports/saft/${id}`,
          error: null,
          companyId: company.id,
        },
        { rootOrganizationId: company.rootOrganizationId, organizationPath: company.organizationPath },
      ),
    )
    .add('saft', saftRepository.startWrite(id, jobId, { allowOrganizationNumberMismatch: allow, deleteMissing: options.deleteMissing ?? false }, at))
    // Live and bound to Api at the commit, not only when the request read the company.
    .add('company', companyRepository.apiManagedCheck(company.id));
  try {
    await work.commit();
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    if (error.names.includes('saft')) return toSaftImport(await getSaftImport(company.id, id)); // started meanwhile
    if (error.names.includes('company')) throw (await companyRefusal(company.id)) ?? error;
    const busy = error.names.find((name) => name === 'laneLock' || name.startsWith('lane:'));
    const holder = busy ? await jobRepository.laneHolder(company.id, busy === 'laneLock' ? saftLane : busy.slice('lane:'.length)) : undefined;
    throw problems.conflict(`An import runs for the company and holds a lane this import writes through; wait for job ${holder?.jobId}.`, {
      reason: 'job_in_flight',
      ...(holder && { jobId: holder.jobId }),
    });
  }
  try {
    await sqs().send(new SendMessageCommand({ QueueUrl: importsQueueUrl(), MessageBody: JSON.stringify({ saftImportId: id }) }));
  } catch (error) {
    // Not queued, so no worker will run it: the file waits for a start again, and the job ends saying why.
    const at = new Date().toISOString();
    await endSaftJob(
      unitOfWork().add('saft', saftRepository.unstartWrite(id, jobId, at)),
      { companyId: company.id, importId: id, jobId },
      { status: 'failed', error: { code: 'internal_error', message: 'The import could not be queued; start it again.' } },
      at,
    ).commit();
    throw error;
  }
  return toSaftImport(await getSaftImport(company.id, id));
};

/** Why a SAF-T import whose company was deleted before it finished failed (failureReason company_deleted). */
export const saftCompanyDeletedProblem = { line: null, message: 'The company was deleted while the import ran; nothing was imported after that, and the import did not succeed.' };

/** Why a SAF-T import whose company was moved off Api before it finished failed (failureReason company_not_api_managed). */
export const saftNotApiManagedProblem = {
  line: null,
  message: 'The company was moved off the Api accounting system while the import ran; nothing was imported after that, and the import did not succeed.',
};

/**
 * A SAF-T import ends, once: succeeded or failed, with its job, the job's event and its lane. A
 * success checks that the company is live and bound to Api; when it was deleted meanwhile it fails
 * company_deleted, when moved off Api company_not_api_managed.
 */
export const finishSaftImport = async (
  item: SaftItem,
  ending: { status: 'succeeded' | 'failed'; failureReason: string | null; problems: SaftImport['problems']; report?: SaftReport },
): Promise<void> => {
  const at = new Date().toISOString();
  const jobError = ending.status === 'failed' ? { code: ending.failureReason ?? 'failed', message: (ending.problems[0]?.message ?? 'The SAF-T import failed.').slice(0, 2000) } : null;
  const work = endSaftJob(unitOfWork().add('saft', saftRepository.finishWrite(item.id, ending, at)), { companyId: item.companyId, importId: item.id, jobId: item.jobId! }, { status: ending.status, error: jobError }, at);
  if (ending.status === 'succeeded') work.add('company', companyRepository.apiManagedCheck(item.companyId));
  try {
    await work.commit();
  } catch (error) {
    if (error instanceof ConditionsFailed && error.names.includes('laneLock') && !error.names.includes('company')) {
      // Its lease ran out and another import holds the lane now: end it without releasing that one's lane.
      const again = endSaftJob(unitOfWork().add('saft', saftRepository.finishWrite(item.id, ending, at)), { companyId: item.companyId, importId: item.id, jobId: item.jobId! }, { status: ending.status, error: jobError }, at, { releaseLane: false });
      if (ending.status === 'succeeded') again.add('company', companyRepository.apiManagedCheck(item.companyId));
      return again.commit();
    }
    if (!(error instanceof ConditionsFailed) || !error.names.includes('company')) throw error;
    const deleted = !(await companyRepository.getLive(item.companyId));
    const failure = deleted
      ? { failureReason: 'company_deleted', problems: [saftCompanyDeletedProblem] }
      : { failureReason: companyNotApiManagedReason, problems: [saftNotApiManagedProblem] };
    await finishSaftImport(item, { status: 'failed', ...failure, ...(ending.report && { report: ending.report }) });
  }
};
