import { lazySchema } from '../../platform/lazy-schema';
import { accountCodeSchema, keySchema, maxImportRows, yearSchema } from '../../imports/fields';
import { currentYearNote, limits, OnePageQuerySchema, pageOf, PageQuerySchema, text, textOut, TimestampSchema, UuidSchema, YearSchema, yearQueryParam } from '../../platform/schemas';
import * as z from '../../platform/zod';

/**
 * Shapes of the chart of accounts, dimensions and sub-ledgers: the import bodies (parsed with
 * lossless-json, so numbers use the exact schemas of shared/imports/fields.ts) and the read shapes.
 */

/**
 * `accountCategory`: the spec names `Balance` and `Result` and leaves further values open (import
 * data rule 4). The set is closed at these two (balance-sheet and income-statement accounts), exact
 * case; anything else is a structural 422. New values would be an additive change.
 */
export const accountCategories = ['Balance', 'Result'] as const;
export type AccountCategory = (typeof accountCategories)[number];

/**
 * Dimension `type`: the spec names `department` and leaves the rest open (import data rule 5).
 * A closed set, camelCase like every other API value; `other` takes anything the set does not name.
 * Dimensions created automatically from GL lines (rule 2) have no type (null) until imported.
 */
export const dimensionTypes = ['department', 'project', 'costCenter', 'region', 'product', 'employee', 'other'] as const;
export type DimensionType = (typeof dimensionTypes)[number];

export const subLedgerTypes = ['customer', 'supplier'] as const;
export type SubLedgerType = (typeof subLedgerTypes)[number];

const currencyCodeSchema = /* @__PURE__ */ lazySchema(() => z
  .string()
  .max(3)
  .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code of 3 upper-case letters')
  .openapi({ description: 'ISO 4217 currency code', example: 'NOK' }));


// ---------------------------------------------------------------------------------------------
// Import bodies
// ---------------------------------------------------------------------------------------------

export const AccountImportLineSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    accountCode: accountCodeSchema.openapi({ description: 'Account number, stable across years; updated in place when it exists' }),
    accountDescription: text({ max: limits.name }).openapi({ example: 'Bankinnskudd' }).openapi({ description: 'Name of the account, e.g. "Bank deposits"' }),
    accountCategory: z.enum(accountCategories).openapi({ description: '`Balance` (balance sheet) or `Result` (income statement)' }),
    currencyCode: currencyCodeSchema
      .nullable()
      .optional()
      .openapi({ description: 'Omitted or null: the account has no currency of its own (an update clears it)' }),
    hidden: z.boolean().optional().openapi({ description: 'true hides (retires) the account, false shows it; omitted leaves the flag unchanged (new accounts: false)' }),
  })
  .openapi('AccountImportLine', { description: 'One account of the chart; merged by accountCode within the year' }));
export type AccountImportLine = z.infer<typeof AccountImportLineSchema>;

export const AccountsImportSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    year: yearSchema,
    accounts: z.array(AccountImportLineSchema).min(1, 'accounts must hold at least one account.').max(maxImportRows).openapi({ description: 'The accounts of the year, 1 to 10,000; merged by accountCode' }),
  })
  .openapi('AccountsImportRequest', {
    description:
      "The chart of one accounting year, merged by accountCode. The standard-account mapping is never changed by an import; a later duplicate accountCode fails as a row (the first applies).",
  }));
export type AccountsImportBody = z.infer<typeof AccountsImportSchema>;

export const DimensionImportLineSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    key: keySchema.openapi({ description: "The integrator's key, unique per company" }),
    value: text({ max: limits.name }).openapi({ description: 'Display value', example: 'Salg' }),
    type: z.enum(dimensionTypes).openapi({ description: 'department, project, costCenter, region, product, employee or other' }),
    parentKey: keySchema
      .nullable()
      .optional()
      .openapi({ description: 'Key of the parent dimension: an existing one or one earlier in the request. Omitted or null: no parent' }),
  })
  .openapi('DimensionImportLine', { description: 'One dimension value; merged by key' }));
export type DimensionImportLine = z.infer<typeof DimensionImportLineSchema>;

export const DimensionsImportSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({ dimensions: z.array(DimensionImportLineSchema).min(1, 'dimensions must hold at least one dimension.').max(maxImportRows).openapi({ description: 'The dimensions, 1 to 10,000; merged by key' }) })
  .openapi('DimensionsImportRequest', { description: 'Dimensions of the company (not per year), merged by key.' }));
export type DimensionsImportBody = z.infer<typeof DimensionsImportSchema>;

export const SubLedgerImportLineSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    key: keySchema.openapi({ description: "The integrator's key (customer or supplier number), unique per company" }),
    value: text({ max: limits.name }).openapi({ description: 'Display value (name)', example: 'Kunde AS' }),
    type: z.enum(subLedgerTypes).openapi({ description: 'customer or supplier; a key keeps its type' }),
  })
  .openapi('SubLedgerImportLine', { description: 'One customer or supplier; merged by key' }));
export type SubLedgerImportLine = z.infer<typeof SubLedgerImportLineSchema>;

export const SubLedgersImportSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({ subLedgers: z.array(SubLedgerImportLineSchema).min(1, 'subLedgers must hold at least one sub-ledger.').max(maxImportRows).openapi({ description: 'The customers and suppliers, 1 to 10,000; merged by key' }) })
  .openapi('SubLedgersImportRequest', { description: 'Sub-ledgers (customers, suppliers) of the company, merged by key; a key keeps its type.' }));
