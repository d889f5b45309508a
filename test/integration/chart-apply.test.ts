import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { parse } from 'lossless-json';
import { beforeAll, describe, expect, it } from 'vitest';
import { ledgerOperations as chartOperations } from '../../functions/ledger/operations';
import { runWithReach } from '../support/operations';
import { createCompany } from '../../shared/companies/service';
import type { Principal } from '../../shared/identity/principal';
import { organizationRepository } from '../../shared/identity/organization-repository';
import type { ImportContext, ImportKind, RowOutcome } from '../../shared/imports/kind';
import {
  accountDeletionKind,
  accountsImportKind,
  chartImportKinds,
  dimensionDeletionKind,
  dimensionsImportKind,
  subLedgerDeletionKind,
  subLedgersImportKind,
} from '../../shared/ledger/chart/import-kinds';
import { DimensionPageSchema, LedgerAccountPageSchema, LedgerAccountSchema, SubLedgerPageSchema } from '../../shared/ledger/chart/schemas';
import {
  accountCodesOfYear,
  chartYears,
  chartYearSummaries,
  countDimensions,
  countSubLedgers,
  currentAccountingYear,
  getAccount,
  listAccounts,
  listDimensions,
  listSubLedgers,
  setStandardAccount,
} from '../../shared/ledger/chart/service';
import { chartRepository } from '../../shared/ledger/chart/repository';
import { commitUnlessCancelled } from '../../shared/db/unit-of-work';
import { applyDeltasOnce } from '../../shared/ledger/deltas';
import { balanceKeys, dimensionKeys, subLedgerKeys, usageKeys } from '../../shared/ledger/keys';
import { dynamo, tableName } from '../../shared/platform/aws';
import { norwegianYear } from '../../shared/platform/norway-time';
import { Decimal } from '../../shared/platform/money';
import type { Operation } from '../../shared/api/operation';
import { ProblemError } from '../../shared/platform/problem';
import * as z from '../../shared/platform/zod';
import { testStack } from '../support/stack';

let principal: Principal;

beforeAll(async () => {
  const stack = testStack();
  const organization = await organizationRepository.get(stack.organizations[0]!.id);
  principal = {
    clientId: 'chart-apply-test',
    mode: 'SYSTEM',
    organizationId: organization!.id,
    organizationPath: organization!.path,
    userId: null,
    organizationIds: [],
    scopes: ['companies:read', 'companies:write', 'ledger:read', 'imports:write'],
    plan: 'premium',
  };
});

/** The list reads are pages now; these books fit on the first page of the largest size. */
const firstPage = { page_size: 200 };
const caller = { caller: 'chart-apply-test', operationId: 'test' };

const newCompany = async () => (await createCompany(principal, { displayName: `Chart ${randomUUID().slice(0, 8)} AS`, accountingSystem: 'Api' })).id;

interface Run {
  context: ImportContext;
  outcomes: RowOutcome[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows of whichever kind the test drives
  rows: any[];
  chunks: { index: number; firstRow: number; size: number }[];
}

/** Does what the pipeline does with a kind: lossless parse, structure, precheck, rows, chunks in order. */
const runKind = async (kind: ImportKind, companyId: string, body: string, options: { chunkSize?: number; importId?: string } = {}): Promise<Run> => {
  const parsed = kind.bodySchema.safeParse(parse(body));
  if (!parsed.success) throw new Error(`structure: ${JSON.stringify(parsed.error.issues)}`);
  await kind.precheck?.(companyId, parsed.data);
  const rows = kind.rows(parsed.data);
  const context: ImportContext = {
    companyId,
    importId: options.importId ?? randomUUID(),
    datasetId: randomUUID(),
    year: kind.year(parsed.data),
    mode: kind.mode(parsed.data),
    lane: kind.lane,
    appliedAt: new Date().toISOString(),
  };
  const size = options.chunkSize ?? kind.chunkSize;
  const outcomes: RowOutcome[] = [];
  const chunks: Run['chunks'] = [];
  for (let index = 0, firstRow = 0; firstRow < rows.length; index++, firstRow += size) {
    chunks.push({ index, firstRow, size });
    outcomes.push(...(await kind.applyChunk(context, rows.slice(firstRow, firstRow + size), { index, firstRow })));
  }
  return { context, outcomes, rows, chunks };
};

/** A second delivery of every chunk of a run (the worker crashed after applying, before recording). */
const redeliver = async (kind: ImportKind, run: Run): Promise<RowOutcome[]> => {
  const outcomes: RowOutcome[] = [];
  for (const chunk of run.chunks) {
    outcomes.push(...(await kind.applyChunk(run.context, run.rows.slice(chunk.firstRow, chunk.firstRow + chunk.size), chunk)));
  }
  return outcomes;
};

const accountsBody = (year: number, accounts: Record<string, unknown>[]) => JSON.stringify({ year, accounts });
const account = (code: string, extra: Record<string, unknown> = {}) => ({
  accountCode: code,
  accountDescription: `Account ${code}`,
  accountCategory: Number(code) < 3000 ? 'Balance' : 'Result',
  ...extra,
});
const outcomesOf = (run: { outcomes: RowOutcome[] } | RowOutcome[]) => ('outcomes' in run ? run.outcomes : run).map((o) => o.outcome);
const summaryOf = async (companyId: string, year: number) => (await chartYearSummaries(companyId)).find((s) => s.year === year);

/** A GL line on an account, counted as the GL engineer counts it (trial-balance aggregate, lineCount). */
const countLineOnAccount = (companyId: string, year: number, code: string, period: number) =>
  applyDeltasOnce(
    [{ key: balanceKeys(companyId, year, code, period), add: { lineCount: 1, amount: new Decimal('100.00') }, set: { accountCode: code, period } }],
    { importId: randomUUID(), chunk: 0 },
  );

/** A line naming a key, counted as the GL engineer counts it (usage item of its lane). */
const countUsage = (companyId: string, kind: 'dimension' | 'subLedger', key: string, lane: string) =>
  applyDeltasOnce([{ key: usageKeys(companyId, kind, key, lane), add: { count: 1 } }], { importId: randomUUID(), chunk: 0 });

/** A key named by a GL line before it was imported (rule 2), created as the GL engineer creates it. */
const autoCreate = (companyId: string, entity: 'dimension' | 'subLedger', key: string) =>
  dynamo().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...(entity === 'dimension' ? dimensionKeys(companyId, key) : subLedgerKeys(companyId, key)),
        entity,
        key,
        value: key,
        type: null,
        autoCreated: true,
        createdAt: new Date().toISOString(),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );

