import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { maxDecodedBodyBytes, maxRequestBodyBytes } from '../../shared/platform/request-body';
import { api, expectProblem, type ApiResponse } from '../support/api';
import { chartOf, importAndWait, newApiCompany, submitImport, waitForImport } from '../support/ledger';

/**
 * The bounds of what an import takes, over HTTP through the local gateway: amounts (at most 18
 * digits before the decimal point, decimal strings in decimal notation), request bodies (4 MiB
 * as sent, gzip up to 32 MiB decompressed), and corrections of rows on hidden accounts.
 */

const errorsOf = (response: ApiResponse) =>
  (response.body.errors as { index?: number; field: string; message: string }[]).map((e) => `${e.index}.${e.field}: ${e.message}`);

const gzipped = (companyId: string, kindPath: string, body: string | Buffer, headers: Record<string, string> = {}, idempotencyKey?: string) =>
  api('POST', `/v1/companies/${companyId}/imports/${kindPath}`, {
    as: 'a-system',
    rawBody: gzipSync(body),
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', ...headers },
    ...(idempotencyKey && { idempotencyKey }),
  });

const allLines = async (companyId: string, year = 2025) => {
  const lines: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `year=${year}&page_size=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?${query}`, { as: 'a-system' });
    lines.push(...page.body.data);
    cursor = page.body.pagination.next_cursor;
  } while (cursor);
  return lines;
};

