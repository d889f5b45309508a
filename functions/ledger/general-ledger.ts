import { requireCompany } from '../../shared/companies/service';
import { generalLedgerContracts as contracts } from '../../shared/ledger/general-ledger/contracts';
import { listGeneralLedgerLineVersions, listOpeningBalanceVersions } from '../../shared/ledger/general-ledger/history';
import { getTrialBalance, listGeneralLedgerLines } from '../../shared/ledger/general-ledger/service';
import { defineOperation } from '../../shared/platform/operation';

/** GET .../general-ledger/lines, their versions, opening-balance versions and GET .../trial-balance (scope ledger:read). */
export const generalLedgerOperations = {
  listGeneralLedgerLines: defineOperation(contracts.listGeneralLedgerLines, async ({ principal, params, query, operationId }) => {
    // The reach check and the read run together; the page is only answered when the check passes.
    const [, page] = await Promise.all([
      requireCompany(principal, params.companyId),
      listGeneralLedgerLines(params.companyId, query, { clientId: principal.clientId, operationId }),
    ]);
    return { status: 200, body: page };
  }),
  getTrialBalance: defineOperation(contracts.getTrialBalance, async ({ principal, params, query }) => {
    const [, trialBalance] = await Promise.all([requireCompany(principal, params.companyId), getTrialBalance(params.companyId, query.year)]);
    return { status: 200, body: trialBalance };
  }),
  listGeneralLedgerLineVersions: defineOperation(contracts.listGeneralLedgerLineVersions, async ({ principal, params, query, operationId }) => {
    await requireCompany(principal, params.companyId);
    return { status: 200, body: await listGeneralLedgerLineVersions(params.companyId, params.lineId, query, { clientId: principal.clientId, operationId }) };
  }),
  listOpeningBalanceVersions: defineOperation(contracts.listOpeningBalanceVersions, async ({ principal, params, query, operationId }) => {
    await requireCompany(principal, params.companyId);
    return { status: 200, body: await listOpeningBalanceVersions(params.companyId, params.openingBalanceId, query, { clientId: principal.clientId, operationId }) };
  }),
};
