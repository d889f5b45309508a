import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authenticate } from '../../shared/identity/authorizer';
import { s, startStandInPool, type StandInPool } from '../support/stand-in-pool';

/**
 * The authorizer on API clients' (client-credentials) tokens: tokens signed with a key served as
 * the pool's JWKS, the client registry answered by a stand-in DynamoDB endpoint that counts its reads.
 */
describe('authorizer: API client tokens', () => {
  let pool: StandInPool;
  /** DynamoDB requests the stand-in answered. */
  let reads = 0;
  /** The registry's client, as the stand-in answers it. */
  let rotatedAt: string | undefined;

  beforeAll(async () => {
    pool = await startStandInPool((target) => {
      reads += 1;
      const client = {
        clientId: s('client-1'),
        name: s('Integration'),
        organizationId: s('org-1'),
        organizationPath: s('org-1'),
        mode: s('SYSTEM'),
        scopes: { L: [s('companies:read'), s('companies:write')] },
        plan: s('standard'),
        status: s('active'),
        createdAt: s('2026-01-01T00:00:00Z'),
        ...(rotatedAt && { rotatedAt: s(rotatedAt) }),
      };
      return target.endsWith('.GetItem') ? { Item: client } : {};
    });
  });

  beforeEach(() => {
    reads = 0;
    rotatedAt = undefined;
  });

  afterAll(() => pool.close());

  const sign = (claims: Record<string, unknown>, issuedAt?: number) =>
    pool.sign({ client_id: 'client-1', scope: 'ledger-api/companies:read', jti: crypto.randomUUID(), ...claims }, { subject: 'client-1', ...(issuedAt !== undefined && { issuedAt }) });

  it('decides once per token, however the Authorization header spells it (Bearer, bearer, extra spaces)', async () => {
    const token = await sign({});
    const first = await authenticate(`Bearer ${token}`, '/v1/companies');
    expect(first).toMatchObject({ authenticated: true, clientId: 'client-1' });
    expect(reads).toBe(1);
    for (const header of [`bearer ${token}`, `Bearer  ${token}`, `BEARER ${token} `]) {
      expect(await authenticate(header, '/v1/companies'), header).toEqual(first);
    }
    expect(reads).toBe(1);
    // A malformed header is still refused, and not taken for the token it contains.
    expect(await authenticate(`Token ${token}`, '/v1/companies')).toEqual({ authenticated: false, failure: 'malformed Authorization header' });
  });

  it("drops a scope without the resource server's prefix: only ledger-api/ scopes count", async () => {
    const token = await sign({ scope: 'companies:write ledger-api/companies:read other/companies:write' });
    expect(await authenticate(`Bearer ${token}`, '/v1/companies')).toMatchObject({ authenticated: true, scopes: 'companies:read' });
    const unprefixed = await sign({ scope: 'companies:read companies:write' });
    expect(await authenticate(`Bearer ${unprefixed}`, '/v1/companies')).toMatchObject({ authenticated: true, scopes: '' });
  });

  it("refuses a token issued in the second of a rotation dated within that second (rounded up, not down); takes one from the next second", async () => {
    const second = Math.floor(Date.now() / 1000) - 10;
    rotatedAt = new Date(second * 1000 + 400).toISOString();
    expect(await authenticate(`Bearer ${await sign({}, second)}`, '/v1/companies')).toEqual({ authenticated: false, failure: 'token issued before the client was rotated' });
    expect(await authenticate(`Bearer ${await sign({}, second + 1)}`, '/v1/companies')).toMatchObject({ authenticated: true });
    // A rotation dated on a whole second (as rotateApiClient dates them): tokens from that second on pass.
    rotatedAt = new Date(second * 1000).toISOString();
    expect(await authenticate(`Bearer ${await sign({}, second - 1)}`, '/v1/companies')).toEqual({ authenticated: false, failure: 'token issued before the client was rotated' });
    expect(await authenticate(`Bearer ${await sign({}, second)}`, '/v1/companies')).toMatchObject({ authenticated: true });
  });
});
