import type { OperationContract } from '../api/operation';
import { currentYearNote, PageQuerySchema, UuidSchema, yearQueryParam } from '../platform/schemas';
import { z } from '../platform/zod';
import type { ImportKindName } from './kind';
import { importKind } from './registry';
import { FetchRunPageSchema, ImportListQuerySchema, ImportPageSchema, ImportRecordSchema, ReadinessSchema } from './schemas';

const companyParams = z.object({ companyId: UuidSchema });
const accepted = { 202: { description: 'Accepted and queued: poll the import (Location) or its job until succeeded or failed', schema: ImportRecordSchema } };

const importProblems = {
  409: 'conflict: reason company_not_api_managed (the company is not bound to Api), job_in_flight (an import of this kind runs; jobId names it), or *_in_use for deletions (inUse lists what depends on each id)',
  413: 'payload_too_large: more than 10,000 rows',
  422: 'validation_failed: structural problems (errors[]: index into the request array, field, message; at most 100; nothing accepted) or reason unknown_account_codes (accountCodes lists them)',
};

const submit = (name: ImportKindName) => ({
  params: companyParams,
  body: importKind(name).bodySchema,
  bodyParsing: 'lossless-json' as const,
  responses: accepted,
  problems: importProblems,
});

const deletionByPath = <P extends z.ZodObject>(params: P) => ({ params, responses: accepted, problems: { 409: importProblems[409] } });

/** Request and response shapes of the import operations, keyed by operationId. */
export const importContracts = {
  getImportReadiness: { params: companyParams, responses: { 200: { description: 'Readiness of the books', schema: ReadinessSchema } } },
  importAccounts: submit('accounts'),
  importDimensions: submit('dimensions'),
  importSubLedgers: submit('sub_ledgers'),
  importOpeningBalances: submit('opening_balances'),
  importGeneralLedgerLines: submit('general_ledger_lines'),
  importOpenItems: submit('open_items'),
  deleteGeneralLedgerLines: submit('general_ledger_line_deletions'),
  deleteOpeningBalances: submit('opening_balance_deletions'),
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
    ...deletionByPath(companyParams.extend({ accountNumber: z.string().min(1).max(20) })),
    query: z.strictObject({
      year: yearQueryParam(`Accounting year; ${currentYearNote}`).optional(),
    }),
  },
  deleteDimension: deletionByPath(companyParams.extend({ key: z.string().min(1).max(200) })),
  deleteSubLedger: deletionByPath(companyParams.extend({ key: z.string().min(1).max(200) })),
  listFetchRuns: {
    params: companyParams,
    query: z.strictObject(PageQuerySchema.shape),
    responses: { 200: { description: 'Fetch runs, newest first, with their post-fetch engines', schema: FetchRunPageSchema } },
  },
} satisfies Record<string, OperationContract>;
