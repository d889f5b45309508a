import { lazySchema } from '../platform/lazy-schema';
import type { OperationContract } from '../api/operation';
import type { OperationIdOfGroup } from '../routes';
import { maxDecodedBodyBytes, maxRequestBodyBytes } from '../platform/request-body';
import { currentYearNote, identifier, limits, PageQuerySchema, UuidSchema, yearQueryParam } from '../platform/schemas';
import * as z from '../platform/zod';
import { importSubmissions, type ImportSubmissionEntry, type ImportSubmissionId } from '../imports/catalogue';
import { maxImportDecimals, maxImportIntegerDigits } from '../platform/money';
import { importKind } from './import-kinds';
import { saftContracts } from '../saft/contracts';
import { FetchRunPageSchema, ImportListQuerySchema, ImportPageSchema, ImportRecordSchema, ReadinessSchema } from '../imports/schemas';

const companyParams = /* @__PURE__ */ lazySchema(() => z.object({ companyId: UuidSchema }));
const accepted = { 202: { description: 'Accepted and queued: poll the import (Location) or its job until succeeded or failed', schema: ImportRecordSchema } };

const importProblems = {
  409: 'conflict: reason company_not_api_managed (the company is not bound to Api), job_in_flight (an import of this kind runs; jobId names it), or *_in_use for deletions (inUse lists what depends on each id)',
  413: `payload_too_large: more than 10,000 rows, or a body of more than ${maxRequestBodyBytes} bytes (4 MiB) as sent or ${maxDecodedBodyBytes} bytes (32 MiB) decompressed`,
  422: 'validation_failed: structural problems (errors[]: index into the request array, field, message; at most 100; nothing accepted) or reason unknown_account_codes (accountCodes lists them)',
};

const pollImport =
  'Answers **202** with the import record (`status` `queued`, `jobId`, `Location`): poll `GET /v1/companies/{companyId}/imports/{importId}` until `status` is `succeeded` or `failed`, then read `rowsFailed` and `sampleErrors` (row problems skip the row; the other rows are applied).';
const importErrors =
  'Branch on: **409** `conflict` with `reason` `company_not_api_managed` (the company is not bound to `Api`) or `job_in_flight` (wait for `jobId`, then send again); **413** `payload_too_large` (more than 10,000 rows or 4 MiB); **422** `validation_failed` (structural problems, `errors[]` with `index` and `field`; nothing accepted; an empty row array is refused too).';
const sameKey = 'The same `Idempotency-Key` answers the same import and never creates a second.';

/** What every import submission says about its body: size limits and compression. */
const bodyNotes = [
  `**Body size.** A request body may hold at most ${maxRequestBodyBytes} bytes (4 MiB) as sent: what a synchronous Lambda invocation (6 MB event) carries behind API Gateway, with room for base64 and the headers. Larger bodies answer 413 \`payload_too_large\` naming the limit.`,
  `**Compression.** Send larger imports compressed with \`Content-Encoding: gzip\` (and \`Content-Type: application/json\`): the limit above then applies to the compressed body, and the decompressed JSON may hold at most ${maxDecodedBodyBytes} bytes (32 MiB; more answers 413). Other codings answer 415 \`unsupported_media_type\`; a body that is not gzip data answers 400 \`malformed_json\`. The 10,000-row limit applies as always.`,
].join('\n\n');

const amountNotes = `**Amounts** are decimal strings (preferred): an optional minus, digits, and optionally a point with 1 to ${maxImportDecimals} digits (\`"1e2"\`, \`"+5"\`, \`" 12"\`, \`".5"\` are refused), or JSON numbers (judged on their source text), with at most ${maxImportDecimals} decimals and ${maxImportIntegerDigits} digits before the decimal point; \`taxPercentage\` is from 0 to 100; anything else is a structural 422 naming the row and field.`;

/**
 * The contract of an import submission (shared/imports/catalogue.ts): its body is the kind's, its
 * description the catalogue's (deletions are all or nothing: their errors are in their own text).
 */
const submit = (entry: ImportSubmissionEntry) => ({
  description: [
    `${entry.description} ${pollImport} ${entry.kind.endsWith('_deletions') ? '' : `${importErrors} `}${sameKey}`,
    entry.about,
    bodyNotes,
    ...(entry.withAmounts ? [amountNotes] : []),
  ].join('\n\n'),
  ...('requestExample' in entry && { requestExample: entry.requestExample as unknown }),
  params: companyParams,
  body: importKind(entry.kind).bodySchema,
  bodyParsing: 'lossless-json' as const,
  responses: accepted,
  problems: importProblems,
});

