import { QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { openItemPartition } from '../../shared/ledger/keys';
import { dynamo, tableName } from '../../shared/platform/aws';
import { api, expectProblem, type ApiResponse } from '../support/api';
import { importAndWait, newApiCompany, openItem, submitImport, waitForImport } from '../support/ledger';
import { testStack } from '../support/stack';

/**
 * Open-items modes and dimension parent cycles end to end: HTTP through the local gateway, the
 * SQS-triggered import worker, then HTTP again. Every assertion about the API's answers goes
 * through HTTP (each response is validated against the OpenAPI document by `api`). Open items
 * have no read endpoint yet, so their stored state is read from DynamoDB directly (the
 * partition of shared/ledger/keys.ts, raw attributes, no repository code of the service).
 */

beforeAll(() => {
  testStack(); // points dynamo() of this process at the test stack
});

// ---------------------------------------------------------------------------------------------
// Open items: request builders
// ---------------------------------------------------------------------------------------------

type Fields = Record<string, unknown>;
const item = (itemKey: string, fields: Fields = {}): Fields => openItem(itemKey, fields);

const gone = (itemKey: string, subLedgerType = 'customer'): Fields => ({ itemKey, subLedgerType, sourceDeleted: true });
const match = (matchKey: string, amount: string, matchDate = '2025-01-20') => ({ matchKey, matchDate, amount });
const openItems = (mode: string, items: Fields[], subLedgerType = 'customer') => ({ subLedgerType, mode, items });

const importOpenItems = async (companyId: string, mode: string, items: Fields[], subLedgerType = 'customer'): Promise<ApiResponse> =>
  importAndWait(companyId, 'open-items', openItems(mode, items, subLedgerType));

// ---------------------------------------------------------------------------------------------
// Open items: what is stored (raw DynamoDB, since there is no read endpoint)
// ---------------------------------------------------------------------------------------------

interface StoredItem {
  itemKey: string;
  status: string;
  subLedgerKey: string;
  documentId: string;
  amount: number;
  amountOpen: number;
  settlementStatus: string;
  matches: [matchKey: string, status: string, amount: number][];
  importId: string;
  datasetId: string;
  retiredReason: string | null;
  retiredBy: string | null;
  retiredMode: string | null;
  baseline: boolean;
}

const num = (value: unknown): number => Number(String(value));

const storedOpenItems = async (companyId: string, subLedgerType = 'customer'): Promise<Record<string, StoredItem>> => {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  for (let page = 0; page < 50; page++) {
    const result: QueryCommandOutput = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :item)',
        ExpressionAttributeValues: { ':pk': openItemPartition(companyId, subLedgerType), ':item': 'ITEM#' },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(result.Items ?? []));
    startKey = result.LastEvaluatedKey;
    if (!startKey) break;
  }
  return Object.fromEntries(
    items.map((raw) => {
      const retired = raw.retired as { reason: string; importId: string; mode: string } | null | undefined;
      const stored: StoredItem = {
        itemKey: String(raw.itemKey),
        status: String(raw.status),
        subLedgerKey: String(raw.subLedgerKey),
        documentId: String(raw.documentId),
        amount: num(raw.amount),
        amountOpen: num(raw.amountOpen),
        settlementStatus: String(raw.settlementStatus),
        matches: ((raw.matches as Record<string, unknown>[] | undefined) ?? []).map((m) => [String(m.matchKey), String(m.status), num(m.amount)]),
        importId: String(raw.importId),
        datasetId: String(raw.datasetId),
        retiredReason: retired?.reason ?? null,
        retiredBy: retired?.importId ?? null,
        retiredMode: retired?.mode ?? null,
        baseline: raw.baseline !== null && raw.baseline !== undefined,
      };
      return [stored.itemKey, stored];
    }),
  );
};

const statusesOf = (items: Record<string, StoredItem>) => Object.fromEntries(Object.values(items).map((stored) => [stored.itemKey, stored.status]));

