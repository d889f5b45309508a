import { requireCompany } from '../../shared/companies/service';
import { chartContracts as contracts } from '../../shared/ledger/chart/contracts';
import { getAccount, listAccounts, listDimensions, listSubLedgers } from '../../shared/ledger/chart/service';
import { defineOperation } from '../../shared/platform/operation';

/**
 * Chart reads (scope ledger:read): accounts per year, dimensions and sub-ledgers (pages). Combined into the
 * ledger group's handler with the other ledger operations.
 */
export const chartOperations = {
  listAccounts: defineOperation(contracts.listAccounts, async ({ principal, params, query }) => {
    await requireCompany(principal, params.companyId);
    return { status: 200, body: await listAccounts(params.companyId, query.year) };
  }),
  getAccount: defineOperation(contracts.getAccount, async ({ principal, params, query }) => {
    await requireCompany(principal, params.companyId);
    return { status: 200, body: await getAccount(params.companyId, params.accountNumber, query.year) };
  }),
  listDimensions: defineOperation(contracts.listDimensions, async ({ principal, params, query, operationId }) => {
    await requireCompany(principal, params.companyId);
    return { status: 200, body: await listDimensions(params.companyId, query, { clientId: principal.clientId, operationId }) };
  }),
  listSubLedgers: defineOperation(contracts.listSubLedgers, async ({ principal, params, query, operationId }) => {
    await requireCompany(principal, params.companyId);
    return { status: 200, body: await listSubLedgers(params.companyId, query, { clientId: principal.clientId, operationId }) };
  }),
};
