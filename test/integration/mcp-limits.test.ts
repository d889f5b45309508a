import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMetricDocuments } from '../../infra/local/metrics-log';
import { metricCatalogue, type MetricDimensions } from '../../shared/platform/metric-catalogue';
import { api, tokenFor, tokenOf } from '../support/api';
import { createTestClient } from '../support/clients';
import { chartOf, importAndWait, newApiCompany } from '../support/ledger';
import { eventually, queueWaitMs } from '../support/poll';
import { createPerson, signIn } from '../support/sign-in';
import { testStack } from '../support/stack';

/**
 * What keeps the MCP endpoint usable by an assistant: pages and answers small enough for its host,
 * scope refusals it can read, tool calls visible in the metrics, and context tools as lenient as
 * their twins. Through the SDK's own client.
 */
const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const clients: Client[] = [];
afterAll(async () => {
  for (const client of clients) await client.close();
});

/** An SDK client; `requestIds` collects the X-Request-Id of each HTTP answer (the metrics' metadata). */
const connect = async (token: string) => {
  const requestIds: string[] = [];
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const id = response.headers.get('x-request-id');
    if (id) requestIds.push(id);
    return response;
  };
  const client = new Client({ name: 'mcp-limits-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${testStack().baseUrl}/mcp`), { fetch: recording, requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  // Listing the tools makes the SDK's client check every structuredContent against the tool's output schema.
  const { tools } = await client.listTools();
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { client, tools, call, lastRequestId: () => requestIds.at(-1)! };
};

/** The McpToolCalls count of one request with these dimensions, from the stack's metrics file. */
const toolCalls = (requestId: string, dimensions: MetricDimensions<'mcpToolCalls'>) =>
  eventually(
    () => {
      const { name } = metricCatalogue.mcpToolCalls;
      const found = readMetricDocuments(readFileSync(testStack().internal.metricsFile!, 'utf8')).filter(
        (document) => name in document && document.requestId === requestId && Object.entries(dimensions).every(([dimension, value]) => document[dimension] === value),
      );
      return found.length > 0 && found.reduce((sum, document) => sum + (document[name] as number), 0);
    },
    queueWaitMs,
    `McpToolCalls ${JSON.stringify(dimensions)} of ${requestId}`,
  );

describe('MCP answers an assistant can take', () => {
  let system: Awaited<ReturnType<typeof connect>>;
  let companyId: string;
  // Norwegian text of 1000 characters, 2 bytes each in UTF-8: a page of 50 such lines is some 115 KB.
  const long = 'Kjøp av æøå-varer '.repeat(60).slice(0, 1000);

  beforeAll(async () => {
    system = await connect(await tokenOf('a-system'));
    companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2026, ['1920', '3000']));
    const lines = Array.from({ length: 30 }, (_, index) => [
      { id: `L${index}a`, accountCode: '1920', amount: '100.00', period: 1 + (index % 12), transactionId: `V-${index}`, description: long },
      { id: `L${index}b`, accountCode: '3000', amount: '-100.00', period: 1 + (index % 12), transactionId: `V-${index}`, description: long },
    ]).flat();
    await importAndWait(companyId, 'general-ledger-lines', { year: 2026, lines });
  });

  it('a tool page holds at most 50 items: the input schema says so, and page_size 200 is a tool error (REST takes it)', async () => {
    for (const name of ['list_general_ledger_lines', 'list_companies', 'list_bank_transactions']) {
      const pageSize = system.tools.find((tool) => tool.name === name)!.inputSchema.properties!.page_size as { maximum: number; default: number };
      expect(pageSize, name).toMatchObject({ minimum: 1, maximum: 50, default: 50 });
    }
    expect((await api('GET', '/v1/companies?page_size=200', { as: 'a-system' })).status).toBe(200);
    const refused = await system.call('list_companies', { page_size: 200 });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^validation_failed: page_size must be a whole number from 1 to 50/);
    expect((await system.call('list_companies', { page_size: 50 })).isError).toBeFalsy();
  });

  it('an answer over the byte budget is a tool error naming the filters, not 100 KB of JSON; a smaller page answers', async () => {
    // 50 lines (the default page) of 1000-character descriptions: over the budget.
    const tooLarge = await system.call('list_general_ledger_lines', { companyId, year: 2026 });
    expect(tooLarge.isError, JSON.stringify(tooLarge).slice(0, 200)).toBe(true);
    expect(tooLarge.structuredContent).toBeUndefined();
    expect(text(tooLarge)).toMatch(/^result_too_large: list_general_ledger_lines answered \d+ KB/);
    expect(text(tooLarge)).toContain('account, period');
    expect(text(tooLarge)).toContain('page_size');
    expect(text(tooLarge).length).toBeLessThan(1000);
    expect(await toolCalls(system.lastRequestId(), { tool: 'list_general_ledger_lines', outcome: 'result_too_large' })).toBe(1);

    const page = await system.call('list_general_ledger_lines', { companyId, year: 2026, page_size: 20 });
    expect(page.isError, text(page)).toBeFalsy();
    expect((page.structuredContent as { data: unknown[]; pagination: { has_more: boolean } }).data).toHaveLength(20);
    expect(Buffer.byteLength(text(page))).toBeLessThanOrEqual(64 * 1024);
    expect(await toolCalls(system.lastRequestId(), { tool: 'list_general_ledger_lines', outcome: 'ok' })).toBe(1);
  });

  it('counts each tool call by tool and outcome (McpToolCalls), tool errors by their code', async () => {
    const missing = await system.call('get_company', { companyId: '00000000-0000-4000-8000-000000000000' });
    expect(text(missing)).toMatch(/^not found: /);
    expect(await toolCalls(system.lastRequestId(), { tool: 'get_company', outcome: 'not_found' })).toBe(1);
    const invalid = await system.call('get_trial_balance', { companyId, year: 'last' });
    expect(text(invalid)).toMatch(/^validation_failed/);
    expect(await toolCalls(system.lastRequestId(), { tool: 'get_trial_balance', outcome: 'validation_failed' })).toBe(1);
  });
});

