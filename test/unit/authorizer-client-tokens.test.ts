import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authenticate } from '../../shared/identity/authorizer';

/**
 * The authorizer on API clients' (client-credentials) tokens: tokens signed with a key served as
 * the pool's JWKS, the client registry answered by a stand-in DynamoDB endpoint that counts its reads.
 */
describe('authorizer: API client tokens', () => {
  let server: Server;
  let issuer: string;
  let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  /** DynamoDB requests the stand-in answered. */
  let reads = 0;
  /** The registry's client, as the stand-in answers it. */
  let rotatedAt: string | undefined;
  const variables = ['JWT_ISSUER', 'JWKS_URI', 'TABLE_NAME', 'DYNAMODB_ENDPOINT', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'API_AUDIENCE', 'SCOPE_PREFIX', 'AUTHORIZER_CACHE_TTL_SECONDS'];
  const saved = Object.fromEntries(variables.map((name) => [name, process.env[name]]));

  beforeAll(async () => {
    const keys = await generateKeyPair('RS256');
    privateKey = keys.privateKey;
    const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'pool-key', alg: 'RS256', use: 'sig' };
    const s = (value: string) => ({ S: value });
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.url === '/jwks.json') {
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
          return;
        }
        reads += 1;
        const target = String(request.headers['x-amz-target'] ?? '');
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
        response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(target.endsWith('.GetItem') ? { Item: client } : {}));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    issuer = `${base}/client-pool`;
    Object.assign(process.env, {
      JWT_ISSUER: issuer,
      JWKS_URI: `${base}/jwks.json`,
      TABLE_NAME: 'books',
      DYNAMODB_ENDPOINT: base,
      AWS_REGION: 'eu-north-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      SCOPE_PREFIX: 'ledger-api/',
    });
    delete process.env.API_AUDIENCE; // as on AWS
  });

  beforeEach(() => {
    reads = 0;
    rotatedAt = undefined;
  });

  afterAll(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await new Promise((resolve) => server.close(resolve));
  });

  const sign = (claims: Record<string, unknown>, issuedAt = Math.floor(Date.now() / 1000)) =>
    new SignJWT({ token_use: 'access', client_id: 'client-1', scope: 'ledger-api/companies:read', jti: crypto.randomUUID(), ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'pool-key' })
      .setIssuer(issuer)
      .setSubject('client-1')
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + 3600)
      .sign(privateKey);

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
