import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { OperationResult } from '../../shared/api/operation';
import { defineOperations } from '../../shared/composition/operations';
import { mcpContracts as contracts, mcpScopes } from '../../shared/composition/mcp-contracts';
import type { Principal } from '../../shared/identity/principal';
import { config, publicBaseUrl } from '../../shared/platform/config';
import { ProblemError, problems } from '../../shared/platform/problem';
import { mcpResourceMetadataPath } from '../../shared/routes';
import { createMcpServer, invalidParams, modeCanHold, scopeOfTool } from './server';
import { loadToolSchemas } from './tool-schemas';

/** Host names the endpoint answers to: MCP_ALLOWED_HOSTS (the API's domain on AWS), else the loopback names (the local stack). */
const allowedHostNames = (): string[] =>
  process.env.MCP_ALLOWED_HOSTS?.split(',').map((name) => name.trim().toLowerCase()).filter(Boolean) ?? ['127.0.0.1', 'localhost', '[::1]'];

const hostNameOf = (value: string): string | undefined => {
  try {
    return new URL(value.includes('://') ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
};

/**
 * DNS rebinding protection: a web page must not reach this endpoint through a name it controls.
 * The Host, and the Origin a browser sends, must name this API.
 */
const checkHostAndOrigin = (headers: Record<string, string | undefined>): void => {
  const allowed = allowedHostNames();
  const host = hostNameOf(headers.host ?? '');
  if (!host || !allowed.includes(host)) throw problems.originNotAllowed(`The Host ${headers.host ?? '(none)'} is not this API.`);
  const origin = headers.origin;
  if (origin !== undefined && !allowed.includes(hostNameOf(origin) ?? '')) throw problems.originNotAllowed(`The Origin ${origin} may not call this endpoint.`);
};

const resourceMetadataUrl = () => `${publicBaseUrl() ?? ''}${mcpResourceMetadataPath}`;

/**
 * A tools/call of a tool whose scope the token lacks: 403 insufficient_scope for the whole request,
 * the scopes in WWW-Authenticate (as the authorization server names them), as the MCP authorization
 * rules (2025-11-25, scope challenge handling) say, so that a client can ask the person to consent
 * to it (step-up): the token's scopes the tools need (those of the metadata's scopes_supported)
 * and the one the tool needs, since a client asks for exactly the challenge's scopes and would
 * otherwise lose the ones it had. A scope the caller's mode can never hold (context:read for a
 * client) is no challenge: no consent could add it, so the tool answers a tool error the model
 * can read (createMcpServer). A notification (no id) is not answered, as the transport answers
 * notifications: 202.
 */
const checkToolScope = (message: Record<string, unknown>, principal: Principal): void => {
  if (message.method !== 'tools/call' || message.id === undefined) return;
  const name = (message.params as { name?: unknown } | undefined)?.name;
  const scope = typeof name === 'string' ? scopeOfTool(name) : null;
  if (!scope || principal.scopes.includes(scope) || !modeCanHold(principal.mode, scope)) return;
  const base = problems.insufficientScope(scope);
  const challenged = [...new Set([...principal.scopes.filter((held) => mcpScopes.includes(held)), scope])];
  throw new ProblemError(
    { ...base.problem, detail: `The tool ${name as string} needs the scope ${scope}.` },
    { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${challenged.map((held) => `${config().scopePrefix}${held}`).join(' ')}", resource_metadata="${resourceMetadataUrl()}"` },
  );
};

/** A JSON-RPC error answer, as the SDK's transport writes its own. */
const jsonRpcError = (status: number, id: string | number | null, code: number, message: string): OperationResult => ({
  status,
  text: JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }),
  headers: { 'Content-Type': 'application/json' },
});

type McpMessage = ReturnType<typeof contracts.callMcp.body.parse>;

/** The body as one JSON-RPC message, or the JSON-RPC error that answers it (-32700 not JSON, -32600 not one message). */
const readMessage = (text: string): { message: McpMessage } | { answer: OperationResult } => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { answer: jsonRpcError(400, null, ErrorCode.ParseError, `Parse error: the body is not JSON (${(error as Error).message}).`) };
  }
  const parsed = contracts.callMcp.body.safeParse(value);
  if (parsed.success) return { message: parsed.data };
  const reason = Array.isArray(value) ? 'send one JSON-RPC message per request (no batches).' : parsed.error.issues.map((issue) => issue.message).join(' ');
  return { answer: jsonRpcError(400, null, ErrorCode.InvalidRequest, `Invalid Request: ${reason}`) };
};

const metadata = () => ({
  resource: `${publicBaseUrl() ?? ''}/mcp`,
  authorization_servers: [config().jwtIssuer],
  // As the authorization server names them (Cognito prefixes custom scopes with the resource server's id).
  scopes_supported: mcpScopes.map((scope) => `${config().scopePrefix}${scope}`),
  bearer_methods_supported: ['header'],
  resource_name: 'Accounting Ledger MCP endpoint (read-only)',
  resource_documentation: `${publicBaseUrl() ?? ''}/docs`,
});

/** POST /mcp and the protected-resource metadata (RFC 9728) at both locations clients look. */
export const mcpOperations = defineOperations('mcp', contracts, {
  callMcp: async ({ principal, body, headers, requestId }) => {
    checkHostAndOrigin(headers);
    await loadToolSchemas();
    // The contract's bodyParsing 'text': the runner hands over the body unparsed.
    const read = readMessage(body as unknown as string);
    if ('answer' in read) return read.answer;
    const { message } = read;
    checkToolScope(message, principal);
    const invalid = invalidParams(message);
    if (invalid) return jsonRpcError(200, message.id ?? null, ErrorCode.InvalidParams, invalid);
    // Stateless: a fresh server and transport per request, JSON answers, no session id.
    const server = createMcpServer(principal, requestId);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const requestHeaders = new Headers(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
      const response = await transport.handleRequest(new Request(`${publicBaseUrl() ?? 'http://localhost'}/mcp`, { method: 'POST', headers: requestHeaders }), {
        parsedBody: message,
      });
      const text = await response.text();
      const contentType = response.headers.get('content-type');
      const answerHeaders: Record<string, string> = contentType ? { 'Content-Type': contentType } : {};
      return { status: response.status, text, headers: answerHeaders };
    } finally {
      await server.close();
    }
  },
  getMcpResourceMetadata: async () => ({ status: 200, body: metadata() }),
  getResourceMetadata: async () => ({ status: 200, body: metadata() }),
});