describe('MCP scope refusals', () => {
  const prefix = () => testStack().internal.scopePrefix;
  const metadataUrl = () => `${testStack().baseUrl}/.well-known/oauth-protected-resource/mcp`;
  const rawCall = (token: string, name: string, args: Record<string, unknown>) =>
    api('POST', '/mcp', { token, headers: { accept: 'application/json, text/event-stream' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } } });
  const challengedScopes = (header: string | null) => /scope="([^"]*)"/.exec(header ?? '')![1]!.split(' ').sort();

  it("a client's challenge names only the MCP scopes it holds and the missing one, never its write scopes", async () => {
    const { client, clientSecret } = await createTestClient({ name: `mcp-writer-${Date.now()}`, organizationId: testStack().companies[0]!.organizationId, scopes: ['companies:read', 'companies:write', 'webhooks:manage'] });
    const token = await tokenFor(client.clientId, clientSecret);
    const refused = await rawCall(token, 'list_vat_terms', { companyId: testStack().companies[0]!.id });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('insufficient_scope');
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="${prefix()}companies:read ${prefix()}vat:read", resource_metadata="${metadataUrl()}"`,
    );
  });

  it('a context tool called by a system client is a tool error the model can read (no consent could add context:read), not a 403', async () => {
    const { call, lastRequestId } = await connect(await tokenOf('a-system'));
    const refused = await call('get_company_context', { companyId: testStack().companies[0]!.id });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^insufficient_scope: get_company_context needs the scope context:read, .*interactive session/);
    expect(await toolCalls(lastRequestId(), { tool: 'get_company_context', outcome: 'insufficient_scope' })).toBe(1);
    const raw = await rawCall(await tokenOf('a-system'), 'get_account_context', { companyId: testStack().companies[0]!.id, accountNumber: '1920' });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('www-authenticate')).toBeNull();
    expect(raw.body.result).toMatchObject({ isError: true });
  });

  it('an interactive session missing a scope it could consent to gets the 403 step-up challenge: its MCP scopes and the missing one', async () => {
    const companyId = await newApiCompany();
    const person = await createPerson(testStack().organizations[0]!.id, 'Step-up Reader');
    const policy = await api('POST', '/v1/access/policies', {
      as: 'a-system',
      body: { name: 'Step-up reader', rules: [{ effect: 'allow', actions: ['companies:read', 'ledger:read', 'bank:read', 'context:read'], resources: { companies: [companyId] } }] },
    });
    expect((await api('POST', '/v1/access/assignments', { as: 'a-system', body: { policyId: policy.body.id, userId: person.userId } })).status).toBe(201);
    const withoutBank = await signIn(person, { scopes: ['companies:read', 'companies:write', 'context:read'], resource: `${testStack().baseUrl}/mcp` });
    const bank = await rawCall(withoutBank.access_token, 'list_bank_accounts', { companyId });
    expect(bank.status).toBe(403);
    expect(challengedScopes(bank.headers.get('www-authenticate'))).toEqual([`${prefix()}bank:read`, `${prefix()}companies:read`, `${prefix()}context:read`]);

    const withoutContext = await signIn(person, { scopes: ['companies:read', 'ledger:read'], resource: `${testStack().baseUrl}/mcp` });
    const context = await rawCall(withoutContext.access_token, 'get_company_context', { companyId });
    expect(context.status).toBe(403);
    expect(challengedScopes(context.headers.get('www-authenticate'))).toEqual([`${prefix()}companies:read`, `${prefix()}context:read`, `${prefix()}ledger:read`]);
  });
});

describe('MCP context tools take what their twins take', () => {
  it('get_account_context takes the year as "2026" (as list_accounts does) and any id REST takes; its output schema describes the answer', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2026, ['1920', '3000']));
    const person = await createPerson(testStack().organizations[0]!.id, 'Lenient Reader');
    const policy = await api('POST', '/v1/access/policies', {
      as: 'a-system',
      body: { name: 'Lenient reader', rules: [{ effect: 'allow', actions: ['companies:read', 'ledger:read', 'context:read'], resources: { companies: [companyId] } }] },
    });
    expect((await api('POST', '/v1/access/assignments', { as: 'a-system', body: { policyId: policy.body.id, userId: person.userId } })).status).toBe(201);
    const session = await signIn(person, { scopes: ['companies:read', 'ledger:read', 'context:read'], resource: `${testStack().baseUrl}/mcp` });
    const { call, tools } = await connect(session.access_token);

    expect((await call('list_accounts', { companyId, year: '2026' })).isError).toBeFalsy();
    const asText = async () => {
      const answer = await call('get_account_context', { companyId, accountNumber: '1920', year: '2026' });
      return !(answer.isError && text(answer).startsWith('service_unavailable')) && answer;
    };
    const account = await eventually(asText, queueWaitMs, 'the account picture');
    expect(account.isError, text(account)).toBeFalsy();
    expect(account.structuredContent).toMatchObject({ accountCode: '1920', year: 2026 });
    expect(text(await call('get_account_context', { companyId, accountNumber: '1920', year: '20x6' }))).toMatch(/^validation_failed: year/);

    // UUIDs of any version, variant or case, which REST and the twin tools answer not found outside the
    // reach: the context tools too (z.uuid() refused the version-1-variant-1 one and the upper-case max).
    for (const id of ['12345678-1234-1234-1234-123456789abc', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF', '00000000-0000-0000-0000-000000000000']) {
      expect(text(await call('get_company', { companyId: id })), id).toMatch(/^not found: /);
      expect(text(await call('get_company_context', { companyId: id })), id).toMatch(/^not found: /);
      expect(text(await call('get_account_context', { companyId: id, accountNumber: '1920' })), id).toMatch(/^not found: /);
    }

    // The output schemas are what the tools answer (io 'output'): objects closed as the answers are.
    const outputSchema = tools.find((tool) => tool.name === 'get_account_context')!.outputSchema as { additionalProperties?: unknown };
    expect(outputSchema.additionalProperties).toBe(false);
  }, 120_000);
});
