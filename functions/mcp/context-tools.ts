import { lazySchema } from '../../shared/platform/lazy-schema';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { createOperationRunner } from '../../shared/api/runner';
import { mcpOnlyContracts } from '../../shared/composition/mcp-contracts';
import { defineMcpOnlyOperations } from '../../shared/composition/operations';
import { owners } from '../../shared/composition/owners';
import { accountPictureBase, accountPictureParts, companyPictureParts, mayReadAll, omittedParts, trimPicture } from '../../shared/context/parts';
import { AccountContextSchema, CompanyContextSchema } from '../../shared/context/schemas';
import { readAccountContext, readCompanyContext, type ContextAnswer } from '../../shared/context/service';
import type { Principal } from '../../shared/identity/principal';
import type { Scope } from '../../shared/identity/scopes';
import { ProblemError, problems } from '../../shared/platform/problem';
import { limits } from '../../shared/platform/schemas';
import { mcpOnlyOperations, type McpOnlyOperationId } from '../../shared/routes';
import type { JsonSchema } from './tool-schemas';
import { toolError, toolResult } from './tool-result';

/** A tool over the context service (no REST twin). */
export interface ContextTool {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  inputJsonSchema: JsonSchema & { type: 'object' };
  outputJsonSchema: JsonSchema & { type: 'object' };
  call: (args: Record<string, unknown>, principal: Principal, requestId: string) => Promise<CallToolResult>;
}

const unavailable = (what: string) =>
  new ProblemError({
    status: 503,
    error: 'service_unavailable',
    title: 'Service unavailable',
    detail: `the context service has not caught up with ${what} yet (it is rebuilt shortly after each change of the books). Retry in a few seconds; meanwhile the other tools answer from the books directly.`,
  });

const answer = (result: ContextAnswer, what: string, omitted: ReturnType<typeof omittedParts>) => {
  if (result.status !== 'ready') throw unavailable(what);
  return { status: 200, text: trimPicture(result.picture, omitted), headers: { 'Content-Type': 'application/json' } };
};

/**
 * The context tools are MCP-only operations (declared in shared/routes.ts `mcpOnlyOperations` with
 * their scope context:read, contracts in shared/composition/mcp-contracts.ts), run by the one
 * operation runner: reach of {companyId}, the token's scope, validation; then each picture part
 * with the actions of its source (shared/context/parts.ts).
 */
export const contextOperations = defineMcpOnlyOperations(mcpOnlyContracts, {
  getCompanyContext: async ({ owner: company, principal }) => {
    const omitted = omittedParts(principal, company, companyPictureParts);
    // No figure to show: the company answers itself; no picture is read, nor is its freshness told.
    if (omitted.filter((part) => part.part !== 'name').length === companyPictureParts.length - 1) {
      const name = omitted.some((part) => part.part === 'name') ? {} : { name: company.name };
      return { status: 200, body: { companyId: company.id, ...name, omitted } };
    }
    return answer(await readCompanyContext(company.id), 'this company', omitted);
  },
  getAccountContext: async ({ owner: company, principal, params, query }) => {
    // An account is a ledger account: without its read (get_account), it is not found.
    if (!mayReadAll(principal, company, accountPictureBase)) throw problems.notFound('account');
    const omitted = omittedParts(principal, company, accountPictureParts);
    return answer(await readAccountContext(company.id, params.accountNumber, query.year), `account ${params.accountNumber}`, omitted);
  },
});

/** The scope of an MCP-only operation, as declared. */
const scopeOf = (operationId: McpOnlyOperationId): Scope => mcpOnlyOperations.find((operation) => operation.operationId === operationId)!.scope;

/** The tools' runner: the MCP request has passed the rate limit once (the runner of the mcp group). */
const run = createOperationRunner(contextOperations, { owners, routes: mcpOnlyOperations, rateLimit: async () => ({}) });

/**
 * companyId as the twin tools take it: any UUID in the 8-4-4-4-12 hex form, whatever its version,
 * variant or case. The runner decides reach of {companyId} before it validates with REST's
 * UuidSchema, so REST and the twin tools answer such an id outside the reach not found, not
 * invalid; z.uuid() would refuse some of them (a version or variant other than RFC 9562's).
 */
