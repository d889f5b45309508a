import type { OperationContract } from '../api/operation';
import type { OperationIdOfGroup } from '../routes';
import { maxDecodedBodyBytes, maxRequestBodyBytes } from '../platform/request-body';
import { currentYearNote, identifier, limits, PageQuerySchema, UuidSchema, yearQueryParam } from '../platform/schemas';
import { z } from '../platform/zod';
import { importSubmissions, type ImportSubmissionId } from '../imports/catalogue';
import type { ImportKindName } from '../imports/kind';
import { importKind } from './import-kinds';
import { FetchRunPageSchema, ImportListQuerySchema, ImportPageSchema, ImportRecordSchema, ReadinessSchema } from '../imports/schemas';

const companyParams = z.object({ companyId: UuidSchema });
const accepted = { 202: { description: 'Accepted and queued: poll the import (Location) or its job until succeeded or failed', schema: ImportRecordSchema } };

const importProblems = {
  409: 'conflict: reason company_not_api_managed (the company is not bound to Api), job_in_flight (an import of this kind runs; jobId names it), or *_in_use for deletions (inUse lists what depends on each id)',
  413: `payload_too_large: more than 10,000 rows, or a body of more than ${maxRequestBodyBytes} bytes (4 MiB) as sent or ${maxDecodedBodyBytes} bytes (32 MiB) decompressed`,
  422: 'validation_failed: structural problems (errors[]: index into the request array, field, message; at most 100; nothing accepted) or reason unknown_account_codes (accountCodes lists them)',
};

/** The contract of an import submission (shared/imports/catalogue.ts): its body is the kind's. */
const submit = (name: ImportKindName) => ({
  params: companyParams,
  body: importKind(name).bodySchema,
  bodyParsing: 'lossless-json' as const,
  responses: accepted,
  problems: importProblems,
});

const submissionContracts = Object.fromEntries(importSubmissions.map((entry) => [entry.operationId, submit(entry.kind)])) as Record<ImportSubmissionId, ReturnType<typeof submit>>;

const deletionByPath = <P extends z.ZodObject>(params: P) => ({ params, responses: accepted, problems: { 409: importProblems[409] } });

/** Request and response shapes of the import operations, keyed by operationId. */
export const importContracts = {
  getImportReadiness: { params: companyParams, responses: { 200: { description: 'Readiness of the books', schema: ReadinessSchema } } },
  ...submissionContracts,
  getImport: {
    params: companyParams.extend({ importId: UuidSchema }),
    responses: { 200: { description: 'The import', schema: ImportRecordSchema } },
  },
  listImports: {
    params: companyParams,
    query: ImportListQuerySchema,
    responses: { 200: { description: 'Imports, newest first; filters kind, status, year', schema: ImportPageSchema } },
  },
  deleteAccount: {
    ...deletionByPath(companyParams.extend({ accountNumber: identifier({ max: 20 }) })),
    query: z.strictObject({
      year: yearQueryParam(`Accounting year; ${currentYearNote}`).optional(),
    }),
  },
  deleteDimension: deletionByPath(companyParams.extend({ key: identifier({ max: limits.integratorId }) })),
  deleteSubLedger: deletionByPath(companyParams.extend({ key: identifier({ max: limits.integratorId }) })),
  listFetchRuns: {
    params: companyParams,
    query: z.strictObject(PageQuerySchema.shape),
    responses: { 200: { description: 'Fetch runs, newest first, with their post-fetch engines', schema: FetchRunPageSchema } },
  },
} satisfies Record<OperationIdOfGroup<'imports'>, OperationContract>;
