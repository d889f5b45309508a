import { CompanyParamsSchema } from '../companies/schemas';
import type { OperationContract } from '../api/operation';
import {
  BankAccountListQuerySchema,
  BankAccountPageSchema,
  BankAccountParamsSchema,
  BankTransactionPageSchema,
  BankTransactionQuerySchema,
  CreateReconciliationSchema,
  ReconciliationDeletionSchema,
  ReconciliationGroupPageSchema,
  ReconciliationGroupSchema,
  ReconciliationListQuerySchema,
  ReconciliationParamsSchema,
  ReconciliationSummaryQuerySchema,
  ReconciliationSummarySchema,
} from './schemas';

const bankAccountNotFound = 'not_found: the company or the bank account does not exist or is outside your reach';

/** Request and response shapes of the bank and reconciliation operations, keyed by operationId. */
export const bankContracts = {
  listBankAccounts: {
    description: 'The bank accounts of the company, from the camt.053 statements ingested, each mapped to a GL account.',
    params: CompanyParamsSchema,
    query: BankAccountListQuerySchema,
    responses: { 200: { description: 'The bank accounts of the company, all in one page, by account number', schema: BankAccountPageSchema } },
  },
  listBankTransactions: {
    description:
      'Transactions of a bank account, newest first, each with its computed `reconciliationStatus` (`unreconciled`, `reconciled` or `stale`); filter by booking date (`from`, `to`) and status.',
    params: BankAccountParamsSchema,
    query: BankTransactionQuerySchema,
    responses: { 200: { description: 'A page of transactions, newest first (booking date, then id, descending)', schema: BankTransactionPageSchema } },
    problems: { 404: bankAccountNotFound },
  },
  getReconciliationSummary: {
    description: 'Twelve periods of a year for a bank account: reconciliation groups, members, stale groups, unreconciled transactions and the firm\'s period approval, `outdated` when the period\'s groups changed after it (created or dissolved, or stale).',
    params: BankAccountParamsSchema,
    query: ReconciliationSummaryQuerySchema,
    responses: { 200: { description: 'Twelve periods of the year', schema: ReconciliationSummarySchema } },
    problems: { 404: bankAccountNotFound },
  },
  listReconciliations: {
    description: 'Reconciliation groups of a bank account, filtered by `year` and `period`.',
    params: BankAccountParamsSchema,
    query: ReconciliationListQuerySchema,
    responses: { 200: { description: 'A page of groups in (year, period, creation) order; dissolved groups are not listed', schema: ReconciliationGroupPageSchema } },
    problems: { 404: bankAccountNotFound },
  },
  createReconciliation: {
    description:
      'Makes a reconciliation group of bank transactions and GL lines (on the mapped GL account) of one period that reconcile each other. Errors to branch on: **409** `already_reconciled` (a member is in another group; `inUse` names them); **422** `validation_failed` with `reason` `invalid_members` or `unbalanced` (the two sides do not sum to the same amount).',
    requestExample: {
      bankAccountId: '6a2f9d0c-1b3e-4f5a-8c7d-9e0f1a2b3c4d',
      year: 2026,
      period: 2,
      bankTransactionIds: ['0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e'],
      lineIds: ['GL-2026-000123'],
      note: 'Card payment 12 February',
    },
    params: CompanyParamsSchema,
    body: CreateReconciliationSchema,
    responses: { 200: { description: 'The group; its members are reconciled', schema: ReconciliationGroupSchema } },
    problems: {
      404: bankAccountNotFound,
      409: 'already_reconciled: a named bank transaction or GL line is already in a group that year (inUse names each with its reconciliationId); members_changed: the members kept changing while the group was made (retry)',
      422: 'validation_failed with reason invalid_members (errors name each member that does not exist, is on another account or in another period) or unbalanced (the bank transactions do not sum exactly to the GL lines)',
    },
  },
  getReconciliation: {
    description: 'One reconciliation group with its members as they were when the group was made, and whether each changed since (`stale`).',
    params: ReconciliationParamsSchema,
    responses: { 200: { description: 'The group with its entries', schema: ReconciliationGroupSchema } },
    problems: { 404: 'not_found: no such group, dissolved, or outside your reach' },
  },
  deleteReconciliation: {
    description: 'Dissolves a reconciliation group and releases its members. Deleting it again answers the same result. A dissolution that a concurrent change of its members cancels is made again from a fresh read (up to three times, then **409** `members_changed`).',
    params: ReconciliationParamsSchema,
    responses: { 200: { description: 'The group is dissolved and its members are unreconciled (the same answer when it already was)', schema: ReconciliationDeletionSchema } },
    problems: { 404: 'not_found: no such group, or outside your reach', 409: 'conflict: members_changed (its members kept changing while it was dissolved; retry)' },
  },
} satisfies Record<string, OperationContract>;
