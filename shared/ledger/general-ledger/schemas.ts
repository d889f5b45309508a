import { lazySchema } from '../../platform/lazy-schema';
import { isLosslessNumber } from 'lossless-json';
import {
  accountCodeSchema,
  amountDescription,
  amountSchema,
  dateSchema,
  decimalInputOpenApi,
  optionalImportDecimal,
  keySchema,
  percentageRange,
  maxImportRows,
  periodSchema,
  sourceIdSchema,
  yearSchema,
} from '../../imports/fields';
import { Decimal, maxImportDecimals } from '../../platform/money';
import { CountSchema, currentYearNote, DateSchema, limits, pageOf, PageQuerySchema, PeriodSchema, queryInteger, text, textOut, textPattern, textRuleProblem, TimestampSchema, UuidSchema, YearSchema, yearQueryParam } from '../../platform/schemas';
import * as z from '../../platform/zod';

/*
 * Import bodies (parsed with lossless-json: every JSON number is a LosslessNumber). Optional line
 * fields may be omitted or null (both mean "none"). A re-sent line replaces the whole previous
 * version: an optional field left out of the re-sent line is empty on the new version.
 */

/** A short text that integrators send as a string or as a JSON number (voucher numbers, tax codes). */
const codeText = (max: number) =>
  z
    .unknown()
    .transform((value, ctx): string => {
      const text = isLosslessNumber(value) ? value.value : typeof value === 'string' ? value.trim() : undefined;
      if (text === undefined || text.length === 0 || text.length > max) {
        ctx.addIssue({ code: 'custom', message: `must be a string (or a JSON number) of 1 to ${max} characters` });
        return z.NEVER;
      }
      const problem = textRuleProblem(text);
      if (problem) {
        ctx.addIssue({ code: 'custom', message: problem });
        return z.NEVER;
      }
      return text;
    })
    .openapi({ type: 'string', maxLength: max, pattern: textPattern(), description: 'String (preferred) or JSON number, kept as text' });

const keyList = (what: string) =>
  z
    .array(keySchema)
    .max(maxLineKeys)
    .nullish()
    .openapi({
      description: `Keys of ${what} (optional). A key not yet pushed is created as a plain value (value = key, no type).`,
    });

const optional = 'Optional; omitted or null means none.';

/** Keys of dimensions or of sub-ledgers one line may name. */
const maxLineKeys = 100;
/** The service's lineId: 26 characters of Crockford base32. */
const lineIdLength = 26;
const accountCodeLength = 20;

export const GeneralLedgerLineInputSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    id: sourceIdSchema,
    accountCode: accountCodeSchema.openapi({ description: 'Account number; must exist in the chart of the year (else 422 unknown_account_codes)' }),
    amount: amountSchema,
    period: periodSchema,
    transactionId: codeText(limits.integratorId).nullish().openapi({ description: `Groups the lines of one voucher. ${optional}` }),
    transactionNo: codeText(100).nullish().openapi({ description: `Voucher number. ${optional}` }),
    description: text({ max: limits.description, multiline: true, blank: true, trim: false }).nullish().openapi({ description: optional }),
    transactionDate: dateSchema.nullish().openapi({ description: `Informational: period and year are never derived from it. ${optional}` }),
    taxCode: codeText(50).nullish().openapi({ description: optional }),
    taxAmount: optionalImportDecimal(maxImportDecimals).openapi(decimalInputOpenApi({ nullable: true, description: `${amountDescription}. ${optional}`, example: '312.50' })),
    taxPercentage: optionalImportDecimal(maxImportDecimals, percentageRange).openapi(
      decimalInputOpenApi({ nullable: true, range: percentageRange, description: `Percent from 0 to 100, e.g. 25: ${amountDescription}. ${optional}`, example: '25' }),
    ),
    dimensionKeys: keyList('dimensions'),
    subLedgerKeys: keyList('sub-ledgers'),
  })
  .openapi('GeneralLedgerLineInput', {
    description: 'One GL line. Required: id, accountCode, amount, period; every other field is optional. Lines are merged by id within the year.',
  }));

export const GeneralLedgerLinesImportSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    year: yearSchema,
    lines: z.array(GeneralLedgerLineInputSchema).min(1, 'lines must hold at least one line.').max(maxImportRows).openapi({ description: 'The GL lines, 1 to 10,000; merged by id within the year. Amounts: debit positive, credit negative. The lines of one voucher (transactionId) should sum to zero; vouchers that do not are accepted and reported under the import record\'s warnings.' }),
  })
  .openapi('GeneralLedgerLinesImport', { description: 'GL lines of one year (debit positive, credit negative)' }));