/**
 * README "Counters add up", checked beside the exact values: rowsDiscovered = rowsValid + rowsFailed and
 * rowsValid = rowsInserted + rowsUpdated + (request rows deleted) + unknown, where the request rows
 * deleted are rowsDeleted minus the items a snapshot retired for absence.
 */
const expectCountersAddUp = (record: Record<string, number | null>, counts: { unknown: number; retiredForAbsence: number }) => {
  const deletedFromRequest = (record.rowsDeleted ?? 0) - counts.retiredForAbsence;
  expect(record.rowsDiscovered).toBe((record.rowsValid as number) + (record.rowsFailed as number));
  expect(record.rowsValid).toBe((record.rowsInserted as number) + (record.rowsUpdated as number) + deletedFromRequest + counts.unknown);
};

const deleteSubLedger = (companyId: string, key: string) => api('DELETE', `/v1/companies/${companyId}/sub-ledgers/${key}`, { as: 'a-system' });

// ---------------------------------------------------------------------------------------------
// Open items: modes
// ---------------------------------------------------------------------------------------------

describe('open items over HTTP: what each mode does to items absent from the request', () => {
  it.each([
    { mode: 'incremental', snapshot: false },
    { mode: 'full', snapshot: true },
    { mode: 'full_refresh', snapshot: true },
    { mode: 'baseline', snapshot: true },
  ])('$mode: absent items are retired with their matches only by the snapshot modes; counters add up', async ({ mode, snapshot }) => {
    const companyId = await newApiCompany();

    const seed = await importOpenItems(companyId, 'incremental', [
      item('A'),
      item('B', { subLedgerKey: 'CUST-2', amountOpen: '250.00', settlementStatus: 'partial', matches: [match('PAY-B', '750.00')] }),
      item('C', { amountOpen: '0', settlementStatus: 'settled', matches: [match('PAY-C', '1000.00')] }),
      item('E'),
      item('X'),
    ]);
    expect(seed.body).toMatchObject({
      kind: 'open_items',
      mode: 'incremental',
      year: null,
      status: 'succeeded',
      lineCount: 5,
      rowsDiscovered: 5,
      rowsValid: 5,
      rowsFailed: 0,
      rowsInserted: 5,
      rowsUpdated: 0,
      rowsDeleted: 0, // open items can delete (sourceDeleted), so 0 rather than null
      sampleErrors: [],
      failureReason: null,
    });

    // X retired by the source before the import under test
    const xDeleted = await importOpenItems(companyId, 'incremental', [gone('X')]);
    expect(xDeleted.body).toMatchObject({ status: 'succeeded', lineCount: 1, rowsDiscovered: 1, rowsValid: 1, rowsInserted: 0, rowsUpdated: 0, rowsDeleted: 1 });
    // the other sub-ledger type lives in its own snapshot scope
    const supplier = await importOpenItems(companyId, 'incremental', [item('S', { subLedgerType: 'supplier', subLedgerKey: 'SUPP-1', accountCode: '2400' })], 'supplier');
    expect(supplier.body).toMatchObject({ status: 'succeeded', rowsInserted: 1 });

    // B is the only live item of CUST-2: the sub-ledger is in use by it
    const inUse = await deleteSubLedger(companyId, 'CUST-2');
    expectProblem(inUse, 409, 'conflict');
    expect(inUse.body).toMatchObject({ reason: 'sub_ledger_in_use', inUse: [{ id: 'CUST-2', lines: 1, openItems: 1 }] });

    const done = await importOpenItems(companyId, mode, [item('A', { amount: '1200.00', amountOpen: '1200.00' }), item('D'), gone('E')]);
    const retiredHere = snapshot ? 2 : 0; // B and C, absent from the snapshot
    expect(done.body).toMatchObject({
      kind: 'open_items',
      mode,
      year: null,
      status: 'succeeded',
      lineCount: 3,
      rowsDiscovered: 3,
      rowsValid: 3,
      rowsFailed: 0,
      rowsInserted: 1, // D
      rowsUpdated: 1, // A
      rowsDeleted: 1 + retiredHere, // E (sourceDeleted) + the items retired for absence
      sampleErrors: [],
      failureReason: null,
    });
    expect(done.body.result).toEqual({ unknown: [], unknownCount: 0 });
    expectCountersAddUp(done.body, { unknown: 0, retiredForAbsence: retiredHere });

    const stored = await storedOpenItems(companyId);
    expect(statusesOf(stored)).toEqual({
      A: 'live',
      B: snapshot ? 'retired' : 'live',
      C: snapshot ? 'retired' : 'live',
      D: 'live',
      E: 'retired',
      X: 'retired',
    });
    expect(stored.A).toMatchObject({ amount: 1200, importId: done.body.id, datasetId: done.body.datasetId, baseline: mode === 'baseline' });
    expect(stored.D).toMatchObject({ importId: done.body.id, baseline: mode === 'baseline' });
    expect(stored.E).toMatchObject({ retiredReason: 'source_deleted', retiredBy: done.body.id });
    // X was retired earlier: not retired (nor counted) again
    expect(stored.X).toMatchObject({ retiredReason: 'source_deleted', retiredBy: xDeleted.body.id, importId: xDeleted.body.id });
    if (snapshot) {
      // retired items keep their last content; their matches are kept and retired with them
      expect(stored.B).toMatchObject({
        retiredReason: 'absent_from_snapshot',
        retiredBy: done.body.id,
        retiredMode: mode,
        importId: done.body.id,
        datasetId: done.body.datasetId,
        subLedgerKey: 'CUST-2',
        documentId: 'INV-B',
        amount: 1000,
        amountOpen: 250,
        settlementStatus: 'partial',
        matches: [['PAY-B', 'retired', 750]],
      });
      expect(stored.C).toMatchObject({ retiredReason: 'absent_from_snapshot', retiredMode: mode, matches: [['PAY-C', 'retired', 1000]] });
    } else {
      expect(stored.B).toMatchObject({ retiredReason: null, importId: seed.body.id, matches: [['PAY-B', 'live', 750]] });
      expect(stored.C).toMatchObject({ retiredReason: null, importId: seed.body.id, matches: [['PAY-C', 'live', 1000]] });
    }
    // the supplier items are outside a customer snapshot
    expect(statusesOf(await storedOpenItems(companyId, 'supplier'))).toEqual({ S: 'live' });
    expect((await storedOpenItems(companyId, 'supplier')).S!.importId).toBe(supplier.body.id);

    // Visible over HTTP: a retired item no longer holds its sub-ledger (usage released)
    const afterDelete = await deleteSubLedger(companyId, 'CUST-2');
    if (snapshot) {
      expect(afterDelete.status).toBe(202);
      const deletion = await waitForImport(companyId, afterDelete.body.id);
      expect(deletion.body).toMatchObject({ kind: 'sub_ledger_deletion', status: 'succeeded', rowsDeleted: 1, result: { unknown: [] } });
    } else {
      expectProblem(afterDelete, 409, 'conflict');
      expect(afterDelete.body.inUse).toEqual([{ id: 'CUST-2', lines: 1, openItems: 1 }]);
    }
    // CUST-1 holds the live items A and D (+ C while not retired); E and X count no more
    const cust1 = await deleteSubLedger(companyId, 'CUST-1');
    expectProblem(cust1, 409, 'conflict');
    expect(cust1.body.inUse).toEqual([{ id: 'CUST-1', lines: snapshot ? 2 : 3, openItems: snapshot ? 2 : 3 }]);
  });

  it('baseline marks the items it holds as the starting point; the mark survives updates by other modes but not a retirement', async () => {
    const companyId = await newApiCompany();
    const base = await importOpenItems(companyId, 'baseline', [item('A'), item('B')]);
    expect(base.body).toMatchObject({ mode: 'baseline', status: 'succeeded', rowsInserted: 2, rowsDeleted: 0 });
    let stored = await storedOpenItems(companyId);
    expect([stored.A!.baseline, stored.B!.baseline]).toEqual([true, true]);

    const later = await importOpenItems(companyId, 'incremental', [item('A', { amountOpen: '600.00', settlementStatus: 'partial', matches: [match('P1', '400.00')] }), item('C')]);
    expect(later.body).toMatchObject({ rowsInserted: 1, rowsUpdated: 1, rowsDeleted: 0 });
    stored = await storedOpenItems(companyId);
    expect([stored.A!.baseline, stored.B!.baseline, stored.C!.baseline]).toEqual([true, true, false]);

    // full keeps the mark of what it updates, retires B (absent), does not mark C
    const full = await importOpenItems(companyId, 'full', [item('A', { amountOpen: '600.00', settlementStatus: 'partial', matches: [match('P1', '400.00')] }), item('C')]);
    expect(full.body).toMatchObject({ rowsInserted: 0, rowsUpdated: 2, rowsDeleted: 1 });
    stored = await storedOpenItems(companyId);
    expect(statusesOf(stored)).toEqual({ A: 'live', B: 'retired', C: 'live' });
    expect([stored.A!.baseline, stored.C!.baseline]).toEqual([true, false]);

    // retired, then sent again by another mode: it comes back (inserted) without the mark
    await importOpenItems(companyId, 'incremental', [gone('A')]);
    const back = await importOpenItems(companyId, 'incremental', [item('A')]);
    expect(back.body).toMatchObject({ rowsInserted: 1, rowsUpdated: 0 });
    stored = await storedOpenItems(companyId);
    expect(stored.A).toMatchObject({ status: 'live', baseline: false, retiredReason: null, matches: [] });

    // a new baseline marks what it holds and retires the rest of the type
    const rebase = await importOpenItems(companyId, 'baseline', [item('C')]);
    expect(rebase.body).toMatchObject({ rowsInserted: 0, rowsUpdated: 1, rowsDeleted: 1 });
    stored = await storedOpenItems(companyId);
    expect(statusesOf(stored)).toEqual({ A: 'retired', B: 'retired', C: 'live' });
    expect(stored.C!.baseline).toBe(true);
    expect(stored.A).toMatchObject({ retiredReason: 'absent_from_snapshot', retiredMode: 'baseline' });
  });

  it('matches: a snapshot retires the stored matches it leaves out (so does incremental); a retired item sent again comes back with only the matches sent', async () => {
    const companyId = await newApiCompany();
    await importOpenItems(companyId, 'incremental', [item('A', { amountOpen: '400.00', settlementStatus: 'partial', matches: [match('M1', '300.00'), match('M2', '300.00')] }), item('B')]);
    expect((await storedOpenItems(companyId)).A!.matches).toEqual([['M1', 'live', 300], ['M2', 'live', 300]]);

    // Spec import-data rule 3: items and matches absent from a snapshot are retired
    const refresh = await importOpenItems(companyId, 'full_refresh', [item('A', { amountOpen: '700.00', settlementStatus: 'partial', matches: [match('M1', '300.00')] }), item('B')]);
    expect(refresh.body).toMatchObject({ status: 'succeeded', rowsInserted: 0, rowsUpdated: 2, rowsDeleted: 0 });
    expect((await storedOpenItems(companyId)).A!.matches).toEqual([['M1', 'live', 300], ['M2', 'retired', 300]]);

    // incremental keeps the retired match too
    await importOpenItems(companyId, 'incremental', [item('A', { amountOpen: '700.00', settlementStatus: 'partial', matches: [match('M1', '300.00')] })]);
    expect((await storedOpenItems(companyId)).A!.matches).toEqual([['M1', 'live', 300], ['M2', 'retired', 300]]);

    // A absent from the next snapshot: retired with its match
    const retire = await importOpenItems(companyId, 'full_refresh', [item('B')]);
    expect(retire.body).toMatchObject({ rowsUpdated: 1, rowsDeleted: 1 });
    expect((await storedOpenItems(companyId)).A).toMatchObject({ status: 'retired', retiredReason: 'absent_from_snapshot', matches: [['M1', 'retired', 300], ['M2', 'retired', 300]] });

    // sent again: inserted (not updated), live, with only the matches of this request
    const again = await importOpenItems(companyId, 'full_refresh', [item('A', { amountOpen: '0', settlementStatus: 'settled', matches: [match('M3', '1000.00')] }), item('B')]);
    expect(again.body).toMatchObject({ status: 'succeeded', lineCount: 2, rowsValid: 2, rowsInserted: 1, rowsUpdated: 1, rowsDeleted: 0 });
    expect((await storedOpenItems(companyId)).A).toMatchObject({
      status: 'live',
      retiredReason: null,
      importId: again.body.id,
      settlementStatus: 'settled',
      matches: [['M3', 'live', 1000]],
    });
  });

  it('incremental: a re-sent item keeps the stored matches it leaves out, retired; a sent matchKey replaces the stored one', async () => {
    const companyId = await newApiCompany();
    await importOpenItems(companyId, 'incremental', [item('A', { amountOpen: '400.00', settlementStatus: 'partial', matches: [match('M1', '300.00'), match('M2', '300.00')] })]);

    // M2 left out: kept, retired (nothing the integrator sent is lost); M1 sent again with a new amount replaces the stored M1
    const partial = await importOpenItems(companyId, 'incremental', [item('A', { amountOpen: '750.00', settlementStatus: 'partial', matches: [match('M1', '250.00')] })]);
    expect(partial.body).toMatchObject({ status: 'succeeded', rowsUpdated: 1, rowsDeleted: 0 });
    expect((await storedOpenItems(companyId)).A).toMatchObject({ status: 'live', amountOpen: 750, matches: [['M1', 'live', 250], ['M2', 'retired', 300]] });

    // M2 sent again: live again, once; M1 left out: retired
    await importOpenItems(companyId, 'incremental', [item('A', { amountOpen: '700.00', settlementStatus: 'partial', matches: [match('M2', '300.00')] })]);
    expect((await storedOpenItems(companyId)).A!.matches).toEqual([['M2', 'live', 300], ['M1', 'retired', 250]]);

    // sent without matches: none live, every stored one kept retired
    await importOpenItems(companyId, 'incremental', [item('A')]);
    expect((await storedOpenItems(companyId)).A!.matches).toEqual([['M2', 'retired', 300], ['M1', 'retired', 250]]);
  });

  it('snapshots that change every match of an item keep its 200 most recently retired matches, after its live ones', async () => {
    const companyId = await newApiCompany();
    const matches = (prefix: string) => Array.from({ length: 150 }, (_, i) => match(`${prefix}-${String(i).padStart(3, '0')}`, '1.00'));
    const snapshot = (prefix: string) => importOpenItems(companyId, 'full', [item('A', { amountOpen: '850.00', settlementStatus: 'partial', matches: matches(prefix) })]);
    for (const prefix of ['first', 'second', 'third']) expect((await snapshot(prefix)).body.status).toBe('succeeded');
    const keys = (await storedOpenItems(companyId)).A!.matches.map(([matchKey, status]) => `${matchKey} ${status}`);
    const named = (prefix: string, status: string) => matches(prefix).map((m) => `${m.matchKey} ${status}`);
    expect(keys).toEqual([...named('third', 'live'), ...named('second', 'retired'), ...named('first', 'retired').slice(0, 50)]);
  });

  it('a sourceDeleted item the ledger does not have (or has retired) counts in rowsValid and is listed under result.unknown', async () => {
    const companyId = await newApiCompany();
    await importOpenItems(companyId, 'incremental', [item('A')]);
    const done = await importOpenItems(companyId, 'incremental', [item('B'), gone('NEVER'), gone('A')]);
    expect(done.body).toMatchObject({
      status: 'succeeded',
      lineCount: 3,
      rowsDiscovered: 3,
      rowsValid: 3,
      rowsFailed: 0,
      rowsInserted: 1,
      rowsUpdated: 0,
      rowsDeleted: 1,
    });
    // README: rowsValid = inserted + updated + request rows deleted + result.unknown; here 3 = 1 + 0 + 1 + 1
    expect(done.body.result).toEqual({ unknown: ['NEVER'], unknownCount: 1 });
    expectCountersAddUp(done.body, { unknown: 1, retiredForAbsence: 0 });
    // A retired once already: sending sourceDeleted again is unknown, not deleted
    const twice = await importOpenItems(companyId, 'full', [item('B'), gone('A')]);
    expect(twice.body).toMatchObject({ rowsValid: 2, rowsUpdated: 1, rowsInserted: 0, rowsDeleted: 0 });
    expect(statusesOf(await storedOpenItems(companyId))).toEqual({ A: 'retired', B: 'live' });
  });
});

