import { lazySchema } from '../platform/lazy-schema';
import { Decimal } from '../platform/money';
import { CountSchema, DateSchema, identifier, limits, OnePageQuerySchema, pageOf, PageQuerySchema, PeriodSchema, queryInteger, text, textOut, TimestampSchema, UuidSchema, YearSchema, yearQueryParam } from '../platform/schemas';
import * as z from '../platform/zod';

/* Reads. Amounts are decimal.js values, written as JSON numbers with decimals (shared/platform/json.ts). */

const amountRead = /* @__PURE__ */ lazySchema(() => z.custom<Decimal>((value) => Decimal.isDecimal(value)).openapi({ type: 'number', format: 'decimal' }));
const date = /* @__PURE__ */ lazySchema(() => DateSchema.openapi({ example: '2026-03-14' }));
/** Text of a bank statement as the bank sent it (camt.053 texts are at most 500 characters; remittance lines are joined). */
/** The most characters a text of a statement keeps (camt.053 texts are at most 500; joined remittance lines may be more). */
export const maxStatementText = 4000;
const statementText = /* @__PURE__ */ lazySchema(() => textOut(maxStatementText));
const nullableText = /* @__PURE__ */ lazySchema(() => statementText.nullable());
const timestamp = TimestampSchema;
const accountCode = /* @__PURE__ */ lazySchema(() => textOut(20));
const clientOrEngine = /* @__PURE__ */ lazySchema(() => textOut(limits.serviceId));

/** Members of one reconciliation group (bank transactions plus GL lines). */
export const maxGroupMembers = 98;

export const reconciliationStatuses = ['unreconciled', 'reconciled', 'stale'] as const;
export type ReconciliationStatus = (typeof reconciliationStatuses)[number];

export const BankAccountSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    id: UuidSchema.openapi({ description: 'The bank account (UUID)' }),
    name: statementText.openapi({ description: 'The name the bank gives the account (or the owner name when it gives none)' }),
    accountNumber: textOut(11).openapi({ description: 'Norwegian bank account number, 11 digits with a valid mod-11 check digit', example: '15032012340' }),
    iban: textOut(34).nullable().openapi({ example: 'NO9315032012340' }),
    bic: textOut(11).nullable(),
    currency: textOut(3).openapi({ example: 'NOK' }).openapi({ description: 'ISO 4217 currency of the account' }),
    glAccountCode: accountCode.openapi({ description: 'The GL account the bank account is mapped to (reconciliation matches its GL lines)', example: '1920' }),
    lastStatementAt: timestamp.nullable().openapi({ description: 'When the latest statement was ingested' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .openapi('BankAccount', { description: 'A bank account of the company, from its camt.053 statements, mapped to a GL account' }));

export const BankAccountPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(BankAccountSchema, 'BankAccountPage', null));

/** The bank accounts are one page: page_size is accepted and ignored, a cursor refused (OnePageQuerySchema). */
export const BankAccountListQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject(OnePageQuerySchema.shape));

export const BankTransactionSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    id: UuidSchema.openapi({ description: 'Stable across re-ingestion of the same statement' }),
    bankAccountId: UuidSchema,
    bookingDate: date,
    valueDate: date.nullable(),
    amount: amountRead.openapi({ description: 'Signed: money in positive, debits negative' }),
    currency: textOut(3).openapi({ description: 'ISO 4217 currency of the amount' }),
    description: nullableText.openapi({ description: 'Text the bank gives the entry, or null' }),
    reference: nullableText.openapi({ description: 'KID or structured creditor reference, else the end-to-end id' }),
    counterpartyName: nullableText,
    counterpartyAccount: nullableText,
    bankTransactionCode: nullableText.openapi({ description: 'ISO 20022 domain/family/sub-family code, e.g. PMNT/RCDT/DMCT' }),
    bankReference: nullableText.openapi({ description: "The bank's own id of the entry (camt.053 AcctSvcrRef)" }),
    statementId: statementText.openapi({ description: 'The camt.053 statement (Stmt/Id) the transaction last came from' }),
    reconciliationStatus: z.enum(reconciliationStatuses).openapi({
      description:
        'Computed on every read. unreconciled: in no group. reconciled: in a group none of whose members changed since it was made. stale: in a group one of whose members changed afterwards (see ReconciliationGroup.stale).',
    }),
    reconciliationId: UuidSchema.nullable().openapi({ description: 'The group the transaction is in' }),
    version: CountSchema.min(1).openapi({ description: 'Starts at 1; a statement that amends the entry adds one' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .openapi('BankTransaction', { description: 'One entry of a bank statement, with its computed reconciliation status' }));

export const BankTransactionPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(BankTransactionSchema, 'BankTransactionPage'));

const EntryBase = {
  stale: /* @__PURE__ */ lazySchema(() => z.boolean().openapi({ description: 'The member changed (or left the mapped account) since the group was made' })),
};

