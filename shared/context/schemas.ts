import { z } from '../platform/zod';

/* The pictures as the context tools answer them (JSON; amounts are decimal numbers in NOK, signed: debit positive). */

const amount = (description: string) => z.number().describe(`${description} (NOK, signed)`);
const date = z.string().nullable();

const LineSummarySchema = z.object({
  lineId: z.string(),
  period: z.number().int(),
  transactionDate: date,
  transactionId: z.string().nullable(),
  description: z.string().nullable(),
  amount: amount('Amount of the line'),
  taxCode: z.string().nullable(),
});

const OpenItemsSchema = z.object({
  dueCount: z.number().int(),
  dueAmount: amount('Open amount not yet due'),
  overdueCount: z.number().int(),
  overdueAmount: amount('Open amount past its due date'),
});

export const CompanyContextSchema = z.object({
  companyId: z.string(),
  name: z.string(),
  ledgerLastUpdatedAt: z.string().nullable().describe('When the books last changed (the last fetch); null before the first'),
  currentYear: z.number().int(),
  trialBalance: z.object({ accounts: z.number().int(), openingBalance: amount('Total opening balance'), closingBalance: amount('Total closing balance (zero when complete)') }),
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
  ),
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
    .nullable(),
  openItems: z.object({ customer: OpenItemsSchema, supplier: OpenItemsSchema }),
  recentImports: z.array(
    z.object({ importId: z.string(), kind: z.string(), status: z.string(), createdAt: z.string(), completedAt: z.string().nullable(), rowsFailed: z.number().int().nullable() }),
  ),
  builtAt: z.string(),
});

export const AccountContextSchema = z.object({
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
    .nullable(),
  vat: z.object({ direction: z.string(), openTermStatus: z.string().nullable() }).nullable(),
  ledgerLastUpdatedAt: z.string().nullable(),
  builtAt: z.string(),
});
