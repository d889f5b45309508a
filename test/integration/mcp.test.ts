import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, tokenFor, tokenOf } from '../support/api';
import { admin } from '../support/bank';
import { chartOf, importAndWait, newApiCompany } from '../support/ledger';
import { testStack } from '../support/stack';

/** The SDK's own client over streamable HTTP against the local gateway. */
const connect = async (token: string): Promise<Client> => {
  const client = new Client({ name: 'ledger-mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${testStack().baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return client;
};

const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

const twinNames = [
  'get_caller_identity',
  'list_companies',
  'get_company',
  'list_accounts',
  'get_account',
  'list_general_ledger_lines',
  'get_trial_balance',
  'list_dimensions',
  'list_sub_ledgers',
  'list_vat_terms',
  'list_bank_accounts',
  'list_bank_transactions',
  'get_reconciliation_summary',
  'list_reconciliations',
  'get_reconciliation',
  'list_documents',
  'get_job',
];

describe('MCP endpoint', () => {
  let client: Client;
  const bakery = () => testStack().companies[0]!;
  const ids = { companyId: '', bankAccountId: '', reconciliationId: '', jobId: '' };

  beforeAll(async () => {
    client = await connect(await tokenOf('a-system'));
    ids.companyId = bakery().id;
    ids.bankAccountId = testStack().bankAccounts[0]!.id;
    const groups = await api('GET', `/v1/companies/${ids.companyId}/bank/accounts/${ids.bankAccountId}/reconciliations`, { as: 'a-system' });
    ids.reconciliationId = groups.body.data[0].id;
    const jobs = await api('GET', `/v1/jobs?company_id=${ids.companyId}`, { as: 'a-system' });
    ids.jobId = jobs.body.data[0].id;
  });
  afterAll(async () => {
    await client?.close();
  });

  it('initializes over stateless streamable HTTP (revision 2025-11-25, tools only, no session)', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'accounting-ledger' });
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
    expect(client.getInstructions()).toMatch(/read-only/i);
    const response = await fetch(`${testStack().baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await tokenOf('a-system')}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.get('ratelimit-limit')).toBeTruthy();
    expect(((await response.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-11-25');
  });

  it('lists the read-only tools, each annotated, with input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...twinNames, 'get_company_context', 'get_account_context'].sort());
    for (const tool of tools) {
      expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.description!.length, tool.name).toBeGreaterThan(60);
    }
    const lines = tools.find((tool) => tool.name === 'list_general_ledger_lines')!;
    expect(Object.keys(lines.inputSchema.properties!)).toEqual(expect.arrayContaining(['companyId', 'year', 'account', 'period', 'cursor', 'page_size']));
    expect(lines.inputSchema.required).toEqual(['companyId']);
    expect(lines.description).toMatch(/NOK/);
  });

  /** Each twin tool: arguments and the REST request of the same call. */
  const cases = (): [name: string, args: Record<string, unknown>, path: string, invalid: Record<string, unknown>][] => {
    const c = `/v1/companies/${ids.companyId}`;
    const b = `${c}/bank/accounts/${ids.bankAccountId}`;
    const company = { companyId: ids.companyId };
    return [
      ['get_caller_identity', {}, '/v1/whoami', { bogus: 1 }],
      ['list_companies', { page_size: 2 }, '/v1/companies?page_size=2', { page_size: 0 }],
      ['get_company', company, c, {}],
      ['list_accounts', { ...company, year: 2026 }, `${c}/accounts?year=2026`, { ...company, year: 'last' }],
      ['get_account', { ...company, accountNumber: '1920', year: 2026 }, `${c}/accounts/1920?year=2026`, { ...company, accountNumber: '1920', year: 99 }],
      ['list_general_ledger_lines', { ...company, year: 2026, account: '1920', page_size: 5 }, `${c}/general-ledger/lines?year=2026&account=1920&page_size=5`, { ...company, year: 2026, period: 13 }],
      ['get_trial_balance', { ...company, year: 2026 }, `${c}/trial-balance?year=2026`, { ...company, year: '20x6' }],
      ['list_dimensions', company, `${c}/dimensions`, { ...company, page_size: 500 }],
      ['list_sub_ledgers', company, `${c}/sub-ledgers`, { ...company, cursor: 'not-a-cursor' }],
      ['list_vat_terms', { ...company, year: 2026 }, `${c}/vat/terms?year=2026`, { ...company, year: 1 }],
      ['list_bank_accounts', company, `${c}/bank/accounts`, { ...company, colour: 'red' }],
      ['list_bank_transactions', { ...company, bankAccountId: ids.bankAccountId, reconciliation_status: 'unreconciled' }, `${b}/transactions?reconciliation_status=unreconciled`, { ...company, bankAccountId: ids.bankAccountId, reconciliation_status: 'maybe' }],
      ['get_reconciliation_summary', { ...company, bankAccountId: ids.bankAccountId, year: 2026 }, `${b}/reconciliation-summary?year=2026`, { ...company, bankAccountId: ids.bankAccountId, year: [2026] }],
      ['list_reconciliations', { ...company, bankAccountId: ids.bankAccountId }, `${b}/reconciliations`, { ...company, bankAccountId: ids.bankAccountId, page_size: -1 }],
      ['get_reconciliation', { ...company, reconciliationId: ids.reconciliationId }, `${c}/reconciliations/${ids.reconciliationId}`, { reconciliationId: ids.reconciliationId }],
      ['list_documents', company, `${c}/documents`, { ...company, page_size: 'many' }],
      ['get_job', { jobId: ids.jobId }, `/v1/jobs/${ids.jobId}`, { jobId: ids.jobId, verbose: true }],
    ];
  };

  it('every REST-twin tool answers what its REST twin answers the same caller, and a tool error for invalid input', async () => {
    expect(cases().map(([name]) => name)).toEqual(twinNames);
    for (const [name, args, path, invalid] of cases()) {
      // Organization A's company list is shared with other test files: compare the tool with a REST
      // answer that held before and after it (a company created meanwhile may sort into the page).
      let rest = await api('GET', path, { as: 'a-system' });
      let result = await call(client, name, args);
      for (let attempt = 0; attempt < 5; attempt++) {
        const after = await api('GET', path, { as: 'a-system' });
        if (after.text === rest.text) break;
        [rest, result] = [after, await call(client, name, args)];
      }
      expect(rest.status, `${name}: ${rest.text}`).toBe(200);
      expect(result.isError, `${name}: ${text(result)}`).toBeFalsy();
      expect(result.structuredContent, name).toEqual(JSON.parse(rest.text));
      // The text block is the REST body as written: amounts keep their decimals (1250.00).
      expect(text(result), name).toBe(rest.text);

      const wrong = await call(client, name, invalid);
      expect(wrong.isError, `${name} with ${JSON.stringify(invalid)}: ${JSON.stringify(wrong)}`).toBe(true);
      expect(text(wrong), name).toMatch(/validation_failed|invalid_cursor/);
    }
  });

  it('writes every amount of structuredContent as the REST body writes it: 22 significant digits and trailing zeros kept', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2026, ['1920', '3000']));
    const big = '123456789012345678.1234'; // 18 integer digits and 4 decimals: no JS number holds it
    await importAndWait(companyId, 'general-ledger-lines', {
      year: 2026,
      lines: [
        { id: 'big', accountCode: '1920', amount: big, period: 1, transactionId: 'V-1' },
        { id: 'big-contra', accountCode: '3000', amount: `-${big}`, period: 1, transactionId: 'V-1' },
        { id: 'round', accountCode: '1920', amount: '1250', period: 2, transactionId: 'V-2' },
        { id: 'round-contra', accountCode: '3000', amount: '-1250', period: 2, transactionId: 'V-2' },
      ],
    });
    const raw = await api('POST', '/mcp', {
      as: 'a-system',
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'list_general_ledger_lines', arguments: { companyId, year: 2026, account: '1920' } } },
    });
    expect(raw.status).toBe(200);
    // Each number's own text, read from the answer as sent (a plain JSON.parse would round them).
    const structured = JSON.parse(raw.text, (_key: string, item: unknown, context?: { source?: string }) =>
      typeof item === 'number' ? { number: context!.source } : item,
    ) as { result: { structuredContent: { data: { amount: { number: string } }[] }; content: { text: string }[] } };
    expect(structured.result.structuredContent.data.map((line) => line.amount.number).sort()).toEqual([big, '1250.00']);
    const rest = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=2026&account=1920`, { as: 'a-system' });
    expect(structured.result.content[0]!.text).toBe(rest.text);
    expect(rest.text).toContain(`"amount":${big}`);
  });

  it('outside the reach a tool answers a tool error that says not found, as REST answers 404', async () => {
    const other = await connect(await tokenOf('b-system'));
    try {
      for (const [name, args] of [
        ['get_company', { companyId: ids.companyId }],
        ['get_trial_balance', { companyId: ids.companyId, year: 2026 }],
        ['get_job', { jobId: ids.jobId }],
        ['list_reconciliations', { companyId: ids.companyId, bankAccountId: ids.bankAccountId }],
      ] as const) {
        const result = await call(other, name, args);
        expect(result.isError, name).toBe(true);
        expect(text(result), name).toMatch(/^not found: /);
      }
    } finally {
      await other.close();
    }
  });

  it('a tool whose scope the token lacks answers 403 insufficient_scope naming the scope (MCP scope challenge)', async () => {
    const created = await admin('create-client', '--organization', bakery().organizationId, '--name', `mcp-companies-only-${Date.now()}`, '--scopes', 'companies:read');
    expect(created.code, created.err).toBe(0);
    const clientId = /client id\s+(\S+)/.exec(created.out)![1]!;
    const secret = /secret\s+(\S+)/i.exec(created.out.split('\n').find((line) => /secret/i.test(line) && !/shown/i.test(line))!)![1]!;
    const token = await tokenFor(clientId, secret);
    const limited = await connect(token);
    try {
      expect((await call(limited, 'get_company', { companyId: ids.companyId })).isError).toBeFalsy();
      await expect(call(limited, 'get_trial_balance', { companyId: ids.companyId, year: 2026 })).rejects.toThrow(/403/);
    } finally {
      await limited.close();
    }
    // The context tools need context:read, which only interactive sessions hold: no consent could add it
    // to a system client, so no challenge; a tool error the model can read (test/integration/mcp-limits.test.ts).
    const context = await call(client, 'get_company_context', { companyId: ids.companyId });
    expect(context.isError).toBe(true);
    expect(text(context)).toMatch(/^insufficient_scope: /);
    const raw = await api('POST', '/mcp', {
      token,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_vat_terms', arguments: { companyId: ids.companyId } } },
    });
    expect(raw.status).toBe(403);
    expect(raw.body.error).toBe('insufficient_scope');
    // The token's scopes and the one the tool needs: a client asks for exactly these, and keeps what it had.
    expect(raw.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="${testStack().internal.scopePrefix}companies:read ${testStack().internal.scopePrefix}vat:read", resource_metadata="${testStack().baseUrl}/.well-known/oauth-protected-resource/mcp"`,
    );
    // Sent as a notification (no id) it is not answered, as every notification: 202.
    const notification = await fetch(`${testStack().baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'list_vat_terms', arguments: { companyId: ids.companyId } } }),
    });
    expect(notification.status).toBe(202);
    expect(await notification.text()).toBe('');
  });

  it('an unknown tool is a protocol error (invalid params)', async () => {
    await expect(call(client, 'create_company', {})).rejects.toThrow(/Unknown tool: create_company/);
  });

  it('without a token answers 401 with the resource-metadata challenge; a bad token adds invalid_token', async () => {
    const metadataUrl = `${testStack().baseUrl}/.well-known/oauth-protected-resource/mcp`;
    const missing = await api('POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}"`);
    const bad = await api('POST', '/mcp', { token: 'not-a-token', body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    expect(bad.status).toBe(401);
    expect(bad.body.error).toBe('invalid_token');
    expect(bad.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", resource_metadata="${metadataUrl}"`);
    // REST routes keep their plain challenge.
    expect((await api('GET', '/v1/whoami')).headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  it('serves the RFC 9728 metadata at the path-based and the root location', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const metadata = await api('GET', path);
      expect(metadata.status).toBe(200);
      expect(metadata.body).toMatchObject({
        resource: `${testStack().baseUrl}/mcp`,
        authorization_servers: [testStack().authUrl.replace(/\/oauth2\/token$/, '')],
        bearer_methods_supported: ['header'],
      });
      const prefix = testStack().internal.scopePrefix;
      expect(metadata.body.scopes_supported).toEqual(expect.arrayContaining([`${prefix}companies:read`, `${prefix}ledger:read`, `${prefix}context:read`]));
      expect(metadata.body.scopes_supported).not.toContain(`${prefix}companies:write`);
    }
  });

  it('GET and DELETE /mcp answer 405 (no SSE stream, no sessions)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await api(method, '/mcp', { as: 'a-system', idempotencyKey: null });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });

  it('refuses a foreign Origin or Host (DNS rebinding protection)', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const foreign = await api('POST', '/mcp', { as: 'a-system', headers: { origin: 'http://evil.example.com', accept: 'application/json, text/event-stream' }, body });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error).toBe('origin_not_allowed');
    const own = await api('POST', '/mcp', { as: 'a-system', headers: { origin: testStack().baseUrl, accept: 'application/json, text/event-stream' }, body });
    expect(own.status).toBe(200);

    const url = new URL(`${testStack().baseUrl}/mcp`);
    const token = await tokenOf('a-system');
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        { host: url.hostname, port: url.port, path: '/mcp', method: 'POST', headers: { host: 'evil.example.com', authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify(body));
    });
    expect(status).toBe(403);
  });
});
