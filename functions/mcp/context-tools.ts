import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../shared/identity/principal';
import type { Scope } from '../../shared/identity/scopes';
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

export const contextTools: readonly ContextTool[] = [];
