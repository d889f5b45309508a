import { describe, expect, it } from 'vitest';
import { createLedgerClient } from '../../client';

/** The typed client reads amounts exactly (client/index.ts): without a stack, over a fetch that answers as the API does. */
describe('typed client: amounts as their exact text', () => {
  const answering = (body: string, contentType: string, status = 200) =>
    createLedgerClient({ baseUrl: 'http://127.0.0.1:9', token: 't', fetch: async () => new Response(body, { status, headers: { 'Content-Type': contentType } }) });
  const path = { companyId: '00000000-0000-4000-8000-000000000000' };

  it('hands over every number with a point or an exponent as its text, and integers as numbers', async () => {
    const api = answering('{"year": 2026, "accounts": [{"accountCode": "1920", "openingBalance": 12345678901234567.89, "closingBalance": 90071992547409.91, "movements": [{"period": 1, "amount": 0.00}]}], "totals": {"openingBalance": -1E+2, "closingBalance": 1250.00}}', 'application/json; charset=utf-8');
    const { data } = await api.GET('/v1/companies/{companyId}/trial-balance', { params: { path, query: { year: 2026 } } });
    expect(data).toEqual({
      year: 2026,
      accounts: [{ accountCode: '1920', openingBalance: '12345678901234567.89', closingBalance: '90071992547409.91', movements: [{ period: 1, amount: '0.00' }] }],
      totals: { openingBalance: '-1E+2', closingBalance: '1250.00' },
    });
  });

  it('reads problems (application/problem+json) the same way; leaves text answers and bodies that are no JSON as they are', async () => {
    const problem = await answering('{"error": "validation_failed", "status": 422, "detail": "x", "limit": 0.10}', 'application/problem+json', 422).GET('/v1/companies/{companyId}/trial-balance', { params: { path } });
    expect(problem.error).toMatchObject({ error: 'validation_failed', status: 422, limit: '0.10' });
    const text = await answering('{"amount": 1250.00}', 'application/json').GET('/v1/companies/{companyId}/trial-balance', { params: { path }, parseAs: 'text' });
    expect(text.data).toBe('{"amount": 1250.00}');
    const broken = await answering('not json', 'application/problem+json', 502).GET('/v1/companies/{companyId}/trial-balance', { params: { path } });
    expect(broken.error).toBe('not json');
  });
});