// ---------------------------------------------------------------------------------------------
// Open items: all or nothing (Imports and corrections rule 10)
// ---------------------------------------------------------------------------------------------

describe('open items over HTTP: one bad row fails the whole import, nothing applied', () => {
  it.each(['incremental', 'full_refresh', 'baseline'])('%s: row-level problems are accepted (202) then fail the import with invalid_rows; nothing changes; the lane is free again', async (mode) => {
    const companyId = await newApiCompany();
    const subLedgers = await importAndWait(companyId, 'sub-ledgers', { subLedgers: [{ key: 'SUPP-1', value: 'Leverandør AS', type: 'supplier' }] });
    expect(subLedgers.body).toMatchObject({ status: 'succeeded', rowsInserted: 1 });
    const seed = await importOpenItems(companyId, 'incremental', [item('A'), item('B')]);
    const before = await storedOpenItems(companyId);
    expect(statusesOf(before)).toEqual({ A: 'live', B: 'live' });

    const accepted = await submitImport(
      companyId,
      'open-items',
      openItems(mode, [
        item('A', { amount: '5.00', amountOpen: '5.00' }), // valid
        item('C', { subLedgerKey: 'CUST-NEW' }), // valid
        item('D', { amountOpen: '1000.01' }), // amountOpen beyond amount
        item('E', { subLedgerKey: 'SUPP-1' }), // a supplier sub-ledger in a customer import
        item('C'), // duplicate itemKey
      ]),
    );
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ status: 'queued', mode, lineCount: 5, rowsDiscovered: 5 });
    const failed = await waitForImport(companyId, accepted.body.id);
    expect(failed.body).toMatchObject({
      kind: 'open_items',
      mode,
      status: 'failed',
      failureReason: 'invalid_rows',
      lineCount: 5,
      rowsFailed: 3,
      rowsValid: 2, // valid, not applied (all or nothing)
      rowsDiscovered: 5, // = rowsValid + rowsFailed = lineCount
      rowsInserted: 0,
      rowsUpdated: 0,
      rowsDeleted: 0,
      sampleErrors: [
        'line 3: amountOpen must not be larger than amount in absolute value',
        'line 4: subLedgerKey SUPP-1 is a supplier sub-ledger, not a customer one',
        'line 5: itemKey C is sent more than once (first at index 1)',
      ],
    });
    expect(failed.body.rowsDiscovered).toBe(failed.body.rowsValid + failed.body.rowsFailed);

    const job = await api('GET', `/v1/jobs/${failed.body.jobId}`, { as: 'a-system' });
    expect(job.status).toBe(200);
    expect(job.body).toMatchObject({ status: 'failed', type: 'import:open_items', error: { code: 'invalid_rows' } });

    // nothing applied: A unchanged, C never written, B not retired by the (failed) snapshot, CUST-NEW not created
    expect(await storedOpenItems(companyId)).toEqual(before);
    expect(before.A).toMatchObject({ amount: 1000, importId: seed.body.id });
    const subLedgerKeys = await api('GET', `/v1/companies/${companyId}/sub-ledgers`, { as: 'a-system' });
    expect(subLedgerKeys.status).toBe(200);
    expect(subLedgerKeys.body.data.map((s: { key: string }) => s.key).sort()).toEqual(['CUST-1', 'SUPP-1']);

    // the failed import released its lane: the corrected request is accepted and applied
    const fixed = await importOpenItems(companyId, mode, [item('A', { amount: '5.00', amountOpen: '5.00' }), item('C', { subLedgerKey: 'CUST-NEW' })]);
    const retired = mode === 'incremental' ? 0 : 1; // B
    expect(fixed.body).toMatchObject({ status: 'succeeded', rowsFailed: 0, rowsInserted: 1, rowsUpdated: 1, rowsDeleted: retired, sampleErrors: [] });
    expect(statusesOf(await storedOpenItems(companyId))).toEqual({ A: 'live', B: retired ? 'retired' : 'live', C: 'live' });
  });

  it('structural problems answer 422 with errors indexed into items and no import is created', async () => {
    const companyId = await newApiCompany();
    const errorsOf = (response: ApiResponse) => response.body.errors.map((e: { index?: number; field: string }) => `${e.index}:${e.field}`).sort();

    const mismatch = await submitImport(companyId, 'open-items', openItems('full_refresh', [item('A'), item('B', { subLedgerType: 'supplier' }), item('C', { amount: undefined })]));
    expectProblem(mismatch, 422, 'validation_failed');
    expect(errorsOf(mismatch)).toEqual(['1:subLedgerType', '2:amount']);

    // The request is judged as a whole: the check "item subLedgerType equals the request's" runs
    // beside an item with an unknown enum value too.
    const partial = await submitImport(
      companyId,
      'open-items',
      openItems('full_refresh', [item('A'), item('B', { subLedgerType: 'supplier' }), item('C', { amount: undefined }), item('D', { settlementStatus: 'paid' })]),
    );
    expectProblem(partial, 422, 'validation_failed');
    expect(errorsOf(partial)).toEqual(['1:subLedgerType', '2:amount', '3:settlementStatus']);

    expectProblem(await submitImport(companyId, 'open-items', openItems('replace', [item('A')])), 422, 'validation_failed');
    const empty = await submitImport(companyId, 'open-items', openItems('full', []));
    expectProblem(empty, 422, 'validation_failed');
    expect(empty.body.errors).toEqual([expect.objectContaining({ field: 'items', message: 'must hold at least one item' })]);

    const list = await api('GET', `/v1/companies/${companyId}/imports`, { as: 'a-system' });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    expect(await storedOpenItems(companyId)).toEqual({});
  });
});

