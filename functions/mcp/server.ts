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
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { createOperationRunner } from '../../shared/api/runner';
import { owners } from '../../shared/composition/owners';
import type { Principal, PrincipalMode } from '../../shared/identity/principal';
import { interactiveScopes, systemClientScopes, userClientScopes, type Scope } from '../../shared/identity/scopes';
import { logger } from '../../shared/platform/logger';
import { countMetric } from '../../shared/platform/metrics';
import type { OperationId } from '../../shared/routes';
import { contextTools, type ContextTool } from './context-tools';
import { outcomeOf, toolError, toolResult } from './tool-result';
import { mcpMaxPageSize, twinSchemas } from './tool-schemas';
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

/** The scopes a principal of each mode can ever hold (given to its client, or consented to in a session). */
const scopesOfMode: Record<PrincipalMode, readonly Scope[]> = { SYSTEM: systemClientScopes, USER: userClientScopes, INTERACTIVE: interactiveScopes };

/** Whether a principal of this mode can ever hold the scope: context:read only an interactive session can. */
export const modeCanHold = (mode: PrincipalMode, scope: Scope): boolean => scopesOfMode[mode].includes(scope);

const callerOf: Record<PrincipalMode, string> = {
  SYSTEM: 'a system client (client credentials)',
  USER: 'a per-user client (client credentials)',
  INTERACTIVE: 'an interactive session',
};

/**
 * A tool whose scope the token lacks, where no consent can add it (checkToolScope answers the
 * others 403 with a step-up challenge): a tool error the model can read, saying which caller can
 * call the tool, instead of an HTTP error a host without a sign-in of its own cannot act on.
 */
const scopeNeverHeld = (name: string, scope: Scope, principal: Principal): CallToolResult =>
  toolError(
    `insufficient_scope: ${name} needs the scope ${scope}, which ${callerOf[principal.mode]} can never hold${scope === 'context:read' ? ': only an interactive session (a person signed in through an MCP client) can. Use the other tools instead (get_company, get_trial_balance, list_general_ledger_lines, list_bank_accounts, list_vat_terms)' : ''}.`,
    'insufficient_scope',
  );

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

/** How a twin tool's request asks for less: its own advice, else its filters and a smaller page. */
const narrowingOf = (tool: TwinTool): string => {
  if (tool.narrow) return tool.narrow;
  const { queryParameters, restDefaultPageSize } = twinSchemas(tool.operationId);
  const filters = queryParameters.filter((name) => name !== 'cursor' && name !== 'page_size');
  const ways = [
    ...(filters.length ? [`filter it (${filters.join(', ')})`] : []),
    // A list answered whole in one page ignores page_size.
    ...(restDefaultPageSize !== undefined ? ['ask for a smaller `page_size` and page on with `cursor`'] : []),
  ];
  return ways.length ? `Narrow the request: ${ways.join(', or ')}.` : 'Read what you need in smaller pieces with the other tools.';
};

/** `page_size` above mcpMaxPageSize (REST takes up to 200): the runner never gets it. */
const pageSizeTooLarge = (value: string | undefined): boolean => value !== undefined && /^[0-9]+$/.test(value) && Number(value) > mcpMaxPageSize;

const callTwin = async (tool: TwinTool, args: Record<string, unknown>, principal: Principal, requestId: string): Promise<CallToolResult> => {
  const { params, query, wrong, missing } = restCall(tool.operationId, args);
  if (missing.length || wrong.length) {
    return toolError(
      `validation_failed: ${[...missing.map((name) => `${name} is required`), ...wrong.map((name) => `${name} must be a string or a number`)].join('; ')}.`,
      'validation_failed',
    );
  }
  const { queryParameters, restDefaultPageSize } = twinSchemas(tool.operationId);
  if (queryParameters.includes('page_size')) {
    if (pageSizeTooLarge(query.page_size)) {
      return toolError(`validation_failed: page_size must be a whole number from 1 to ${mcpMaxPageSize} (a tool answers at most ${mcpMaxPageSize} items a page; page on with cursor).`, 'validation_failed');
    }
    // Without one, REST's default; held to the tools' maximum should REST's ever exceed it.
    if (query.page_size === undefined && restDefaultPageSize !== undefined && restDefaultPageSize > mcpMaxPageSize) query.page_size = String(mcpMaxPageSize);
  }
  const response = await runTwin({ operationId: tool.operationId, authentication: { authenticated: true, principal }, params, query, requestId });
  return toolResult(response, tool.name, narrowingOf(tool));
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

/**
 * One log line and one McpToolCalls count per tool call: the request log says 200 whatever the
 * tool answered. Never the arguments (they name companies and accounts).
 */
const logToolCall = (tool: string, outcome: { isError: boolean; error?: string; status?: number }): void => {
  logger.info('tool call', { tool, ...outcome });
  countMetric('mcpToolCalls', { tool, outcome: outcome.isError ? (outcome.error ?? 'error') : 'ok' });
};

/**
 * The Server's JSON Schema validator (it checks elicitation answers, which no tool asks for), built
 * once per container and on first use: left to itself, each Server builds its own ajv instance,
 * about 3 ms of CPU in a container's first request and 0.2 ms in each later one.
 */
let ajv: AjvJsonSchemaValidator | undefined;
const schemaValidator: jsonSchemaValidator = { getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema) };

/** A fresh server for one HTTP request (stateless: no session outlives it). */
export const createMcpServer = (principal: Principal, requestId: string): Server => {
  const server = new Server(
    { name: 'accounting-ledger', title: 'Accounting Ledger (read-only)', version: '1.0.0' },
    { capabilities: { tools: { listChanged: false } }, instructions, jsonSchemaValidator: schemaValidator },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolList() }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const entry = toolsByName.get(request.params.name);
    if (!entry) {
      logToolCall('unknown', { isError: true, error: 'unknown_tool' });
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    }
    const name = entry.tool.name;
    const args = request.params.arguments ?? {};
    let result: CallToolResult | undefined;
    try {
      if (entry.scope && !principal.scopes.includes(entry.scope) && !modeCanHold(principal.mode, entry.scope)) result = scopeNeverHeld(name, entry.scope, principal);
      else result = entry.kind === 'twin' ? await callTwin(entry.tool, args, principal, requestId) : await entry.tool.call(args, principal, requestId);
      return result;
    } finally {
      logToolCall(name, result ? { isError: result.isError === true, ...outcomeOf(result) } : { isError: true, error: 'internal_error' });
    }
  });
  return server;
};