const companyIdInput = () => z.guid().max(limits.uuid).describe('The company (the `id` list_companies answers)');
const CompanyContextInput = /* @__PURE__ */ lazySchema(() => z.strictObject({ companyId: companyIdInput() }));
const AccountContextInput = /* @__PURE__ */ lazySchema(() => z.strictObject({
  companyId: companyIdInput(),
  accountNumber: z.string().min(1).max(20).regex(/^[^#\s]+$/, 'must not contain spaces or #').describe('The ledger account, e.g. "1920"'),
  year: z.number().int().min(1900).max(2999).optional().describe("The accounting year; default: the company's current year"),
}));

/** A tool's input schema as what it takes (io 'input'), its output schema as what it answers (io 'output'). */
const jsonSchemaOf = (schema: z.ZodType, io: 'input' | 'output') => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io }) as JsonSchema;
  return rest as JsonSchema & { type: 'object' };
};

/** A whole number in plain digits, as REST reads one from a query string (shared/platform/schemas.ts queryInteger). */
const plainDigits = /^(0|[1-9][0-9]{0,15})$/;

/**
 * The arguments with each integer one given as plain digits ("2026") as the number: the twin tools
 * hand their arguments to REST as text, so they take "2026" for `year`, and so do these.
 */
const integersFromText = (args: Record<string, unknown>, inputJsonSchema: JsonSchema): Record<string, unknown> => {
  const properties = (inputJsonSchema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.fromEntries(
    Object.entries(args).map(([name, value]) => [name, properties[name]?.type === 'integer' && typeof value === 'string' && plainDigits.test(value) ? Number(value) : value]),
  );
};

const contextTool = <I extends z.ZodType>(
  definition: Omit<ContextTool, 'scope' | 'inputJsonSchema' | 'outputJsonSchema' | 'call'> & { operationId: McpOnlyOperationId; input: I; output: z.ZodType },
  toCall: (input: z.infer<I>) => { params: Record<string, string>; query: Record<string, string> },
): ContextTool => {
  // The JSON Schemas are written on the first tools/list, not at init.
  let inputJsonSchema: ContextTool['inputJsonSchema'] | undefined;
  let outputJsonSchema: ContextTool['outputJsonSchema'] | undefined;
  return {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    scope: scopeOf(definition.operationId),
    get inputJsonSchema() {
      return (inputJsonSchema ??= jsonSchemaOf(definition.input, 'input'));
    },
    get outputJsonSchema() {
      return (outputJsonSchema ??= jsonSchemaOf(definition.output, 'output'));
    },
    async call(args, principal, requestId) {
      const parsed = definition.input.safeParse(integersFromText(args, this.inputJsonSchema));
      if (!parsed.success) {
        return toolError(`validation_failed: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`).join('; ')}`, 'validation_failed');
      }
      const response = await run({ operationId: definition.operationId, authentication: { authenticated: true, principal }, ...toCall(parsed.data), requestId });
      return toolResult(response, definition.name, 'The picture is compact by design; read the details with the specific tools (get_trial_balance, list_general_ledger_lines, list_bank_transactions).');
    },
  };
};

const withheld =
  'A part whose source you may not read (ledger:read, bank:read, vat:read for the figures; companies:read for the name) is left out and named in `omitted` with the actions it needs.';

/** The two context tools: compact pictures an assistant reasons from, kept by the context service. */
export const contextTools: readonly ContextTool[] = [
  contextTool(
    {
      name: 'get_company_context',
      title: 'Company at a glance',
      operationId: 'getCompanyContext',
      description: `A compact picture of one company to start from: when the ledger was last updated, the current year, trial-balance totals, each bank account with its unreconciled transactions (count, oldest date), the open VAT term (position, net VAT, status), open customer and supplier items due and overdue, and the latest imports with their outcome. Amounts in NOK, signed (debit positive). ${withheld} If it answers service_unavailable, retry shortly. Next: get_account_context for one account, or the specific tools for details.`,
      input: CompanyContextInput,
      output: CompanyContextSchema,
    },
    ({ companyId }) => ({ params: { companyId }, query: {} }),
  ),
  contextTool(
    {
      name: 'get_account_context',
      title: 'Account at a glance',
      operationId: 'getAccountContext',
      description: `Why an account moved: its opening balance, the movement and closing balance of each period 1-12, the largest movements and the last lines (with voucher, date and description), and its reconciliation status (bank accounts mapped to it, unreconciled count) and VAT status. Amounts in NOK, signed (debit positive). Needs ledger:read on the company besides; not found when the account is not in the year's chart. ${withheld} If it answers service_unavailable, retry shortly. Next: list_general_ledger_lines with \`account\` for every line.`,
      input: AccountContextInput,
      output: AccountContextSchema,
    },
    ({ companyId, accountNumber, year }) => ({ params: { companyId, accountNumber }, query: Object.fromEntries(year === undefined ? [] : [['year', String(year)]]) }),
  ),
];
