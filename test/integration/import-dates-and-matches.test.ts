import { describe, expect, it } from 'vitest';
import { matchBytes, maxMatchBytesPerItem } from '../../shared/ledger/open-items/schemas';
import { api, expectProblem, type ApiResponse } from '../support/api';
import { chartOf, importAndWait, newApiCompany, openItem, submitImport } from '../support/ledger';

/**
 * Bounds of import fields that keep what is accepted storable and meaningful, over HTTP: dates
 * have a year from 1900 to 2999 (as every year of the ledger), and an open item's matches take at
 * most maxMatchBytesPerItem bytes (so the stored item, with the retired matches it keeps, fits
 * DynamoDB's 400 KB and the import stays all or nothing).
 */

const errorsOf = (response: ApiResponse) =>
  (response.body.errors as { index?: number; field: string; message: string }[]).map((e) => `${e.index}.${e.field}: ${e.message}`);


const item = (itemKey: string, extra: Record<string, unknown> = {}) => openItem(itemKey, { subLedgerKey: 'C1', ...extra });

describe('import dates: a year from 1900 to 2999', () => {
  it('GL transactionDate and open items documentDate, dueDate and matchDate outside it answer 422 naming row and field; the bounds are accepted', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    const outside = 'must be a date from year 1900 to 2999';
    const lines = await submitImport(companyId, 'general-ledger-lines', {
      year: 2025,
      lines: [
        { id: 'a', accountCode: '1920', amount: '5.00', period: 1, transactionDate: '0000-01-01' },
        { id: 'b', accountCode: '3000', amount: '-5.00', period: 1, transactionDate: '9999-12-31' },
        { id: 'c', accountCode: '3000', amount: '0.00', period: 1, transactionDate: '1899-12-31' },
        { id: 'd', accountCode: '3000', amount: '0.00', period: 1, transactionDate: '3000-01-01' },
      ],
    });
    expectProblem(lines, 422, 'validation_failed');
    expect(errorsOf(lines)).toEqual([0, 1, 2, 3].map((index) => `${index}.transactionDate: ${outside}`));

    const items = await submitImport(companyId, 'open-items', {
      subLedgerType: 'customer',
      mode: 'incremental',
      items: [
        item('I1', { documentDate: '0001-01-01' }),
        item('I2', { dueDate: '9999-12-31' }),
        item('I3', { settlementStatus: 'partial', amountOpen: '900.00', matches: [{ matchKey: 'M1', matchDate: '0000-02-29', amount: '-100.00' }] }),
      ],
    });
    expectProblem(items, 422, 'validation_failed');
    expect(errorsOf(items)).toEqual([`0.documentDate: ${outside}`, `1.dueDate: ${outside}`, `2.matches.0.matchDate: ${outside}`]);

    const bounds = await importAndWait(companyId, 'general-ledger-lines', {
      year: 2025,
      lines: [
        { id: 'a', accountCode: '1920', amount: '5.00', period: 1, transactionDate: '1900-01-01' },
        { id: 'b', accountCode: '3000', amount: '-5.00', period: 1, transactionDate: '2999-12-31' },
      ],
    });
    expect(bounds.body).toMatchObject({ status: 'succeeded', rowsInserted: 2 });
    const stored = await importAndWait(companyId, 'open-items', {
      subLedgerType: 'customer',
      mode: 'incremental',
      items: [item('I1', { documentDate: '1900-01-01', dueDate: '2999-12-31', settlementStatus: 'partial', amountOpen: '900.00', matches: [{ matchKey: 'M1', matchDate: '2999-12-31', amount: '-100.00' }] })],
    });
    expect(stored.body).toMatchObject({ status: 'succeeded', rowsInserted: 1 });
  });
});

describe("open items: an item's matches take at most maxMatchBytesPerItem bytes", () => {
  /** count matches of 200-character keys of three-byte characters (600 bytes each in UTF-8), the first `tag`. */
  const heavyMatches = (count: number, tag: string) =>
    Array.from({ length: count }, (_, i) => {
      const prefix = `${tag}${i}-`;
      return { matchKey: prefix + '€'.repeat(200 - prefix.length), matchDate: '2025-01-20', amount: '-0.01' };
    });
  const withMatches = (matches: { amount: string }[]) => item('I1', { amount: '1000.00', amountOpen: (1000 - matches.length * 0.01).toFixed(2), settlementStatus: 'partial', matches });

  it('1,000 matches of 200 "€" (about 650 KB) answer 422 naming items[1].matches, nothing is accepted; the lane stays free', async () => {
    const companyId = await newApiCompany();
    const matches = heavyMatches(1000, 'M');
    expect(matchBytes(matches)).toBeGreaterThan(maxMatchBytesPerItem);
    const refused = await submitImport(companyId, 'open-items', { subLedgerType: 'customer', mode: 'full', items: [item('I0'), withMatches(matches)] });
    expectProblem(refused, 422, 'validation_failed');
    expect(errorsOf(refused)).toEqual([`1.matches: take ${matchBytes(matches)} bytes as JSON (UTF-8); at most ${maxMatchBytesPerItem}`]);
    expect((await api('GET', `/v1/companies/${companyId}/imports`, { as: 'a-system' })).body.data).toEqual([]);
    expect((await importAndWait(companyId, 'open-items', { subLedgerType: 'customer', mode: 'full', items: [item('I0')] })).body.status).toBe('succeeded');
  });

  it('matches just within the bound are stored beside the 200 largest retired matches a snapshot keeps', async () => {
    const companyId = await newApiCompany();
    // First 200 matches of the largest size; a snapshot without them retires and keeps all 200.
    const first = await importAndWait(companyId, 'open-items', { subLedgerType: 'customer', mode: 'full', items: [withMatches(heavyMatches(200, 'A'))] });
    expect(first.body).toMatchObject({ status: 'succeeded', rowsInserted: 1 });
    let count = 0;
    while (matchBytes(heavyMatches(count + 1, 'B')) <= maxMatchBytesPerItem) count++;
    const second = await importAndWait(companyId, 'open-items', { subLedgerType: 'customer', mode: 'full', items: [withMatches(heavyMatches(count, 'B'))] });
    expect(second.body).toMatchObject({ status: 'succeeded', rowsUpdated: 1, rowsFailed: 0 });
  });
});
