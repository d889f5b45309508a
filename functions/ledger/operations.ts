import { defineCompanyOperation } from '../../shared/companies/operation';
import { chartContracts } from '../../shared/ledger/chart/contracts';
import { getAccount, listAccounts, listDimensions, listSubLedgers } from '../../shared/ledger/chart/service';
import { generalLedgerContracts } from '../../shared/ledger/general-ledger/contracts';
import { getTrialBalance, listGeneralLedgerLines } from '../../shared/ledger/general-ledger/service';

/** General ledger reads (ledger:read): chart of accounts per year, dimensions, sub-ledgers, GL lines, trial balance. */
export const ledgerOperations = {
  listAccounts: defineCompanyOperation(chartContracts.listAccounts, async ({ company, query }) => ({
    status: 200,
    body: await listAccounts(company.id, query.year),
  })),
  getAccount: defineCompanyOperation(chartContracts.getAccount, async ({ company, params, query }) => ({
    status: 200,
    body: await getAccount(company.id, params.accountNumber, query.year),
  })),
  listDimensions: defineCompanyOperation(chartContracts.listDimensions, async ({ company }) => ({
    status: 200,
    body: await listDimensions(company.id),
  })),
  listSubLedgers: defineCompanyOperation(chartContracts.listSubLedgers, async ({ company }) => ({
    status: 200,
    body: await listSubLedgers(company.id),
  })),
  listGeneralLedgerLines: defineCompanyOperation(generalLedgerContracts.listGeneralLedgerLines, async ({ principal, company, query, operationId }) => ({
    status: 200,
    body: await listGeneralLedgerLines(company.id, query, { clientId: principal.clientId, operationId }),
  })),
  getTrialBalance: defineCompanyOperation(generalLedgerContracts.getTrialBalance, async ({ company, query }) => ({
    status: 200,
    body: await getTrialBalance(company.id, query.year),
  })),
};
