import { CountSchema, limits, pageOf, PageQuerySchema, textOut, TimestampSchema, UuidSchema, YearSchema, yearQueryParam } from '../platform/schemas';
import * as z from '../platform/zod';
import { maxImportRows } from './fields';
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

export const FetchCompletionSchema = z
  .object({
    status: z.enum(fetchCompletionStatuses),
    failureType: textOut(limits.code).optional(),
    fetchRunId: textOut(limits.serviceId).nullable(),
    recordedAt: instant.nullable(),
    message: textOut(limits.message).optional(),
  })
  .openapi('FetchCompletion', {
    description:
      'Additive (GL-line and opening-balance imports): `completed` when the fetch was recorded and the post-fetch engines queued or ran; `failed` with failureType `post_fetch_engine_failed` when an engine failed (it is retried); `error` when recording failed (the import itself still succeeded); `ignored` for an import that changed nothing; `unreported` until the import finishes.',
  });

export const ImportRecordSchema = z
  .object({
    id: UuidSchema,
    kind: z.enum(importKindNames),
    year: YearSchema.nullable(),
    mode: textOut(limits.code),
    status: z.enum(importStatuses),
    jobId: UuidSchema,
    datasetId: UuidSchema,
    lineCount: count,
    rowsDiscovered: count,
    rowsValid: count,
    rowsFailed: count,
    rowsInserted: count,
    rowsUpdated: count,
    rowsDeleted: count.nullable(),
    sampleErrors: z.array(textOut(limits.message)).max(100),
    warnings: z.array(ImportWarningSchema).max(10).openapi({ description: 'Conditions that do not stop the import, e.g. `unbalanced_vouchers` (GL lines of one transactionId in the request that do not sum to zero); empty when there are none' }),
    failureReason: textOut(limits.code).nullable().openapi({
      description:
        'Why a failed import failed: invalid_rows (open items: see sampleErrors; nothing applied), rejected_by_database (the database refused a row; not retried), invalid_payload (the stored request no longer validates), internal_error (retried, then given up). The job\'s error.message says more.',
    }),
    result: z.object({ unknown: z.array(textOut(limits.integratorId)).max(maxImportRows) }).optional().openapi({ description: 'Deletion imports and open items: ids (open items: itemKeys of sourceDeleted rows) the ledger does not have (not an error)' }),
    fetchCompletion: FetchCompletionSchema.optional(),
    createdAt: instant,
    updatedAt: instant,
    completedAt: instant.nullable(),
  })
  .openapi('ImportRecord', {
    description:
      'rowsDiscovered = rowsValid + rowsFailed; rowsValid = rowsInserted + rowsUpdated + (rows of the request deleted) + result.unknown. rowsDeleted also counts items retired by snapshot modes.',
  });

export const ImportPageSchema = pageOf(ImportRecordSchema, 'ImportPage');

export const ImportListQuerySchema = z.strictObject({
  ...PageQuerySchema.shape,
  kind: z.enum(importKindNames).optional(),
  status: z.enum(importStatuses).optional(),
  year: yearQueryParam('Only imports of this accounting year').optional(),
});

export const ReadinessYearSchema = z.object({
  year: YearSchema,
  current: z.boolean(),
  accounts: count,
  mappedAccounts: count,
  openingBalances: count,
  generalLedgerLines: count,
  lastImportAt: instant.nullable(),
});

export const ReadinessSchema = z
  .object({
    apiManaged: z.boolean(),
    accountingSystem: textOut(limits.code),
    currentYear: YearSchema,
    years: z.array(ReadinessYearSchema).max(1100),
    dimensions: count,
    subLedgers: count,
    blockers: z.array(textOut(limits.code)).max(20),
    warnings: z.array(textOut(limits.code)).max(20),
    nextStep: textOut(limits.code).openapi({
      description:
        'company_not_api_managed, import_accounts, map_accounts, import_opening_balances, import_general_ledger_lines, import_open_items or up_to_date (the recommended order)',
    }),
  })
  .openapi('Readiness');

export const FetchRunSchema = z
  .object({
    id: textOut(limits.serviceId),
    importId: UuidSchema,
    kind: z.enum(importKindNames),
    year: YearSchema.nullable(),
    completedAt: instant,
    recordedAt: instant.openapi({ description: 'When the fetch completion was recorded' }),
    postFetchCompletedAt: instant.nullable().optional().openapi({ description: 'When the post-fetch engines finished (absent while queued)' }),
    engines: z
      .array(z.object({ name: textOut(limits.code), status: z.enum(['queued', 'completed', 'failed']), finishedAt: instant.nullable(), detail: textOut(limits.message).nullable() }))
      .max(20),
  })
  .openapi('FetchRun');

export const FetchRunPageSchema = pageOf(FetchRunSchema, 'FetchRunPage');

export type ImportRecord = z.infer<typeof ImportRecordSchema>;
export type Readiness = z.infer<typeof ReadinessSchema>;
export type FetchRun = z.infer<typeof FetchRunSchema>;
