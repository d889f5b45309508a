import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { api } from '../support/api';
import { ingestOk, statementXml, validAccountNumber, waitForPostFetch } from '../support/bank';
import { contextRepository } from '../../shared/context/repository';
import { eventually, queueWaitMs } from '../support/poll';
import { chartOf, importAndWait, newApiCompany } from '../support/ledger';
import { createPerson, signIn } from '../support/sign-in';
import { testStack } from '../support/stack';

/**
 * The context tools over HTTP as the person they are for: signed in interactively (PKCE through the
 * login page) with context:read and a token bound to the MCP resource, through the SDK's own client.
 */
const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const clients: Client[] = [];
afterAll(async () => {
  for (const client of clients) await client.close();
});

describe('MCP context tools for a signed-in person', () => {
  it('answer service_unavailable until the context service caught up, then the picture; a company never granted is not found', async () => {
    const granted = await newApiCompany();
    const notGranted = await newApiCompany();
    const organizationId = testStack().organizations[0]!.id;
    const person = await createPerson(organizationId, 'Context Reader');
    const policy = await api('POST', '/v1/access/policies', {
      as: 'a-system',
      body: { name: 'Context reader', rules: [{ effect: 'allow', actions: ['companies:read', 'ledger:read', 'bank:read', 'context:read'], resources: { companies: [granted] } }] },
    });
    expect(policy.status).toBe(201);
    expect((await api('POST', '/v1/access/assignments', { as: 'a-system', body: { policyId: policy.body.id, userId: person.userId } })).status).toBe(201);

    const tokens = await signIn(person, { scopes: ['companies:read', 'ledger:read', 'bank:read', 'context:read'], resource: `${testStack().baseUrl}/mcp` });
    const client = new Client({ name: 'context-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${testStack().baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${tokens.access_token}` } } }));
    const companyContext = async (companyId: string) => (await client.callTool({ name: 'get_company_context', arguments: { companyId } })) as CallToolResult;

    const identity = (await client.callTool({ name: 'get_caller_identity', arguments: {} })) as CallToolResult;
    expect(identity.structuredContent).toMatchObject({ mode: 'INTERACTIVE', userId: person.userId });

    const before = await companyContext(granted);
    expect(before.isError).toBe(true);
    expect(text(before)).toMatch(/^service_unavailable: .*Retry/);

    await importAndWait(granted, 'accounts', chartOf(2026, ['1920', '3000']));
    const done = await importAndWait(granted, 'general-ledger-lines', {
      year: 2026,
      lines: [
        { id: 'C1', accountCode: '1920', amount: '500.00', period: 2, transactionId: 'V-1', transactionDate: '2026-02-03' },
        { id: 'C2', accountCode: '3000', amount: '-500.00', period: 2, transactionId: 'V-1', transactionDate: '2026-02-03' },
      ],
    });
    await waitForPostFetch(granted, done.body.id);

    const after = await companyContext(granted);
    expect(after.isError, text(after)).toBeFalsy();
    expect(after.structuredContent).toMatchObject({ companyId: granted, currentYear: 2026 });

    // The rebuild the first read queued may still run (the post-fetch ahead of it in the same batch):
    // let it end, or its save could pass for the rebuild the bank statement queues below.
    await eventually(async () => (await contextRepository.refreshRequest(granted)) === undefined, queueWaitMs, 'the rebuild the first read queued');
    // A bank statement is not a fetch: the relay hears its event and queues the rebuild itself, so
    // the picture is renewed without a reader asking first.
    const built = (await contextRepository.company(granted))!.builtAt;
    await ingestOk(granted, statementXml(validAccountNumber('1507' + String(Math.floor(Math.random() * 1e6)).padStart(6, '0')), `ST-CTX-${Date.now()}`, [
      { reference: 'CTX-1', bookingDate: '2026-02-10', amount: '100.00', description: 'Deposit' },
    ]), '--gl-account', '1920');
    await eventually(async () => (await contextRepository.company(granted))!.builtAt !== built, queueWaitMs, 'the rebuild after the bank statement');
    const renewed = await companyContext(granted);
    expect(renewed.isError, text(renewed)).toBeFalsy();
    expect((renewed.structuredContent as { bankAccounts: unknown[] }).bankAccounts).toHaveLength(1);
    // No vat:read in the policy or the session: the VAT term is left out, and named.
    expect(renewed.structuredContent).not.toHaveProperty('openVatTerm');
    expect((renewed.structuredContent as { omitted: { part: string }[] }).omitted.map((entry) => entry.part)).toEqual(['openVatTerm', 'recentImports']);

    const account = (await client.callTool({ name: 'get_account_context', arguments: { companyId: granted, accountNumber: '1920', year: 2026 } })) as CallToolResult;
    expect(account.isError, text(account)).toBeFalsy();

    const outside = await companyContext(notGranted);
    expect(outside.isError).toBe(true);
    expect(text(outside)).toMatch(/not found/i);
  });
});
