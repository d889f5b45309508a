import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { parse } from 'lossless-json';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCompany } from '../../shared/companies/service';
import { organizationRepository } from '../../shared/identity/organization-repository';
import type { Principal } from '../../shared/identity/principal';
import { systemClientScopes } from '../../shared/identity/scopes';
import type { ImportContext, RowOutcome } from '../../shared/imports/kind';
import { openItemKeys, subLedgerKeys, usageKeys } from '../../shared/ledger/keys';
import { openItemsImportKind as kind } from '../../shared/ledger/open-items/import-kinds';
import { openItemRepository, toOpenItem } from '../../shared/ledger/open-items/repository';
import { OpenItemSchema, type OpenItemRow, type OpenItemsImportBody } from '../../shared/ledger/open-items/schemas';
import { dynamo, tableName } from '../../shared/platform/aws';
import { fromStoredNumber } from '../../shared/platform/money';
import { testStack } from '../support/stack';

/**
 * The open-items import kind against the local DynamoDB, driven as the import pipeline drives it:
 * body text parsed with lossless-json and the kind's bodySchema, then validateRows (all or nothing),
 * applyChunk per chunk in order, finish.
 */

let principal: Principal;

beforeAll(async () => {
  const organization = testStack().organizations[0]!;
  const stored = await organizationRepository.get(organization.id);
  principal = {
    clientId: 'open-items-apply-test',
    mode: 'SYSTEM',
    organizationId: organization.id,
    organizationPath: stored!.path,
    userId: null,
    organizationIds: [],
    scopes: [...systemClientScopes],
    plan: 'standard',
  };
});

const newCompany = async () =>
  (await createCompany(principal, { displayName: `Open Items ${randomUUID().slice(0, 8)} AS`, accountingSystem: 'Api' })).id;

/** Item text with raw JSON values, so amounts can be JSON numbers exactly as an integrator sends them. */
const item = (itemKey: string, fields: Record<string, string | undefined> = {}) => {
  const all: Record<string, string | undefined> = {
    itemKey: JSON.stringify(itemKey),
    subLedgerType: '"customer"',
    subLedgerKey: '"CUST-1"',
    accountCode: '"1500"',
    documentId: JSON.stringify(`INV-${itemKey}`),
    entryCategory: '"invoice"',
    documentDate: '"2025-01-10"',
    dueDate: '"2025-02-10"',
    amount: '"1000.00"',
    amountOpen: '"1000.00"',
    settlementStatus: '"open"',
    ...fields,
  };
  const entries = Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return `{${entries.map(([name, value]) => `${JSON.stringify(name)}: ${value}`).join(', ')}}`;
};
const deleted = (itemKey: string, subLedgerType = 'customer') => `{"itemKey": ${JSON.stringify(itemKey)}, "subLedgerType": "${subLedgerType}", "sourceDeleted": true}`;
const body = (mode: string, items: string[], subLedgerType = 'customer') => `{"subLedgerType": "${subLedgerType}", "mode": "${mode}", "items": [${items.join(', ')}]}`;

const parseBody = (text: string): OpenItemsImportBody => kind.bodySchema.parse(parse(text));

const contextFor = (companyId: string, mode: string): ImportContext => ({
  companyId,
  importId: randomUUID(),
  datasetId: randomUUID(),
  year: null,
  mode,
  lane: 'open_items',
  appliedAt: new Date().toISOString(),
});

interface Run {
  context: ImportContext;
  rows: OpenItemRow[];
  problems: { index: number; message: string }[];
  outcomes: RowOutcome['outcome'][];
  rowsDeleted: number | null;
}

/** What the pipeline does with one accepted import: check every row, then (only if all pass) apply chunks in order and finish. */
const runImport = async (companyId: string, text: string, chunkSize = kind.chunkSize): Promise<Run> => {
  const parsed = parseBody(text);
  const context = contextFor(companyId, kind.mode(parsed));
  const rows = kind.rows(parsed);
  const problems = await kind.validateRows!(context, rows);
  if (problems.length > 0) return { context, rows, problems, outcomes: [], rowsDeleted: null };
  const outcomes: RowOutcome['outcome'][] = [];
  for (let index = 0, firstRow = 0; firstRow < rows.length; index++, firstRow += chunkSize) {
    const results = await kind.applyChunk(context, rows.slice(firstRow, firstRow + chunkSize), { index, firstRow });
    outcomes.push(...results.map((result) => result.outcome));
  }
  const { rowsDeleted } = await kind.finish!(context, rows);
  return { context, rows, problems, outcomes, rowsDeleted };
};

