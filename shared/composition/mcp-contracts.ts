import { lazySchema } from '../platform/lazy-schema';
import type { OperationContract } from '../api/operation';
import { AccountContextSchema, CompanyContextSchema } from '../context/schemas';
import { allScopes } from '../identity/scopes';
import { AccountParamsSchema, AccountQuerySchema } from '../ledger/chart/schemas';
import { identifier, limits, textOut, UuidSchema } from '../platform/schemas';
import * as z from '../platform/zod';
import type { McpOnlyOperationId, OperationIdOfGroup } from '../routes';

const jsonRpcId = /* @__PURE__ */ lazySchema(() => z.union([identifier({ max: limits.integratorId }), z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER)]));

/** The scopes the MCP tools need: the read scopes of their REST twins and context:read. */
export const mcpScopes = allScopes.filter((scope) => scope.endsWith(':read') && scope !== 'users:read');

const JsonRpcMessageSchema = /* @__PURE__ */ lazySchema(() => z
  .looseObject({
    jsonrpc: z.literal('2.0').openapi({ description: 'Always "2.0"' }),
    id: jsonRpcId.optional().openapi({ description: 'Request id; absent on notifications' }),
    method: identifier({ max: limits.code }).optional().openapi({ description: 'MCP method: initialize, ping, tools/list, tools/call, notifications/initialized' }),
    params: z.looseObject({}).optional().openapi({ additionalProperties: true, description: 'Method parameters (tools/call: name and arguments)' }),
  })
  .openapi('McpMessage', { additionalProperties: true, description: 'One JSON-RPC 2.0 message of the Model Context Protocol (revision 2025-11-25)' }));

const JsonRpcResponseSchema = /* @__PURE__ */ lazySchema(() => z
  .looseObject({
    jsonrpc: z.literal('2.0').openapi({ description: 'Always "2.0"' }),
    id: z.union([textOut(limits.integratorId), z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER)]).openapi({ description: 'The id of the request answered' }),
    result: z.looseObject({}).optional().openapi({ additionalProperties: true, description: 'The answer (tools/call: content, structuredContent, isError)' }),
    error: z
      .looseObject({
        code: z.number().int().min(-(2 ** 31)).max(2 ** 31 - 1).openapi({ description: 'JSON-RPC error code' }),
        message: textOut(limits.message).openapi({ description: 'What went wrong' }),
      })
      .optional()
      .openapi({ additionalProperties: true, description: 'A protocol error (unknown method or tool, malformed message)' }),
  })
  .openapi('McpResponse', { additionalProperties: true, description: 'The JSON-RPC 2.0 response to one MCP request' }));

const JsonRpcErrorSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    jsonrpc: z.literal('2.0').openapi({ description: 'Always "2.0"' }),
    id: textOut(limits.integratorId).nullable().openapi({ description: 'Always null: the request could not be read' }),
    error: z
      .looseObject({
        code: z.number().int().min(-32700).max(-32600).openapi({ description: '-32700 parse error (not JSON), -32600 invalid request (not one JSON-RPC request object)' }),
        message: textOut(limits.message).openapi({ description: 'What went wrong' }),
      })
      .openapi({ additionalProperties: true, description: 'The JSON-RPC error' }),
  })
  .openapi('McpError', { description: 'A JSON-RPC 2.0 error answering a body that is not one readable JSON-RPC message' }));

export const ProtectedResourceMetadataSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    resource: textOut(limits.url).openapi({ format: 'uri', description: 'The protected resource: the absolute URL of the MCP endpoint', example: 'http://127.0.0.1:3000/mcp' }),
    authorization_servers: z.array(textOut(limits.url)).max(10).openapi({ description: 'Issuer URLs of the authorization servers; their RFC 8414 metadata tells clients how to sign in', example: ['http://127.0.0.1:3001'] }),
    scopes_supported: z.array(textOut(limits.code)).max(allScopes.length).openapi({ description: 'Scopes the tools need', example: ['companies:read', 'ledger:read', 'context:read'] }),
    bearer_methods_supported: z.array(textOut(limits.code)).max(3).openapi({ description: 'How the access token is sent: the Authorization header only', example: ['header'] }),
    resource_name: textOut(limits.name).openapi({ description: 'Human-readable name of the resource' }),
    resource_documentation: textOut(limits.url).openapi({ format: 'uri' }).openapi({ description: 'Where the endpoint is documented' }),
  })
  .openapi('ProtectedResourceMetadata', { description: 'OAuth 2.0 protected-resource metadata (RFC 9728) of the MCP endpoint' }));

