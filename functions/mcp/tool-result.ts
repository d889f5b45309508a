import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { OperationResponse } from '../../shared/api/runner';
import { parseJsonKeepingNumbers } from '../../shared/platform/json';

/** A tool error the model can act on. */
export const toolError = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/** A problem as a tool error: its code (not_found as "not found"), its detail and the fields at fault. */
const problemText = (response: OperationResponse): string => {
  const problem = JSON.parse(response.body) as { error: string; detail: string; errors?: { field: string; message: string }[] };
  const label = problem.error === 'not_found' ? 'not found' : problem.error;
  const fields = problem.errors?.length ? ` ${problem.errors.map((error) => `${error.field}: ${error.message}`).join('; ')}` : '';
  return `${label}: ${problem.detail}${fields}`;
};

/**
 * An operation's answer as a tool result: the body as written in a text block, and as
 * structuredContent with every number (amounts among them) written exactly as the body has it.
 */
export const toolResult = (response: OperationResponse): CallToolResult =>
  response.statusCode === 200
    ? { content: [{ type: 'text', text: response.body }], structuredContent: parseJsonKeepingNumbers(response.body) as Record<string, unknown> }
    : toolError(problemText(response));
