import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { OperationResponse } from '../../shared/api/runner';
import { parseJsonKeepingNumbers } from '../../shared/platform/json';

/** What a tool call came to, for its log line and metric: the code of a tool error, the HTTP status of the operation it ran. */
export interface ToolOutcome {
  /** The problem code of a tool error (`not_found`, `validation_failed`, `result_too_large`, ...). */
  error?: string;
  /** The status the operation answered (absent when the tool refused the call before running it). */
  status?: number;
}

const outcomes = new WeakMap<CallToolResult, ToolOutcome>();

const recorded = (result: CallToolResult, outcome: ToolOutcome): CallToolResult => {
  outcomes.set(result, outcome);
  return result;
};

/** The outcome of a result this module made (an empty one for any other). */
export const outcomeOf = (result: CallToolResult): ToolOutcome => outcomes.get(result) ?? {};

/** A tool error the model can act on: the text starts with the code (`not_found` as "not found"). */
export const toolError = (text: string, error: string, status?: number): CallToolResult =>
  recorded({ isError: true, content: [{ type: 'text', text }] }, { error, ...(status !== undefined && { status }) });

/** A problem as a tool error: its code (not_found as "not found"), its detail and the fields at fault. */
const problemError = (response: OperationResponse): CallToolResult => {
  const problem = JSON.parse(response.body) as { error: string; detail: string; errors?: { field: string; message: string }[] };
  const label = problem.error === 'not_found' ? 'not found' : problem.error;
  const fields = problem.errors?.length ? ` ${problem.errors.map((error) => `${error.field}: ${error.message}`).join('; ')}` : '';
  return toolError(`${label}: ${problem.detail}${fields}`, problem.error, response.statusCode);
};

/**
 * The most bytes of JSON one tool answers (its text block; structuredContent holds the same again).
 * JSON of the books runs at about 3-3.5 bytes a token, so 64 KiB is some 20k tokens: within what
 * an assistant's host takes from one tool (Claude Code cuts tool output at 25k tokens). A larger
 * answer is a tool error that tells the model how to narrow the request, not an answer cut short.
 */
export const toolTextBudgetBytes = 64 * 1024;

/**
 * An operation's answer as a tool result: the body as written in a text block, and as
 * structuredContent with every number (amounts among them) written exactly as the body has it.
 * `narrow` tells the model how to ask for less, should the body exceed toolTextBudgetBytes.
 */
export const toolResult = (response: OperationResponse, tool: string, narrow: string): CallToolResult => {
  if (response.statusCode !== 200) return problemError(response);
  const bytes = Buffer.byteLength(response.body, 'utf8');
  if (bytes > toolTextBudgetBytes) {
    return toolError(
      `result_too_large: ${tool} answered ${Math.ceil(bytes / 1024)} KB of JSON, more than the ${toolTextBudgetBytes / 1024} KB a tool answers (an assistant could not read it whole). ${narrow}`,
      'result_too_large',
      response.statusCode,
    );
  }
  return recorded(
    { content: [{ type: 'text', text: response.body }], structuredContent: parseJsonKeepingNumbers(response.body) as Record<string, unknown> },
    { status: response.statusCode },
  );
};
