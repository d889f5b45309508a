import { importContracts as contracts } from '../../shared/imports/contracts';
import type { ImportKindName } from '../../shared/imports/kind';
import { submitImport } from '../../shared/imports/pipeline';
import { readiness } from '../../shared/imports/readiness';
import { importKind } from '../../shared/imports/registry';
import type { ImportRecord } from '../../shared/imports/schemas';
import { getImport, listFetchRuns, listImports } from '../../shared/imports/service';
import { currentAccountingYear } from '../../shared/ledger/chart/service';
import { httpHandler } from '../../shared/platform/http';
import { defineOperation, type OperationResult } from '../../shared/platform/operation';

const accepted = (companyId: string, record: ImportRecord): OperationResult => ({
  status: 202,
  body: record,
  headers: { Location: `/v1/companies/${companyId}/imports/${record.id}` },
});

const submit = (name: ImportKindName, contract: (typeof contracts)['importAccounts']) =>
  defineOperation(contract, async ({ principal, params, body }) =>
    accepted(params.companyId, await submitImport(principal, params.companyId, importKind(name), body)),
  );

export const handler = httpHandler('imports', {
  getImportReadiness: defineOperation(contracts.getImportReadiness, async ({ principal, params }) => ({
    status: 200,
    body: await readiness(principal, params.companyId),
  })),
  importAccounts: submit('accounts', contracts.importAccounts),
  importDimensions: submit('dimensions', contracts.importDimensions),
  importSubLedgers: submit('sub_ledgers', contracts.importSubLedgers),
  importOpeningBalances: submit('opening_balances', contracts.importOpeningBalances),
  importGeneralLedgerLines: submit('general_ledger_lines', contracts.importGeneralLedgerLines),
  importOpenItems: submit('open_items', contracts.importOpenItems),
  deleteGeneralLedgerLines: submit('general_ledger_line_deletions', contracts.deleteGeneralLedgerLines),
  deleteOpeningBalances: submit('opening_balance_deletions', contracts.deleteOpeningBalances),
  getImport: defineOperation(contracts.getImport, async ({ principal, params }) => ({
    status: 200,
    body: await getImport(principal, params.companyId, params.importId),
  })),
  listImports: defineOperation(contracts.listImports, async ({ principal, params, query }) => ({
    status: 200,
    body: await listImports(principal, params.companyId, query),
  })),
  deleteAccount: defineOperation(contracts.deleteAccount, async ({ principal, params, query }) => {
    const year = query.year ?? (await currentAccountingYear(params.companyId));
    const body = { year, ids: [params.accountNumber] };
    return accepted(params.companyId, await submitImport(principal, params.companyId, importKind('account_deletion'), body));
  }),
  deleteDimension: defineOperation(contracts.deleteDimension, async ({ principal, params }) =>
    accepted(params.companyId, await submitImport(principal, params.companyId, importKind('dimension_deletion'), { ids: [params.key] })),
  ),
  deleteSubLedger: defineOperation(contracts.deleteSubLedger, async ({ principal, params }) =>
    accepted(params.companyId, await submitImport(principal, params.companyId, importKind('sub_ledger_deletion'), { ids: [params.key] })),
  ),
  listFetchRuns: defineOperation(contracts.listFetchRuns, async ({ principal, params, query }) => ({
    status: 200,
    body: await listFetchRuns(principal, params.companyId, query),
  })),
});