const expectProblem = async (promise: Promise<unknown>, status: number, fields: Record<string, unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProblemError);
  expect((error as ProblemError).problem).toMatchObject({ status, ...fields });
  return (error as ProblemError).problem;
};

describe('chart import kinds', () => {
  it('declares the six kinds with their lanes, events and deletion reporting', () => {
    expect(chartImportKinds.map((k) => [k.name, k.lane, k.requestedEvent, k.reportsDeletions, k.postFetch])).toEqual([
      ['accounts', 'accounts', 'import.requested', false, false],
      ['dimensions', 'dimensions', 'import.requested', false, false],
      ['sub_ledgers', 'sub_ledgers', 'import.requested', false, false],
      ['account_deletion', 'accounts', 'correction.requested', true, false],
      ['dimension_deletion', 'dimensions', 'correction.requested', true, false],
      ['sub_ledger_deletion', 'sub_ledgers', 'correction.requested', true, false],
    ]);
  });

  it('refuses structural problems, with paths into the request array', () => {
    const issues = (kind: ImportKind, body: string) => {
      const result = kind.bodySchema.safeParse(parse(body));
      return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
    };
    expect(issues(accountsImportKind, accountsBody(2025, [account('1920')]))).toEqual([]);
    expect(issues(accountsImportKind, '{"year": "2025", "accounts": []}')).toEqual(['year', 'accounts']); // an empty import is refused too
    expect(issues(accountsImportKind, '{"year": 2025.5, "accounts": []}')).toEqual(['year', 'accounts']);
    expect(
      issues(
        accountsImportKind,
        accountsBody(2025, [
          account('1920', { accountCategory: 'Asset' }),
          account('19 20'),
          account('3000', { currencyCode: 'nok' }),
          account('3001', { hidden: 'yes' }),
          account('3002', { extra: 1 }),
          { accountCode: '3003', accountCategory: 'Result' },
        ]),
      ),
    ).toEqual(['accounts.0.accountCategory', 'accounts.1.accountCode', 'accounts.2.currencyCode', 'accounts.3.hidden', 'accounts.4', 'accounts.5.accountDescription']);
    expect(issues(dimensionsImportKind, '{"dimensions": [{"key": "D1", "value": "Sales", "type": "team"}]}')).toEqual(['dimensions.0.type']);
    expect(issues(subLedgersImportKind, '{"subLedgers": [{"key": "K1", "value": "Kunde", "type": "partner"}]}')).toEqual(['subLedgers.0.type']);
    // deletion bodies are built by the pipeline from the path
    expect(accountDeletionKind.bodySchema.safeParse({ year: 2025, ids: ['1920'] }).success).toBe(true);
    expect(dimensionDeletionKind.bodySchema.safeParse({ ids: ['D1', 'D1'] }).success).toBe(false);
    expect(subLedgerDeletionKind.bodySchema.safeParse({ ids: [] }).success).toBe(false);
  });
});

