import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { defineOperation } from '../../shared/api/operation';
import { mcpContracts as contracts, mcpScopes } from '../../shared/composition/mcp-contracts';
import { config, publicBaseUrl } from '../../shared/platform/config';
import { ProblemError, problems } from '../../shared/platform/problem';
import { mcpResourceMetadataPath } from '../../shared/routes';
import { createMcpServer, scopeOfTool } from './server';

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
 * the scope in WWW-Authenticate (as the authorization server names it), as the MCP authorization
 * rules (2025-11-25, scope challenge handling) say, so that a client can ask the person to consent
 * to it (step-up).
 */
const checkToolScope = (message: Record<string, unknown>, scopes: readonly string[]): void => {
  if (message.method !== 'tools/call') return;
  const name = (message.params as { name?: unknown } | undefined)?.name;
  const scope = typeof name === 'string' ? scopeOfTool(name) : null;
  if (!scope || scopes.includes(scope)) return;
  const base = problems.insufficientScope(scope);
  throw new ProblemError(
    { ...base.problem, detail: `The tool ${name as string} needs the scope ${scope}.` },
    { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${config().scopePrefix}${scope}", resource_metadata="${resourceMetadataUrl()}"` },
  );
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
export const mcpOperations = {
  callMcp: defineOperation(contracts.callMcp, async ({ principal, body, headers, requestId }) => {
    checkHostAndOrigin(headers);
    checkToolScope(body, principal.scopes);
    // Stateless: a fresh server and transport per request, JSON answers, no session id.
    const server = createMcpServer(principal, requestId);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const requestHeaders = new Headers(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
      const response = await transport.handleRequest(new Request(`${publicBaseUrl() ?? 'http://localhost'}/mcp`, { method: 'POST', headers: requestHeaders }), {
        parsedBody: body,
      });
      const text = await response.text();
      const contentType = response.headers.get('content-type');
      const answerHeaders: Record<string, string> = contentType ? { 'Content-Type': contentType } : {};
      return { status: response.status, text, headers: answerHeaders };
    } finally {
      await server.close();
    }
  }),
  getMcpResourceMetadata: defineOperation(contracts.getMcpResourceMetadata, async () => ({ status: 200, body: metadata() })),
  getResourceMetadata: defineOperation(contracts.getResourceMetadata, async () => ({ status: 200, body: metadata() })),
};