describe('import amounts: bounded so that every accepted amount is storable', () => {
  it('GL amounts, taxAmount and taxPercentage beyond 18 integer digits answer 422 naming row and field; the lane stays free', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    const forty = '1234567890123456789012345678901234567890';
    const text = JSON.stringify({
      year: 2025,
      lines: [
        { id: 'ok', accountCode: '1920', amount: '999999999999999999.9999', period: 1 },
        { id: 'forty', accountCode: '1920', amount: forty, period: 1 },
        { id: 'e126', accountCode: '1920', amount: 0, period: 1 },
        { id: 'tax', accountCode: '3000', amount: '10', taxAmount: '1000000000000000000', period: 1 },
        { id: 'pct', accountCode: '3000', amount: '10', taxPercentage: 0, period: 1 },
      ],
    })
      .replace('"id":"e126","accountCode":"1920","amount":0', '"id":"e126","accountCode":"1920","amount":1e126')
      .replace('"taxPercentage":0', '"taxPercentage":1E19');
    const refused = await submitImport(companyId, 'general-ledger-lines', text);
    expectProblem(refused, 422, 'validation_failed');
    const digits = 'must have at most 18 digits before the decimal point';
    expect(errorsOf(refused)).toEqual([`1.amount: ${digits}`, `2.amount: ${digits}`, `3.taxAmount: ${digits}`, `4.taxPercentage: ${digits}`]);

    // nothing was accepted, so nothing holds the lane: the largest amounts pass and sum exactly
    const done = await importAndWait(companyId, 'general-ledger-lines', {
      year: 2025,
      lines: [
        { id: 'max', accountCode: '1920', amount: '999999999999999999.9999', taxAmount: '-999999999999999999.9999', period: 1 },
        { id: 'max2', accountCode: '1920', amount: '999999999999999999.9999', period: 1 },
      ],
    });
    expect(done.body).toMatchObject({ status: 'succeeded', rowsInserted: 2, rowsFailed: 0 });
    const lines = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=2025`, { as: 'a-system' });
    expect(lines.text).toContain('"amount":999999999999999999.9999');
    expect(lines.text).toContain('"taxAmount":-999999999999999999.9999');
    const balance = await api('GET', `/v1/companies/${companyId}/trial-balance?year=2025`, { as: 'a-system' });
    expect(balance.text).toContain('"closingBalance":1999999999999999999.9998');
  });

  it('opening balances and open items (amount, amountOpen, match amounts) are bounded the same way', async () => {
    const companyId = await newApiCompany();
    const ob = await submitImport(companyId, 'opening-balances', {
      year: 2025,
      lines: [
        { id: 'a', accountCode: '1920', amount: '1234567890123456789012345678901234567890' },
        { id: 'b', accountCode: '1920', amount: '-999999999999999999.9999' },
      ],
    });
    expectProblem(ob, 422, 'validation_failed');
    expect(errorsOf(ob)).toEqual(['0.amount: must have at most 18 digits before the decimal point']);

    const item = { itemKey: 'I1', subLedgerType: 'customer', subLedgerKey: 'C1', accountCode: '1500', documentId: 'INV-1', entryCategory: 'invoice', documentDate: '2025-01-10', dueDate: '2025-02-10', settlementStatus: 'partial' };
    const text = JSON.stringify({
      subLedgerType: 'customer',
      mode: 'incremental',
      items: [{ ...item, amount: 0, amountOpen: '1000000000000000000.5', matches: [{ matchKey: 'M1', matchDate: '2025-01-20', amount: '-10000000000000000000' }] }],
    }).replace('"amount":0', '"amount":1e126');
    const openItems = await submitImport(companyId, 'open-items', text);
    expectProblem(openItems, 422, 'validation_failed');
    expect(errorsOf(openItems).sort()).toEqual(
      ['0.amount', '0.amountOpen', '0.matches.0.amount'].map((field) => `${field}: must have at most 18 digits before the decimal point`),
    );
  });
});

describe('import amounts: a decimal string is decimal notation (general rule 5)', () => {
  it('refuses exponent notation in strings (422 with the field) and judges JSON numbers, exponent or not, on their value', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    const refused = await submitImport(companyId, 'general-ledger-lines', {
      year: 2025,
      lines: [
        { id: 'a', accountCode: '1920', amount: '1e2', period: 1 },
        { id: 'b', accountCode: '1920', amount: '-1.5E1', period: 1 },
        { id: 'c', accountCode: '3000', amount: '100', taxAmount: '2.5e1', period: 1 },
        { id: 'd', accountCode: '3000', amount: '100.00', taxPercentage: '25', period: 1 },
      ],
    });
    expectProblem(refused, 422, 'validation_failed');
    const notation = 'must be a decimal string in decimal notation (like "1250.50"), without an exponent';
    expect(errorsOf(refused)).toEqual([`0.amount: ${notation}`, `1.amount: ${notation}`, `2.taxAmount: ${notation}`]);
    const openingBalance = await submitImport(companyId, 'opening-balances', { year: 2025, lines: [{ id: 'o', accountCode: '1920', amount: '1e2' }] });
    expect(errorsOf(openingBalance)).toEqual([`0.amount: ${notation}`]);

    // JSON numbers may carry an exponent: 1e2 is 100, 1.25E+1 is 12.5 (1e-5, five decimals, stays refused)
    const text = '{"year":2025,"lines":[{"id":"n1","accountCode":"1920","amount":1e2,"period":1},{"id":"n2","accountCode":"3000","amount":1.25E+1,"period":1}]}';
    expect((await importAndWait(companyId, 'general-ledger-lines', text)).body).toMatchObject({ status: 'succeeded', rowsInserted: 2 });
    const amounts = Object.fromEntries((await allLines(companyId)).map((line) => [line.sourceLineId, line.amount]));
    expect(amounts).toEqual({ n1: 100, n2: 12.5 });
    const lines = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=2025`, { as: 'a-system' });
    expect(lines.text).toContain('"amount":100.00');
    expect(lines.text).toContain('"amount":12.50');
  });
});

