import { lazySchema } from '../platform/lazy-schema';
import { CountSchema, limits, pageOf, PageQuerySchema, textOut, TimestampSchema, UuidSchema, YearSchema, yearQueryParam } from '../platform/schemas';
import * as z from '../platform/zod';
import { maxUnknownListed } from './fields';
import { ImportWarningSchema } from './warnings';

export const importKindNames = [
  'accounts',
  'dimensions',
  'sub_ledgers',
  'opening_balances',
  'general_ledger_lines',
  'open_items',
  'general_ledger_line_deletions',
  'opening_balance_deletions',
  'account_deletion',
  'dimension_deletion',
  'sub_ledger_deletion',
] as const;

export const importStatuses = ['queued', 'succeeded', 'failed'] as const;
export const fetchCompletionStatuses = ['completed', 'failed', 'ignored', 'error', 'unreported'] as const;

const instant = TimestampSchema;
const count = CountSchema;

export const FetchCompletionSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    status: z.enum(fetchCompletionStatuses).openapi({ description: 'completed, failed, ignored, error or unreported (see the schema description)' }),
    failureType: textOut(limits.code).optional().openapi({ description: 'failed: post_fetch_engine_failed' }),
    fetchRunId: textOut(limits.serviceId).nullable().openapi({ description: 'The fetch run recorded for the import, or null' }),
    recordedAt: instant.nullable().openapi({ description: 'When the fetch run was recorded, or null; UTC timestamp (ISO 8601)' }),
    message: textOut(limits.message).optional().openapi({ description: 'More about an error or failure, for people' }),
  })
  .openapi('FetchCompletion', {
    description:
      'Additive (GL-line and opening-balance imports): `completed` when the fetch was recorded and the post-fetch engines queued or ran; `failed` with failureType `post_fetch_engine_failed` when an engine failed (it is retried); `error` when recording failed (the import itself still succeeded); `ignored` for an import that changed nothing; `unreported` until the import finishes.',
  }));

export const ImportRecordSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    id: UuidSchema.openapi({ description: 'The import (UUID); poll GET .../imports/{importId}' }),
    kind: z.enum(importKindNames).openapi({ description: 'What was imported' }),
    year: YearSchema.nullable().openapi({ description: 'Accounting year of the import; null for kinds without one (dimensions, sub-ledgers, open items)' }),
    mode: textOut(limits.code).openapi({ description: 'How the import treats rows it does not hold (e.g. incremental)' }),
    status: z.enum(importStatuses).openapi({ description: 'queued until the worker has applied every row, then succeeded or failed' }),
    jobId: UuidSchema,
    datasetId: UuidSchema,
    lineCount: count.openapi({ description: 'Rows in the request' }),
    rowsDiscovered: count.openapi({ description: 'Rows read so far: rowsValid + rowsFailed (the request\'s row count while queued)' }),
    rowsValid: count.openapi({ description: 'Rows that passed validation: inserted + updated + deleted + unknown' }),
    rowsFailed: count.openapi({ description: 'Rows skipped, each explained in sampleErrors (first 100)' }),
    rowsInserted: count.openapi({ description: 'Rows that created a new item' }),
    rowsUpdated: count.openapi({ description: 'Rows that changed an existing item (its previous version goes to history)' }),
    rowsDeleted: count.nullable().openapi({ description: 'Items deleted or retired; null for kinds that delete nothing' }),
    sampleErrors: z.array(textOut(limits.message)).max(100).openapi({ description: 'Up to 100 row problems as "line N: message" (N counts from 1)' }),
    warnings: z.array(ImportWarningSchema).max(10).openapi({ description: 'Conditions that do not stop the import, e.g. `unbalanced_vouchers` (GL lines of one transactionId in the request that do not sum to zero); empty when there are none' }),
    failureReason: textOut(limits.code).nullable().openapi({
      description:
        'Why a failed import failed: invalid_rows (open items: see sampleErrors; nothing applied), lines_in_use / opening_balances_in_use (a deletion: rows put in reconciliation groups after it was accepted; nothing deleted, see sampleErrors), rejected_by_database (the database refused a row; not retried), invalid_payload (the stored request no longer validates), lane_taken (it waited past its lease before it ran and another import of its kind took its place), internal_error (retried, then given up), company_deleted (the company was deleted before the import finished: nothing was applied after that, rows of earlier chunks stay; readable once the company is restored), company_not_api_managed (the company was moved off the Api accounting system before the import finished: nothing was applied after that, rows of earlier chunks stay). The job\'s error.message says more.',
    }),
    result: z
      .object({
        unknown: z.array(textOut(limits.integratorId)).max(maxUnknownListed).openapi({ description: 'Ids the ledger does not have (not an error): the first 1,000, in request order' }),
        unknownCount: count.openapi({ description: 'How many ids the ledger does not have: the length of unknown, or more when over 1,000' }),
      })
      .optional()
      .openapi({ description: 'Deletion imports and open items: ids (open items: itemKeys of sourceDeleted rows) the ledger does not have (not an error)' }),
    fetchCompletion: FetchCompletionSchema.optional(),
    createdAt: instant,
    updatedAt: instant,
    completedAt: instant.nullable().openapi({ description: 'When the import succeeded or failed; null while queued; UTC timestamp (ISO 8601)' }),
  })
  .openapi('ImportRecord', {
    description:
      'rowsDiscovered = rowsValid + rowsFailed; rowsValid = rowsInserted + rowsUpdated + (rows of the request deleted) + result.unknownCount. rowsDeleted also counts items retired by snapshot modes.',
  }));

