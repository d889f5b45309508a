import { describe, expect, it } from 'vitest';
import { api, expectProblem, type ApiResponse } from '../support/api';
import { chartOf, importAndWait, newApiCompany } from '../support/ledger';

/**
 * The history of GL lines and opening balances over HTTP: every version with its dataset, import
 * and time, oldest first; a deleted row ends with its deletion.
 */
const year = 2025;
const as = 'a-system';

const line = (id: string, amount: string, extra: Record<string, unknown> = {}) => ({ id, accountCode: '1920', amount, period: 1, ...extra });

/** Every entry of a versions list, following the cursor with pages of `pageSize`. */
const allVersions = async (path: string, pageSize: number, query = '') => {
  const pages: ApiResponse[] = [];
  let cursor: string | null = null;
  do {
    const page: ApiResponse = await api('GET', `${path}?page_size=${pageSize}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { as });
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    pages.push(page);
    cursor = page.body.pagination.next_cursor;
    expect(page.body.pagination.has_more).toBe(cursor !== null);
  } while (cursor);
  return { pages: pages.length, data: pages.flatMap((page) => page.body.data) };
};

const lineIdOf = async (companyId: string, lineYear: number, sourceLineId: string) => {
  const lines = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=${lineYear}&page_size=200`, { as });
  return lines.body.data.find((l: { sourceLineId: string }) => l.sourceLineId === sourceLineId).lineId as string;
};

describe('GL line versions', () => {
  it('shows every version with its dataset, import and time, oldest first; a deletion is the last entry; a re-send after it starts again', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(year, ['1920', '3000']));
    const first = (await importAndWait(companyId, 'general-ledger-lines', { year, lines: [line('L1', '100.00', { description: 'Første', dimensionKeys: ['P1'] }), line('L2', '5.00')] })).body;
    const lineId = await lineIdOf(companyId, year, 'L1');
    const second = (await importAndWait(companyId, 'general-ledger-lines', { year, lines: [line('L1', '150.00', { description: 'Andre', taxCode: '3', taxAmount: '30.00' }), line('L2', '5.00')] })).body;
    expect(second).toMatchObject({ status: 'succeeded', rowsUpdated: 2 });
    const path = `/v1/companies/${companyId}/general-ledger/lines/${lineId}/versions`;

    // live, after one change: two versions
    const live = await api('GET', path, { as: 'a-readonly' });
    expect(live.status).toBe(200);
    expect(live.body.pagination).toEqual({ next_cursor: null, has_more: false });
    expect(live.body.data).toEqual([
      {
        lineId,
        sourceLineId: 'L1',
        year,
        version: 1,
        change: 'created',
        recordedAt: first.createdAt,
        supersededAt: second.createdAt,
        datasetId: first.datasetId,
        importId: first.id,
        period: 1,
        accountCode: '1920',
        amount: 100,
        transactionId: null,
        transactionNo: null,
        description: 'Første',
        transactionDate: null,
        taxCode: null,
        taxAmount: null,
        taxPercentage: null,
        dimensionKeys: ['P1'],
        subLedgerKeys: [],
      },
      expect.objectContaining({
        version: 2,
        change: 'updated',
        recordedAt: second.createdAt,
        supersededAt: null,
        datasetId: second.datasetId,
        importId: second.id,
        amount: 150,
        description: 'Andre',
        taxCode: '3',
        taxAmount: 30,
        dimensionKeys: [],
      }),
    ]);
    expect(live.text).toContain('"amount":100.00');

    // deleted: the deletion is the last entry, with what was deleted
    const deletion = (await importAndWait(companyId, 'general-ledger-lines/deletions', { year, ids: ['L1'] })).body;
    expect(deletion).toMatchObject({ status: 'succeeded', rowsDeleted: 1 });
    expect((await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=${year}`, { as })).body.data.map((l: { sourceLineId: string }) => l.sourceLineId)).toEqual(['L2']);
    const deleted = await api('GET', path, { as });
    expect(deleted.body.data.map((v: Record<string, unknown>) => [v.version, v.change, v.amount, v.importId, v.recordedAt, v.supersededAt])).toEqual([
      [1, 'created', 100, first.id, first.createdAt, second.createdAt],
      [2, 'updated', 150, second.id, second.createdAt, deletion.createdAt],
      [3, 'deleted', 150, deletion.id, deletion.createdAt, null],
    ]);
    expect(deleted.body.data[2]).toMatchObject({ datasetId: deletion.datasetId, description: 'Andre', lineId, sourceLineId: 'L1' });

    // pages of one, following the cursor, give the same entries
    const paged = await allVersions(path, 1);
    expect(paged.pages).toBe(3);
    expect(paged.data).toEqual(deleted.body.data);

    // sent again after the deletion: a new version, created again
    const again = (await importAndWait(companyId, 'general-ledger-lines', { year, lines: [line('L1', '7.00')] })).body;
    const history = await allVersions(path, 2);
    expect(history.pages).toBe(2);
    expect(history.data.map((v: Record<string, unknown>) => [v.version, v.change, v.amount, v.importId, v.supersededAt])).toEqual([
      [1, 'created', 100, first.id, second.createdAt],
      [2, 'updated', 150, second.id, deletion.createdAt],
      [3, 'deleted', 150, deletion.id, again.createdAt],
      [4, 'created', 7, again.id, null],
    ]);
    const current = (await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=${year}`, { as })).body.data.find((l: { lineId: string }) => l.lineId === lineId);
    expect(current).toMatchObject({ version: 4, amount: 7 });

    // an unchanged re-send makes no version: it stamps the one it finds with its dataset and import
    const l2 = await api('GET', `/v1/companies/${companyId}/general-ledger/lines/${await lineIdOf(companyId, year, 'L2')}/versions`, { as });
    expect(l2.body.data).toEqual([expect.objectContaining({ version: 1, change: 'created', recordedAt: first.createdAt, datasetId: second.datasetId, importId: second.id, supersededAt: null })]);
  });

  it('finds a line of any year by its lineId alone; unknown, malformed and foreign ids answer 404; cursors are bound to the line', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(year - 1, ['1920', '3000']));
    await importAndWait(companyId, 'accounts', chartOf(year, ['1920', '3000']));
    await importAndWait(companyId, 'general-ledger-lines', { year: year - 1, lines: [line('old', '1.00')] });
    await importAndWait(companyId, 'general-ledger-lines', { year: year - 1, lines: [line('old', '2.00')] });
    await importAndWait(companyId, 'general-ledger-lines', { year, lines: [line('new', '3.00')] });
    const oldLine = await lineIdOf(companyId, year - 1, 'old');
    const newLine = await lineIdOf(companyId, year, 'new');
    const base = `/v1/companies/${companyId}/general-ledger/lines`;

    const versions = await api('GET', `${base}/${oldLine}/versions`, { as });
    expect(versions.body.data.map((v: Record<string, unknown>) => [v.year, v.version, v.amount])).toEqual([
      [year - 1, 1, 1],
      [year - 1, 2, 2],
    ]);

    expectProblem(await api('GET', `${base}/0000000000000000000000000a/versions`, { as }), 404, 'not_found');
    expectProblem(await api('GET', `${base}/not-a-line-id/versions`, { as }), 404, 'not_found');
    expectProblem(await api('GET', `${base}/${oldLine}/versions`, { as: 'b-system' }), 404, 'not_found');
    const other = await newApiCompany();
    expectProblem(await api('GET', `/v1/companies/${other}/general-ledger/lines/${oldLine}/versions`, { as }), 404, 'not_found');

    const firstPage = await api('GET', `${base}/${oldLine}/versions?page_size=1`, { as });
    const cursor = encodeURIComponent(firstPage.body.pagination.next_cursor);
    expect((await api('GET', `${base}/${oldLine}/versions?page_size=1&cursor=${cursor}`, { as })).body.data[0].version).toBe(2);
    expectProblem(await api('GET', `${base}/${newLine}/versions?cursor=${cursor}`, { as }), 400, 'invalid_cursor');
    expectProblem(await api('GET', `${base}/${oldLine}/versions?page_size=0`, { as }), 400, 'validation_failed');
    expectProblem(await api('GET', `${base}/${oldLine}/versions?year=2024`, { as }), 400, 'validation_failed');
  });
});