export type SubLedgersImportBody = z.infer<typeof SubLedgersImportSchema>;

/** Deletion bodies are built by the pipeline from the path (and `year` from the query for accounts). */
const uniqueIds = (body: { ids: string[] }, ctx: z.RefinementCtx) => {
  const seen = new Set<string>();
  body.ids.forEach((id, index) => {
    if (seen.has(id)) ctx.addIssue({ code: 'custom', path: ['ids', index], message: `duplicate id ${id}` });
    seen.add(id);
  });
};

export const AccountDeletionSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({ year: yearSchema, ids: z.array(accountCodeSchema).min(1, 'ids must hold at least one id.').max(maxImportRows) })
  .superRefine(uniqueIds));
export type AccountDeletionBody = z.infer<typeof AccountDeletionSchema>;

export const DimensionDeletionSchema = /* @__PURE__ */ lazySchema(() => z.strictObject({ ids: z.array(keySchema).min(1, 'ids must hold at least one id.').max(maxImportRows) }).superRefine(uniqueIds));
export type DimensionDeletionBody = z.infer<typeof DimensionDeletionSchema>;

export const SubLedgerDeletionSchema = /* @__PURE__ */ lazySchema(() => z.strictObject({ ids: z.array(keySchema).min(1, 'ids must hold at least one id.').max(maxImportRows) }).superRefine(uniqueIds));
export type SubLedgerDeletionBody = z.infer<typeof SubLedgerDeletionSchema>;

// ---------------------------------------------------------------------------------------------
// Read shapes
// ---------------------------------------------------------------------------------------------

const timestamp = TimestampSchema;

export const LedgerAccountSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    accountNumber: textOut(20).openapi({ example: '1920' }).openapi({ description: 'Account number (text, e.g. "1920")' }),
    year: YearSchema.openapi({ example: 2025 }).openapi({ description: 'Accounting year of the chart' }),
    description: textOut(limits.name).openapi({ description: 'Name of the account' }),
    category: z.enum(accountCategories).openapi({ description: 'Balance (balance sheet) or Result (profit and loss)' }),
    currencyCode: textOut(3).nullable(),
    hidden: z.boolean().openapi({ description: 'A hidden account is retired (rule 12); it stays readable' }),
    standardAccount: textOut(20)
      .nullable()
      .openapi({ description: 'The standard account this account is mapped to (set in the application, never by an import); null while unmapped' }),
    mapped: z.boolean().openapi({ description: 'Whether standardAccount is set' }),
    updatedAt: timestamp,
    datasetId: UuidSchema.openapi({ description: 'The dataset of the import that last wrote the account' }),
  })
  .openapi('LedgerAccount', { description: 'An account of the chart of one accounting year' }));
export type LedgerAccount = z.infer<typeof LedgerAccountSchema>;

export const LedgerAccountPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(LedgerAccountSchema, 'LedgerAccountPage', null));

export const DimensionSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    key: textOut(limits.integratorId).openapi({ description: 'The integrator\'s key of the dimension' }),
    value: textOut(limits.name).openapi({ description: 'Display name, or null for a key created because a line named it' }),
    type: z.enum(dimensionTypes).nullable().openapi({ description: 'null for a dimension created automatically from a GL line and not imported yet' }),
    parentKey: textOut(limits.integratorId).nullable(),
    autoCreated: z.boolean().openapi({ description: 'Created from a GL line naming an unknown key (value = key) and not imported since' }),
    updatedAt: timestamp,
  })
  .openapi('Dimension', { description: 'A dimension value (department, project, ...) lines can name' }));
export type Dimension = z.infer<typeof DimensionSchema>;

export const DimensionPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(DimensionSchema, 'DimensionPage'));

export const SubLedgerSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    key: textOut(limits.integratorId).openapi({ description: 'The integrator\'s key of the customer or supplier' }),
    value: textOut(limits.name).openapi({ description: 'Name of the customer or supplier, or null for a key created because a line named it' }),
    type: z.enum(subLedgerTypes).nullable().openapi({ description: 'null for a sub-ledger created automatically from a line and not imported yet' }),
    autoCreated: z.boolean(),
    updatedAt: timestamp,
  })
  .openapi('SubLedger', { description: 'A customer or supplier lines, opening balances and open items can name' }));
export type SubLedger = z.infer<typeof SubLedgerSchema>;

export const SubLedgerPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(SubLedgerSchema, 'SubLedgerPage'));

// ---------------------------------------------------------------------------------------------
// Path and query
// ---------------------------------------------------------------------------------------------

const yearQuerySchema = /* @__PURE__ */ lazySchema(() => yearQueryParam(`Accounting year; ${currentYearNote}`).optional());

export const ChartCompanyParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ companyId: UuidSchema }));
export const AccountParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ companyId: UuidSchema, accountNumber: accountCodeSchema }));
/** The chart is one page: page_size is accepted and ignored, a cursor refused (OnePageQuerySchema). */
export const AccountListQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject({ year: yearQuerySchema, ...OnePageQuerySchema.shape }));
export const AccountQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject({ year: yearQuerySchema }));
/** Dimensions and sub-ledgers: pages in key order. */
export const KeyListQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject(PageQuerySchema.shape));