export const ImportPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(ImportRecordSchema, 'ImportPage'));

export const ImportListQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject({
  ...PageQuerySchema.shape,
  kind: z.enum(importKindNames).optional(),
  status: z.enum(importStatuses).optional(),
  year: yearQueryParam('Only imports of this accounting year').optional(),
}));

export const ReadinessYearSchema = /* @__PURE__ */ lazySchema(() => z.object({
  year: YearSchema.openapi({ description: 'Accounting year' }),
  current: z.boolean().openapi({ description: 'true for the current accounting year' }),
  accounts: count.openapi({ description: 'Accounts in the chart of the year' }),
  mappedAccounts: count.openapi({ description: 'Accounts mapped to a standard account (mapping is done in the application)' }),
  openingBalances: count.openapi({ description: 'Opening balances of the year' }),
  generalLedgerLines: count.openapi({ description: 'GL lines of the year' }),
  lastImportAt: instant.nullable().openapi({ description: 'When the year last changed through an import, or null; UTC timestamp (ISO 8601)' }),
}));

export const ReadinessSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    apiManaged: z.boolean().openapi({ description: 'true when the company is bound to Api and takes imports' }),
    accountingSystem: textOut(limits.code).openapi({ description: 'The system that owns the books' }),
    currentYear: YearSchema.openapi({ description: 'The current accounting year: the latest year with a chart, else this calendar year' }),
    years: z.array(ReadinessYearSchema).max(1100).openapi({ description: 'What the books hold per accounting year' }),
    dimensions: count.openapi({ description: 'Dimensions of the company' }),
    subLedgers: count.openapi({ description: 'Sub-ledgers (customers and suppliers) of the company' }),
    blockers: z.array(textOut(limits.code)).max(20).openapi({ description: 'What stops the books from being used, e.g. no_accounts' }),
    warnings: z.array(textOut(limits.code)).max(20).openapi({ description: 'What deserves attention, e.g. unmapped_accounts' }),
    nextStep: textOut(limits.code).openapi({
      description:
        'company_not_api_managed, import_accounts, map_accounts, import_opening_balances, import_general_ledger_lines, import_open_items or up_to_date (the recommended order)',
    }),
  })
  .openapi('Readiness', { description: 'What the books of the company hold and what to import next' }));

export const FetchRunSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    id: textOut(limits.serviceId).openapi({ description: 'The fetch run' }),
    importId: UuidSchema.openapi({ description: 'The import that completed the fetch' }),
    kind: z.enum(importKindNames).openapi({ description: 'general_ledger_lines or opening_balances' }),
    year: YearSchema.nullable().openapi({ description: 'Accounting year of the import' }),
    completedAt: instant.openapi({ description: 'When the import completed; UTC timestamp (ISO 8601)' }),
    recordedAt: instant.openapi({ description: 'When the fetch completion was recorded' }),
    postFetchCompletedAt: instant.nullable().optional().openapi({ description: 'When the post-fetch engines finished (absent while queued)' }),
    engines: z
      .array(z.object({ name: textOut(limits.code).openapi({ description: 'The engine' }), status: z.enum(['queued', 'completed', 'failed']).openapi({ description: 'queued, completed or failed' }), finishedAt: instant.nullable().openapi({ description: 'When the engine finished, or null; UTC timestamp (ISO 8601)' }), detail: textOut(limits.message).nullable().openapi({ description: 'What the engine did or why it failed, or null' }) }))
      .max(20).openapi({ description: 'The post-fetch engines run after the import (e.g. auto-reconciliation)' }),
  })
  .openapi('FetchRun', { description: 'A completed GL-line or opening-balance import with its post-fetch engines' }));

export const FetchRunPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(FetchRunSchema, 'FetchRunPage'));

export type ImportRecord = z.infer<typeof ImportRecordSchema>;
export type Readiness = z.infer<typeof ReadinessSchema>;
export type FetchRun = z.infer<typeof FetchRunSchema>;
