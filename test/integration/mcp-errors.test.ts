import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenFor } from '../support/api';
import { validateResponse } from '../support/openapi-validator';
import { newFirm } from '../support/people';
import { testStack } from '../support/stack';

/** Protocol errors of the MCP endpoint are JSON-RPC errors, as MCP clients expect, never problem documents. */
let token: string;
let client: Client;

beforeAll(async () => {
  const firm = await newFirm('MCP errors');
  token = await tokenFor(firm.system.client.clientId, firm.system.clientSecret);
  client = new Client({ name: 'mcp-errors-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${testStack().baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
});
afterAll(async () => {
  await client?.close();
});

const postRaw = async (body: string) => {
  const response = await fetch(`${testStack().baseUrl}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body,
  });
  const contentType = response.headers.get('content-type') ?? '';
  const answer = (await response.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
  // Documented: the OpenAPI document declares this answer.
  validateResponse('POST', '/mcp', response.status, contentType, answer);
  return { status: response.status, contentType, answer };
};

describe('MCP protocol errors', () => {
  it('a body that is not JSON is HTTP 400 with JSON-RPC -32700 (parse error), not a problem document', async () => {
    const { status, contentType, answer } = await postRaw('{"jsonrpc":"2.0","id":1,');
    expect(status).toBe(400);
    expect(contentType).toMatch(/^application\/json/);
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.ParseError } });
    expect(answer.error.message).toMatch(/^Parse error/);
  });

  it('JSON that is not one JSON-RPC message (no jsonrpc, a batch) is HTTP 400 with -32600 (invalid request)', async () => {
    for (const body of ['{"id":1,"method":"ping"}', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', '"ping"']) {
      const { status, answer } = await postRaw(body);
      expect(status, body).toBe(400);
      expect(answer, body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.InvalidRequest } });
    }
  });

  it('tools/call with arguments that are not an object, or a name that is not a string, is -32602 naming the parameter (no zod dump)', async () => {
    const cases: [params: Record<string, unknown>, names: string][] = [
      [{ name: 'get_company', arguments: 'companyId=1' }, 'params.arguments'],
      [{ name: 'list_companies', arguments: [1, 2] }, 'params.arguments'],
      [{ name: 42, arguments: {} }, 'params.name'],
    ];
    for (const [params, names] of cases) {
      const failure = await client.request({ method: 'tools/call', params }, CallToolResultSchema).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure, JSON.stringify(params)).toBeInstanceOf(McpError);
      const { code, message } = failure as McpError;
      expect(code, message).toBe(ErrorCode.InvalidParams);
      expect(message).toContain(names);
      expect(message).toMatch(/must be (an object|a string)/);
      expect(message).not.toMatch(/invalid_type|"path"/);
    }
  });

  it('the connection goes on answering after a protocol error', async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    const identity = await client.callTool({ name: 'get_caller_identity', arguments: {} });
    expect(identity.isError).toBeFalsy();
  });
});
