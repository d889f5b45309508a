import { CompanyParamsSchema } from '../companies/schemas';
import type { OperationContract } from '../api/operation';
import {
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
    params: CompanyParamsSchema,
    responses: { 200: { description: 'The bank accounts of the company, all in one page, by account number', schema: BankAccountPageSchema } },
  },
  listBankTransactions: {
    params: BankAccountParamsSchema,
    query: BankTransactionQuerySchema,
    responses: { 200: { description: 'A page of transactions, newest first (booking date, then id, descending)', schema: BankTransactionPageSchema } },
    problems: { 404: bankAccountNotFound },
  },
  getReconciliationSummary: {
    params: BankAccountParamsSchema,
    query: ReconciliationSummaryQuerySchema,
    responses: { 200: { description: 'Twelve periods of the year', schema: ReconciliationSummarySchema } },
    problems: { 404: bankAccountNotFound },
  },
  listReconciliations: {
    params: BankAccountParamsSchema,
    query: ReconciliationListQuerySchema,
    responses: { 200: { description: 'A page of groups in (year, period, creation) order; dissolved groups are not listed', schema: ReconciliationGroupPageSchema } },
    problems: { 404: bankAccountNotFound },
  },
  createReconciliation: {
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
    params: ReconciliationParamsSchema,
    responses: { 200: { description: 'The group with its entries', schema: ReconciliationGroupSchema } },
    problems: { 404: 'not_found: no such group, dissolved, or outside your reach' },
  },
  deleteReconciliation: {
    params: ReconciliationParamsSchema,
    responses: { 200: { description: 'The group is dissolved and its members are unreconciled (the same answer when it already was)', schema: ReconciliationDeletionSchema } },
    problems: { 404: 'not_found: no such group, or outside your reach' },
  },
} satisfies Record<string, OperationContract>;
