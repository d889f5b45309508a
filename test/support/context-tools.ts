import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { contextTools, type ContextTool } from '../../functions/mcp/context-tools';

/**
 * A context tool called in this process, its answer read as an MCP client reads it: written and
 * parsed again, as on the wire (structuredContent holds each number as the text it is written as).
 */
export const contextTool = (name: string) => {
  const tool = contextTools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`No context tool ${name}`);
  return { call: async (...args: Parameters<ContextTool['call']>) => JSON.parse(JSON.stringify(await tool.call(...args))) as CallToolResult };
};
