import { importContracts as contracts } from '../../shared/composition/import-contracts';
import { defineOperations, type Implementations } from '../../shared/composition/operations';
import { importSubmissions, type ImportSubmissionId } from '../../shared/imports/catalogue';
import type { ImportKindName } from '../../shared/imports/kind';
import { submitKeyedImport, type SubmittedImport } from '../../shared/imports/pipeline';
import { readiness } from '../../shared/ledger/readiness';
import { importKind } from '../../shared/composition/import-kinds';
import { getImport, listFetchRuns, listImports } from '../../shared/imports/service';
import { currentAccountingYear } from '../../shared/ledger/chart/service';
import type { OperationResult } from '../../shared/api/operation';
import { toSaftImport } from '../../shared/saft/repository';
import { createSaftImport, getSaftImport, listSaftImports, startSaftImport } from '../../shared/saft/service';

/**
 * 202 with the import. Each operation that creates one passes its Idempotency-Key on (spec: Import
 * rules 6): an import the key accepted before (no new import) says so, as a replay does.
 */
const accepted = (companyId: string, { record, replayed }: SubmittedImport): OperationResult => ({
  status: 202,
  body: record,
  headers: { Location: `/v1/companies/${companyId}/imports/${record.id}`, ...(replayed && { 'Idempotency-Replayed': 'true' }) },
});

type Submissions = Implementations<ImportSubmissionId, typeof contracts>;

const submit =
  (name: ImportKindName): Submissions[ImportSubmissionId] =>
  async (request) => {
    const { principal, owner: company, body, idempotency } = request;
    return accepted(company.id, await submitKeyedImport(principal, company, importKind(name), body, idempotency));
  };

/** One submission per entry of the import catalogue (shared/imports/catalogue.ts). */
const submissions = Object.fromEntries(importSubmissions.map((entry) => [entry.operationId, submit(entry.kind)])) as Submissions;

/** Data import (imports:write, system clients only), import reads, readiness, fetch runs. */
export const importOperations = defineOperations('imports', contracts, {
  getImportReadiness: async ({ owner: company }) => ({ status: 200, body: await readiness(company) }),
  ...submissions,
  getImport: async ({ owner: company, params }) => ({
    status: 200,
    body: await getImport(company.id, params.importId),
  }),
  listImports: async ({ principal, owner: company, query }) => ({
    status: 200,
    body: await listImports(principal, company.id, query),
  }),
  deleteAccount: async (request) => {
    const { principal, owner: company, params, query, idempotency } = request;
    const year = query.year ?? (await currentAccountingYear(company.id));
    const body = { year, ids: [params.accountNumber] };
    return accepted(company.id, await submitKeyedImport(principal, company, importKind('account_deletion'), body, idempotency));
  },
  deleteDimension: async (request) =>
    accepted(request.owner.id, await submitKeyedImport(request.principal, request.owner, importKind('dimension_deletion'), { ids: [request.params.key] }, request.idempotency)),
  deleteSubLedger: async (request) =>
    accepted(request.owner.id, await submitKeyedImport(request.principal, request.owner, importKind('sub_ledger_deletion'), { ids: [request.params.key] }, request.idempotency)),
  listFetchRuns: async ({ principal, owner: company, query }) => ({
    status: 200,
    body: await listFetchRuns(principal, company.id, query),
  }),
  createSaftImport: async ({ owner: company, body }) => {
    const created = await createSaftImport(company, body);
    return { status: 201, body: created, headers: { Location: `/v1/companies/${company.id}/imports/saft/${created.id}` } };
  },
  startSaftImport: async ({ owner: company, params, body }) => {
    const record = await startSaftImport(company, params.saftImportId, body ?? {});
    return { status: 202, body: record, headers: { Location: `/v1/companies/${company.id}/imports/saft/${record.id}` } };
  },
  getSaftImport: async ({ owner: company, params }) => ({ status: 200, body: toSaftImport(await getSaftImport(company.id, params.saftImportId)) }),
  listSaftImports: async ({ principal, owner: company, query }) => ({ status: 200, body: await listSaftImports(principal, company.id, query) }),
});