export const OpeningBalanceInputSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    id: sourceIdSchema,
    accountCode: accountCodeSchema.openapi({ description: 'Account number; must exist in the chart of the year (else 422 unknown_account_codes)' }),
    amount: amountSchema,
    subLedgerKeys: keyList('sub-ledgers'),
  })
  .openapi('OpeningBalanceInput', { description: 'One opening balance; merged by id within the year' }));

export const OpeningBalancesImportSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    year: yearSchema,
    lines: z.array(OpeningBalanceInputSchema).min(1, 'lines must hold at least one line.').max(maxImportRows).openapi({ description: 'The opening balances, 1 to 10,000; merged by id within the year. Amounts: debit positive, credit negative.' }),
  })
  .openapi('OpeningBalancesImport', { description: 'Opening balances of one year (debit positive, credit negative)' }));

/** Deletions (GL lines, opening balances): the integrator's ids; an id named twice is a structural error. */
export const LedgerDeletionSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    year: yearSchema,
    ids: z.array(sourceIdSchema).min(1, 'ids must hold at least one id.').max(maxImportRows).openapi({ description: 'The integrator\'s ids of the rows to delete (1 to 10,000, no duplicates)' }),
  })
  .superRefine((body, ctx) => {
    const first = new Map<string, number>();
    body.ids.forEach((id, index) => {
      const earlier = first.get(id);
      if (earlier === undefined) first.set(id, index);
      else ctx.addIssue({ code: 'custom', path: ['ids', index], message: `duplicate id (also at index ${earlier})` });
    });
  })
  .openapi('LedgerDeletionRequest', { description: 'The ids are the integrator\'s own line ids; ids the ledger does not have are reported under result.unknown.' }));

export type GeneralLedgerLineInput = z.infer<typeof GeneralLedgerLineInputSchema>;
export type GeneralLedgerLinesImport = z.infer<typeof GeneralLedgerLinesImportSchema>;
export type OpeningBalanceInput = z.infer<typeof OpeningBalanceInputSchema>;
export type OpeningBalancesImport = z.infer<typeof OpeningBalancesImportSchema>;
export type LedgerDeletion = z.infer<typeof LedgerDeletionSchema>;

/* Reads. Amounts are decimal.js values, written as JSON numbers with decimals by shared/platform/json.ts. */

const amountRead = /* @__PURE__ */ lazySchema(() => z.custom<Decimal>((value) => Decimal.isDecimal(value)).openapi({ type: 'number', format: 'decimal' }));
/** The generator drops nullable on a custom schema, and its metadata type omits the key: set it explicitly. */
const nullableAmountRead = /* @__PURE__ */ lazySchema(() => amountRead.nullable().openapi({ type: 'number', format: 'decimal', ...({ nullable: true } as object) }));

export const GeneralLedgerLineSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    lineId: textOut(lineIdLength).openapi({ description: 'The service\'s stable text id of the line; survives re-imports', example: '8m1x0c4r2tq7d3h9v6k5n0p2aa' }),
    sourceLineId: textOut(limits.integratorId).openapi({ description: 'The id the integrator supplied' }),
    year: YearSchema.openapi({ description: 'Accounting year' }),
    period: PeriodSchema,
    accountCode: textOut(accountCodeLength),
    amount: amountRead,
    transactionId: textOut(limits.integratorId).nullable().openapi({ description: 'Voucher the line belongs to, or null' }),
    transactionNo: textOut(100).nullable().openapi({ description: 'Voucher number, or null' }),
    description: textOut(limits.description).nullable().openapi({ description: 'Line text, or null' }),
    transactionDate: DateSchema.nullable().openapi({ description: 'Voucher date (YYYY-MM-DD), or null' }),
    taxCode: textOut(50).nullable(),
    taxAmount: nullableAmountRead,
    taxPercentage: nullableAmountRead,
    dimensionKeys: z.array(textOut(limits.integratorId)).max(maxLineKeys).openapi({ description: 'Empty when the line names none' }),
    subLedgerKeys: z.array(textOut(limits.integratorId)).max(maxLineKeys).openapi({ description: 'Empty when the line names none' }),
    datasetId: UuidSchema.openapi({ description: 'The dataset of the import that last wrote the line' }),
    version: CountSchema.min(1).openapi({ description: 'Starts at 1; every re-import that changes the line adds one (earlier versions are kept in history)' }),
    updatedAt: TimestampSchema,
  })
  .openapi('GeneralLedgerLine', { description: 'One GL line as the ledger holds it (its latest version)' }));