const submissionContracts = Object.fromEntries(importSubmissions.map((entry) => [entry.operationId, submit(entry)])) as Record<ImportSubmissionId, ReturnType<typeof submit>>;

const deletionByPath = <P extends z.ZodObject>(params: P) => ({ params, responses: accepted, problems: { 409: importProblems[409] } });

/** Request and response shapes of the import operations, keyed by operationId. */
export const importContracts = {
  getImportReadiness: {
    description:
      'What the books hold per year and what to import next (`nextStep`), in the recommended order: accounts, dimensions and sub-ledgers (optional), opening balances, GL lines, open items. `blockers` (e.g. `no_accounts`) and `warnings` (e.g. `unmapped_accounts`) say what needs attention.',
    params: companyParams,
    responses: { 200: { description: 'Readiness of the books', schema: ReadinessSchema } },
  },
  ...submissionContracts,
  getImport: {
    description:
      'One import: poll it until `status` is `succeeded` or `failed`. `rowsDiscovered = rowsValid + rowsFailed`; `sampleErrors` explains skipped rows; `warnings` names conditions that did not stop the import (e.g. `unbalanced_vouchers`); `failureReason` says why a failed import failed.',
    params: /* @__PURE__ */ lazySchema(() => companyParams.extend({ importId: UuidSchema })),
    responses: { 200: { description: 'The import', schema: ImportRecordSchema } },
  },
  listImports: {
    description: 'Imports of the company, newest first, filtered by `kind`, `status` and `year` (filtered pages may be shorter than `page_size`; follow `next_cursor`).',
    params: companyParams,
    query: ImportListQuerySchema,
    responses: { 200: { description: 'Imports, newest first; filters kind, status, year', schema: ImportPageSchema } },
  },
  deleteAccount: {
    description: `Deletes an imported account from the chart of a year, as an import: ${pollImport} Errors: **409** \`conflict\` with \`reason\` \`account_in_use\` when the account has lines or opening balances that year, live open items dated that year or before name it, or a bank account is mapped to it (\`inUse\` counts them, \`openItems\`, and lists the \`bankAccounts\`; retire the account by importing it with \`hidden: true\`), or \`job_in_flight\` while an import of GL lines, opening balances or open items is in flight. Nothing cascades.`,
    ...deletionByPath(/* @__PURE__ */ lazySchema(() => companyParams.extend({ accountNumber: identifier({ max: 20 }) }))),
    query: /* @__PURE__ */ lazySchema(() => z.strictObject({
      year: yearQueryParam(`Accounting year; ${currentYearNote}`).optional(),
    })),
  },
  deleteDimension: {
    ...deletionByPath(/* @__PURE__ */ lazySchema(() => companyParams.extend({ key: identifier({ max: limits.integratorId }) }))),
    description: `Deletes an imported dimension, as an import: ${pollImport} Errors: **409** \`dimension_in_use\` when live lines name it or it is the parent of another, or \`job_in_flight\` while an import of GL lines, opening balances or open items is in flight (it may name it).`,
  },
  deleteSubLedger: {
    ...deletionByPath(/* @__PURE__ */ lazySchema(() => companyParams.extend({ key: identifier({ max: limits.integratorId }) }))),
    description: `Deletes an imported sub-ledger, as an import: ${pollImport} Errors: **409** \`sub_ledger_in_use\` when lines, opening balances or open items name it, or \`job_in_flight\` while an import of those is in flight (it may name it).`,
  },
  listFetchRuns: {
    description: 'Completed GL-line and opening-balance imports (fetch runs), newest first, each with the outcome of its post-fetch engines (e.g. auto-reconciliation).',
    params: companyParams,
    query: /* @__PURE__ */ lazySchema(() => z.strictObject(PageQuerySchema.shape)),
    responses: { 200: { description: 'Fetch runs, newest first, with their post-fetch engines', schema: FetchRunPageSchema } },
  },
  ...saftContracts,
} satisfies Record<OperationIdOfGroup<'imports'>, OperationContract>;
