import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../shared/identity/authorizer';
import { clientBindingFailure } from '../../shared/identity/client-binding';
import { s, startStandInPool, type StandInPool } from '../support/stand-in-pool';

/**
 * On AWS, Cognito user access tokens carry no `aud`: the app client binds a token to its resource,
 * as the local provider's `aud` does. The MCP client's tokens work on /mcp only (it may hold only the
 * tools' read scopes), the interactive (REST) client's on the REST API only.
 */
describe('client binding of Cognito user tokens (no aud)', () => {
  const clients = { interactiveClientIds: ['rest-client'], mcpClientIds: ['mcp-client'] };

  it('accepts an MCP client token on /mcp only', () => {
    expect(clientBindingFailure('mcp-client', '/mcp', clients)).toBeUndefined();
    expect(clientBindingFailure('mcp-client', '/mcp/anything', clients)).toBeUndefined();
    for (const path of ['/v1/companies', '/v1/whoami', '/', '/mcpx', '/v1/mcp']) expect(clientBindingFailure('mcp-client', path, clients), path).toBe('token issued for another audience');
  });

  it('accepts a REST interactive client token on the REST API only', () => {
    expect(clientBindingFailure('rest-client', '/v1/companies', clients)).toBeUndefined();
    expect(clientBindingFailure('rest-client', '/mcp', clients)).toBe('token issued for another audience');
  });

  it('refuses other clients everywhere, and binds a client in both lists to /mcp', () => {
    expect(clientBindingFailure('other', '/v1/companies', clients)).toBe('not an interactive client');
    expect(clientBindingFailure('other', '/mcp', clients)).toBe('not an interactive client');
    const both = { interactiveClientIds: ['c'], mcpClientIds: ['c'] };
    expect(clientBindingFailure('c', '/mcp', both)).toBeUndefined();
    expect(clientBindingFailure('c', '/v1/companies', both)).toBe('token issued for another audience');
  });
});

/**
 * The whole decision (authenticate): tokens signed with a key served as the pool's JWKS, and the
 * person's reads answered by a stand-in DynamoDB endpoint (an active person with one membership).
 */
describe('authorizer: Cognito-shaped user tokens per app client', () => {
  let pool: StandInPool;

  beforeAll(async () => {
    const person = { userId: s('person-1'), email: s('kari@example.test'), name: s('Kari Nordmann'), status: s('active'), createdAt: s('2026-01-01T00:00:00Z') };
    const membership = { userId: s('person-1'), organizationId: s('org-1'), createdAt: s('2026-01-01T00:00:00Z') };
    pool = await startStandInPool(
      (target) => (target.endsWith('.GetItem') ? { Item: person } : target.endsWith('.Query') ? { Items: [membership], Count: 1, ScannedCount: 1 } : {}),
      { INTERACTIVE_CLIENT_IDS: 'rest-client', MCP_CLIENT_IDS: 'mcp-client' },
    );
  });

  afterAll(() => pool.close());

  const bearer = async (claims: Record<string, unknown>) => `Bearer ${await pool.sign({ username: 'person-1', ...claims })}`;

  it('an MCP client token (no aud) is accepted on /mcp and refused on the REST API, reads and writes alike', async () => {
    const token = await bearer({ client_id: 'mcp-client', scope: 'ledger-api/companies:read ledger-api/context:read' });
    expect(await authenticate(token, '/mcp')).toMatchObject({ authenticated: true, mode: 'INTERACTIVE', clientId: 'mcp-client', userId: 'person-1', organizationIds: 'org-1', scopes: 'companies:read context:read' });
    // The existing failure path: a 401 (a problem; on /mcp with the RFC 9728 challenge), never a 500.
    for (const path of ['/v1/companies', '/v1/companies/0b6c3c0e-8d4e-4f7e-9a53-8f1f3f6b7a10/documents', '/v1/whoami']) {
      expect(await authenticate(token, path), path).toEqual({ authenticated: false, failure: 'token issued for another audience' });
    }
  });

  it('a REST interactive client token (no aud) is accepted on the REST API and refused on /mcp, as a local token bound to the API is', async () => {
    const token = await bearer({ client_id: 'rest-client', scope: 'ledger-api/companies:read ledger-api/companies:write' });
    expect(await authenticate(token, '/v1/companies')).toMatchObject({ authenticated: true, clientId: 'rest-client', scopes: 'companies:read companies:write' });
    expect(await authenticate(token, '/mcp')).toEqual({ authenticated: false, failure: 'token issued for another audience' });
  });

  it('a user token of any other app client is refused everywhere', async () => {
    const token = await bearer({ client_id: 'someone-else', scope: 'ledger-api/companies:read' });
    for (const path of ['/mcp', '/v1/companies']) expect(await authenticate(token, path), path).toEqual({ authenticated: false, failure: 'not an interactive client' });
  });

  it('a token with aud (the local provider) is still judged by its audience, whatever its client', async () => {
    process.env.API_AUDIENCE = 'https://api.example.test';
    try {
      const forMcp = await bearer({ client_id: 'rest-client', aud: 'https://api.example.test/mcp', scope: 'ledger-api/companies:read' });
      expect(await authenticate(forMcp, '/mcp')).toMatchObject({ authenticated: true });
      expect(await authenticate(forMcp, '/v1/companies')).toEqual({ authenticated: false, failure: 'token issued for another audience' });
      const forApi = await bearer({ client_id: 'mcp-client', aud: 'https://api.example.test', scope: 'ledger-api/companies:read' });
      expect(await authenticate(forApi, '/v1/companies')).toMatchObject({ authenticated: true });
      expect(await authenticate(forApi, '/mcp')).toEqual({ authenticated: false, failure: 'token issued for another audience' });
    } finally {
      delete process.env.API_AUDIENCE;
    }
  });
});