export const GeneralLedgerLinePageSchema = /* @__PURE__ */ lazySchema(() => pageOf(GeneralLedgerLineSchema, 'GeneralLedgerLinePage'));

export const monthLabels = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

const MovementSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    period: PeriodSchema.openapi({ description: 'Accounting period 1 to 12' }),
    label: z.enum(monthLabels).openapi({ description: 'Name of the period (January to December)' }),
    amount: amountRead.openapi({ description: 'Sum of the period\'s GL lines' }),
    closingBalance: amountRead.openapi({ description: 'openingBalance plus the movements of periods 1 to this one' }),
  })
  .openapi('TrialBalanceMovement', { description: 'The movement of one period and the closing balance after it' }));

const balances = {
  openingBalance: amountRead,
  movements: /* @__PURE__ */ lazySchema(() => z.array(MovementSchema).min(12).max(12).openapi({ description: 'Periods 1 to 12 in order' })),
  closingBalance: /* @__PURE__ */ lazySchema(() => amountRead.openapi({ description: 'openingBalance plus all twelve movements' })),
};

export const TrialBalanceAccountSchema = /* @__PURE__ */ lazySchema(() => z.object({ accountCode: textOut(accountCodeLength).openapi({ description: 'Account number' }), description: textOut(limits.name).nullable().openapi({ description: 'The account\'s description in the chart of the year (null if the chart no longer holds the account)' }), ...balances }).openapi('TrialBalanceAccount', { description: 'One account of the trial balance, with its description from the chart' }));

export const TrialBalanceSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    year: YearSchema.openapi({ description: 'Accounting year' }),
    accounts: z.array(TrialBalanceAccountSchema).openapi({
      description: 'Accounts with at least one opening balance or GL line in the year, in account-code order (as text)',
    }),
    totals: z.object({ ...balances, openingBalance: amountRead.openapi({ description: 'Sum of the accounts\' opening balances' }) }).openapi({ description: 'Sums over all accounts' }),
  })
  .openapi('TrialBalance', { description: 'Opening balance, twelve movements and closing balance per account of one year' }));

/* Versions (history) of GL lines and opening balances. */

export const lineVersionChanges = ['created', 'updated', 'deleted'] as const;
export type LineVersionChange = (typeof lineVersionChanges)[number];

const versionFields = {
  version: /* @__PURE__ */ lazySchema(() => CountSchema.min(1).openapi({
    description: 'The version number: 1 for the first, one more for every change, a deletion included',
    example: 2,
  })),
  change: /* @__PURE__ */ lazySchema(() => z.enum(lineVersionChanges).openapi({
    description:
      'created: the first version, or the first after a deletion (the id was sent again); updated: a re-send that changed the row; deleted: the row was deleted (the fields are what was deleted)',
    example: 'updated',
  })),
  recordedAt: /* @__PURE__ */ lazySchema(() => TimestampSchema.openapi({
    description: 'When the version was recorded: the acceptance instant of the import that wrote it (for a deletion, of the deletion)',
    example: '2026-03-02T08:15:00.000Z',
  })),
  supersededAt: /* @__PURE__ */ lazySchema(() => TimestampSchema.nullable().openapi({
    description: 'When the next version replaced this one; null for the newest',
    example: '2026-04-01T07:00:00.000Z',
  })),
  datasetId: /* @__PURE__ */ lazySchema(() => UuidSchema.openapi({
    description: 'The dataset of the import that last wrote this version (an unchanged re-send stamps the version it finds without making a new one)',
    example: '2f0c8e8e-6a8b-4d5e-9a39-3f1f7f2c9b10',
  })),
  importId: /* @__PURE__ */ lazySchema(() => UuidSchema.openapi({
    description: 'The import that last wrote this version (GET .../imports/{importId})',
    example: '7b1e4c3a-0d9f-4f36-8a51-6c2d9e0b4a77',
  })),
};

const keysOfVersion = (what: string) =>
  z.array(textOut(limits.integratorId)).max(maxLineKeys).openapi({ description: `Keys of ${what} the version names; empty when none`, example: ['10001'] });

export const GeneralLedgerLineVersionSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    lineId: textOut(lineIdLength).openapi({ description: "The service's stable text id of the line", example: '8m1x0c4r2tq7d3h9v6k5n0p2aa' }),
    sourceLineId: textOut(limits.integratorId).openapi({ description: 'The id the integrator supplied', example: 'gl-2025-000001' }),
    year: YearSchema.openapi({ description: 'Accounting year of the line', example: 2025 }),
    ...versionFields,
    period: PeriodSchema.openapi({ description: 'Period (1 to 12) of this version', example: 1 }),
    accountCode: textOut(accountCodeLength).openapi({ description: 'Account number of this version', example: '3000' }),
    amount: amountRead.openapi({ description: 'Amount of this version', example: -10000 }),
    transactionId: textOut(limits.integratorId).nullable().openapi({ description: 'Voucher grouping of this version', example: 'V-2025-0001' }),
    transactionNo: textOut(100).nullable().openapi({ description: 'Voucher number of this version', example: '1' }),
    description: textOut(limits.description).nullable().openapi({ description: 'Text of this version', example: 'Kontantsalg januar' }),
    transactionDate: DateSchema.nullable().openapi({ description: 'Transaction date of this version', example: '2025-01-15' }),
    taxCode: textOut(50).nullable().openapi({ description: 'Tax code of this version', example: '3' }),
    taxAmount: nullableAmountRead.openapi({ description: 'Tax amount of this version', example: -2500 }),
    taxPercentage: nullableAmountRead.openapi({ description: 'Tax percentage of this version', example: 25 }),
    dimensionKeys: keysOfVersion('dimensions'),
    subLedgerKeys: keysOfVersion('sub-ledgers'),
  })
  .openapi('GeneralLedgerLineVersion', { description: 'One version of a GL line: its content then, and when and by which import it was recorded' }));

export const GeneralLedgerLineVersionPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(GeneralLedgerLineVersionSchema, 'GeneralLedgerLineVersionPage'));

export const OpeningBalanceVersionSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    openingBalanceId: textOut(limits.integratorId).openapi({ description: "The integrator's id of the opening balance", example: 'ob-2025-1920' }),
    year: YearSchema.openapi({ description: 'Accounting year of the opening balance', example: 2025 }),
    ...versionFields,
    accountCode: textOut(accountCodeLength).openapi({ description: 'Account number of this version', example: '1920' }),
    amount: amountRead.openapi({ description: 'Amount of this version', example: 250000 }),
    subLedgerKeys: keysOfVersion('sub-ledgers'),
  })
  .openapi('OpeningBalanceVersion', { description: 'One version of an opening balance: its content then, and when and by which import it was recorded' }));

export const OpeningBalanceVersionPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(OpeningBalanceVersionSchema, 'OpeningBalanceVersionPage'));

export type GeneralLedgerLine = z.infer<typeof GeneralLedgerLineSchema>;
export type GeneralLedgerLineVersion = z.infer<typeof GeneralLedgerLineVersionSchema>;
export type OpeningBalanceVersion = z.infer<typeof OpeningBalanceVersionSchema>;
export type GeneralLedgerLinePage = z.infer<typeof GeneralLedgerLinePageSchema>;
export type TrialBalance = z.infer<typeof TrialBalanceSchema>;
export type TrialBalanceAccount = z.infer<typeof TrialBalanceAccountSchema>;

/* Query parameters (strings on the wire). */

const yearQuery = /* @__PURE__ */ lazySchema(() => yearQueryParam(`Accounting year; ${currentYearNote}`).optional());

export const GeneralLedgerLineQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject({
  year: yearQuery,
  account: accountCodeSchema.optional().openapi({ description: 'Only lines on this account number' }),
  period: queryInteger(1, 12).optional().openapi({ description: 'Only lines of this period' }),
  ...PageQuerySchema.shape,
}));

export const TrialBalanceQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject({ year: yearQuery }));

/** The service's lineId: 26 characters of Crockford base32 (lower case); anything else names no line (404). */
export const LineVersionParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({
  companyId: UuidSchema,
  lineId: z
    .string()
    .max(lineIdLength)
    .regex(/^[0-9a-hjkmnp-tv-z]{26}$/)
    .openapi({ description: "The service's lineId of the line (from the GL lines list), deleted or not", example: '8m1x0c4r2tq7d3h9v6k5n0p2aa' }),
}));
export const LineVersionQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject(PageQuerySchema.shape));

export const OpeningBalanceVersionParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({
  companyId: UuidSchema,
  openingBalanceId: sourceIdSchema.openapi({ description: "The integrator's id of the opening balance (URL-encoded), deleted or not", example: 'ob-2025-1920' }),
}));
export const OpeningBalanceVersionQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject({
  year: yearQueryParam(`Accounting year of the opening balance (ids are per year); ${currentYearNote}`).optional(),
  ...PageQuerySchema.shape,
}));

export type GeneralLedgerLineQuery = z.infer<typeof GeneralLedgerLineQuerySchema>;