describe('import amounts: one strict decimal grammar; a tax percentage from 0 to 100', () => {
  it('refuses blanks, a plus sign, a bare point, trailing zeros beyond 4 decimals and other digits in decimal strings (422 naming row and field)', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    const malformed = [' 12', '12 ', '+5', '.5', '5.', '-.5', '1,5', '0x10', '\u0661\u0662', '1\u202e2', '', '-'];
    const refused = await submitImport(companyId, 'general-ledger-lines', {
      year: 2025,
      lines: [
        ...malformed.map((amount, i) => ({ id: `m${i}`, accountCode: '1920', amount, period: 1 })),
        { id: 'zeros', accountCode: '1920', amount: '1.50000', period: 1 },
        { id: 'tax', accountCode: '3000', amount: '10', taxAmount: '+2.50', period: 1 },
      ],
    });
    expectProblem(refused, 422, 'validation_failed');
    const notDecimal = 'must be a decimal amount (a string like "1250.50" or a JSON number)';
    expect(errorsOf(refused)).toEqual([
      ...malformed.map((_, i) => `${i}.amount: ${notDecimal}`),
      `${malformed.length}.amount: must have at most 4 decimals`,
      `${malformed.length + 1}.taxAmount: ${notDecimal}`,
    ]);
    const ob = await submitImport(companyId, 'opening-balances', { year: 2025, lines: [{ id: 'o', accountCode: '1920', amount: ' 12' }] });
    expect(errorsOf(ob)).toEqual([`0.amount: ${notDecimal}`]);
    const item = { itemKey: 'I1', subLedgerType: 'customer', subLedgerKey: 'C1', accountCode: '1500', documentId: 'INV-1', entryCategory: 'invoice', documentDate: '2025-01-10', dueDate: '2025-02-10', settlementStatus: 'open' };
    const openItems = await submitImport(companyId, 'open-items', { subLedgerType: 'customer', mode: 'incremental', items: [{ ...item, amount: '+100', amountOpen: '.5' }] });
    expect(errorsOf(openItems).sort()).toEqual([`0.amount: ${notDecimal}`, `0.amountOpen: ${notDecimal}`]);
    const list = await api('GET', `/v1/companies/${companyId}/imports`, { as: 'a-system' });
    expect(list.body.data.map((job: { kind: string }) => job.kind)).toEqual(['accounts']); // the chart alone
  });

  it('taxPercentage is from 0 to 100 (strings and JSON numbers); the bounds themselves are accepted', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    const line = (id: string, taxPercentage: string) => `{"id":"${id}","accountCode":"3000","amount":"100","period":1,"taxPercentage":${taxPercentage}}`;
    const text = `{"year":2025,"lines":[${[line('big', '"9999999999.9999"'), line('over', '"100.0001"'), line('neg', '"-1"'), line('num', '101'), line('negnum', '-0.5')].join(',')}]}`;
    const refused = await submitImport(companyId, 'general-ledger-lines', text);
    expectProblem(refused, 422, 'validation_failed');
    expect(errorsOf(refused)).toEqual([0, 1, 2, 3, 4].map((i) => `${i}.taxPercentage: must be between 0 and 100`));

    const accepted = `{"year":2025,"lines":[${[line('zero', '"0"'), line('full', '"100.0000"'), line('num', '100'), line('frac', '12.3456')].join(',')}]}`;
    expect((await importAndWait(companyId, 'general-ledger-lines', accepted)).body).toMatchObject({ status: 'succeeded', rowsInserted: 4 });
    const rates = Object.fromEntries((await allLines(companyId)).map((l) => [l.sourceLineId, l.taxPercentage]));
    expect(rates).toEqual({ zero: 0, full: 100, num: 100, frac: 12.3456 });
  });
});