describe('accounts import', () => {
  it('inserts, then updates in place: the mapping is untouched, hidden omitted keeps the flag, currency omitted clears it', async () => {
    const companyId = await newCompany();
    const first = await runKind(
      accountsImportKind,
      companyId,
      accountsBody(2025, [account('1920', { currencyCode: 'NOK' }), account('3000', { hidden: true }), account('1500')]),
    );
    expect(outcomesOf(first)).toEqual(['inserted', 'inserted', 'inserted']);
    expect(first.context.year).toBe(2025);
    expect(await summaryOf(companyId, 2025)).toEqual({ year: 2025, accounts: 3, mappedAccounts: 0, lastImportAt: first.context.appliedAt });

    const mapped = await setStandardAccount(companyId, 2025, '1920', '1920');
    expect(mapped).toMatchObject({ standardAccount: '1920', mapped: true });
    await setStandardAccount(companyId, 2025, '1500', '1500');
    await setStandardAccount(companyId, 2025, '1500', null); // cleared again
    expect(await summaryOf(companyId, 2025)).toMatchObject({ accounts: 3, mappedAccounts: 1 });

    const second = await runKind(
      accountsImportKind,
      companyId,
      accountsBody(2025, [
        account('1920', { accountDescription: 'Bank, renamed' }),
        account('3000', { accountCategory: 'Result' }),
        account('1500', { hidden: true }),
        account('4000', { currencyCode: 'EUR' }),
      ]),
    );
    expect(outcomesOf(second)).toEqual(['updated', 'updated', 'updated', 'inserted']);

    const bank = await getAccount(companyId, '1920', 2025);
    expect(bank).toEqual({
      accountNumber: '1920',
      year: 2025,
      description: 'Bank, renamed',
      category: 'Balance',
      currencyCode: null,
      hidden: false,
      standardAccount: '1920',
      mapped: true,
      updatedAt: second.context.appliedAt,
      datasetId: second.context.datasetId,
    });
    expect(LedgerAccountSchema.parse(bank)).toEqual(bank);
    expect(await getAccount(companyId, '3000', 2025)).toMatchObject({ hidden: true, standardAccount: null, mapped: false }); // omitted: still hidden
    expect(await getAccount(companyId, '1500', 2025)).toMatchObject({ hidden: true });
    expect(await getAccount(companyId, '4000', 2025)).toMatchObject({ hidden: false, currencyCode: 'EUR', datasetId: second.context.datasetId });
    expect(await summaryOf(companyId, 2025)).toEqual({ year: 2025, accounts: 4, mappedAccounts: 1, lastImportAt: second.context.appliedAt });

    // hidden false shows a hidden account again (rule 12 in reverse)
    expect(outcomesOf(await runKind(accountsImportKind, companyId, accountsBody(2025, [account('3000', { hidden: false })])))).toEqual(['updated']);
    expect(await getAccount(companyId, '3000', 2025)).toMatchObject({ hidden: false });
  });

  it('keeps each year its own chart; the current year is the latest with a chart up to this year', async () => {
    const companyId = await newCompany();
    expect(await chartYears(companyId)).toEqual([]);
    expect(await currentAccountingYear(companyId)).toBe(norwegianYear(new Date()));
    expect(await listAccounts(companyId)).toEqual({ data: [], pagination: { next_cursor: null, has_more: false } });

    await runKind(accountsImportKind, companyId, accountsBody(2024, [account('1920', { accountDescription: 'Bank 2024' }), account('3000')]));
    await runKind(accountsImportKind, companyId, accountsBody(2025, [account('1920', { accountDescription: 'Bank 2025', hidden: true })]));
    expect(await chartYears(companyId)).toEqual([2024, 2025]);
    expect(await currentAccountingYear(companyId)).toBe(2025);

    await setStandardAccount(companyId, 2024, '1920', '1920');
    expect(await getAccount(companyId, '1920', 2024)).toMatchObject({ description: 'Bank 2024', hidden: false, mapped: true });
    expect(await getAccount(companyId, '1920', 2025)).toMatchObject({ description: 'Bank 2025', hidden: true, mapped: false });
    expect(await getAccount(companyId, '1920')).toMatchObject({ year: 2025 });
    await expectProblem(getAccount(companyId, '3000', 2025), 404, { error: 'not_found' });

    const page2024 = await listAccounts(companyId, 2024);
    expect(LedgerAccountPageSchema.parse(page2024)).toEqual(page2024);
    expect(page2024.data.map((a) => a.accountNumber)).toEqual(['1920', '3000']);
    expect(page2024.pagination).toEqual({ next_cursor: null, has_more: false });
    expect((await listAccounts(companyId)).data.map((a) => [a.accountNumber, a.year])).toEqual([['1920', 2025]]);
    expect(await accountCodesOfYear(companyId, 2025)).toEqual(new Map([['1920', { hidden: true }]]));
    expect(await accountCodesOfYear(companyId, 2024)).toEqual(
      new Map([
        ['1920', { hidden: false }],
        ['3000', { hidden: false }],
      ]),
    );
    expect((await summaryOf(companyId, 2024))!).toMatchObject({ accounts: 2, mappedAccounts: 1 });
    expect((await summaryOf(companyId, 2025))!).toMatchObject({ accounts: 1, mappedAccounts: 0 });
  });

  it('fails later duplicates as rows, within a chunk and across chunks; the first applies', async () => {
    const companyId = await newCompany();
    const run = await runKind(
      accountsImportKind,
      companyId,
      accountsBody(2025, [
        account('1920', { accountDescription: 'first' }),
        account('1920', { accountDescription: 'second' }),
        account('3000'),
        account('1920', { accountDescription: 'third' }),
      ]),
      { chunkSize: 2 },
    );
    expect(outcomesOf(run)).toEqual(['inserted', 'failed', 'inserted', 'failed']);
    expect(run.outcomes[1]).toEqual({ outcome: 'failed', message: 'duplicate accountCode 1920: it first appears at line 1, which is the one applied' });
    expect(await getAccount(companyId, '1920', 2025)).toMatchObject({ description: 'first' });
    expect(await summaryOf(companyId, 2025)).toMatchObject({ accounts: 2 });
  });

  it('a redelivered chunk returns the same outcomes and counts nothing twice', async () => {
    const companyId = await newCompany();
    await runKind(accountsImportKind, companyId, accountsBody(2025, [account('1920')]));
    const run = await runKind(accountsImportKind, companyId, accountsBody(2025, [account('1920'), account('3000'), account('3000'), account('4000')]), {
      chunkSize: 3,
    });
    expect(outcomesOf(run)).toEqual(['updated', 'inserted', 'failed', 'inserted']);
    expect(outcomesOf(await redeliver(accountsImportKind, run))).toEqual(['updated', 'inserted', 'failed', 'inserted']);
    expect(await summaryOf(companyId, 2025)).toMatchObject({ accounts: 3, mappedAccounts: 0 });
  });

  it('a chunk redelivered after a crash between its writes and its counters counts every insert once', async () => {
    const companyId = await newCompany();
    const body = accountsImportKind.bodySchema.parse(parse(accountsBody(2026, [account('1920'), account('3000')])));
    const rows = accountsImportKind.rows(body);
    const context: ImportContext = {
      companyId,
      importId: randomUUID(),
      datasetId: randomUUID(),
      year: 2026,
      mode: 'merge',
      lane: 'accounts',
      appliedAt: new Date().toISOString(),
    };
    // the crashed delivery wrote row 0 and stopped before the year summary
    await chartRepository.writeAccount(
      companyId,
      2026,
      { accountNumber: '1920', description: 'Account 1920', category: 'Balance', currencyCode: null, hidden: undefined },
      { importId: context.importId, row: 0, outcome: 'inserted', datasetId: context.datasetId, appliedAt: context.appliedAt },
    );
    expect(await summaryOf(companyId, 2026)).toBeUndefined();
    expect(outcomesOf(await accountsImportKind.applyChunk(context, rows, { index: 0, firstRow: 0 }))).toEqual(['inserted', 'inserted']);
    expect(outcomesOf(await accountsImportKind.applyChunk(context, rows, { index: 0, firstRow: 0 }))).toEqual(['inserted', 'inserted']);
    expect(await summaryOf(companyId, 2026)).toMatchObject({ accounts: 2, mappedAccounts: 0, lastImportAt: context.appliedAt });
    await expectProblem(setStandardAccount(companyId, 2026, '9999', '9999'), 404, { error: 'not_found' });
  });
});