export const ReconciliationEntrySchema = /* @__PURE__ */ lazySchema(() => z
  .discriminatedUnion('type', [
    z
      .object({
        type: z.literal('bank_transaction').openapi({ description: 'bank_transaction' }),
        bankTransactionId: UuidSchema,
        bookingDate: date,
        description: nullableText.openapi({ description: 'Text of the bank transaction when the group was made (its first 500 characters), or null' }),
        amount: amountRead.openapi({ description: 'Amount of the bank transaction when the group was made (credit to the account positive)' }),
        ...EntryBase,
      })
      .openapi('ReconciliationBankTransactionEntry', { description: 'A bank transaction in a reconciliation group' }),
    z
      .object({
        type: z.literal('gl_line').openapi({ description: 'gl_line' }),
        lineId: textOut(limits.serviceId),
        sourceLineId: textOut(limits.integratorId),
        accountCode,
        period: PeriodSchema,
        transactionDate: date.nullable(),
        description: nullableText.openapi({ description: 'Line text when the group was made (its first 500 characters), or null' }),
        amount: amountRead.openapi({ description: 'Amount of the GL line when the group was made (debit positive)' }),
        ...EntryBase,
      })
      .openapi('ReconciliationGlLineEntry', { description: 'A GL line in a reconciliation group' }),
  ])
  .openapi('ReconciliationEntry', { description: 'A member of a group as it was when the group was made, and whether it changed since' }));

const groupFields = {
  id: /* @__PURE__ */ lazySchema(() => UuidSchema.openapi({ description: 'The reconciliation group (UUID)' })),
  bankAccountId: UuidSchema,
  year: YearSchema,
  period: PeriodSchema,
  glAccountCode: /* @__PURE__ */ lazySchema(() => accountCode.openapi({ description: 'The mapped GL account of the bank account when the group was made' })),
  source: /* @__PURE__ */ lazySchema(() => z.enum(['manual', 'automatic']).openapi({ description: 'automatic: made by the auto-reconciliation engine' })),
  note: /* @__PURE__ */ lazySchema(() => nullableText.openapi({ description: 'Free-text note, or null' })),
  bankTransactionCount: /* @__PURE__ */ lazySchema(() => CountSchema.max(maxGroupMembers)),
  glLineCount: /* @__PURE__ */ lazySchema(() => CountSchema.max(maxGroupMembers)),
  total: /* @__PURE__ */ lazySchema(() => amountRead.openapi({ description: 'Sum of the bank transactions (equal to the sum of the GL lines)' })),
  stale: /* @__PURE__ */ lazySchema(() => z.boolean().openapi({
    description:
      'True when a member changed after the group was made: a GL line re-imported with another amount, account, period or transaction date, or a bank transaction amended by a later statement (amount or dates).',
  })),
  createdAt: timestamp,
  createdBy: /* @__PURE__ */ lazySchema(() => clientOrEngine.openapi({ description: 'Client id, or auto-reconciliation' })),
};

export const ReconciliationGroupSummarySchema = /* @__PURE__ */ lazySchema(() => z.object(groupFields).openapi('ReconciliationGroupListItem', { description: 'A reconciliation group without its members' }));
export const ReconciliationGroupPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(ReconciliationGroupSummarySchema, 'ReconciliationGroupPage'));
export const ReconciliationGroupSchema = /* @__PURE__ */ lazySchema(() => z
  .object({ ...groupFields, entries: z.array(ReconciliationEntrySchema).max(maxGroupMembers) })
  .openapi('ReconciliationGroup', { description: 'Bank transactions and GL lines of one period that reconcile each other, with the members' }));

export const ReconciliationDeletionSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    id: UuidSchema.openapi({ description: 'The dissolved group (UUID)' }),
    deleted: z.literal(true),
    deletedAt: timestamp,
    released: z.object({
      bankTransactionIds: z.array(UuidSchema).max(maxGroupMembers).openapi({ description: 'Bank transactions the group released (now unreconciled unless in another group)' }),
      lineIds: z.array(textOut(limits.serviceId)).max(maxGroupMembers).openapi({ description: 'GL lines the group released' }),
    }).openapi({ description: 'The members that are unreconciled again' }),
  })
  .openapi('ReconciliationDeletion', { description: 'The group is dissolved; deleting it again answers the same result' }));

