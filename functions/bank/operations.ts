import { cursorCaller } from '../../shared/identity/principal';
import { bankContracts as contracts } from '../../shared/bank/contracts';
import {
  createReconciliation,
  deleteReconciliation,
  getReconciliation,
  getReconciliationSummary,
  listReconciliations,
} from '../../shared/bank/reconciliation';
import { listBankAccounts, listBankTransactions } from '../../shared/bank/service';
import { defineOperations } from '../../shared/composition/operations';

/** Bank accounts and transactions (bank:read); reconciliation groups and summaries (reconciliation:read/write). */
export const bankOperations = defineOperations('bank', contracts, {
  listBankAccounts: async ({ owner: company }) => ({
    status: 200,
    body: await listBankAccounts(company.id),
  }),
  listBankTransactions: async ({ principal, owner: company, params, query, operationId }) => ({
    status: 200,
    body: await listBankTransactions(company.id, params.bankAccountId, query, cursorCaller(principal, operationId)),
  }),
  getReconciliationSummary: async ({ owner: company, params, query }) => ({
    status: 200,
    body: await getReconciliationSummary(company.id, params.bankAccountId, query.year),
  }),
  listReconciliations: async ({ principal, owner: company, params, query, operationId }) => ({
    status: 200,
    body: await listReconciliations(company.id, params.bankAccountId, query, cursorCaller(principal, operationId)),
  }),
  createReconciliation: async ({ principal, owner: company, body }) => ({
    status: 200,
    body: await createReconciliation(company.id, body, { source: 'manual', createdBy: principal.clientId }),
  }),
  getReconciliation: async ({ owner: company, params }) => ({
    status: 200,
    body: await getReconciliation(company.id, params.reconciliationId),
  }),
  deleteReconciliation: async ({ owner: company, params }) => ({
    status: 200,
    body: await deleteReconciliation(company.id, params.reconciliationId),
  }),
});
