import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { z } from 'zod';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { createOperationRunner } from '../../shared/api/runner';
import { owners } from '../../shared/composition/owners';
import type { Principal } from '../../shared/identity/principal';
import type { Scope } from '../../shared/identity/scopes';
import type { OperationId } from '../../shared/routes';
import { contextTools, type ContextTool } from './context-tools';
import { toolError, toolResult } from './tool-result';
import { twinSchemas } from './tool-schemas';
import { scopeOfOperation, twinOperations, twinTools, type TwinTool } from './tools';

/** Every tool only reads, and reads only this service's books: say so, the protocol's defaults say the opposite. */
const annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const instructions =
  'Read-only access to the books of the companies this connection can see (an accounting firm\'s client companies, Norwegian chart of accounts, amounts in NOK). ' +
  'Start with list_companies, then get_company_context for a quick picture of one company, or the specific tools (trial balance, GL lines, bank, VAT). ' +
  'Amounts are signed: debit positive, credit negative. Periods are 1-12. Nothing here can change the books.';

/**
 * The tool runner: the one operation runner over the twin operations. The MCP request itself has
 * passed the rate limit once (the runner of the mcp group), so the tools do not charge again.
 */
const runTwin = createOperationRunner(twinOperations, { owners, rateLimit: async () => ({}) });

type AnyTool = { kind: 'twin'; tool: TwinTool; scope: Scope | undefined } | { kind: 'context'; tool: ContextTool; scope: Scope };

const toolsByName = new Map<string, AnyTool>([
  ...twinTools.map((tool) => [tool.name, { kind: 'twin', tool, scope: scopeOfOperation(tool.operationId) }] as const),
  ...contextTools.map((tool) => [tool.name, { kind: 'context', tool, scope: tool.scope }] as const),
]);

/** The scope a tool needs (undefined: any valid token), or null for an unknown tool. */
export const scopeOfTool = (name: string): Scope | undefined | null => {
  const tool = toolsByName.get(name);
  return tool ? tool.scope : null;
};

let listed: Tool[] | undefined;

/** The tools/list answer: the same for every caller (built once per execution environment). */
export const toolList = (): Tool[] =>
  (listed ??= [
    ...twinTools.map((tool): Tool => {
      const { inputSchema, outputSchema } = twinSchemas(tool.operationId);
      const scope = scopeOfOperation(tool.operationId);
      return {
        name: tool.name,
        title: tool.title,
        description: `${tool.description}${scope ? ` Needs scope ${scope}.` : ''}`,
        inputSchema,
        outputSchema,
        annotations: { title: tool.title, ...annotations },
      };
    }),
    ...contextTools.map(
      (tool): Tool => ({
        name: tool.name,
        title: tool.title,
        description: `${tool.description} Needs scope ${tool.scope}.`,
        inputSchema: tool.inputJsonSchema,
        outputSchema: tool.outputJsonSchema,
        annotations: { title: tool.title, ...annotations },
      }),
    ),
  ]);

/** Tool arguments as the REST call's path and query parameters: the runner validates them with the REST contract's schemas. */
const restCall = (operationId: OperationId, args: Record<string, unknown>) => {
  const { pathParameters } = twinSchemas(operationId);
  const params: Record<string, string> = {};
  const query: Record<string, string> = {};
  const wrong: string[] = [];
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    if (!['string', 'number', 'boolean'].includes(typeof value)) wrong.push(name);
    else (pathParameters.includes(name) ? params : query)[name] = String(value);
  }
  const missing = pathParameters.filter((name) => params[name] === undefined);
  return { params, query, wrong, missing };
};

const callTwin = async (tool: TwinTool, args: Record<string, unknown>, principal: Principal, requestId: string): Promise<CallToolResult> => {
  const { params, query, wrong, missing } = restCall(tool.operationId, args);
  if (missing.length || wrong.length) {
    return toolError(
      `validation_failed: ${[...missing.map((name) => `${name} is required`), ...wrong.map((name) => `${name} must be a string or a number`)].join('; ')}.`,
    );
  }
  const response = await runTwin({ operationId: tool.operationId, authentication: { authenticated: true, principal }, params, query, requestId });
  return toolResult(response);
};

/** The requests this server answers, by method, with the SDK's schema of each. */
const requestSchemas = new Map<string, z.ZodType>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
]);

/**
 * Why a request's params do not fit its method, or undefined. The SDK parses them inside its
 * handler and answers a failure -32603 (internal error) with zod's issues as text; checked here
 * first, the request is answered -32602 (invalid params) naming each parameter at fault.
 */
export const invalidParams = (message: { id?: unknown; method?: unknown }): string | undefined => {
  if (message.id === undefined || typeof message.method !== 'string') return undefined;
  const result = requestSchemas.get(message.method)?.safeParse(message);
  if (!result || result.success) return undefined;
  return `Invalid params: ${result.error.issues.map((issue) => issue.message).join(' ')}`;
};

/** A fresh server for one HTTP request (stateless: no session outlives it). */
export const createMcpServer = (principal: Principal, requestId: string): Server => {
  const server = new Server({ name: 'accounting-ledger', title: 'Accounting Ledger (read-only)', version: '1.0.0' }, { capabilities: { tools: { listChanged: false } }, instructions });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolList() }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const entry = toolsByName.get(request.params.name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const args = request.params.arguments ?? {};
    if (entry.kind === 'twin') return callTwin(entry.tool, args, principal, requestId);
    return entry.tool.call(args, principal, requestId);
  });
  return server;
};
