import { describe, expect, it } from 'vitest';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { createMcpServer } from '../../functions/mcp/server';
import type { Principal } from '../../shared/identity/principal';

const principal = { mode: 'SYSTEM', clientId: 'c', organizationId: 'o', scopes: [] } as unknown as Principal;
/** The validator the SDK's Server keeps (a private field: this test fails loudly if the SDK renames it). */
const validatorOf = (server: Server) => (server as unknown as { _jsonSchemaValidator: jsonSchemaValidator })._jsonSchemaValidator;

describe('the MCP server of one request', () => {
  it('shares one JSON Schema validator across requests instead of building ajv per server, and it validates', () => {
    const first = validatorOf(createMcpServer(principal, 'r1'));
    expect(first).toBeDefined();
    expect(validatorOf(createMcpServer(principal, 'r2'))).toBe(first);
    const check = first.getValidator<{ name: string }>({ type: 'object', properties: { name: { type: 'string', maxLength: 3 } }, required: ['name'] });
    expect(check({ name: 'abc' })).toEqual({ valid: true, data: { name: 'abc' }, errorMessage: undefined });
    expect(check({ name: 'abcd' }).valid).toBe(false);
    expect(check({}).errorMessage).toMatch(/name/);
  });
});