const usage = async (companyId: string, key: string): Promise<number> => {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: usageKeys(companyId, 'subLedger', key, 'open_items'), ConsistentRead: true }));
  return Item ? Number(fromStoredNumber(Item.count).toString()) : 0;
};
const usages = async (companyId: string, keys: string[]) => Object.fromEntries(await Promise.all(keys.map(async (key) => [key, await usage(companyId, key)])));

const stored = async (companyId: string, itemKey: string, subLedgerType = 'customer') => {
  const record = await openItemRepository.get(companyId, subLedgerType, itemKey);
  return record && toOpenItem(record);
};
const statuses = async (companyId: string, subLedgerType = 'customer') =>
  Object.fromEntries((await openItemRepository.listAll(companyId, subLedgerType)).map((record) => [record.itemKey, record.status]));

describe('open_items kind: contract', () => {
  it('is the all-or-nothing open_items kind of its own lane, reporting deletions', () => {
    expect(kind).toMatchObject({ name: 'open_items', lane: 'open_items', requestedEvent: 'import.requested', postFetch: false, reportsDeletions: true, rowsField: 'items' });
    const parsed = parseBody(body('baseline', [item('A')]));
    expect(kind.year(parsed)).toBeNull();
    expect(kind.mode(parsed)).toBe('baseline');
    expect(kind.rows(parsed)).toHaveLength(1);
  });

  it('rejects structure in the body schema: missing live fields, a foreign item type, an unknown mode, floats beyond 4 decimals', () => {
    const issuesOf = (text: string) => {
      const result = kind.bodySchema.safeParse(parse(text));
      expect(result.success).toBe(false);
      return result.error!.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    };
    expect(issuesOf(body('incremental', [item('A', { amountOpen: undefined, dueDate: undefined })]))).toEqual([
      'items.0.dueDate: Required unless sourceDeleted is true.',
      'items.0.amountOpen: Required unless sourceDeleted is true.',
    ]);
    expect(issuesOf(body('incremental', [item('A'), item('B', { subLedgerType: '"supplier"' })]))).toEqual([
      "items.1.subLedgerType: must equal the request's subLedgerType (customer)",
    ]);
    expect(issuesOf(body('replace', [item('A')]))[0]).toMatch(/^mode: /);
    expect(issuesOf(body('incremental', [item('A', { amount: '1.00001' })]))).toEqual(['items.0.amount: must have at most 4 decimals']);
    expect(issuesOf(body('full', []))).toEqual(['items: must hold at least one item']);
    // a deleted item needs only its key and type
    expect(kind.rows(parseBody(body('incremental', [deleted('A')])))[0]).toEqual({ itemKey: 'A', subLedgerType: 'customer', sourceDeleted: true });
  });
});

