import { cursorCaller } from '../../shared/identity/principal';
import { defineCompanyOperation } from '../../shared/companies/operation';
import { chartContracts } from '../../shared/ledger/chart/contracts';
import { getAccount, listAccounts, listDimensions, listSubLedgers } from '../../shared/ledger/chart/service';
import { generalLedgerContracts } from '../../shared/ledger/general-ledger/contracts';
import { listGeneralLedgerLineVersions, listOpeningBalanceVersions } from '../../shared/ledger/general-ledger/history';
import { getTrialBalance, listGeneralLedgerLines } from '../../shared/ledger/general-ledger/service';

/** General ledger reads (ledger:read): chart of accounts per year, dimensions, sub-ledgers (pages), GL lines and their versions, opening-balance versions, trial balance. */
export const ledgerOperations = {
  listAccounts: defineCompanyOperation(chartContracts.listAccounts, async ({ company, query }) => ({
    status: 200,
    body: await listAccounts(company.id, query.year),
  })),
  getAccount: defineCompanyOperation(chartContracts.getAccount, async ({ company, params, query }) => ({
    status: 200,
    body: await getAccount(company.id, params.accountNumber, query.year),
  })),
  listDimensions: defineCompanyOperation(chartContracts.listDimensions, async ({ principal, company, query, operationId }) => ({
    status: 200,
    body: await listDimensions(company.id, query, cursorCaller(principal, operationId)),
  })),
  listSubLedgers: defineCompanyOperation(chartContracts.listSubLedgers, async ({ principal, company, query, operationId }) => ({
    status: 200,
    body: await listSubLedgers(company.id, query, cursorCaller(principal, operationId)),
  })),
  listGeneralLedgerLines: defineCompanyOperation(generalLedgerContracts.listGeneralLedgerLines, async ({ principal, company, query, operationId }) => ({
    status: 200,
    body: await listGeneralLedgerLines(company.id, query, cursorCaller(principal, operationId)),
  })),
  getTrialBalance: defineCompanyOperation(generalLedgerContracts.getTrialBalance, async ({ company, query }) => ({
    status: 200,
    body: await getTrialBalance(company.id, query.year),
  })),
  listGeneralLedgerLineVersions: defineCompanyOperation(generalLedgerContracts.listGeneralLedgerLineVersions, async ({ principal, company, params, query, operationId }) => ({
    status: 200,
    body: await listGeneralLedgerLineVersions(company.id, params.lineId, query, cursorCaller(principal, operationId)),
  })),
  listOpeningBalanceVersions: defineCompanyOperation(generalLedgerContracts.listOpeningBalanceVersions, async ({ principal, company, params, query, operationId }) => ({
    status: 200,
    body: await listOpeningBalanceVersions(company.id, params.openingBalanceId, query, cursorCaller(principal, operationId)),
  })),
};
