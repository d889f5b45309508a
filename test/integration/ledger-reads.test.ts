import { describe, expect, it } from 'vitest';
import { setStandardAccount } from '../../shared/ledger/chart/service';
import { api, expectProblem, type ApiResponse } from '../support/api';
import { chartOf, importAndWait, newApiCompany } from '../support/ledger';
import { testStack } from '../support/stack';

const line = (id: string, accountCode: string, amount: string, period: number, extra: Record<string, unknown> = {}) => ({
  id,
  accountCode,
  amount,
  period,
  transactionId: `V-${id}`,
  transactionNo: id,
  description: `Voucher ${id}`,
  transactionDate: `2025-${String(period).padStart(2, '0')}-10`,
  ...extra,
});

/** A small company-year pushed over HTTP the way an integrator would, in the recommended order. */
const seedBooks = async () => {
  const companyId = await newApiCompany();
  await importAndWait(companyId, 'accounts', chartOf(2025, ['1500', '1920', '2400', '3000']));
  await importAndWait(companyId, 'dimensions', { dimensions: [{ key: 'SALES', value: 'Sales', type: 'department' }, { key: 'NORTH', value: 'North', type: 'region', parentKey: 'SALES' }] });
  await importAndWait(companyId, 'sub-ledgers', { subLedgers: [{ key: 'C1', value: 'Kunde En AS', type: 'customer' }, { key: 'S1', value: 'Leverandør AS', type: 'supplier' }] });
  await importAndWait(companyId, 'opening-balances', { year: 2025, lines: [{ id: 'ob1', accountCode: '1920', amount: '10000.00' }, { id: 'ob2', accountCode: '2400', amount: '-10000.00' }] });
  await importAndWait(companyId, 'general-ledger-lines', {
    year: 2025,
    lines: [
      line('1', '1500', '1250.00', 1, { subLedgerKeys: ['C1'], dimensionKeys: ['SALES'] }),
      line('2', '3000', '-1250.00', 1, { dimensionKeys: ['SALES', 'PROJECT-X'] }),
      line('3', '1920', '1250.00', 2),
      line('4', '1500', '-1250.00', 2, { subLedgerKeys: ['C1'] }),
      line('5', '1920', '0.00', 3),
    ],
  });
  return companyId;
};