// ---------------------------------------------------------------------------------------------
// Dimensions: parent cycles
// ---------------------------------------------------------------------------------------------

interface DimensionRead {
  key: string;
  value: string;
  type: string | null;
  parentKey: string | null;
  autoCreated: boolean;
}

const dimensionsOf = async (companyId: string): Promise<Record<string, Pick<DimensionRead, 'value' | 'type' | 'parentKey'>>> => {
  const response = await api('GET', `/v1/companies/${companyId}/dimensions`, { as: 'a-system' });
  expect(response.status).toBe(200);
  expect(response.body.pagination).toMatchObject({ has_more: false });
  return Object.fromEntries((response.body.data as DimensionRead[]).map((d) => [d.key, { value: d.value, type: d.type, parentKey: d.parentKey }]));
};

const dim = (key: string, parentKey?: string | null, value = `Dim ${key}`) => ({ key, value, type: 'department', ...(parentKey !== undefined && { parentKey }) });

describe('dimensions over HTTP: parent cycles are row failures of a succeeded import, never a 422', () => {
  it('a cycle within one request (a -> b -> a): both rows fail as naming no dimension, the other rows apply', async () => {
    const companyId = await newApiCompany();
    const done = await importAndWait(companyId, 'dimensions', { dimensions: [dim('OK'), dim('a', 'b'), dim('b', 'a')] });
    expect(done.body).toMatchObject({
      kind: 'dimensions',
      mode: 'merge',
      status: 'succeeded',
      failureReason: null,
      lineCount: 3,
      rowsDiscovered: 3,
      rowsValid: 1,
      rowsFailed: 2,
      rowsInserted: 1,
      rowsUpdated: 0,
      rowsDeleted: null,
      sampleErrors: [
        'line 2: parentKey b names no dimension (neither an existing one nor one earlier in this request)',
        'line 3: parentKey a names no dimension (neither an existing one nor one earlier in this request)',
      ],
    });
    expect(await dimensionsOf(companyId)).toEqual({ OK: { value: 'Dim OK', type: 'department', parentKey: null } });
  });

  it('a self-parent: a new key naming itself names no dimension; an existing key naming itself is a cycle; the stored one is unchanged', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'dimensions', { dimensions: [dim('T', null, 'Original')] });
    const done = await importAndWait(companyId, 'dimensions', { dimensions: [dim('S', 'S'), dim('T', 'T', 'Renamed')] });
    expect(done.body).toMatchObject({
      status: 'succeeded',
      rowsDiscovered: 2,
      rowsValid: 0,
      rowsFailed: 2,
      rowsInserted: 0,
      rowsUpdated: 0,
      sampleErrors: [
        'line 1: parentKey S names no dimension (neither an existing one nor one earlier in this request)',
        'line 2: parentKey T would make a cycle: T is its own ancestor',
      ],
    });
    expect(await dimensionsOf(companyId)).toEqual({ T: { value: 'Original', type: 'department', parentKey: null } });
  });

  it('a cycle closed through stored dimensions (stored A <- B <- C, then A -> C) fails the row; A keeps its place', async () => {
    const companyId = await newApiCompany();
    const chain = await importAndWait(companyId, 'dimensions', { dimensions: [dim('A'), dim('B', 'A'), dim('C', 'B')] });
    expect(chain.body).toMatchObject({ status: 'succeeded', rowsInserted: 3, rowsFailed: 0 });
    const done = await importAndWait(companyId, 'dimensions', { dimensions: [dim('A', 'C', 'A moved'), dim('N', 'C')] });
    expect(done.body).toMatchObject({
      status: 'succeeded',
      rowsDiscovered: 2,
      rowsValid: 1,
      rowsFailed: 1,
      rowsInserted: 1,
      rowsUpdated: 0,
      sampleErrors: ['line 1: parentKey C would make a cycle: A is its own ancestor'],
    });
    expect(await dimensionsOf(companyId)).toEqual({
      A: { value: 'Dim A', type: 'department', parentKey: null },
      B: { value: 'Dim B', type: 'department', parentKey: 'A' },
      C: { value: 'Dim C', type: 'department', parentKey: 'B' },
      N: { value: 'Dim N', type: 'department', parentKey: 'C' },
    });
  });

  it('a cycle formed by one request together with stored dimensions (stored X, Y; then X -> Y, Y -> X): the first row applies, the second fails', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'dimensions', { dimensions: [dim('X'), dim('Y')] });
    const done = await importAndWait(companyId, 'dimensions', { dimensions: [dim('X', 'Y'), dim('Y', 'X')] });
    expect(done.body).toMatchObject({
      status: 'succeeded',
      rowsDiscovered: 2,
      rowsValid: 1,
      rowsFailed: 1,
      rowsInserted: 0,
      rowsUpdated: 1,
      sampleErrors: ['line 2: parentKey X would make a cycle: Y is its own ancestor'],
    });
    expect(await dimensionsOf(companyId)).toEqual({
      X: { value: 'Dim X', type: 'department', parentKey: 'Y' },
      Y: { value: 'Dim Y', type: 'department', parentKey: null },
    });
  });

  it('for contrast, a structural problem beside a cycle answers 422 (errors indexed into dimensions) and nothing is written', async () => {
    const companyId = await newApiCompany();
    const response = await submitImport(companyId, 'dimensions', { dimensions: [dim('a', 'b'), { ...dim('b', 'a'), type: 'bogus' }] });
    expectProblem(response, 422, 'validation_failed');
    expect(response.body.errors).toEqual([expect.objectContaining({ index: 1, field: 'type' })]);
    expect(await dimensionsOf(companyId)).toEqual({});
    const list = await api('GET', `/v1/companies/${companyId}/imports?kind=dimensions`, { as: 'a-system' });
    expect(list.body.data).toEqual([]);
  });
});
