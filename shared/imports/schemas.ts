import { pageOf, PageQuerySchema, UuidSchema, yearQueryParam } from '../platform/schemas';
import { z } from '../platform/zod';
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

const instant = z.string().openapi({ format: 'date-time' });

export const FetchCompletionSchema = z
  .object({
    status: z.enum(fetchCompletionStatuses),
    failureType: z.string().optional(),
    fetchRunId: z.string().nullable(),
    recordedAt: instant.nullable(),
    message: z.string().optional(),
  })
  .openapi('FetchCompletion', {
    description:
      'Additive (GL-line and opening-balance imports): `completed` when the fetch was recorded and the post-fetch engines queued or ran; `failed` with failureType `post_fetch_engine_failed` when an engine failed (it is retried); `error` when recording failed (the import itself still succeeded); `ignored` for an import that changed nothing; `unreported` until the import finishes.',
  });

export const ImportRecordSchema = z
  .object({
    id: UuidSchema,
    kind: z.enum(importKindNames),
    year: z.number().int().nullable(),
    mode: z.string(),
    status: z.enum(importStatuses),
    jobId: UuidSchema,
    datasetId: UuidSchema,
    lineCount: z.number().int(),
    rowsDiscovered: z.number().int(),
    rowsValid: z.number().int(),
    rowsFailed: z.number().int(),
    rowsInserted: z.number().int(),
    rowsUpdated: z.number().int(),
    rowsDeleted: z.number().int().nullable(),
    sampleErrors: z.array(z.string()).max(100),
    warnings: z.array(ImportWarningSchema).openapi({ description: 'Conditions that do not stop the import, e.g. `unbalanced_vouchers` (GL lines of one transactionId in the request that do not sum to zero); empty when there are none' }),
    failureReason: z.string().nullable().openapi({
      description:
        'Why a failed import failed: invalid_rows (open items: see sampleErrors; nothing applied), rejected_by_database (the database refused a row; not retried), invalid_payload (the stored request no longer validates), internal_error (retried, then given up). The job\'s error.message says more.',
    }),
    result: z.object({ unknown: z.array(z.string()) }).optional().openapi({ description: 'Deletion imports and open items: ids (open items: itemKeys of sourceDeleted rows) the ledger does not have (not an error)' }),
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
  year: z.number().int(),
  current: z.boolean(),
  accounts: z.number().int(),
  mappedAccounts: z.number().int(),
  openingBalances: z.number().int(),
  generalLedgerLines: z.number().int(),
  lastImportAt: instant.nullable(),
});

export const ReadinessSchema = z
  .object({
    apiManaged: z.boolean(),
    accountingSystem: z.string(),
    currentYear: z.number().int(),
    years: z.array(ReadinessYearSchema),
    dimensions: z.number().int(),
    subLedgers: z.number().int(),
    blockers: z.array(z.string()),
    warnings: z.array(z.string()),
    nextStep: z.string().openapi({
      description:
        'company_not_api_managed, import_accounts, map_accounts, import_opening_balances, import_general_ledger_lines, import_open_items or up_to_date (the recommended order)',
    }),
  })
  .openapi('Readiness');

export const FetchRunSchema = z
  .object({
    id: z.string(),
    importId: UuidSchema,
    kind: z.enum(importKindNames),
    year: z.number().int().nullable(),
    completedAt: instant,
    recordedAt: instant.openapi({ description: 'When the fetch completion was recorded' }),
    postFetchCompletedAt: instant.nullable().optional().openapi({ description: 'When the post-fetch engines finished (absent while queued)' }),
    engines: z.array(z.object({ name: z.string(), status: z.enum(['queued', 'completed', 'failed']), finishedAt: instant.nullable(), detail: z.string().nullable() })),
  })
  .openapi('FetchRun');

export const FetchRunPageSchema = pageOf(FetchRunSchema, 'FetchRunPage');

export type ImportRecord = z.infer<typeof ImportRecordSchema>;
export type Readiness = z.infer<typeof ReadinessSchema>;
export type FetchRun = z.infer<typeof FetchRunSchema>;
