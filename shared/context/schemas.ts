import { lazySchema } from '../platform/lazy-schema';
import * as z from '../platform/zod';

/*
 * The pictures as the context tools answer them (JSON; amounts are decimal numbers in NOK, signed:
 * debit positive). A part the caller may not read (shared/context/parts.ts) is left out, and named
 * in `omitted` with the actions it needs; null means the books have none (no open term, no bank
 * account mapped).
 */

const amount = (description: string) => z.number().describe(`${description} (NOK, signed)`);
const date = /* @__PURE__ */ lazySchema(() => z.string().nullable());

const LineSummarySchema = /* @__PURE__ */ lazySchema(() => z.object({
  lineId: z.string(),
  period: z.number().int(),
  transactionDate: date,
  transactionId: z.string().nullable(),
  description: z.string().nullable(),
  amount: amount('Amount of the line'),
  taxCode: z.string().nullable(),
}));

const OpenItemsSchema = /* @__PURE__ */ lazySchema(() => z.object({
  dueCount: z.number().int(),
  dueAmount: amount('Open amount not yet due'),
  overdueCount: z.number().int(),
  overdueAmount: amount('Open amount past its due date'),
}));

const OmittedSchema = /* @__PURE__ */ lazySchema(() => z
  .array(z.object({ part: z.string().describe('The field left out'), needs: z.array(z.string()).describe('The actions it needs (each one, on this company)') }))
  .describe('Parts left out because the caller may not read their source; empty when nothing was left out'));

export const CompanyContextSchema = /* @__PURE__ */ lazySchema(() => z.object({
  companyId: z.string(),
  name: z.string().optional().describe('Needs companies:read'),
  ledgerLastUpdatedAt: z.string().nullable().optional().describe('When the books last changed (the last fetch); null before the first. Needs ledger:read'),
  currentYear: z.number().int().optional().describe('Needs ledger:read'),
  trialBalance: z
    .object({ accounts: z.number().int(), openingBalance: amount('Total opening balance'), closingBalance: amount('Total closing balance (zero when complete)') })
    .optional()
    .describe('Needs ledger:read'),
  bankAccounts: z.array(
    z.object({
      bankAccountId: z.string(),
      accountNumber: z.string(),
      name: z.string().nullable(),
      glAccountCode: z.string(),
      lastStatementAt: z.string().nullable(),
      unreconciledCount: z.number().int(),
      oldestUnreconciledDate: date,
    }),
  ).optional().describe('Needs bank:read'),
  openVatTerm: z
    .object({
      year: z.number().int(),
      term: z.number().int(),
      fromDate: z.string(),
      toDate: z.string(),
      filingDueDate: z.string(),
      status: z.string(),
      position: z.string(),
      netVat: amount('Output minus input VAT: payable when positive'),
    })
    .nullable()
    .optional()
    .describe('null: no term with activity. Needs vat:read'),
  openItems: z.object({ customer: OpenItemsSchema, supplier: OpenItemsSchema }).optional().describe('Needs ledger:read'),
  recentImports: z
    .array(
      z.object({ importId: z.string(), kind: z.string(), status: z.string(), createdAt: z.string(), completedAt: z.string().nullable(), rowsFailed: z.number().int().nullable() }),
    )
    .optional()
    .describe('Needs imports:write (the import list: system clients only)'),
  builtAt: z.string().optional().describe('When the picture was built; absent when no part of it is shown'),
  omitted: OmittedSchema,
}));

export const AccountContextSchema = /* @__PURE__ */ lazySchema(() => z.object({
  companyId: z.string(),
  year: z.number().int(),
  accountCode: z.string(),
  description: z.string().nullable(),
  openingBalance: amount('Opening balance'),
  periods: z.array(z.object({ period: z.number().int(), movement: amount('Movement of the period'), closingBalance: amount('Balance after the period') })),
  closingBalance: amount('Closing balance of the year'),
  lineCount: z.number().int(),
  largestMovements: z.array(LineSummarySchema),
  lastLines: z.array(LineSummarySchema),
  reconciliation: z
    .object({ bankAccounts: z.array(z.object({ bankAccountId: z.string(), unreconciledCount: z.number().int(), oldestUnreconciledDate: date })) })
    .nullable()
    .optional()
    .describe('null: no bank account is mapped to the account. Needs bank:read'),
  vat: z.object({ direction: z.string(), openTermStatus: z.string().nullable() }).nullable().optional().describe('null: not a VAT account. Needs vat:read'),
  ledgerLastUpdatedAt: z.string().nullable(),
  builtAt: z.string(),
  omitted: OmittedSchema,
}));