describe('general ledger reads over HTTP', () => {
  it('accounts of a year (current year when omitted) and one account; unknown account 404', async () => {
    const companyId = await seedBooks();
    const accounts = await api('GET', `/v1/companies/${companyId}/accounts`, { as: 'a-system' });
    expect(accounts.status).toBe(200);
    expect(accounts.body.data.map((a: { accountNumber: string }) => a.accountNumber)).toEqual(['1500', '1920', '2400', '3000']);
    expect(accounts.body.pagination).toEqual({ next_cursor: null, has_more: false });
    const one = await api('GET', `/v1/companies/${companyId}/accounts/1920?year=2025`, { as: 'a-system' });
    expect(one.body).toMatchObject({ accountNumber: '1920', year: 2025, category: 'Balance', hidden: false, standardAccount: null, mapped: false });
    expectProblem(await api('GET', `/v1/companies/${companyId}/accounts/9999?year=2025`, { as: 'a-system' }), 404, 'not_found');
    expect((await api('GET', `/v1/companies/${companyId}/accounts?year=2024`, { as: 'a-system' })).body.data).toEqual([]);
  });

  it('re-importing an account updates it in place and never touches its mapping; hidden retires it', async () => {
    const companyId = await seedBooks();
    testStack();
    await setStandardAccount(companyId, 2025, '1920', '1920');
    await importAndWait(companyId, 'accounts', { year: 2025, accounts: [{ accountCode: '1920', accountDescription: 'Bank, DNB', accountCategory: 'Balance', hidden: true }] });
    const account = await api('GET', `/v1/companies/${companyId}/accounts/1920?year=2025`, { as: 'a-system' });
    expect(account.body).toMatchObject({ description: 'Bank, DNB', standardAccount: '1920', mapped: true, hidden: true });
    const readiness = await api('GET', `/v1/companies/${companyId}/imports/readiness`, { as: 'a-system' });
    expect(readiness.body.years[0]).toMatchObject({ accounts: 4, mappedAccounts: 1, openingBalances: 2, generalLedgerLines: 5 });
    expect(readiness.body.warnings).toEqual(['unmapped_accounts']);
    expect(readiness.body.nextStep).toBe('import_open_items');
  });

  it('GL lines: ordered by period then lineId, zero amounts included, filters by account and period, stable lineId', async () => {
    const companyId = await seedBooks();
    const all = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=2025`, { as: 'a-system' });
    const lines = all.body.data as { lineId: string; sourceLineId: string; period: number; amount: number; accountCode: string }[];
    expect(lines).toHaveLength(5);
    const order = lines.map((l) => [l.period, l.lineId]);
    expect(order).toEqual([...order].sort((a, b) => (a[0] as number) - (b[0] as number) || String(a[1]).localeCompare(String(b[1]))));
    expect(lines.find((l) => l.sourceLineId === '5')?.amount).toBe(0);
    expect(all.text).toContain('"amount":0.00');
    const byAccount = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=2025&account=1500`, { as: 'a-system' });
    expect(byAccount.body.data.map((l: { sourceLineId: string }) => l.sourceLineId)).toEqual(['1', '4']);
    const byPeriod = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=2025&period=2`, { as: 'a-system' });
    expect(byPeriod.body.data.map((l: { sourceLineId: string }) => l.sourceLineId).sort()).toEqual(['3', '4']);
    expectProblem(await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=2025&period=13`, { as: 'a-system' }), 400, 'validation_failed');

    // a cursor is bound to the company too
    const page = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=2025&page_size=2`, { as: 'a-system' });
    const otherCompany = await newApiCompany();
    const foreign = await api('GET', `/v1/companies/${otherCompany}/general-ledger/lines?year=2025&page_size=2&cursor=${encodeURIComponent(page.body.pagination.next_cursor)}`, { as: 'a-system' });
    expectProblem(foreign, 400, 'invalid_cursor');

    // a re-import keeps the lineId and updates in place
    const before = lines.find((l) => l.sourceLineId === '3')!;
    await importAndWait(companyId, 'general-ledger-lines', { year: 2025, lines: [line('3', '1920', '1300.00', 2)] });
    const after = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=2025&period=2&account=1920`, { as: 'a-system' });
    expect(after.body.data).toEqual([expect.objectContaining({ lineId: before.lineId, sourceLineId: '3', amount: 1300, version: 2 })]);
  });

  it('trial balance: opening balance, twelve labelled movements, closing at N = opening + movements 1..N', async () => {
    const companyId = await seedBooks();
    const response = await api('GET', `/v1/companies/${companyId}/trial-balance?year=2025`, { as: 'a-system' });
    expect(response.status).toBe(200);
    const bank = response.body.accounts.find((a: { accountCode: string }) => a.accountCode === '1920');
    expect(bank.openingBalance).toBe(10000);
    expect(bank.movements).toHaveLength(12);
    expect(bank.movements[0]).toMatchObject({ period: 1, label: 'January', amount: 0, closingBalance: 10000 });
    expect(bank.movements[1]).toMatchObject({ period: 2, label: 'February', amount: 1250, closingBalance: 11250 });
    expect(bank.movements[11].closingBalance).toBe(11250);
    expect(bank.closingBalance).toBe(11250);
    expect(response.text).toContain('"openingBalance":10000.00');
    for (const account of response.body.accounts) {
      let running = account.openingBalance;
      for (const movement of account.movements) {
        running = Math.round((running + movement.amount) * 100) / 100;
        expect(movement.closingBalance).toBe(running);
      }
    }
    expect(response.body.totals.closingBalance).toBe(0);
  });

  it('dimensions and sub-ledgers: imported ones and those a line named before they were pushed', async () => {
    const companyId = await seedBooks();
    const dimensions = await api('GET', `/v1/companies/${companyId}/dimensions`, { as: 'a-system' });
    const byKey = Object.fromEntries(dimensions.body.data.map((d: { key: string }) => [d.key, d]));
    expect(byKey.SALES).toMatchObject({ value: 'Sales', type: 'department', autoCreated: false });
    expect(byKey.NORTH).toMatchObject({ parentKey: 'SALES', type: 'region' });
    expect(byKey['PROJECT-X']).toMatchObject({ value: 'PROJECT-X', type: null, autoCreated: true });
    const subLedgers = await api('GET', `/v1/companies/${companyId}/sub-ledgers`, { as: 'a-system' });
    expect(subLedgers.body.data.map((s: { key: string; type: string }) => [s.key, s.type])).toEqual([['C1', 'customer'], ['S1', 'supplier']]);
  });

  it('deleting a dimension or sub-ledger in use answers 409 with inUse; an unused one is deleted', async () => {
    const companyId = await seedBooks();
    const dimension = await api('DELETE', `/v1/companies/${companyId}/dimensions/SALES`, { as: 'a-system' });
    expectProblem(dimension, 409, 'conflict');
    expect(dimension.body.reason).toBe('dimension_in_use');
    const subLedger = await api('DELETE', `/v1/companies/${companyId}/sub-ledgers/C1`, { as: 'a-system' });
    expect(subLedger.body.reason).toBe('sub_ledger_in_use');
    const unused = await api('DELETE', `/v1/companies/${companyId}/sub-ledgers/S1`, { as: 'a-system' });
    expect(unused.status).toBe(202);
  });

  it('open items: a snapshot import retires what it does not contain; one invalid item fails the whole import', async () => {
    const companyId = await seedBooks();
    const item = (itemKey: string, amount: string) => ({
      itemKey,
      subLedgerKey: 'C1',
      subLedgerType: 'customer',
      accountCode: '1500',
      documentId: `INV-${itemKey}`,
      entryCategory: 'invoice',
      documentDate: '2025-01-10',
      dueDate: '2025-02-10',
      amount,
      amountOpen: amount,
      settlementStatus: 'open',
    });
    const first = await importAndWait(companyId, 'open-items', { subLedgerType: 'customer', mode: 'incremental', items: [item('A', '100.00'), item('B', '200.00')] });
    expect(first.body).toMatchObject({ status: 'succeeded', rowsInserted: 2 });
    const snapshot = await importAndWait(companyId, 'open-items', { subLedgerType: 'customer', mode: 'full', items: [item('A', '100.00')] });
    expect(snapshot.body).toMatchObject({ status: 'succeeded', rowsUpdated: 1, rowsDeleted: 1 });
    const invalid = await importAndWait(companyId, 'open-items', {
      subLedgerType: 'customer',
      mode: 'incremental',
      items: [item('C', '50.00'), { ...item('D', '50.00'), amountOpen: '80.00', settlementStatus: 'partial' }],
    });
    expect(invalid.body).toMatchObject({ status: 'failed', failureReason: 'invalid_rows', rowsInserted: 0 });
    expect(invalid.body.sampleErrors[0]).toMatch(/^line 2: /);
    const readiness = await api('GET', `/v1/companies/${companyId}/imports/readiness`, { as: 'a-system' });
    expect(readiness.body.nextStep).toBe('up_to_date');
  });

  it('dimensions and sub-ledgers are pages: page_size 1-200 (default 50), key order, cursors bound to company and list', async () => {
    const companyId = await newApiCompany();
    const dimensionKeys = Array.from({ length: 55 }, (_, i) => `D${String(i).padStart(3, '0')}`);
    await importAndWait(companyId, 'dimensions', { dimensions: dimensionKeys.map((key) => ({ key, value: `Dimension ${key}`, type: 'project' })) });
    const subLedgerKeys = Array.from({ length: 7 }, (_, i) => `K${i}`);
    await importAndWait(companyId, 'sub-ledgers', { subLedgers: subLedgerKeys.map((key) => ({ key, value: `Kunde ${key}`, type: 'customer' })) });
    const base = `/v1/companies/${companyId}`;

    // default page size 50: one full page, then the rest
    const first = await api('GET', `${base}/dimensions`, { as: 'a-readonly' });
    expect(first.status).toBe(200);
    expect(first.body.data.map((d: { key: string }) => d.key)).toEqual(dimensionKeys.slice(0, 50));
    expect(first.body.pagination).toEqual({ next_cursor: expect.any(String), has_more: true });
    const rest = await api('GET', `${base}/dimensions?cursor=${encodeURIComponent(first.body.pagination.next_cursor)}`, { as: 'a-readonly' });
    expect(rest.body.data.map((d: { key: string }) => d.key)).toEqual(dimensionKeys.slice(50));
    expect(rest.body.pagination).toEqual({ next_cursor: null, has_more: false });
    expect((await api('GET', `${base}/dimensions?page_size=200`, { as: 'a-readonly' })).body.data).toHaveLength(55);

    // following the cursor through pages of 3
    const follow = async (path: string) => {
      const pages: string[][] = [];
      let cursor: string | null = null;
      do {
        const page: ApiResponse = await api('GET', `${path}?page_size=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { as: 'a-system' });
        expect(page.status).toBe(200);
        pages.push(page.body.data.map((row: { key: string }) => row.key));
        cursor = page.body.pagination.next_cursor;
        expect(page.body.pagination.has_more).toBe(cursor !== null);
      } while (cursor);
      return pages;
    };
    const subLedgerPages = await follow(`${base}/sub-ledgers`);
    expect(subLedgerPages).toEqual([['K0', 'K1', 'K2'], ['K3', 'K4', 'K5'], ['K6']]);
    expect((await follow(`${base}/dimensions`)).flat()).toEqual(dimensionKeys);

    // a cursor belongs to its company and its list
    const cursor = encodeURIComponent((await api('GET', `${base}/sub-ledgers?page_size=3`, { as: 'a-system' })).body.pagination.next_cursor);
    const other = await newApiCompany();
    expectProblem(await api('GET', `/v1/companies/${other}/sub-ledgers?page_size=3&cursor=${cursor}`, { as: 'a-system' }), 400, 'invalid_cursor');
    expectProblem(await api('GET', `${base}/dimensions?page_size=3&cursor=${cursor}`, { as: 'a-system' }), 400, 'invalid_cursor');
    expectProblem(await api('GET', `${base}/sub-ledgers?page_size=3&cursor=${cursor}`, { as: 'a-readonly' }), 400, 'invalid_cursor');
    expectProblem(await api('GET', `${base}/sub-ledgers?page_size=3&cursor=garbage`, { as: 'a-system' }), 400, 'invalid_cursor');
    // the page size is not a filter: the next page may be larger
    expect((await api('GET', `${base}/sub-ledgers?page_size=10&cursor=${cursor}`, { as: 'a-system' })).body.data.map((row: { key: string }) => row.key)).toEqual(['K3', 'K4', 'K5', 'K6']);
    for (const bad of ['page_size=0', 'page_size=201', 'page_size=x', 'year=2025']) {
      expectProblem(await api('GET', `${base}/dimensions?${bad}`, { as: 'a-system' }), 400, 'validation_failed');
      expectProblem(await api('GET', `${base}/sub-ledgers?${bad}`, { as: 'a-system' }), 400, 'validation_failed');
    }
  });

  it('reads need ledger:read and a company within reach', async () => {
    const companyId = await seedBooks();
    expect((await api('GET', `/v1/companies/${companyId}/trial-balance?year=2025`, { as: 'a-readonly' })).status).toBe(200);
    expectProblem(await api('GET', `/v1/companies/${companyId}/trial-balance?year=2025`, { as: 'b-system' }), 404, 'not_found');
    expectProblem(await api('GET', `/v1/companies/${companyId}/general-ledger/lines`, { as: 'a1-system' }), 404, 'not_found');
  });
});