describe('dimensions import', () => {
  it('merges by key, checks parents (existing or earlier in the request, no cycles) and updates auto-created keys in place', async () => {
    const companyId = await newCompany();
    await autoCreate(companyId, 'dimension', 'P-7');
    expect((await listDimensions(companyId, firstPage, caller)).data).toEqual([
      { key: 'P-7', value: 'P-7', type: null, parentKey: null, autoCreated: true, updatedAt: expect.any(String) },
    ]);

    const run = await runKind(
      dimensionsImportKind,
      companyId,
      JSON.stringify({
        dimensions: [
          { key: 'SALES', value: 'Sales', type: 'department' },
          { key: 'SALES-N', value: 'Sales north', type: 'department', parentKey: 'SALES' },
          { key: 'X', value: 'Orphan', type: 'other', parentKey: 'LATER' },
          { key: 'LATER', value: 'Later', type: 'region' },
          { key: 'P-7', value: 'Project seven', type: 'project' },
          { key: 'SALES', value: 'Sales again', type: 'department' },
          { key: 'Y', value: 'Nobody', type: 'other', parentKey: 'NOPE' },
        ],
      }),
      { chunkSize: 3 },
    );
    expect(outcomesOf(run)).toEqual(['inserted', 'inserted', 'failed', 'inserted', 'updated', 'failed', 'failed']);
    expect(run.outcomes[2]).toEqual({ outcome: 'failed', message: 'parentKey LATER names no dimension (neither an existing one nor one earlier in this request)' });
    expect(outcomesOf(await redeliver(dimensionsImportKind, run))).toEqual(outcomesOf(run));

    const page = await listDimensions(companyId, firstPage, caller);
    expect(DimensionPageSchema.parse(page)).toEqual(page);
    expect(page.data).toEqual([
      { key: 'LATER', value: 'Later', type: 'region', parentKey: null, autoCreated: false, updatedAt: run.context.appliedAt },
      { key: 'P-7', value: 'Project seven', type: 'project', parentKey: null, autoCreated: false, updatedAt: run.context.appliedAt },
      { key: 'SALES', value: 'Sales', type: 'department', parentKey: null, autoCreated: false, updatedAt: run.context.appliedAt },
      { key: 'SALES-N', value: 'Sales north', type: 'department', parentKey: 'SALES', autoCreated: false, updatedAt: run.context.appliedAt },
    ]);
    expect(page.pagination).toEqual({ next_cursor: null, has_more: false });

    // a parent existing now; a cycle through an existing child; own key as parent
    const next = await runKind(
      dimensionsImportKind,
      companyId,
      JSON.stringify({
        dimensions: [
          { key: 'X', value: 'Now placed', type: 'other', parentKey: 'LATER' },
          { key: 'SALES', value: 'Sales', type: 'department', parentKey: 'SALES-N' },
          { key: 'LATER', value: 'Later', type: 'region', parentKey: 'LATER' },
        ],
      }),
    );
    expect(outcomesOf(next)).toEqual(['inserted', 'failed', 'failed']);
    expect(next.outcomes[1]).toEqual({ outcome: 'failed', message: 'parentKey SALES-N would make a cycle: SALES is its own ancestor' });
    expect(await countDimensions(companyId)).toBe(5);
  });
});

