import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startIdentityProvider, type IdentityProvider } from '../../infra/local/identity-provider';
import { localInteractiveClient } from '../../infra/local/authorization-server';
import { freePort } from '../../infra/local/ports';

/**
 * The local identity provider reads some bodies before oidc-provider does (to route a token
 * request, to drop a registration's scope) and hands them over as a readable request: the library
 * parses them itself and has nothing to warn about. Its own provider, in this process, so its
 * console is the one watched.
 */
let provider: IdentityProvider;
const warnings: string[] = [];

beforeAll(async () => {
  vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warnings.push(args.map(String).join(' ')));
  provider = await startIdentityProvider({ port: await freePort(), scopePrefix: 'ledger-api/', apiBaseUrl: 'http://127.0.0.1:9' });
});

afterAll(async () => {
  await provider?.stop();
  vi.restoreAllMocks();
});

describe('bodies the identity provider reads before oidc-provider', () => {
  it('a refresh-token grant reaches oidc-provider with its form intact', async () => {
    const response = await fetch(provider.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'not-a-token', client_id: localInteractiveClient.clientId }).toString(),
    });
    // The form was parsed: the client was found and the token judged (unknown), not "failed to parse".
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a registration with a scope is registered without it', async () => {
    const response = await fetch(provider.interactive.registrationUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none', client_name: 'Body test', scope: 'ledger-api/companies:read' }),
    });
    expect(response.status).toBe(201);
    const client = (await response.json()) as Record<string, unknown>;
    expect(client).toMatchObject({ client_name: 'Body test', redirect_uris: ['http://127.0.0.1/callback'] });
    expect(client.scope).toBeUndefined();
  });

  it('oidc-provider logged no "already parsed request body" warning', () => {
    expect(warnings.filter((warning) => warning.includes('already parsed'))).toEqual([]);
  });
});
