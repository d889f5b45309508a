import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { owners } from '../../shared/composition/owners';
import { AccountContextSchema, CompanyContextSchema } from '../../shared/context/schemas';
import { readAccountContext, readCompanyContext, type ContextAnswer } from '../../shared/context/service';
import type { Principal } from '../../shared/identity/principal';
import type { Scope } from '../../shared/identity/scopes';
import { ProblemError } from '../../shared/platform/problem';
import { routes } from '../../shared/routes';
import type { JsonSchema } from './tool-schemas';

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

const scope: Scope = 'context:read';

const CompanyContextInput = z.strictObject({ companyId: z.uuid().describe('The company (the `id` list_companies answers)') });
const AccountContextInput = z.strictObject({
  companyId: z.uuid().describe('The company (the `id` list_companies answers)'),
  accountNumber: z.string().min(1).max(20).describe('The ledger account, e.g. "1920"'),
  year: z.number().int().min(1900).max(2999).optional().describe("The accounting year; default: the company's current year"),
});

const jsonSchemaOf = (schema: z.ZodType) => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
  return rest as JsonSchema & { type: 'object' };
};

const error = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

const unavailable = (what: string) =>
  error(
    `service_unavailable: the context service has not caught up with ${what} yet (it is rebuilt shortly after each change of the books). Retry in a few seconds; meanwhile the other tools answer from the books directly.`,
  );

/** Reach as for every company route: the one reach decision through the owner resolver of {companyId}. */
const companyRoute = { ...routes.find((route) => route.operationId === 'callMcp')!, scope };

const answer = (result: ContextAnswer, what: string): CallToolResult =>
  result.status === 'ready'
    ? { content: [{ type: 'text', text: result.picture }], structuredContent: JSON.parse(result.picture) as Record<string, unknown> }
    : unavailable(what);

const contextTool = <I extends z.ZodType>(
  definition: Omit<ContextTool, 'scope' | 'inputJsonSchema' | 'outputJsonSchema' | 'call'> & { input: I; output: z.ZodType },
  read: (input: z.infer<I>) => Promise<CallToolResult>,
): ContextTool => ({
  name: definition.name,
  title: definition.title,
  description: definition.description,
  scope,
  inputJsonSchema: jsonSchemaOf(definition.input),
  outputJsonSchema: jsonSchemaOf(definition.output),
  call: async (args, principal) => {
    const parsed = definition.input.safeParse(args);
    if (!parsed.success) return error(`validation_failed: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`).join('; ')}`);
    const companyId = (parsed.data as { companyId: string }).companyId;
    if (!(await owners.companyId!.resolve(companyId, principal, companyRoute))) return error('not found: The company does not exist or is outside your reach.');
    try {
      return await read(parsed.data);
    } catch (failure) {
      if (failure instanceof ProblemError && failure.problem.status === 404) return error(`not found: ${failure.problem.detail}`);
      throw failure;
    }
  },
});

/** The two context tools: compact pictures an assistant reasons from, kept by the context service. */
export const contextTools: readonly ContextTool[] = [
  contextTool(
    {
      name: 'get_company_context',
      title: 'Company at a glance',
      description:
        'A compact picture of one company to start from: when the ledger was last updated, the current year, trial-balance totals, each bank account with its unreconciled transactions (count, oldest date), the open VAT term (position, net VAT, status), open customer and supplier items due and overdue, and the latest imports with their outcome. Amounts in NOK, signed (debit positive). If it answers service_unavailable, retry shortly. Next: get_account_context for one account, or the specific tools for details.',
      input: CompanyContextInput,
      output: CompanyContextSchema,
    },
    async ({ companyId }) => answer(await readCompanyContext(companyId), 'this company'),
  ),
  contextTool(
    {
      name: 'get_account_context',
      title: 'Account at a glance',
      description:
        'Why an account moved: its opening balance, the movement and closing balance of each period 1-12, the largest movements and the last lines (with voucher, date and description), and its reconciliation status (bank accounts mapped to it, unreconciled count) and VAT status. Amounts in NOK, signed (debit positive). Not found when the account is not in the year\'s chart. If it answers service_unavailable, retry shortly. Next: list_general_ledger_lines with `account` for every line.',
      input: AccountContextInput,
      output: AccountContextSchema,
    },
    async ({ companyId, accountNumber, year }) => answer(await readAccountContext(companyId, accountNumber, year), `account ${accountNumber}`),
  ),
];
