import { describe, expect, it } from 'vitest';
import { api, expectProblem } from '../support/api';
import { chartOf, importAndWait, newApiCompany, submitImport, waitForImport } from '../support/ledger';

/** Issue 13's rough edges, over HTTP: empty imports, unbalanced vouchers, validation sentences, Allow, trial-balance descriptions. */

describe('empty imports answer 422 instead of queueing a no-op job', () => {
  const cases: [string, unknown, string][] = [
    ['accounts', { year: 2025, accounts: [] }, 'accounts'],
    ['dimensions', { dimensions: [] }, 'dimensions'],
    ['sub-ledgers', { subLedgers: [] }, 'subLedgers'],
    ['opening-balances', { year: 2025, lines: [] }, 'lines'],
    ['general-ledger-lines', { year: 2025, lines: [] }, 'lines'],
    ['open-items', { subLedgerType: 'customer', mode: 'incremental', items: [] }, 'items'],
    ['general-ledger-lines/deletions', { year: 2025, ids: [] }, 'ids'],
    ['opening-balances/deletions', { year: 2025, ids: [] }, 'ids'],
  ];
  it.each(cases)('POST imports/%s with an empty array: 422 validation_failed naming the field', async (path, body, field) => {
    const companyId = await newApiCompany();
    const response = await submitImport(companyId, path, body);
    expectProblem(response, 422, 'validation_failed');
    expect(response.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field, message: expect.stringMatching(new RegExp(`^${field} must hold at least one|^must hold at least one`)) })]));
    const imports = await api('GET', `/v1/companies/${companyId}/imports`, { as: 'a-system' });
    expect(imports.body.data).toEqual([]);
  });
});

describe('vouchers that do not sum to zero are accepted and reported', () => {
  it('the import record warns unbalanced_vouchers with the transaction ids; balanced vouchers and lines without transactionId are not named', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    const lines = [
      { id: 'b1', accountCode: '1920', amount: '100.10', period: 1, transactionId: 'V-balanced' },
      { id: 'b2', accountCode: '3000', amount: '-100.10', period: 1, transactionId: 'V-balanced' },
      { id: 'u1', accountCode: '1920', amount: '50', period: 1, transactionId: 'V-open' },
      { id: 'u2', accountCode: '3000', amount: '-49.99', period: 1, transactionId: 'V-open' },
      { id: 'u3', accountCode: '1920', amount: '10', period: 2, transactionId: 'V-half' },
      { id: 'n1', accountCode: '1920', amount: '7', period: 2 },
    ];
    const accepted = await submitImport(companyId, 'general-ledger-lines', { year: 2025, lines });
    expect(accepted.status).toBe(202);
    const expected = [{ code: 'unbalanced_vouchers', message: expect.stringContaining('do not sum to zero'), transactionIds: ['V-open', 'V-half'], count: 2 }];
    expect(accepted.body.warnings).toEqual(expected);
    const polled = await waitForImport(companyId, accepted.body.id);
    expect(polled.body).toMatchObject({ status: 'succeeded', rowsInserted: 6, warnings: expected });
    const balanced = await importAndWait(companyId, 'general-ledger-lines', { year: 2025, lines: lines.slice(0, 2).map((l) => ({ ...l, id: `${l.id}-again` })) });
    expect(balanced.body).toMatchObject({ status: 'succeeded', warnings: [] });
  });

  it('names at most 100 transaction ids and counts them all', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920']));
    const lines = Array.from({ length: 150 }, (_, i) => ({ id: `l${i}`, accountCode: '1920', amount: '1', period: 1, transactionId: `T${i}` }));
    const accepted = await submitImport(companyId, 'general-ledger-lines', { year: 2025, lines });
    expect(accepted.status).toBe(202);
    expect(accepted.body.warnings[0].count).toBe(150);
    expect(accepted.body.warnings[0].transactionIds).toHaveLength(100);
  });
});

