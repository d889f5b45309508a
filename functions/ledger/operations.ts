import { cursorCaller } from '../../shared/identity/principal';
import { defineOperations } from '../../shared/composition/operations';
import { chartContracts } from '../../shared/ledger/chart/contracts';
import { getAccount, listAccounts, listDimensions, listSubLedgers } from '../../shared/ledger/chart/service';
import { generalLedgerContracts } from '../../shared/ledger/general-ledger/contracts';
import { listGeneralLedgerLineVersions, listOpeningBalanceVersions } from '../../shared/ledger/general-ledger/history';
import { getTrialBalance, listGeneralLedgerLines } from '../../shared/ledger/general-ledger/service';

/** General ledger reads (ledger:read): chart of accounts per year, dimensions, sub-ledgers (pages), GL lines and their versions, opening-balance versions, trial balance. */
export const ledgerOperations = defineOperations('ledger', { ...chartContracts, ...generalLedgerContracts }, {
  listAccounts: async ({ owner: company, query }) => ({
    status: 200,
    body: await listAccounts(company.id, query.year),
  }),
  getAccount: async ({ owner: company, params, query }) => ({
    status: 200,
    body: await getAccount(company.id, params.accountNumber, query.year),
  }),
  listDimensions: async ({ principal, owner: company, query, operationId }) => ({
    status: 200,
    body: await listDimensions(company.id, query, cursorCaller(principal, operationId)),
  }),
  listSubLedgers: async ({ principal, owner: company, query, operationId }) => ({
    status: 200,
    body: await listSubLedgers(company.id, query, cursorCaller(principal, operationId)),
  }),
  listGeneralLedgerLines: async ({ principal, owner: company, query, operationId }) => ({
    status: 200,
    body: await listGeneralLedgerLines(company.id, query, cursorCaller(principal, operationId)),
  }),
  getTrialBalance: async ({ owner: company, query }) => ({
    status: 200,
    body: await getTrialBalance(company.id, query.year),
  }),
  listGeneralLedgerLineVersions: async ({ principal, owner: company, params, query, operationId }) => ({
    status: 200,
    body: await listGeneralLedgerLineVersions(company.id, params.lineId, query, cursorCaller(principal, operationId)),
  }),
  listOpeningBalanceVersions: async ({ principal, owner: company, params, query, operationId }) => ({
    status: 200,
    body: await listOpeningBalanceVersions(company.id, params.openingBalanceId, query, cursorCaller(principal, operationId)),
  }),
});
