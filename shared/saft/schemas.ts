import { lazySchema } from '../platform/lazy-schema';
import { CountSchema, limits, pageOf, PageQuerySchema, text, textOut, TimestampSchema, UuidSchema, YearSchema } from '../platform/schemas';
import * as z from '../platform/zod';
import { UploadInstructionsSchema } from '../documents/schemas';

/**
 * The largest SAF-T file accepted: 200 MiB. A year of a mid-size company is tens of MiB; the
 * worker streams the file (bounded memory whatever the size), and at 200 MiB two streamed passes
 * (check, then apply) stay well inside the worker's 15 minutes.
 */
export const maxSaftBytes = 200 * 1024 * 1024;

/** Files up to this size are validated in full against the XSD of their version (xmllint-wasm holds the file in memory). */
export const maxSchemaValidatedBytes = 32 * 1024 * 1024;

export const saftStatuses = ['awaiting_upload', 'queued', 'running', 'succeeded', 'failed'] as const;

const decimalText = /* @__PURE__ */ lazySchema(() => textOut(64).openapi({ description: 'Decimal string, exact (debit positive, credit negative)', example: '1234.56' }));
const nullableText = (max: number) => textOut(max).nullable();

export const SaftReportSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    header: z.object({
      companyName: nullableText(limits.name).openapi({ description: 'Header/Company/Name' }),
      organizationNumber: nullableText(limits.code).openapi({ description: 'Header/Company/RegistrationNumber' }),
      softwareCompanyName: nullableText(limits.name).openapi({ description: 'Header/SoftwareCompanyName: who made the exporting system' }),
      softwareId: nullableText(limits.name).openapi({ description: 'Header/SoftwareID' }),
      softwareVersion: nullableText(limits.code).openapi({ description: 'Header/SoftwareVersion' }),
      auditFileVersion: nullableText(limits.code).openapi({ description: 'AuditFileVersion as the file states it' }),
      saftVersion: z.enum(['1.10', '1.30']).openapi({ description: 'The schema version the file was read (and validated) as' }),
      fiscalYears: z.array(YearSchema).max(1100).openapi({ description: 'Years the file holds: the selection start and the years of its lines' }),
      selection: z
        .object({
          periodStart: nullableText(limits.code).openapi({ description: 'SelectionCriteria/PeriodStart' }),
          periodStartYear: nullableText(limits.code).openapi({ description: 'SelectionCriteria/PeriodStartYear: the year of the opening balances' }),
          periodEnd: nullableText(limits.code).openapi({ description: 'SelectionCriteria/PeriodEnd' }),
          periodEndYear: nullableText(limits.code).openapi({ description: 'SelectionCriteria/PeriodEndYear' }),
          selectionStartDate: nullableText(limits.code).openapi({ description: 'SelectionCriteria/SelectionStartDate' }),
          selectionEndDate: nullableText(limits.code).openapi({ description: 'SelectionCriteria/SelectionEndDate' }),
        })
        .openapi({ description: 'The selection period the file covers, as the file states it' }),
    }).openapi({ description: "The file's header" }),
    counts: z
      .object({
        accounts: CountSchema.openapi({ description: 'Accounts of the chart (imported into each fiscal year)' }),
        customers: CountSchema.openapi({ description: 'Customers (sub-ledgers of type customer)' }),
        suppliers: CountSchema.openapi({ description: 'Suppliers (sub-ledgers of type supplier)' }),
        analysisTypes: CountSchema.openapi({ description: 'Analysis types (parent dimensions, key = the type)' }),
        analysisIds: CountSchema.openapi({ description: 'Analysis ids (dimensions, key = type/id)' }),
        openingBalances: CountSchema.openapi({ description: 'Opening balances imported (per account, and per customer or supplier on its account)' }),
        transactions: CountSchema.openapi({ description: 'Transactions read' }),
        lines: CountSchema.openapi({ description: 'Transaction lines read' }),
        linesDeleted: CountSchema.openapi({ description: 'GL lines of the file\'s years that the file no longer holds, deleted (with deleteMissing; 0 otherwise)' }),
      })
      .openapi({ description: 'What the file holds, per kind' }),
    controlTotals: z
      .object({
        numberOfEntries: z
          .object({ file: CountSchema.nullable().openapi({ description: 'NumberOfEntries as the file states it' }), read: CountSchema.openapi({ description: 'Transactions read' }) })
          .openapi({ description: 'Transactions: stated and read' }),
        totalDebit: z
          .object({ file: textOut(64).nullable().openapi({ description: 'TotalDebit as the file states it' }), read: decimalText })
          .openapi({ description: 'Sum of the debit amounts: stated and read' }),
        totalCredit: z
          .object({ file: textOut(64).nullable().openapi({ description: 'TotalCredit as the file states it' }), read: decimalText })
          .openapi({ description: 'Sum of the credit amounts: stated and read' }),
        matches: z.boolean().openapi({ description: 'The file\'s NumberOfEntries, TotalDebit and TotalCredit equal what was read' }),
      })
      .openapi({ description: 'GeneralLedgerEntries control totals against the transactions and lines read' }),
    unbalancedTransactions: z
      .object({ count: CountSchema.openapi({ description: 'How many' }), transactionIds: z.array(textOut(limits.integratorId)).max(100).openapi({ description: 'The first 100, as <JournalID>/<TransactionID> (the start of their line ids)' }) }).openapi({ description: 'Transactions whose lines do not sum to zero (at most 100 ids)' }),
    closingBalanceMismatches: z
      .object({
        count: CountSchema.openapi({ description: 'How many accounts' }),
        accounts: z
          .array(
            z.object({
              accountCode: textOut(20),
              openingBalance: decimalText.openapi({ description: "The file's opening balance" }),
              lines: decimalText.openapi({ description: 'Sum of the lines on the account' }),
              closingBalance: decimalText.openapi({ description: "The file's closing balance" }),
            }),
          )
          .max(100)
          .openapi({ description: 'The first 100, each with the three figures' }),
      })
      .openapi({ description: "Accounts whose opening balance plus lines is not the file's closing balance: the file is inconsistent there (the trial balance shows opening plus lines)" }),
    notImported: z
      .array(z.object({ element: textOut(limits.name).openapi({ description: 'Element path, e.g. MasterFiles/TaxTable or Account/StandardAccountID' }), count: CountSchema.openapi({ description: 'Occurrences' }) }))
      .max(1000).openapi({ description: 'What the file holds that the service does not import, by element, with counts' }),
    skipped: z
      .array(
        z.object({
          kind: textOut(limits.code).openapi({ description: 'accounts, dimensions, subLedgers, openingBalances or lines' }),
          count: CountSchema.openapi({ description: 'Records skipped' }),
          samples: z.array(textOut(limits.note)).max(100).openapi({ description: 'The first 100: which record and why' }),
        }),
      )
      .max(10)
      .openapi({ description: "Records the import rules refuse (e.g. a line on an account not in the file's chart), skipped and counted, with samples" }),
    schemaValidation: z.enum(['valid', 'skipped_over_size_limit', 'unavailable']).openapi({
      description: `valid: the file passed its version's XSD; skipped_over_size_limit: files over ${maxSchemaValidatedBytes / 1024 / 1024} MiB are checked by the streaming parser only; unavailable: the validator could not run (logged), the streaming parser's checks applied`,
    }),
  })
  .openapi('SaftReport'));