describe('sub-ledgers import', () => {
  it('merges by key, keeps the type of a key, fills auto-created keys', async () => {
    const companyId = await newCompany();
    await autoCreate(companyId, 'subLedger', '10001');
    const run = await runKind(
      subLedgersImportKind,
      companyId,
      JSON.stringify({
        subLedgers: [
          { key: '10001', value: 'Kunde En AS', type: 'customer' },
          { key: '20001', value: 'Leverandør AS', type: 'supplier' },
          { key: '10001', value: 'Kunde dobbel', type: 'customer' },
        ],
      }),
    );
    expect(outcomesOf(run)).toEqual(['updated', 'inserted', 'failed']);
    expect(outcomesOf(await redeliver(subLedgersImportKind, run))).toEqual(['updated', 'inserted', 'failed']);

    const next = await runKind(
      subLedgersImportKind,
      companyId,
      JSON.stringify({
        subLedgers: [
          { key: '20001', value: 'Leverandør Ny AS', type: 'supplier' },
          { key: '10001', value: 'Now a supplier?', type: 'supplier' },
        ],
      }),
    );
    expect(outcomesOf(next)).toEqual(['updated', 'failed']);
    expect(next.outcomes[1]).toEqual({ outcome: 'failed', message: 'sub-ledger 10001 exists with type customer; a key cannot change its type' });

    const page = await listSubLedgers(companyId, firstPage, caller);
    expect(SubLedgerPageSchema.parse(page)).toEqual(page);
    expect(page.data).toEqual([
      { key: '10001', value: 'Kunde En AS', type: 'customer', autoCreated: false, updatedAt: run.context.appliedAt },
      { key: '20001', value: 'Leverandør Ny AS', type: 'supplier', autoCreated: false, updatedAt: next.context.appliedAt },
    ]);
    expect(await countSubLedgers(companyId)).toBe(2);
  });
});

