import type { OperationContract } from '../api/operation';
import { maxImportDecimals, maxImportIntegerDigits } from '../platform/money';
import { maxDecodedBodyBytes, maxRequestBodyBytes } from '../platform/request-body';
import { currentYearNote, identifier, limits, PageQuerySchema, UuidSchema, yearQueryParam } from '../platform/schemas';
import { z } from '../platform/zod';
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

/** What every import operation says about its body: size limits and compression. */
const bodyNotes = [
  `**Body size.** A request body may hold at most ${maxRequestBodyBytes} bytes (4 MiB) as sent: what a synchronous Lambda invocation (6 MB event) carries behind API Gateway, with room for base64 and the headers. Larger bodies answer 413 \`payload_too_large\` naming the limit.`,
  `**Compression.** Send larger imports compressed with \`Content-Encoding: gzip\` (and \`Content-Type: application/json\`): the limit above then applies to the compressed body, and the decompressed JSON may hold at most ${maxDecodedBodyBytes} bytes (32 MiB; more answers 413). Other codings answer 415 \`unsupported_media_type\`; a body that is not gzip data answers 400 \`malformed_json\`. The 10,000-row limit applies as always.`,
].join('\n\n');

const amountNotes = `**Amounts** are decimal strings (preferred): an optional minus, digits, and optionally a point with 1 to ${maxImportDecimals} digits (\`"1e2"\`, \`"+5"\`, \`" 12"\`, \`".5"\` are refused), or JSON numbers (judged on their source text), with at most ${maxImportDecimals} decimals and ${maxImportIntegerDigits} digits before the decimal point; \`taxPercentage\` is from 0 to 100; anything else is a structural 422 naming the row and field.`;

const submit = (name: ImportKindName, about: string, withAmounts = false) => ({
  description: [about, bodyNotes, ...(withAmounts ? [amountNotes] : [])].join('\n\n'),
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
  importAccounts: submit('accounts', 'Accounts are merged by accountCode within the year; hidden true retires one.'),
  importDimensions: submit('dimensions', 'Dimensions are merged by key.'),
  importSubLedgers: submit('sub_ledgers', 'Customers and suppliers are merged by key.'),
  importOpeningBalances: submit(
    'opening_balances',
    'Opening balances are merged by id within the year. A hidden account takes no new opening balance (the row is skipped, see sampleErrors), but one already on it is corrected in place.',
    true,
  ),
  importGeneralLedgerLines: submit(
    'general_ledger_lines',
    'Lines are merged by id within the year: a re-sent id updates the line in place and keeps the earlier version in history. A hidden account takes no new line (the row is skipped, see sampleErrors), but a line already on it is corrected in place.',
    true,
  ),
  importOpenItems: submit('open_items', 'All or nothing: one invalid item fails the whole import and nothing is applied.', true),
  deleteGeneralLedgerLines: submit('general_ledger_line_deletions', 'All or nothing: reconciled lines answer 409 lines_in_use; unknown ids are listed under result.unknown.'),
  deleteOpeningBalances: submit('opening_balance_deletions', 'All or nothing: reconciled opening balances answer 409 opening_balances_in_use; unknown ids are listed under result.unknown.'),
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
} satisfies Record<string, OperationContract>;