describe('open_items kind: applying', () => {
  it('inserts and updates incrementally, exact to the last decimal, with matches and usage per sub-ledger key', async () => {
    const companyId = await newCompany();
    const first = await runImport(
      companyId,
      body('incremental', [
        item('A', { amount: '12345678901234.5678', amountOpen: '"0.1"', settlementStatus: '"partial"', matches: '[{"matchKey": "PAY-1", "matchDate": "2025-01-20", "amount": 12345678901234.4678}]' }),
        item('B', { amount: '0.1', amountOpen: '0.1' }),
      ]),
    );
    expect(first.problems).toEqual([]);
    expect(first.outcomes).toEqual(['inserted', 'inserted']);
    expect(first.rowsDeleted).toBe(0);

    const a = (await stored(companyId, 'A'))!;
    expect(a.amount.toString()).toBe('12345678901234.5678');
    expect(a.amountOpen.toString()).toBe('0.1');
    expect(a.matches.map((match) => ({ ...match, amount: match.amount.toString() }))).toEqual([
      { matchKey: 'PAY-1', matchDate: '2025-01-20', amount: '12345678901234.4678', status: 'live' },
    ]);
    expect(a).toMatchObject({ status: 'live', settlementStatus: 'partial', datasetId: first.context.datasetId, importId: first.context.importId, baseline: false });
    // the stored attribute is the exact decimal text (a DynamoDB Number, never a float)
    const raw = await dynamo().send(new GetCommand({ TableName: tableName(), Key: openItemKeys(companyId, 'customer', 'A') }));
    expect(raw.Item!.amount.toString()).toBe('12345678901234.5678');
    expect((await stored(companyId, 'B'))!.amount.toString()).toBe('0.1');
    expect(OpenItemSchema.safeParse(a).success).toBe(true);
    expect(await usages(companyId, ['CUST-1', 'CUST-2'])).toEqual({ 'CUST-1': 2, 'CUST-2': 0 });
    // rule 2: a sub-ledger key not pushed yet is created as a plain value
    const subLedger = await dynamo().send(new GetCommand({ TableName: tableName(), Key: subLedgerKeys(companyId, 'CUST-1') }));
    expect(subLedger.Item).toMatchObject({ key: 'CUST-1', value: 'CUST-1' });

    // A moves to CUST-2 with new live matches (PAY-1, left out, is kept retired); C is new; B is not sent and stays as it was
    const second = await runImport(
      companyId,
      body('incremental', [
        item('A', { subLedgerKey: '"CUST-2"', amount: '"100"', amountOpen: '"0"', settlementStatus: '"settled"', matches: '[{"matchKey": "PAY-9", "matchDate": "2025-03-01", "amount": "100"}]' }),
        item('C'),
      ]),
    );
    expect(second.outcomes).toEqual(['updated', 'inserted']);
    const updated = (await stored(companyId, 'A'))!;
    expect(updated).toMatchObject({ subLedgerKey: 'CUST-2', settlementStatus: 'settled', importId: second.context.importId, datasetId: second.context.datasetId });
    expect(updated.amountOpen.isZero()).toBe(true);
    expect(updated.matches.map((match) => [match.matchKey, match.status])).toEqual([['PAY-9', 'live'], ['PAY-1', 'retired']]);
    expect((await stored(companyId, 'B'))!.importId).toBe(first.context.importId);
    expect(await usages(companyId, ['CUST-1', 'CUST-2'])).toEqual({ 'CUST-1': 2, 'CUST-2': 1 });
  });

  it('all or nothing: one invalid item is reported by validateRows and nothing is applied', async () => {
    const companyId = await newCompany();
    await runImport(companyId, body('incremental', [item('A')]));
    const before = await stored(companyId, 'A');

    const run = await runImport(companyId, body('full', [item('A', { amount: '"5.00"', amountOpen: '"5.00"' }), item('B', { amountOpen: '"1000.01"' }), item('C')]));
    expect(run.problems).toEqual([{ index: 1, message: 'amountOpen must not be larger than amount in absolute value' }]);
    expect(run.outcomes).toEqual([]);
    expect(await stored(companyId, 'A')).toEqual(before);
    expect(await statuses(companyId)).toEqual({ A: 'live' });
    expect(await usage(companyId, 'CUST-1')).toBe(1);
  });

  it('validateRows reports every kind of row-level problem, one entry per invalid item', async () => {
    const companyId = await newCompany();
    // a stored sub-ledger of the other type (as the sub-ledgers import stores its `type`)
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: { ...subLedgerKeys(companyId, 'SUPP-1'), key: 'SUPP-1', value: 'Leverandør AS', type: 'supplier' } }));
    const parsed = parseBody(
      body('incremental', [
        item('OK', { matches: '[{"matchKey": "m1", "matchDate": "2025-01-11", "amount": "400"}, {"matchKey": "m2", "matchDate": "2025-01-12", "amount": "600"}]', amountOpen: '"0"', settlementStatus: '"settled"' }),
        item('DUP'),
        item('DUP'),
        item('SIGN', { amountOpen: '"-1.00"', settlementStatus: '"partial"' }),
        item('STATUS', { amountOpen: '"400.00"' }),
        item('DUE', { dueDate: '"2025-01-09"' }),
        item('MATCHES', { amountOpen: '"0"', settlementStatus: '"settled"', matches: '[{"matchKey": "m1", "matchDate": "2025-01-11", "amount": "600"}, {"matchKey": "m1", "matchDate": "2025-01-12", "amount": "400.01"}]' }),
        item('TYPE', { subLedgerKey: '"SUPP-1"' }),
        deleted('NEVER-STORED'),
        item('CREDIT', { entryCategory: '"credit_note"', amount: '"-250.00"', amountOpen: '"-50.00"', settlementStatus: '"partial"' }),
      ]),
    );
    const problems = await kind.validateRows!(contextFor(companyId, 'incremental'), kind.rows(parsed));
    expect(problems).toEqual([
      { index: 2, message: 'itemKey DUP is sent more than once (first at index 1)' },
      { index: 3, message: 'amountOpen must be 0 or have the sign of amount' },
      { index: 4, message: 'settlementStatus open does not fit amountOpen 400 of amount 1000 (expected partial)' },
      { index: 5, message: 'dueDate must not be before documentDate' },
      { index: 6, message: 'matchKey m1 is sent more than once in the item; matches sum to 1000.01, beyond the amount 1000' },
      { index: 7, message: 'subLedgerKey SUPP-1 is a supplier sub-ledger, not a customer one' },
    ]);
  });

  it('sourceDeleted retires a live item with its matches (deleted), is unknown for an absent or retired one, and a re-sent item comes back', async () => {
    const companyId = await newCompany();
    await runImport(
      companyId,
      body('incremental', [item('A', { amountOpen: '"250"', settlementStatus: '"partial"', matches: '[{"matchKey": "PAY-1", "matchDate": "2025-01-20", "amount": "750"}]' }), item('B')]),
    );
    const run = await runImport(companyId, body('incremental', [deleted('A'), deleted('NEVER')]));
    expect(run.outcomes).toEqual(['deleted', 'unknown']);
    expect(run.rowsDeleted).toBe(0);
    const a = (await stored(companyId, 'A'))!;
    expect(a).toMatchObject({ status: 'retired', retiredReason: 'source_deleted', retiredAt: run.context.appliedAt, importId: run.context.importId, documentId: 'INV-A' });
    expect(a.matches.map((match) => match.status)).toEqual(['retired']);
    expect(await openItemRepository.get(companyId, 'customer', 'NEVER')).toBeUndefined();
    expect(await usage(companyId, 'CUST-1')).toBe(1);

    expect((await runImport(companyId, body('incremental', [deleted('A')]))).outcomes).toEqual(['unknown']);
    const back = await runImport(companyId, body('incremental', [item('A')]));
    expect(back.outcomes).toEqual(['inserted']);
    expect(await stored(companyId, 'A')).toMatchObject({ status: 'live', retiredAt: null, retiredReason: null, matches: [] });
    expect(await usage(companyId, 'CUST-1')).toBe(2);
  });

  it.each(['full', 'full_refresh', 'baseline'])('%s retires every live item of its type absent from the snapshot, with its matches, and counts them', async (mode) => {
    const companyId = await newCompany();
    await runImport(
      companyId,
      body('incremental', [
        item('A'),
        item('B', { subLedgerKey: '"CUST-2"' }),
        item('C', { amountOpen: '"0"', settlementStatus: '"settled"', matches: '[{"matchKey": "PAY-1", "matchDate": "2025-01-20", "amount": "1000"}]' }),
        item('GONE'),
        item('X'),
      ]),
    );
    await runImport(companyId, body('incremental', [deleted('X')])); // retired earlier: not counted again
    await runImport(companyId, body('incremental', [item('S', { subLedgerType: '"supplier"', subLedgerKey: '"SUPP-1"', accountCode: '"2400"' })], 'supplier'));
    expect(await usages(companyId, ['CUST-1', 'CUST-2', 'SUPP-1'])).toEqual({ 'CUST-1': 3, 'CUST-2': 1, 'SUPP-1': 1 });

    const snapshot = await runImport(companyId, body(mode, [item('A', { amount: '"1200"', amountOpen: '"1200"' }), item('D'), deleted('GONE')]));
    expect(snapshot.outcomes).toEqual(['updated', 'inserted', 'deleted']);
    expect(snapshot.rowsDeleted).toBe(2); // B and C; GONE is reported by its own outcome
    expect(await statuses(companyId)).toEqual({ A: 'live', B: 'retired', C: 'retired', D: 'live', GONE: 'retired', X: 'retired' });
    const c = (await stored(companyId, 'C'))!;
    expect(c).toMatchObject({ retiredReason: 'absent_from_snapshot', retiredAt: snapshot.context.appliedAt, importId: snapshot.context.importId, datasetId: snapshot.context.datasetId });
    expect(c.matches.map((match) => [match.matchKey, match.status])).toEqual([['PAY-1', 'retired']]);
    expect((await stored(companyId, 'GONE'))!.retiredReason).toBe('source_deleted');
    expect((await stored(companyId, 'X'))!.importId).not.toBe(snapshot.context.importId);
    expect(await statuses(companyId, 'supplier')).toEqual({ S: 'live' });
    expect((await stored(companyId, 'A'))!.amount.toString()).toBe('1200');
    expect([(await stored(companyId, 'A'))!.baseline, (await stored(companyId, 'D'))!.baseline]).toEqual([mode === 'baseline', mode === 'baseline']);
    expect(await usages(companyId, ['CUST-1', 'CUST-2', 'SUPP-1'])).toEqual({ 'CUST-1': 2, 'CUST-2': 0, 'SUPP-1': 1 });

    // finish redelivered: the same count, nothing changes twice
    expect(await kind.finish!(snapshot.context, snapshot.rows)).toEqual({ rowsDeleted: 2 });
    expect(await usages(companyId, ['CUST-1', 'CUST-2', 'SUPP-1'])).toEqual({ 'CUST-1': 2, 'CUST-2': 0, 'SUPP-1': 1 });

    // incremental afterwards touches only what is sent
    const later = await runImport(companyId, body('incremental', [item('E')]));
    expect(later.rowsDeleted).toBe(0);
    expect(await statuses(companyId)).toMatchObject({ A: 'live', D: 'live', E: 'live' });
    expect((await stored(companyId, 'A'))!.baseline).toBe(mode === 'baseline');
    expect((await stored(companyId, 'E'))!.baseline).toBe(false);
  });

  it('a redelivered chunk returns the same outcomes and changes nothing twice, also when its usage deltas were lost', async () => {
    const companyId = await newCompany();
    await runImport(companyId, body('incremental', [item('A'), item('B'), item('GONE')]));
    const text = body('incremental', [item('A', { subLedgerKey: '"CUST-2"' }), item('B'), item('N'), deleted('GONE'), deleted('NEVER')]);
    const run = await runImport(companyId, text, 2);
    expect(run.outcomes).toEqual(['updated', 'updated', 'inserted', 'deleted', 'unknown']);
    const after = await usages(companyId, ['CUST-1', 'CUST-2']);
    expect(after).toEqual({ 'CUST-1': 2, 'CUST-2': 1 });
    const versions = Object.fromEntries((await openItemRepository.listAll(companyId, 'customer')).map((record) => [record.itemKey, record.version]));

    // every chunk delivered again, in order
    const again: string[] = [];
    for (const [index, firstRow] of [[0, 0], [1, 2], [2, 4]] as const) {
      again.push(...(await kind.applyChunk(run.context, run.rows.slice(firstRow, firstRow + 2), { index, firstRow })).map((result) => result.outcome));
    }
    expect(again).toEqual(run.outcomes);
    expect(await usages(companyId, ['CUST-1', 'CUST-2'])).toEqual(after);
    expect(Object.fromEntries((await openItemRepository.listAll(companyId, 'customer')).map((record) => [record.itemKey, record.version]))).toEqual(versions);

    // a worker that wrote the items of a chunk and crashed before its usage deltas: the redelivery adds them once
    const crashed = await runImport(companyId, body('incremental', [item('P', { subLedgerKey: '"CUST-3"' })]));
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: usageKeys(companyId, 'subLedger', 'CUST-3', 'open_items') }));
    expect(await usage(companyId, 'CUST-3')).toBe(0);
    const redelivered = await kind.applyChunk(crashed.context, crashed.rows, { index: 0, firstRow: 0 });
    expect(redelivered.map((result) => result.outcome)).toEqual(['inserted']);
    expect(await usage(companyId, 'CUST-3')).toBe(1);
    await kind.applyChunk(crashed.context, crashed.rows, { index: 0, firstRow: 0 });
    expect(await usage(companyId, 'CUST-3')).toBe(1);
  });
});