describe('deletions', () => {
  it('account: unknown, deleted (the year summary follows), 409 account_in_use while lines count on it', async () => {
    const companyId = await newCompany();
    await runKind(accountsImportKind, companyId, accountsBody(2025, [account('1920'), account('3000'), account('4000')]));
    await runKind(accountsImportKind, companyId, accountsBody(2024, [account('3000')]));
    await setStandardAccount(companyId, 2025, '3000', '3000');
    expect(await summaryOf(companyId, 2025)).toMatchObject({ accounts: 3, mappedAccounts: 1 });

    const unknown = await runKind(accountDeletionKind, companyId, '{"year": 2025, "ids": ["9999"]}');
    expect(outcomesOf(unknown)).toEqual(['unknown']);

    const deleted = await runKind(accountDeletionKind, companyId, '{"year": 2025, "ids": ["3000"]}');
    expect(outcomesOf(deleted)).toEqual(['deleted']);
    expect(outcomesOf(await redeliver(accountDeletionKind, deleted))).toEqual(['deleted']);
    await expectProblem(getAccount(companyId, '3000', 2025), 404, { error: 'not_found' });
    expect(await getAccount(companyId, '3000', 2024)).toMatchObject({ year: 2024 }); // the other year's chart is untouched
    expect(await summaryOf(companyId, 2025)).toMatchObject({ accounts: 2, mappedAccounts: 0 });

    await countLineOnAccount(companyId, 2025, '1920', 3);
    await countLineOnAccount(companyId, 2025, '1920', 0);
    const problem = await expectProblem(runKind(accountDeletionKind, companyId, '{"year": 2025, "ids": ["1920"]}'), 409, {
      error: 'conflict',
      reason: 'account_in_use',
    });
    expect(problem.inUse).toEqual([{ id: '1920', lines: 2, generalLedgerLines: 1, openingBalances: 1 }]);
    expect(await getAccount(companyId, '1920', 2025)).toMatchObject({ accountNumber: '1920' }); // nothing deleted
    // lines in another year do not hold this year's account
    await countLineOnAccount(companyId, 2024, '4000', 1);
    expect(outcomesOf(await runKind(accountDeletionKind, companyId, '{"year": 2025, "ids": ["4000"]}'))).toEqual(['deleted']);
    expect(await summaryOf(companyId, 2025)).toMatchObject({ accounts: 1, mappedAccounts: 0 });

    // lines counted after acceptance: the row fails at apply time, nothing deleted
    const body = accountDeletionKind.bodySchema.parse({ year: 2025, ids: ['1920'] });
    const outcomes = await accountDeletionKind.applyChunk(
      { companyId, importId: randomUUID(), datasetId: randomUUID(), year: 2025, mode: 'merge', lane: 'accounts', appliedAt: new Date().toISOString() },
      accountDeletionKind.rows(body),
      { index: 0, firstRow: 0 },
    );
    expect(outcomes).toEqual([{ outcome: 'failed', message: 'account 1920 is in use and was not deleted (lines 2; generalLedgerLines 1; openingBalances 1)' }]);
    // rule 12: retired by hiding instead
    expect(outcomesOf(await runKind(accountsImportKind, companyId, accountsBody(2025, [account('1920', { hidden: true })])))).toEqual(['updated']);
  });

  it('account: not deleted while an import of GL lines or opening balances is in flight (it may have read the account already)', async () => {
    const { laneLeaseMilliseconds, laneLockItem } = await import('../../shared/jobs/repository');
    const { laneLockKeys } = await import('../../shared/jobs/keys');
    const companyId = await newCompany();
    await runKind(accountsImportKind, companyId, accountsBody(2025, [account('1920'), account('3000')]));
    const deletion = (code: string) =>
      accountDeletionKind.applyChunk(
        { companyId, importId: randomUUID(), datasetId: randomUUID(), year: 2025, mode: 'merge', lane: 'accounts', appliedAt: new Date().toISOString() },
        [code],
        { index: 0, firstRow: 0 },
      );
    const jobId = randomUUID();
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: laneLockItem(companyId, 'general_ledger_lines', jobId, randomUUID(), Date.now()) }));

    // accepted meanwhile: 409 job_in_flight naming the job to wait for
    const problem = await expectProblem(runKind(accountDeletionKind, companyId, '{"year": 2025, "ids": ["1920"]}'), 409, { error: 'conflict', reason: 'job_in_flight' });
    expect(problem.jobId).toBe(jobId);
    // accepted before the import: the row fails at apply time, nothing deleted
    expect(await deletion('1920')).toEqual([
      { outcome: 'failed', message: `account 1920 was not deleted: an import of GL lines (job ${jobId}) is in flight; retry once it has finished` },
    ]);
    expect(await getAccount(companyId, '1920', 2025)).toMatchObject({ accountNumber: '1920' });

    // the deletion's transaction checks the lock itself (a lock taken after the row's own check)
    const record = (await chartRepository.getAccounts(companyId, 2025, ['3000'])).get('3000')!;
    expect(await commitUnlessCancelled(chartRepository.deleteAccountWrites(companyId, 2025, record, randomUUID(), 0))).toBe(false);

    // a lock whose lease ran out (its job died) does not hold the account; nor does a released one
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: laneLockItem(companyId, 'opening_balances', randomUUID(), randomUUID(), Date.now() - laneLeaseMilliseconds - 60_000) }));
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: laneLockKeys(companyId, 'general_ledger_lines') }));
    expect(outcomesOf(await deletion('1920'))).toEqual(['deleted']);
    expect(await commitUnlessCancelled(chartRepository.deleteAccountWrites(companyId, 2025, record, randomUUID(), 0))).toBe(true);
  });

  it('dimension: unknown, deleted, 409 dimension_in_use for usage and for child dimensions', async () => {
    const companyId = await newCompany();
    await runKind(
      dimensionsImportKind,
      companyId,
      JSON.stringify({
        dimensions: [
          { key: 'D1', value: 'One', type: 'department' },
          { key: 'D2', value: 'Two', type: 'department', parentKey: 'D1' },
          { key: 'D3', value: 'Three', type: 'project' },
          { key: 'D3#X', value: 'Key with #', type: 'project' },
        ],
      }),
    );
    expect(outcomesOf(await runKind(dimensionDeletionKind, companyId, '{"ids": ["NOPE"]}'))).toEqual(['unknown']);

    await countUsage(companyId, 'dimension', 'D3#X', 'general_ledger_lines'); // must not count for D3
    const deleted = await runKind(dimensionDeletionKind, companyId, '{"ids": ["D3"]}');
    expect(outcomesOf(deleted)).toEqual(['deleted']);
    expect(outcomesOf(await redeliver(dimensionDeletionKind, deleted))).toEqual(['deleted']);

    const parent = await expectProblem(runKind(dimensionDeletionKind, companyId, '{"ids": ["D1"]}'), 409, { error: 'conflict', reason: 'dimension_in_use' });
    expect(parent.inUse).toEqual([{ id: 'D1', lines: 0, childDimensions: ['D2'] }]);

    await countUsage(companyId, 'dimension', 'D2', 'general_ledger_lines');
    await countUsage(companyId, 'dimension', 'D2', 'general_ledger_lines');
    await countUsage(companyId, 'dimension', 'D2', 'opening_balances');
    const used = await expectProblem(runKind(dimensionDeletionKind, companyId, '{"ids": ["D2"]}'), 409, { reason: 'dimension_in_use' });
    expect(used.inUse).toEqual([{ id: 'D2', lines: 3, generalLedgerLines: 2, openingBalances: 1, childDimensions: [] }]);
    expect((await listDimensions(companyId, firstPage, caller)).data.map((d) => d.key)).toEqual(['D1', 'D2', 'D3#X']);
    expect(await countDimensions(companyId)).toBe(3);
  });

  it('dimension and sub-ledger: not deleted while an import that may name them is in flight (it may have read them already)', async () => {
    const { laneLockItem } = await import('../../shared/jobs/repository');
    const { laneLockKeys } = await import('../../shared/jobs/keys');
    const companyId = await newCompany();
    await runKind(dimensionsImportKind, companyId, JSON.stringify({ dimensions: [{ key: 'K1', value: 'One', type: 'department' }] }));
    await runKind(subLedgersImportKind, companyId, JSON.stringify({ subLedgers: [{ key: 'S1', value: 'One', type: 'customer' }] }));
    const context = (lane: 'dimensions' | 'sub_ledgers'): ImportContext => ({ companyId, importId: randomUUID(), datasetId: randomUUID(), year: null, mode: 'merge', lane, appliedAt: new Date().toISOString() });
    for (const lane of ['general_ledger_lines', 'open_items'] as const) {
      const jobId = randomUUID();
      await dynamo().send(new PutCommand({ TableName: tableName(), Item: laneLockItem(companyId, lane, jobId, randomUUID(), Date.now()) }));
      const noun = lane === 'open_items' ? 'open items' : 'GL lines';
      // accepted meanwhile: 409 job_in_flight naming the job to wait for
      expect((await expectProblem(runKind(dimensionDeletionKind, companyId, '{"ids": ["K1"]}'), 409, { error: 'conflict', reason: 'job_in_flight' })).jobId).toBe(jobId);
      expect((await expectProblem(runKind(subLedgerDeletionKind, companyId, '{"ids": ["S1"]}'), 409, { error: 'conflict', reason: 'job_in_flight' })).jobId).toBe(jobId);
      // accepted before the import: the row fails at apply time, nothing deleted
      expect(await dimensionDeletionKind.applyChunk(context('dimensions'), ['K1'], { index: 0, firstRow: 0 })).toEqual([
        { outcome: 'failed', message: `dimension K1 was not deleted: an import of ${noun} (job ${jobId}) is in flight; retry once it has finished` },
      ]);
      expect(await subLedgerDeletionKind.applyChunk(context('sub_ledgers'), ['S1'], { index: 0, firstRow: 0 })).toEqual([
        { outcome: 'failed', message: `sub-ledger S1 was not deleted: an import of ${noun} (job ${jobId}) is in flight; retry once it has finished` },
      ]);
      // the deletion's transaction checks the lock itself (a lock taken after the row's own check)
      expect(await commitUnlessCancelled(chartRepository.deleteDimensionWrites(companyId, 'K1', [], randomUUID(), 0))).toBe(false);
      expect(await commitUnlessCancelled(chartRepository.deleteSubLedgerWrites(companyId, 'S1', [], randomUUID(), 0))).toBe(false);
      await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: laneLockKeys(companyId, lane) }));
    }
    expect(outcomesOf(await runKind(dimensionDeletionKind, companyId, '{"ids": ["K1"]}'))).toEqual(['deleted']);
    expect(outcomesOf(await runKind(subLedgerDeletionKind, companyId, '{"ids": ["S1"]}'))).toEqual(['deleted']);
  });

  it('sub-ledger: unknown, deleted, 409 sub_ledger_in_use', async () => {
    const companyId = await newCompany();
    await runKind(
      subLedgersImportKind,
      companyId,
      JSON.stringify({
        subLedgers: [
          { key: 'C1', value: 'Customer', type: 'customer' },
          { key: 'S1', value: 'Supplier', type: 'supplier' },
        ],
      }),
    );
    expect(outcomesOf(await runKind(subLedgerDeletionKind, companyId, '{"ids": ["NOPE"]}'))).toEqual(['unknown']);
    const deleted = await runKind(subLedgerDeletionKind, companyId, '{"ids": ["S1"]}');
    expect(outcomesOf(deleted)).toEqual(['deleted']);
    expect(outcomesOf(await redeliver(subLedgerDeletionKind, deleted))).toEqual(['deleted']);

    await countUsage(companyId, 'subLedger', 'C1', 'open_items');
    const used = await expectProblem(runKind(subLedgerDeletionKind, companyId, '{"ids": ["C1"]}'), 409, {
      error: 'conflict',
      reason: 'sub_ledger_in_use',
    });
    expect(used.inUse).toEqual([{ id: 'C1', lines: 1, openItems: 1 }]);
    expect((await listSubLedgers(companyId, firstPage, caller)).data.map((s) => s.key)).toEqual(['C1']);
    expect(await countSubLedgers(companyId)).toBe(1);
  });
});

