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
import { defineCompanyOperation } from '../../shared/companies/operation';

/** Bank accounts and transactions (bank:read); reconciliation groups and summaries (reconciliation:read/write). */
export const bankOperations = {
  listBankAccounts: defineCompanyOperation(contracts.listBankAccounts, async ({ company }) => ({
    status: 200,
    body: await listBankAccounts(company.id),
  })),
  listBankTransactions: defineCompanyOperation(contracts.listBankTransactions, async ({ principal, company, params, query, operationId }) => ({
    status: 200,
    body: await listBankTransactions(company.id, params.bankAccountId, query, cursorCaller(principal, operationId)),
  })),
  getReconciliationSummary: defineCompanyOperation(contracts.getReconciliationSummary, async ({ company, params, query }) => ({
    status: 200,
    body: await getReconciliationSummary(company.id, params.bankAccountId, query.year),
  })),
  listReconciliations: defineCompanyOperation(contracts.listReconciliations, async ({ principal, company, params, query, operationId }) => ({
    status: 200,
    body: await listReconciliations(company.id, params.bankAccountId, query, cursorCaller(principal, operationId)),
  })),
  createReconciliation: defineCompanyOperation(contracts.createReconciliation, async ({ principal, company, body }) => ({
    status: 200,
    body: await createReconciliation(company.id, body, { source: 'manual', createdBy: principal.clientId }),
  })),
  getReconciliation: defineCompanyOperation(contracts.getReconciliation, async ({ company, params }) => ({
    status: 200,
    body: await getReconciliation(company.id, params.reconciliationId),
  })),
  deleteReconciliation: defineCompanyOperation(contracts.deleteReconciliation, async ({ company, params }) => ({
    status: 200,
    body: await deleteReconciliation(company.id, params.reconciliationId),
  })),
};