describe('opening balance versions', () => {
  it('shows every version of an opening balance of a year, oldest first, ending with its deletion', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(year, ['1920', '2050']));
    const first = (await importAndWait(companyId, 'opening-balances', { year, lines: [{ id: 'ob/1920', accountCode: '1920', amount: '1000.00' }] })).body;
    const second = (await importAndWait(companyId, 'opening-balances', { year, lines: [{ id: 'ob/1920', accountCode: '1920', amount: '1200.00' }] })).body;
    const deletion = (await importAndWait(companyId, 'opening-balances/deletions', { year, ids: ['ob/1920'] })).body;
    expect(deletion).toMatchObject({ status: 'succeeded', rowsDeleted: 1 });

    const path = `/v1/companies/${companyId}/opening-balances/${encodeURIComponent('ob/1920')}/versions`;
    const versions = await api('GET', `${path}?year=${year}`, { as: 'a-readonly' });
    expect(versions.status).toBe(200);
    expect(versions.body.data).toEqual([
      {
        openingBalanceId: 'ob/1920',
        year,
        version: 1,
        change: 'created',
        recordedAt: first.createdAt,
        supersededAt: second.createdAt,
        datasetId: first.datasetId,
        importId: first.id,
        accountCode: '1920',
        amount: 1000,
        subLedgerKeys: [],
      },
      expect.objectContaining({ version: 2, change: 'updated', amount: 1200, importId: second.id, supersededAt: deletion.createdAt }),
      expect.objectContaining({ version: 3, change: 'deleted', amount: 1200, importId: deletion.id, datasetId: deletion.datasetId, recordedAt: deletion.createdAt, supersededAt: null }),
    ]);
    // year omitted: the current accounting year (the only year with a chart here)
    expect((await api('GET', path, { as })).body.data).toEqual(versions.body.data);
    const paged = await allVersions(path, 2, `&year=${year}`);
    expect(paged.data).toEqual(versions.body.data);

    expectProblem(await api('GET', `${path}?year=${year - 1}`, { as }), 404, 'not_found');
    expectProblem(await api('GET', `/v1/companies/${companyId}/opening-balances/unknown/versions?year=${year}`, { as }), 404, 'not_found');
    expectProblem(await api('GET', `/v1/companies/${companyId}/opening-balances/${encodeURIComponent('a:b')}/versions?year=${year}`, { as }), 404, 'not_found');
    expectProblem(await api('GET', `${path}?year=${year}`, { as: 'b-system' }), 404, 'not_found');
  });
});