describe('chart operations', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any operation of the chart group
  const operationIdOf = (operation: Operation<any>) => Object.entries(chartOperations).find(([, candidate]) => candidate === operation)![0];
  /** Input validated by the contract's schemas, as the HTTP pipeline does (query values arrive as strings). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any operation of the chart group
  const call = (operation: Operation<any>, params: Record<string, string>, query: Record<string, string> = {}) =>
    runWithReach(operation, {
      params: operation.contract.params!.parse(params),
      query: (operation.contract.query ?? z.strictObject({})).parse(query),
      body: undefined,
      principal,
      requestId: randomUUID(),
      operationId: operationIdOf(operation),
    });

  it('answer the reads for a company within reach; 404 for an unknown account or company', async () => {
    const companyId = await newCompany();
    await runKind(accountsImportKind, companyId, accountsBody(2025, [account('1920')]));
    const list = await call(chartOperations.listAccounts, { companyId });
    expect(list.status).toBe(200);
    expect((list.body as { data: { accountNumber: string }[] }).data.map((a) => a.accountNumber)).toEqual(['1920']);
    const one = await call(chartOperations.getAccount, { companyId, accountNumber: '1920' }, { year: '2025' });
    expect(one.body).toMatchObject({ accountNumber: '1920', year: 2025 });
    await expectProblem(call(chartOperations.getAccount, { companyId, accountNumber: '1920' }, { year: '2024' }), 404, { error: 'not_found' });
    await expectProblem(call(chartOperations.listDimensions, { companyId: randomUUID() }), 404, { error: 'not_found' });
    expect((await call(chartOperations.listSubLedgers, { companyId })).body).toEqual({ data: [], pagination: { next_cursor: null, has_more: false } });
    expect(chartOperations.listAccounts.contract.query.safeParse({ year: '25' }).success).toBe(false);
    // One page: page_size is taken (and ignored) for uniform pagers, within its range; other fields are refused.
    expect(chartOperations.listAccounts.contract.query.safeParse({ year: '2025', page_size: '10' }).success).toBe(true);
    expect(chartOperations.listAccounts.contract.query.safeParse({ year: '2025', page_size: '0' }).success).toBe(false);
    expect(chartOperations.listAccounts.contract.query.safeParse({ year: '2025', colour: 'red' }).success).toBe(false);
  });
});