export type SaftReport = z.infer<typeof SaftReportSchema>;

const sha256 = /* @__PURE__ */ lazySchema(() => z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hexadecimal digits')
  .max(64)
  .openapi({ description: 'SHA-256 of the file, hexadecimal lower case', example: 'f2ca1bb6c7e907d06dafe4687e579fce76b37e4e93b7605022da52e6ccc26fd2' }));

export const CreateSaftImportSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    fileName: text({ max: limits.name }).openapi({ description: 'The file name (for people; not read)', example: 'SAF-T Financial_999999999_20161125213512.xml' }),
    sizeBytes: z.number().int().min(1).max(maxSaftBytes).openapi({ description: `Exact size in bytes, 1 B to 200 MiB (${maxSaftBytes}); the upload URL accepts only this length`, example: 17012 }),
    sha256,
  })
  .openapi('CreateSaftImportRequest', { description: 'The file to be uploaded: name, exact size and SHA-256' }));

export const StartSaftImportSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    allowOrganizationNumberMismatch: z.boolean().optional().openapi({ description: "true: import a file whose organization number differs from the company's" }),
    deleteMissing: z.boolean().optional().openapi({ description: "true: delete the company's GL lines of the file's fiscal years that the file does not hold (all or nothing: none when one of them is reconciled or linked by a live document). Default false: they stay", example: true }),
  })
  .openapi('StartSaftImportRequest', { description: 'Options of the start (an empty object for none)' }));