const metadataContract = {
  responses: { 200: { description: 'The protected-resource metadata', schema: ProtectedResourceMetadataSchema } },
} satisfies OperationContract;

/** Contracts of the MCP group: the endpoint itself and its protected-resource metadata. */
export const mcpContracts = {
  callMcp: {
    description:
      'The Model Context Protocol (revision 2025-11-25, beta) over stateless streamable HTTP: 19 read-only tools (17 run the same operation as their REST twin, with the same scopes and reach; `get_company_context` and `get_account_context` need `context:read`, which only interactive sessions hold). `GET` and `DELETE` answer 405: there are no sessions and no server-initiated streams. Without a token it answers **401** with `WWW-Authenticate: Bearer resource_metadata="<base>/.well-known/oauth-protected-resource/mcp"`; a `tools/call` of a tool whose scope the token lacks answers **403** `insufficient_scope`, its challenge naming the scopes of the token among `scopes_supported` and the one the tool needs, unless the caller can never hold that scope (`context:read` for a client): then a tool error (`isError`) `insufficient_scope`. Outside the reach a tool answers a tool error that says not found. A page of a tool holds at most 50 items, and an answer of more than 64 KiB is the tool error `result_too_large` naming the filters that narrow it.\n\n' +
      'The body is one JSON-RPC message; send `Accept: application/json, text/event-stream`. Answers are JSON (`application/json`), never an SSE stream; no `Mcp-Session-Id` is issued (stateless). Protocol errors are JSON-RPC error objects as MCP defines them, not problem documents: a body that is not JSON is HTTP 400 with -32700 (parse error), one that is not a single JSON-RPC message (a batch, no `jsonrpc`) HTTP 400 with -32600; an unknown method is -32601, params that do not fit the method (tools/call without a string `name`, `arguments` not an object) -32602 naming the parameter, and an unknown tool -32602, each in an HTTP 200 answer. A tool\'s arguments that break its input schema are a tool error (`isError`) naming the field, as MCP asks.',
    requestExample: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_companies', arguments: { page_size: 10 } } },
    body: JsonRpcMessageSchema,
    // Read here, not by the runner: malformed JSON is a JSON-RPC parse error, not malformed_json.
    bodyParsing: 'text' as const,
    responses: {
      200: { description: 'The JSON-RPC response', schema: JsonRpcResponseSchema },
      400: { description: 'The body is not one readable JSON-RPC message', schema: JsonRpcErrorSchema },
      202: { description: 'A notification or response was accepted (no body)' },
    },
    problems: {
      403: 'origin_not_allowed: the Host or Origin header names a site other than this API (DNS rebinding protection); insufficient_scope: tools/call of a tool whose scope the token lacks (the scope is in WWW-Authenticate)',
    },
  },
  getMcpResourceMetadata: {
    ...metadataContract,
    description:
      'The protected-resource metadata of the MCP endpoint (RFC 9728), named by its 401 challenge: the resource, the authorization server to sign in at (its RFC 8414 metadata lists the endpoints), the scopes the tools need. Public.',
  },
  getResourceMetadata: {
    ...metadataContract,
    description: 'The same protected-resource metadata at the root location, where MCP clients look when the challenge names none. Public.',
  },
} satisfies Record<OperationIdOfGroup<'mcp'>, OperationContract>;

/** Contracts of the MCP-only operations (the context tools; shared/routes.ts `mcpOnlyOperations`). */
export const mcpOnlyContracts = {
  getCompanyContext: { params: /* @__PURE__ */ lazySchema(() => z.object({ companyId: UuidSchema })), responses: { 200: { description: 'The company picture', schema: CompanyContextSchema } } },
  getAccountContext: { params: AccountParamsSchema, query: AccountQuerySchema, responses: { 200: { description: 'The account picture', schema: AccountContextSchema } } },
} satisfies Record<McpOnlyOperationId, OperationContract>;