export const CreateReconciliationSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    bankAccountId: UuidSchema.openapi({ description: 'The bank account whose transactions are reconciled' }),
    year: YearSchema.openapi({ description: 'Accounting year of the GL lines' }),
    period: PeriodSchema.openapi({ description: 'Accounting period of the group: every GL line must be in it (the bank transactions may be booked in any month, e.g. a payment of December lines booked in January)' }),
    bankTransactionIds: z.array(UuidSchema).min(1).max(maxGroupMembers).openapi({ description: 'Bank transactions of the bank account (at least one)' }),
    lineIds: z.array(identifier({ max: 64 })).max(maxGroupMembers).default([]).openapi({ description: 'GL lines (lineId) on the mapped GL account in this year and period' }),
    note: text({ max: limits.note, multiline: true, blank: true }).optional().openapi({ description: 'Free-text note, at most 500 characters' }),
  })
  .superRefine((body, ctx) => {
    const members = body.bankTransactionIds.length + body.lineIds.length;
    if (members > maxGroupMembers) ctx.addIssue({ code: 'custom', path: ['lineIds'], message: `a group holds at most ${maxGroupMembers} members (bank transactions plus GL lines)` });
    for (const [field, ids] of [['bankTransactionIds', body.bankTransactionIds], ['lineIds', body.lineIds]] as const) {
      const seen = new Set<string>();
      ids.forEach((id, index) => {
        if (seen.has(id)) ctx.addIssue({ code: 'custom', path: [field, index], message: 'named twice' });
        seen.add(id);
      });
    }
  })
  .openapi('CreateReconciliation', {
    description: `One group in one period. The bank transactions must sum exactly to the GL lines (422 reason unbalanced otherwise). At most ${maxGroupMembers} members.`,
  }));

export type CreateReconciliation = z.infer<typeof CreateReconciliationSchema>;

const approval = /* @__PURE__ */ lazySchema(() => z
  .object({
    status: z.enum(['approved', 'not_approved']).openapi({ description: 'approved or not_approved' }),
    approvedAt: timestamp.nullable().openapi({ description: 'When the period was approved, or null; UTC timestamp (ISO 8601)' }),
    approvedBy: textOut(limits.name).nullable().openapi({ description: 'Who approved the period, or null' }),
    outdated: z.boolean().openapi({
      description:
        'The period changed since it was approved: a reconciliation group of the period was created or dissolved after `approvedAt` (by a person or by auto-reconciliation), or a group of the period is stale. Approving the period again clears the first; a stale group keeps it true until the group is dissolved or its members match it again. Always false when not approved.',
    }),
  })
  .openapi('PeriodApproval', { description: "The firm's approval of the period on the mapped GL account (set in the application), and whether the period changed since" }));

export const ReconciliationSummarySchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    bankAccountId: UuidSchema,
    glAccountCode: accountCode,
    year: YearSchema.openapi({ description: 'Accounting year' }),
    periods: z
      .array(
        z.object({
          period: PeriodSchema.openapi({ description: 'Accounting period 1 to 12' }),
          label: textOut(20).openapi({ example: 'January' }),
          groupCount: CountSchema,
          automaticGroupCount: CountSchema,
          entryCount: CountSchema.openapi({ description: 'Members of the period\'s groups: bank transactions plus GL lines' }),
          staleGroupCount: CountSchema,
          stale: z.boolean().openapi({ description: 'Any group of the period is stale' }),
          unreconciledTransactionCount: CountSchema.openapi({ description: 'Bank transactions booked in the period that are in no group' }),
          approval,
        }).openapi('ReconciliationSummaryPeriod', { description: 'Reconciliation counts of one period and the firm\'s approval of it' }),
      )
      .min(12)
      .max(12),
  })
  .openapi('ReconciliationSummary', { description: 'Reconciliation of one bank account over the twelve periods of a year' }));

/* Parameters and queries. */

export const BankAccountParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ companyId: UuidSchema, bankAccountId: UuidSchema }));
export const ReconciliationParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ companyId: UuidSchema, reconciliationId: UuidSchema }));

export const BankTransactionQuerySchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    from: z.iso.date().max(limits.date).optional().openapi({ description: 'Booking date on or after (inclusive)' }),
    to: z.iso.date().max(limits.date).optional().openapi({ description: 'Booking date on or before (inclusive)' }),
    reconciliation_status: z.enum(reconciliationStatuses).optional(),
    ...PageQuerySchema.shape,
  })
  .refine((query) => !query.from || !query.to || query.from <= query.to, { path: ['to'], message: 'must not be before from' }));


export const ReconciliationListQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject({
  year: yearQueryParam('Only groups of this year. Omitted with `period` given: the current accounting year; omitted without `period`: groups of every year').optional(),
  period: queryInteger(1, 12)
    .optional()
    .openapi({ example: 3, description: 'Only groups of this period of `year`; without `year`, of the current accounting year (the year containing today when it has a chart of accounts, else the latest year before today that has one, else this calendar year)' }),
  ...PageQuerySchema.shape,
}));

export const ReconciliationSummaryQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject({ year: yearQueryParam('Required: the year of the summary') }));

export type BankAccount = z.infer<typeof BankAccountSchema>;
export type BankTransaction = z.infer<typeof BankTransactionSchema>;
export type ReconciliationGroup = z.infer<typeof ReconciliationGroupSchema>;
export type ReconciliationEntry = z.infer<typeof ReconciliationEntrySchema>;
export type ReconciliationSummary = z.infer<typeof ReconciliationSummarySchema>;
export type BankTransactionQuery = z.infer<typeof BankTransactionQuerySchema>;
export type ReconciliationListQuery = z.infer<typeof ReconciliationListQuerySchema>;