describe('request bodies: 4 MiB as sent; gzip beyond it', () => {
  const description = 'Long description of the line, as some ledgers keep them. '.repeat(17).slice(0, 1000);
  const body = (count: number) =>
    JSON.stringify({
      year: 2025,
      lines: Array.from({ length: count }, (_, i) => ({
        id: `L${String(i).padStart(5, '0')}`,
        accountCode: i % 2 ? '3000' : '1920',
        amount: `${i}.25`,
        period: (i % 12) + 1,
        transactionId: `T${Math.floor(i / 2)}`,
        description,
      })),
    });
  const limitNamed = (response: ApiResponse) => {
    expectProblem(response, 413, 'payload_too_large');
    expect(response.body.detail).toContain(`at most ${maxRequestBodyBytes} bytes (4 MiB) as sent`);
  };

  it('a body beyond 4 MiB answers 413 naming the limit, from the function (5 MB) and from the gateway (10.3 MB, no connection reset)', async () => {
    const companyId = await newApiCompany();
    const fiveMegabytes = body(4_600);
    expect(Buffer.byteLength(fiveMegabytes)).toBeGreaterThan(maxRequestBodyBytes);
    expect(Buffer.byteLength(fiveMegabytes)).toBeLessThan(5_500_000); // the Lambda event stays below 6 MB: the function answers
    limitNamed(await submitImport(companyId, 'general-ledger-lines', fiveMegabytes));
    const tenMegabytes = body(10_000);
    expect(Buffer.byteLength(tenMegabytes)).toBeGreaterThan(10 * 1024 * 1024); // beyond API Gateway's payload limit
    limitNamed(await submitImport(companyId, 'general-ledger-lines', tenMegabytes));
    const list = await api('GET', `/v1/companies/${companyId}/imports`, { as: 'a-system' });
    expect(list.body.data).toEqual([]);
  });

  it('the same 10.3 MB body sent with Content-Encoding: gzip answers 202 and the import succeeds', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    const accepted = await gzipped(companyId, 'general-ledger-lines', body(10_000));
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(accepted.body).toMatchObject({ status: 'queued', lineCount: 10_000 });
    let done = await waitForImport(companyId, accepted.body.id);
    for (let round = 0; round < 2 && done.body.status === 'queued'; round++) done = await waitForImport(companyId, accepted.body.id); // 10,000 long lines on a busy machine
    expect(done.body).toMatchObject({ status: 'succeeded', rowsDiscovered: 10_000, rowsInserted: 10_000, rowsFailed: 0 });
    const page = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=2025&period=1&page_size=1`, { as: 'a-system' });
    const [line] = page.body.data;
    expect(line).toMatchObject({ description, amount: Number(line.sourceLineId.slice(1)) + 0.25 });
    const balance = await api('GET', `/v1/companies/${companyId}/trial-balance?year=2025`, { as: 'a-system' });
    expect(balance.body.totals.closingBalance).toBe(49_997_500); // the sum of i + 0.25 for i < 10,000
  }, 180_000);

  it('gzip: a zip bomb answers 413 naming the decompressed limit; more than 10,000 rows stay 413; other codings 415; no gzip data 400', async () => {
    const companyId = await newApiCompany();
    const bomb = Buffer.concat([Buffer.from('{"year":2025,"lines":['), Buffer.alloc(40 * 1024 * 1024, 0x20), Buffer.from(']}')]);
    const exploded = await gzipped(companyId, 'general-ledger-lines', bomb);
    expectProblem(exploded, 413, 'payload_too_large');
    expect(exploded.body.detail).toContain(`more than ${maxDecodedBodyBytes} bytes (32 MiB)`);

    const tooManyRows = JSON.stringify({ year: 2025, lines: Array.from({ length: 10_001 }, (_, i) => ({ id: `L${i}`, accountCode: '1920', amount: '1.00', period: 1 })) });
    const rows = await gzipped(companyId, 'general-ledger-lines', tooManyRows);
    expectProblem(rows, 413, 'payload_too_large');
    expect(rows.body.detail).toContain('at most 10000 rows');

    const small = JSON.stringify(chartOf(2025, ['1920']));
    for (const coding of ['br', 'deflate', 'gzip, gzip']) {
      const refused = await api('POST', `/v1/companies/${companyId}/imports/accounts`, {
        as: 'a-system',
        rawBody: gzipSync(small),
        headers: { 'content-type': 'application/json', 'content-encoding': coding },
      });
      expectProblem(refused, 415, 'unsupported_media_type');
    }
    const notGzip = await api('POST', `/v1/companies/${companyId}/imports/accounts`, {
      as: 'a-system',
      rawBody: small,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expectProblem(notGzip, 400, 'malformed_json');
    const list = await api('GET', `/v1/companies/${companyId}/imports`, { as: 'a-system' });
    expect(list.body.data).toEqual([]);
  });

  it('the idempotency fingerprint is the decompressed body: the same key, once plain and once gzipped, replays', async () => {
    const companyId = await newApiCompany();
    const key = randomUUID();
    const text = JSON.stringify(chartOf(2025, ['1920']));
    const first = await submitImport(companyId, 'accounts', text, { idempotencyKey: key });
    expect(first.status).toBe(202);
    const again = await gzipped(companyId, 'accounts', text, {}, key);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });
});

describe('corrections of rows on a hidden account (import rule 9)', () => {
  const linesOn = (lines: [id: string, accountCode: string, amount: string][]) => ({
    year: 2025,
    lines: lines.map(([id, accountCode, amount]) => ({ id, accountCode, amount, period: 3 })),
  });

  it('a re-sent GL line on a hidden account updates in place; new lines, and lines moved onto it, are skipped', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    await importAndWait(companyId, 'general-ledger-lines', linesOn([['A', '3000', '100.00'], ['B', '1920', '50.00']]));
    const hidden = await importAndWait(companyId, 'accounts', { year: 2025, accounts: [{ accountCode: '3000', accountDescription: 'Sales', accountCategory: 'Result', hidden: true }] });
    expect(hidden.body.status).toBe('succeeded');

    const done = await importAndWait(companyId, 'general-ledger-lines', linesOn([['A', '3000', '150.00'], ['C', '3000', '10.00'], ['B', '3000', '50.00']]));
    expect(done.body).toMatchObject({
      status: 'succeeded',
      rowsDiscovered: 3,
      rowsValid: 1,
      rowsUpdated: 1,
      rowsInserted: 0,
      rowsFailed: 2,
      sampleErrors: ['line 2: account 3000 is hidden in 2025', 'line 3: account 3000 is hidden in 2025; a line cannot be moved onto it'],
    });
    const lines = Object.fromEntries((await allLines(companyId)).map((line) => [line.sourceLineId, line]));
    expect(Object.keys(lines).sort()).toEqual(['A', 'B']);
    expect(lines.A).toMatchObject({ accountCode: '3000', amount: 150, version: 2 });
    expect(lines.B).toMatchObject({ accountCode: '1920', amount: 50, version: 1 });
    const balance = await api('GET', `/v1/companies/${companyId}/trial-balance?year=2025`, { as: 'a-system' });
    const closing = Object.fromEntries(balance.body.accounts.map((a: { accountCode: string; closingBalance: number }) => [a.accountCode, a.closingBalance]));
    expect(closing).toEqual({ '1920': 50, '3000': 150 });
  });

  it('the same holds for opening balances', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '2050']));
    await importAndWait(companyId, 'opening-balances', { year: 2025, lines: [{ id: 'OB1', accountCode: '2050', amount: '-500.00' }] });
    await importAndWait(companyId, 'accounts', { year: 2025, accounts: [{ accountCode: '2050', accountDescription: 'Equity', accountCategory: 'Balance', hidden: true }] });
    const done = await importAndWait(companyId, 'opening-balances', {
      year: 2025,
      lines: [
        { id: 'OB1', accountCode: '2050', amount: '-650.00' },
        { id: 'OB2', accountCode: '2050', amount: '-1.00' },
      ],
    });
    expect(done.body).toMatchObject({ status: 'succeeded', rowsUpdated: 1, rowsInserted: 0, rowsFailed: 1, sampleErrors: ['line 2: account 2050 is hidden in 2025'] });
    const balance = await api('GET', `/v1/companies/${companyId}/trial-balance?year=2025`, { as: 'a-system' });
    expect(balance.body.accounts).toEqual([expect.objectContaining({ accountCode: '2050', openingBalance: -650, closingBalance: -650 })]);
  });
});