export const SaftImportSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    id: UuidSchema,
    companyId: UuidSchema,
    status: z.enum(saftStatuses),
    fileName: textOut(limits.name).openapi({ description: 'As declared' }),
    sizeBytes: z.number().int().min(1).max(maxSaftBytes).openapi({ description: 'As declared' }),
    sha256: textOut(64).openapi({ description: 'As declared (hexadecimal)' }),
    jobId: UuidSchema.nullable().openapi({ description: 'The job once started (GET /v1/jobs/{jobId})' }),
    failureReason: textOut(limits.code).nullable().openapi({ description: 'invalid_file, schema_invalid, lines_in_use, import_failed, company_deleted (the company was deleted while it ran; nothing imported after that), company_not_api_managed (moved off the Api accounting system while it ran; likewise) or internal_error when failed' }),
    problems: z
      .array(
        z.object({
          line: z.number().int().min(0).max(1e9).nullable().openapi({ description: 'Line of the file (null when not known)' }),
          message: textOut(limits.message).openapi({ description: 'What is wrong there' }),
        }),
      )
      .max(20)
      .openapi({ description: 'Why the file was refused (the first XSD errors with their line numbers; with lines_in_use, the lines that deleteMissing would delete and that are reconciled or linked by documents, at most 100 ids); nothing was imported then' }),
    allowOrganizationNumberMismatch: z.boolean().openapi({ description: 'As started: a file of another organization number was allowed', example: false }),
    deleteMissing: z.boolean().openapi({ description: "As started: the company's GL lines of the file's years that the file does not hold are deleted", example: true }),
    importIds: z.array(UuidSchema).max(1000).openapi({ description: 'The per-kind imports it ran, in order (GET /v1/companies/{companyId}/imports/{importId})' }),
    report: SaftReportSchema.nullable().openapi({ description: 'What the file held and how it was imported (once read)' }),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
    completedAt: TimestampSchema.nullable().openapi({ description: 'When it succeeded or failed' }),
  })
  .openapi('SaftImport', { description: 'A SAF-T Financial import: the declared file, its status, the per-kind imports it ran and its report' }));
export type SaftImport = z.infer<typeof SaftImportSchema>;

export const CreatedSaftImportSchema = /* @__PURE__ */ lazySchema(() => SaftImportSchema.extend({
  upload: UploadInstructionsSchema,
}).openapi('CreatedSaftImport', { description: 'The declared SAF-T import (awaiting_upload) and its upload instructions' }));

export const SaftImportPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(SaftImportSchema, 'SaftImportPage'));
export const SaftParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ companyId: UuidSchema, saftImportId: UuidSchema.openapi({ description: 'The SAF-T import (its id from the declaration)' }) }));
export const SaftListQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject(PageQuerySchema.shape));
