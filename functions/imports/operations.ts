import { defineCompanyOperation } from '../../shared/companies/operation';
import { importContracts as contracts } from '../../shared/composition/import-contracts';
import type { ImportKindName } from '../../shared/imports/kind';
import { submitImport } from '../../shared/imports/pipeline';
import { readiness } from '../../shared/ledger/readiness';
import { importKind } from '../../shared/composition/import-kinds';
import type { ImportRecord } from '../../shared/imports/schemas';
import { getImport, listFetchRuns, listImports } from '../../shared/imports/service';
import { currentAccountingYear } from '../../shared/ledger/chart/service';
import type { OperationResult } from '../../shared/api/operation';

const accepted = (companyId: string, record: ImportRecord): OperationResult => ({
  status: 202,
  body: record,
  headers: { Location: `/v1/companies/${companyId}/imports/${record.id}` },
});

const submit = (name: ImportKindName, contract: (typeof contracts)['importAccounts']) =>
  defineCompanyOperation(contract, async ({ principal, company, body }) => accepted(company.id, await submitImport(principal, company, importKind(name), body)));

/** Data import (imports:write, system clients only), import reads, readiness, fetch runs. */
export const importOperations = {
  getImportReadiness: defineCompanyOperation(contracts.getImportReadiness, async ({ company }) => ({ status: 200, body: await readiness(company) })),
  importAccounts: submit('accounts', contracts.importAccounts),
  importDimensions: submit('dimensions', contracts.importDimensions),
  importSubLedgers: submit('sub_ledgers', contracts.importSubLedgers),
  importOpeningBalances: submit('opening_balances', contracts.importOpeningBalances),
  importGeneralLedgerLines: submit('general_ledger_lines', contracts.importGeneralLedgerLines),
  importOpenItems: submit('open_items', contracts.importOpenItems),
  deleteGeneralLedgerLines: submit('general_ledger_line_deletions', contracts.deleteGeneralLedgerLines),
  deleteOpeningBalances: submit('opening_balance_deletions', contracts.deleteOpeningBalances),
  getImport: defineCompanyOperation(contracts.getImport, async ({ company, params }) => ({
    status: 200,
    body: await getImport(company.id, params.importId),
  })),
  listImports: defineCompanyOperation(contracts.listImports, async ({ principal, company, query }) => ({
    status: 200,
    body: await listImports(principal, company.id, query),
  })),
  deleteAccount: defineCompanyOperation(contracts.deleteAccount, async ({ principal, company, params, query }) => {
    const year = query.year ?? (await currentAccountingYear(company.id));
    const body = { year, ids: [params.accountNumber] };
    return accepted(company.id, await submitImport(principal, company, importKind('account_deletion'), body));
  }),
  deleteDimension: defineCompanyOperation(contracts.deleteDimension, async ({ principal, company, params }) =>
    accepted(company.id, await submitImport(principal, company, importKind('dimension_deletion'), { ids: [params.key] })),
  ),
  deleteSubLedger: defineCompanyOperation(contracts.deleteSubLedger, async ({ principal, company, params }) =>
    accepted(company.id, await submitImport(principal, company, importKind('sub_ledger_deletion'), { ids: [params.key] })),
  ),
  listFetchRuns: defineCompanyOperation(contracts.listFetchRuns, async ({ principal, company, query }) => ({
    status: 200,
    body: await listFetchRuns(principal, company.id, query),
  })),
};
