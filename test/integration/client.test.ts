import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createLedgerClient, fetchAccessToken, waitForImport, type Schema } from '../../client';
import { clientSchemaFile, generateClientSchema } from '../../infra/tools/client';
import { queueWaitMs } from '../support/poll';
import { seededClient, testStack } from '../support/stack';

/** The typed client generated from the document (openapi-typescript + openapi-fetch): current, and usable. */
describe('generated TypeScript client', () => {
  it('client/schema.ts is what `npm run client` generates from the current document', async () => {
    const generated = await generateClientSchema();
    expect(readFileSync(clientSchemaFile, 'utf8') === generated, 'client/schema.ts is stale: run `npm run client`').toBe(true);
  });

  it('creates an Api company, imports a chart, opening balances and GL lines, and reads the trial balance with descriptions', async () => {
    const client = seededClient('a-system');
    const token = await fetchAccessToken(testStack().authUrl, client.clientId, client.clientSecret);
    const api = createLedgerClient({ baseUrl: testStack().baseUrl, token });
    const key = () => ({ 'Idempotency-Key': randomUUID() });

    const created = await api.POST('/v1/companies', { params: { header: key() }, body: { displayName: 'Client Test AS', accountingSystem: 'Api' } });
    expect(created.response.status).toBe(201);
    const companyId = created.data!.id;
    const path = { companyId };

    const chart = await api.POST('/v1/companies/{companyId}/imports/accounts', {
      params: { path, header: key() },
      body: { year: 2026, accounts: [{ accountCode: '1920', accountDescription: 'Bank deposits', accountCategory: 'Balance' }, { accountCode: '3000', accountDescription: 'Sales revenue', accountCategory: 'Result' }] },
    });
    expect((await waitForImport(api, companyId, chart.data!.id, queueWaitMs)).status).toBe('succeeded');
    const lines = await api.POST('/v1/companies/{companyId}/imports/general-ledger-lines', {
      params: { path, header: key() },
      body: { year: 2026, lines: [{ id: 'a', accountCode: '1920', amount: '99.95', period: 3, transactionId: 'V' }, { id: 'b', accountCode: '3000', amount: '-99.95', period: 3, transactionId: 'V' }] },
    });
    expect(lines.response.status).toBe(202);
    expect((await waitForImport(api, companyId, lines.data!.id, queueWaitMs)).status).toBe('succeeded');

    const { data, error } = await api.GET('/v1/companies/{companyId}/trial-balance', { params: { path, query: { year: 2026 } } });
    expect(error).toBeUndefined();
    expect(data!.accounts.map((a) => [a.accountCode, a.description, a.closingBalance])).toEqual([
      ['1920', 'Bank deposits', '99.95'],
      ['3000', 'Sales revenue', '-99.95'],
    ]);

    // Amounts arrive as their exact text, typed string: the largest the import takes (18 digits
    // before the point, 4 after) and sums of them, where a JS number keeps about 15 digits.
    const large = '123456789012345678.1234';
    const largeLines = await api.POST('/v1/companies/{companyId}/imports/general-ledger-lines', {
      params: { path, header: key() },
      body: { year: 2026, lines: [{ id: 'c', accountCode: '1920', amount: large, taxAmount: '12345678901234.5678', period: 4, transactionId: 'W' }, { id: 'd', accountCode: '3000', amount: `-${large}`, period: 4, transactionId: 'W' }] },
    });
    expect(largeLines.response.status).toBe(202);
    expect((await waitForImport(api, companyId, largeLines.data!.id, queueWaitMs)).status).toBe('succeeded');
    const read = await api.GET('/v1/companies/{companyId}/general-ledger/lines', { params: { path, query: { year: 2026, period: 4 } } });
    expect(read.error).toBeUndefined();
    const readLines = [...read.data!.data].sort((a, b) => a.sourceLineId.localeCompare(b.sourceLineId));
    expect(readLines.map((line) => [line.sourceLineId, line.year, line.period, line.amount, line.taxAmount])).toEqual([
      ['c', 2026, 4, large, '12345678901234.5678'],
      ['d', 2026, 4, `-${large}`, null],
    ]);
    expectTypeOf(readLines[0]!.amount).toEqualTypeOf<string>();
    expectTypeOf<Schema<'GeneralLedgerLine'>['taxAmount']>().toEqualTypeOf<string | null>();
    expectTypeOf<Schema<'TrialBalanceAccount'>['closingBalance']>().toEqualTypeOf<string>();
    expectTypeOf(readLines[0]!.period).toEqualTypeOf<number>(); // integers stay numbers
    const after = await api.GET('/v1/companies/{companyId}/trial-balance', { params: { path, query: { year: 2026 } } });
    expect(after.data!.accounts.map((a) => [a.accountCode, a.closingBalance])).toEqual([
      ['1920', '123456789012345778.0734'],
      ['3000', '-123456789012345778.0734'],
    ]);
    expect(after.data!.totals.closingBalance).toBe('0.00');

    // Problems come back typed as the Problem schema.
    const empty = await api.POST('/v1/companies/{companyId}/imports/general-ledger-lines', { params: { path, header: key() }, body: { year: 2026, lines: [] } });
    expect(empty.response.status).toBe(422);
    expect(empty.error).toMatchObject({ error: 'validation_failed' });
  });
});
