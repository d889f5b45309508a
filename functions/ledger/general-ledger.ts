import { requireCompany } from '../../shared/companies/service';
import { generalLedgerContracts as contracts } from '../../shared/ledger/general-ledger/contracts';
import { getTrialBalance, listGeneralLedgerLines } from '../../shared/ledger/general-ledger/service';
import { defineOperation } from '../../shared/platform/operation';

/** GET .../general-ledger/lines and GET .../trial-balance (scope ledger:read). */
export const generalLedgerOperations = {
  listGeneralLedgerLines: defineOperation(contracts.listGeneralLedgerLines, async ({ principal, params, query, operationId }) => {
    await requireCompany(principal, params.companyId);
    return { status: 200, body: await listGeneralLedgerLines(params.companyId, query, { clientId: principal.clientId, operationId }) };
  }),
  getTrialBalance: defineOperation(contracts.getTrialBalance, async ({ principal, params, query }) => {
    await requireCompany(principal, params.companyId);
    return { status: 200, body: await getTrialBalance(params.companyId, query.year) };
  }),
};
