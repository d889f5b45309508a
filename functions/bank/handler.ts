import { requireCompany } from '../../shared/companies/service';
import { bankContracts as contracts } from '../../shared/bank/contracts';
import {
  createReconciliation,
  deleteReconciliation,
  getReconciliation,
  getReconciliationSummary,
  listReconciliations,
} from '../../shared/bank/reconciliation';
import { listBankAccounts, listBankTransactions } from '../../shared/bank/service';
import { httpHandler } from '../../shared/platform/http';
import { defineOperation } from '../../shared/platform/operation';

/** Bank accounts and transactions (bank:read); reconciliation groups and summaries (reconciliation:read/write). */
export const handler = httpHandler('bank', {
  listBankAccounts: defineOperation(contracts.listBankAccounts, async ({ principal, params }) => {
    await requireCompany(principal, params.companyId);
    return { status: 200, body: await listBankAccounts(params.companyId) };
  }),
  listBankTransactions: defineOperation(contracts.listBankTransactions, async ({ principal, params, query, operationId }) => {
    await requireCompany(principal, params.companyId);
    return { status: 200, body: await listBankTransactions(params.companyId, params.bankAccountId, query, { clientId: principal.clientId, operationId }) };
  }),
  getReconciliationSummary: defineOperation(contracts.getReconciliationSummary, async ({ principal, params, query }) => {
    await requireCompany(principal, params.companyId);
    return { status: 200, body: await getReconciliationSummary(params.companyId, params.bankAccountId, query.year) };
  }),
  listReconciliations: defineOperation(contracts.listReconciliations, async ({ principal, params, query, operationId }) => {
    await requireCompany(principal, params.companyId);
    return { status: 200, body: await listReconciliations(params.companyId, params.bankAccountId, query, { clientId: principal.clientId, operationId }) };
  }),
  createReconciliation: defineOperation(contracts.createReconciliation, async ({ principal, params, body }) => {
    await requireCompany(principal, params.companyId);
    return { status: 200, body: await createReconciliation(params.companyId, body, { source: 'manual', createdBy: principal.clientId }) };
  }),
  getReconciliation: defineOperation(contracts.getReconciliation, async ({ principal, params }) => {
    await requireCompany(principal, params.companyId);
    return { status: 200, body: await getReconciliation(params.companyId, params.reconciliationId) };
  }),
  deleteReconciliation: defineOperation(contracts.deleteReconciliation, async ({ principal, params }) => {
    await requireCompany(principal, params.companyId);
    return { status: 200, body: await deleteReconciliation(params.companyId, params.reconciliationId) };
  }),
});