describe('validation messages are sentences naming the field', () => {
  it('query and body problems say what is wrong with which field, not zod text', async () => {
    const companyId = await newApiCompany();
    const page = await api('GET', '/v1/companies?page_size=abc', { as: 'a-system' });
    expectProblem(page, 400, 'validation_failed');
    expect(page.body.errors).toEqual([{ field: 'page_size', message: expect.stringMatching(/^page_size must be/) }]);
    const gl = await submitImport(companyId, 'general-ledger-lines', { year: 2025, lines: [{ id: 'x', amount: '1', period: 'one' }] });
    expectProblem(gl, 422, 'validation_failed');
    const messages = (gl.body.errors as { message: string }[]).map((e) => e.message);
    expect(messages).toContain('accountCode is required.');
    for (const message of messages) expect(message).not.toMatch(/received|expected string|Invalid input/);
  });
});

describe('problems quoting what the client sent', () => {
  it('stay within the Problem schema: a 3,000-character Content-Encoding is quoted cut, and the detail is at most 2,000 characters', async () => {
    const companyId = await newApiCompany();
    const refused = await api('POST', `/v1/companies/${companyId}/imports/accounts`, { as: 'a-system', body: { year: 2025, accounts: [] }, headers: { 'content-encoding': 'x'.repeat(3_000) } });
    expectProblem(refused, 415, 'unsupported_media_type');
    expect(refused.body.detail).toMatch(/^Content-Encoding "x{99}…" is not supported/);
    expect(refused.body.detail.length).toBeLessThanOrEqual(2000);
  });
});

describe('integer query parameters', () => {
  it('take plain decimal digits only: an exponent, a sign, spaces, leading zeros, hex or a fraction answer 400 naming the parameter', async () => {
    const companyId = await newApiCompany();
    const lines = `/v1/companies/${companyId}/general-ledger/lines`;
    for (const [name, value] of [
      ['page_size', '1e2'], ['page_size', '007'], ['page_size', '0x10'], ['page_size', '%2B7'], ['page_size', '%205'], ['page_size', '5.0'], ['page_size', ''],
      ['year', '2e3'], ['year', '02025'], ['year', '2025.0'], ['year', '0x7E9'],
      ['period', '01'], ['period', '1e0'], ['period', '-1'],
    ]) {
      const refused = await api('GET', `${lines}?${name}=${value}`, { as: 'a-system' });
      expectProblem(refused, 400, 'validation_failed');
      expect(refused.body.errors, `${name}=${value}`).toEqual([{ field: name, message: expect.stringMatching(new RegExp(`^${name} must be`)) }]);
    }
    const page = await api('GET', `${lines}?page_size=7&year=2025&period=1`, { as: 'a-system' });
    expect(page.status).toBe(200);
    expect((await api('GET', '/v1/companies?page_size=200', { as: 'a-system' })).status).toBe(200);
  });
});

describe('405 Allow lists only the methods of that exact path', () => {
  it('PUT on imports/accounts allows POST only (not GET of imports/{importId}); PUT on an account allows GET and DELETE', async () => {
    const companyId = await newApiCompany();
    const put = await api('PUT', `/v1/companies/${companyId}/imports/accounts`, { as: 'a-system', body: {} });
    expectProblem(put, 405, 'method_not_allowed');
    expect(put.headers.get('allow')).toBe('POST');
    const account = await api('PUT', `/v1/companies/${companyId}/accounts/1920`, { as: 'a-system', body: {} });
    expect(account.headers.get('allow')).toBe('GET, DELETE');
  });
});

describe('the trial balance carries account descriptions', () => {
  it('each account of the trial balance has the chart description', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    await importAndWait(companyId, 'general-ledger-lines', {
      year: 2025,
      lines: [
        { id: 'a', accountCode: '1920', amount: '10', period: 1, transactionId: 'T' },
        { id: 'b', accountCode: '3000', amount: '-10', period: 1, transactionId: 'T' },
      ],
    });
    const tb = await api('GET', `/v1/companies/${companyId}/trial-balance?year=2025`, { as: 'a-system' });
    expect(tb.status).toBe(200);
    const chart = chartOf(2025, ['1920', '3000']);
    expect(tb.body.accounts.map((a: { accountCode: string; description: string }) => [a.accountCode, a.description])).toEqual(
      chart.accounts.map((a) => [a.accountCode, a.accountDescription]),
    );
  });
});
