import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLedgerClient, fetchAccessToken, waitForImport } from '../../client';
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
      ['1920', 'Bank deposits', 99.95],
      ['3000', 'Sales revenue', -99.95],
    ]);

    // Problems come back typed as the Problem schema.
    const empty = await api.POST('/v1/companies/{companyId}/imports/general-ledger-lines', { params: { path, header: key() }, body: { year: 2026, lines: [] } });
    expect(empty.response.status).toBe(422);
    expect(empty.error).toMatchObject({ error: 'validation_failed' });
  });
});
