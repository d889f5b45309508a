import { describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { AdministrationError, deleteOrganization, createOrganization, rotateApiClient } from '../../shared/administration/service';
import { createTestClient } from '../support/clients';
import { apiClientRepository } from '../../shared/identity/api-client-repository';
import { localCredentialIssuer, type CredentialIssuer } from '../../shared/identity/credential-issuers';
import { localPersonDirectory } from '../../shared/identity/person-directories';
import { api, expectProblem, fetchToken, tokenFor } from '../support/api';
import { seededClient, testStack } from '../support/stack';
import { observingCalls } from '../support/sdk-calls';
import { dynamo } from '../../shared/platform/aws';

/** Waits out the authorizer's decision cache (the test stack shortens it to a second): afterwards no answer cached before can be served. */
const authorizerCacheExpired = () => new Promise((done) => setTimeout(done, testStack().authorizerCacheTtlSeconds * 1000 + 50));

const tokenRequest = (init: { body: string; headers?: Record<string, string> }) =>
  fetch(testStack().authUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...init.headers }, body: init.body });

describe('token endpoint (local Cognito stand-in)', () => {
  it('issues a Cognito-shaped M2M access token for a form-body client', async () => {
    const client = seededClient('a-readonly');
    const response = await fetchToken(client.clientId, client.clientSecret);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as { access_token: string; token_type: string; expires_in: number };
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBe(3600);
    const claims = decodeJwt(body.access_token);
    expect(claims).toMatchObject({ iss: testStack().internal.jwtIssuer, sub: client.clientId, client_id: client.clientId, token_use: 'access' });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(typeof claims.jti).toBe('string');
    expect(String(claims.scope).split(' ').sort()).toEqual(client.scopes.map((s) => `ledger-api/${s}`).sort());
    expect(decodeProtectedHeader(body.access_token).alg).toBe('RS256');
  });

  it('accepts HTTP Basic client authentication', async () => {
    const client = seededClient('b-system');
    const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
    const response = await tokenRequest({ body: 'grant_type=client_credentials', headers: { authorization: `Basic ${basic}` } });
    expect(response.status).toBe(200);
  });

  it('answers a wrong secret and an unknown client with 401 {"error":"invalid_client"}', async () => {
    const client = seededClient('b-system');
    for (const [id, secret] of [[client.clientId, 'wrong'], ['nosuchclient', client.clientSecret]] as const) {
      const response = await fetchToken(id, secret);
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: string }).error).toBe('invalid_client');
    }
  });

  it('answers an unsupported grant, a missing grant, a foreign scope and a wrong content type with OAuth errors', async () => {
    const client = seededClient('a-readonly');
    const credentials = `client_id=${client.clientId}&client_secret=${encodeURIComponent(client.clientSecret)}`;
    const cases: [string, Record<string, string> | undefined, number, string][] = [
      [`grant_type=password&${credentials}`, undefined, 400, 'unsupported_grant_type'],
      [credentials, undefined, 400, 'invalid_request'],
      [`grant_type=client_credentials&scope=ledger-api/companies:write&${credentials}`, undefined, 400, 'invalid_scope'],
      [`grant_type=client_credentials&${credentials}`, { 'content-type': 'application/json' }, 400, 'invalid_request'],
    ];
    for (const [body, headers, status, error] of cases) {
      const response = await tokenRequest({ body, ...(headers && { headers }) });
      expect({ status: response.status, error: ((await response.json()) as { error: string }).error }).toEqual({ status, error });
    }
  });

  it('answers Basic credentials that do not percent-decode with 401 invalid_client and a Basic challenge', async () => {
    const client = seededClient('b-system');
    const basic = Buffer.from(`${client.clientId}:%zz`).toString('base64');
    const response = await tokenRequest({ body: 'grant_type=client_credentials', headers: { authorization: `Basic ${basic}` } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic\b/);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_client');
  });

  it('treats an empty scope parameter as none: the token carries the client\'s granted scopes', async () => {
    const client = seededClient('a-readonly');
    const response = await tokenRequest({ body: `grant_type=client_credentials&scope=&client_id=${client.clientId}&client_secret=${encodeURIComponent(client.clientSecret)}` });
    expect(response.status).toBe(200);
    const token = ((await response.json()) as { access_token: string }).access_token;
    expect((await api('GET', '/v1/companies', { token })).status).toBe(200);
  });

  it('narrows a token to requested scopes the client holds', async () => {
    const client = seededClient('a-system');
    const response = await tokenRequest({
      body: `grant_type=client_credentials&scope=${encodeURIComponent('ledger-api/companies:read')}&client_id=${client.clientId}&client_secret=${encodeURIComponent(client.clientSecret)}`,
    });
    const token = ((await response.json()) as { access_token: string }).access_token;
    expect((await api('GET', '/v1/whoami', { token })).body.scopes).toEqual(['companies:read']);
    expectProblem(await api('POST', '/v1/companies', { token, body: { displayName: 'X AS', accountingSystem: 'Api' } }), 403, 'insufficient_scope');
  });

  it('serves JWKS and OpenID discovery', async () => {
    const { jwtIssuer, jwksUri } = testStack().internal;
    const discovery = (await (await fetch(`${jwtIssuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({ issuer: jwtIssuer, jwks_uri: jwksUri, token_endpoint: testStack().authUrl });
    const jwks = (await (await fetch(jwksUri)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });

  it('stores secrets hashed, and a rotation stops the old secret at once', async () => {
    testStack();
    const { client, clientSecret } = await createTestClient({ name: 'rotation-test', organizationId: seededClient('b-system').organizationId });
    const stored = await apiClientRepository.get(client.clientId);
    expect(stored?.secretHash).toMatch(/^scrypt\$/);
    expect(JSON.stringify(stored)).not.toContain(clientSecret);
    expect((await fetchToken(client.clientId, clientSecret)).status).toBe(200);
    const { clientSecret: rotated } = await rotateApiClient(client.clientId, localCredentialIssuer);
    expect((await fetchToken(client.clientId, clientSecret)).status).toBe(401);
    expect((await fetchToken(client.clientId, rotated)).status).toBe(200);
  });
});

describe('client rotation', () => {
  it('stores the new secret and the rotation date in one write (a crash leaves the old secret or the new one, never neither)', async () => {
    testStack();
    const { client } = await createTestClient({ name: 'one-write', organizationId: seededClient('b-system').organizationId });
    const writes: string[] = [];
    await observingCalls(
      dynamo(),
      (command, input) => {
        if (command !== 'UpdateCommand' && command !== 'UpdateItemCommand') return;
        if (JSON.stringify(input.Key).includes(client.clientId)) writes.push(Object.values(input.ExpressionAttributeNames as Record<string, string>).filter((name) => name === 'secretHash' || name === 'rotatedAt').sort().join('+'));
      },
      () => rotateApiClient(client.clientId, localCredentialIssuer),
    );
    expect(writes.filter((names) => names.includes('secretHash'))).toEqual(['rotatedAt+secretHash']);
  });


  /** Waits until the clock passes into the next whole second (token iat is in whole seconds). */
  const nextSecond = () => new Promise((done) => setTimeout(done, 1000 - (Date.now() % 1000) + 20));

  it('ends the tokens of the old secret too, within the authorizer cache TTL; the new secret\'s tokens work', async () => {
    testStack();
    const { client, clientSecret } = await createTestClient({ name: 'leaked', organizationId: seededClient('b-system').organizationId });
    const leaked = await tokenFor(client.clientId, clientSecret);
    expect((await api('GET', '/v1/whoami', { token: leaked })).status).toBe(200);
    await nextSecond();
    const { clientSecret: rotated } = await rotateApiClient(client.clientId, localCredentialIssuer);
    const fresh = await tokenFor(client.clientId, rotated);
    expect((await api('GET', '/v1/whoami', { token: fresh })).status).toBe(200);
    await authorizerCacheExpired();
    expectProblem(await api('GET', '/v1/whoami', { token: leaked }), 401, 'invalid_token');
    expect((await api('GET', '/v1/whoami', { token: fresh })).status).toBe(200);
  });

  it('refuses every token the old secret got while the rotation ran, requests in flight included; the new secret works as soon as the rotation returns', async () => {
    const { client, clientSecret } = await createTestClient({ name: 'leaked-while-rotating', organizationId: seededClient('b-system').organizationId });
    await nextSecond();
    // Whoever holds the leaked secret keeps asking for tokens, several requests at a time, until the rotation has returned.
    let rotating = true;
    const leaked: string[] = [await tokenFor(client.clientId, clientSecret)];
    const keepAsking = async () => {
      while (rotating) {
        const response = await fetchToken(client.clientId, clientSecret);
        if (response.status === 200) leaked.push(((await response.json()) as { access_token: string }).access_token);
        else await response.body?.cancel();
      }
    };
    const askers = Array.from({ length: 4 }, keepAsking);
    const { clientSecret: rotated } = await rotateApiClient(client.clientId, localCredentialIssuer);
    rotating = false;
    await Promise.all(askers);
    // The last ones were issued closest to the rotation (none was used before: no cached decision).
    for (const token of leaked.slice(-6)) expectProblem(await api('GET', '/v1/whoami', { token }), 401, 'invalid_token');
    expect((await api('GET', '/v1/whoami', { token: await tokenFor(client.clientId, rotated) })).status).toBe(200);
  });

  it('dates the rotation on the whole second after the old secret ended (after the issuer returned and the new hash was stored), and hands the secret out from then on', async () => {
    const { client } = await createTestClient({ name: 'rotation-date', organizationId: seededClient('b-system').organizationId });
    let issuerReturnedAt = 0;
    const timed: CredentialIssuer = {
      ...localCredentialIssuer,
      rotate: async (clientId) => {
        const rotation = await localCredentialIssuer.rotate(clientId);
        issuerReturnedAt = Date.now();
        return rotation;
      },
    };
    await rotateApiClient(client.clientId, timed);
    const returnedAt = Date.now();
    const rotatedAt = Date.parse((await apiClientRepository.get(client.clientId))!.rotatedAt!);
    expect(rotatedAt % 1000).toBe(0);
    expect(rotatedAt).toBeGreaterThan(issuerReturnedAt);
    expect(returnedAt).toBeGreaterThanOrEqual(rotatedAt);
  });

  it('refuses a revoked client, also one revoked during the rotation: no secret is stored', async () => {
    const { client, clientSecret } = await createTestClient({ name: 'revoked-meanwhile', organizationId: seededClient('b-system').organizationId });
    const revokedMeanwhile: CredentialIssuer = {
      ...localCredentialIssuer,
      rotate: async (clientId) => {
        await apiClientRepository.revoke(clientId, new Date().toISOString());
        return localCredentialIssuer.rotate(clientId);
      },
    };
    await expect(rotateApiClient(client.clientId, revokedMeanwhile)).rejects.toThrow(new AdministrationError(`Client ${client.clientId} is revoked`));
    expect((await apiClientRepository.get(client.clientId))?.secretHash).toBeUndefined();
    await expect(rotateApiClient(client.clientId, localCredentialIssuer)).rejects.toThrow(new AdministrationError(`Client ${client.clientId} is revoked`));
    expect((await apiClientRepository.get(client.clientId))?.secretHash).toBeUndefined();
    expect((await fetchToken(client.clientId, clientSecret)).status).toBe(401);
  });

  it('of two overlapping rotations the later one is refused before it changes anything ("in progress"), and the secret of the first works', async () => {
    const { client } = await createTestClient({ name: 'rotated-twice', organizationId: seededClient('b-system').organizationId });
    for (let round = 0; round < 2; round++) {
      // Round 0: never rotated before; round 1: rotated before.
      let overlapping: Promise<unknown> | undefined;
      const overlapped: CredentialIssuer = {
        ...localCredentialIssuer,
        rotate: async (clientId) => {
          overlapping = rotateApiClient(clientId, localCredentialIssuer).then(
            () => 'rotated',
            (error: unknown) => error,
          );
          await overlapping;
          return localCredentialIssuer.rotate(clientId);
        },
      };
      const { clientSecret } = await rotateApiClient(client.clientId, overlapped);
      expect(await overlapping).toEqual(new AdministrationError(`Another rotation of client ${client.clientId} is in progress; try again when it has ended`));
      expect((await fetchToken(client.clientId, clientSecret)).status).toBe(200);
    }
    // A rotation that failed gives its claim up: the next one runs.
    const failing: CredentialIssuer = { ...localCredentialIssuer, rotate: () => Promise.reject(new Error('Cognito is throttling')) };
    await expect(rotateApiClient(client.clientId, failing)).rejects.toThrow('Cognito is throttling');
    const { clientSecret } = await rotateApiClient(client.clientId, localCredentialIssuer);
    expect((await fetchToken(client.clientId, clientSecret)).status).toBe(200);
  });
});

describe('token verification by the authorizer', () => {
  const forge = async (claims: Record<string, unknown>, options: { expired?: boolean } = {}) => {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const jwk = await exportJWK(publicKey);
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'forged' })
      .setIssuer(testStack().internal.jwtIssuer)
      .setIssuedAt(options.expired ? now - 7200 : now)
      .setExpirationTime(options.expired ? now - 3600 : now + 3600)
      .sign(privateKey)
      .then((token) => ({ token, jwk }));
  };

  it('refuses a token signed with another key', async () => {
    const client = seededClient('a-system');
    const { token } = await forge({ client_id: client.clientId, sub: client.clientId, token_use: 'access', scope: 'ledger-api/companies:read' });
    expectProblem(await api('GET', '/v1/whoami', { token }), 401, 'invalid_token');
  });

  it('deleting an organization revokes the clients of it and of its descendants: no new tokens, issued ones refused', async () => {
    testStack();
    const parent = await createOrganization({ name: 'Closing soon' });
    const child = await createOrganization({ name: 'Closing soon, branch', parentId: parent.id });
    const { client, clientSecret } = await createTestClient({ name: 'doomed', organizationId: child.id });
    const token = await tokenFor(client.clientId, clientSecret);
    expect((await api('GET', '/v1/whoami', { token })).status).toBe(200);
    const company = await api('POST', '/v1/companies', { token, body: { displayName: 'Branch AS', accountingSystem: 'Api' } });
    expect(company.status).toBe(201);

    const result = await deleteOrganization(parent.id, 'test', { issuer: localCredentialIssuer, directory: localPersonDirectory });
    expect(result).toEqual({ companiesDeleted: 1, organizationsDeleted: 2, clientsRevoked: 1, subscriptionsDeleted: 0, policiesDeleted: 0, membershipsEnded: 0, usersDeleted: 0 });
    // The revocation bound: the authorizer may answer from its decision cache for one TTL at most.
    await authorizerCacheExpired();
    expectProblem(await api('GET', '/v1/whoami', { token }), 401, 'invalid_token');
    const again = await fetchToken(client.clientId, clientSecret);
    expect(again.status).toBe(401);
    expect(((await again.json()) as { error: string }).error).toBe('invalid_client');
    await expect(createOrganization({ name: 'Under a deleted parent', parentId: child.id })).rejects.toThrow(/not found/);
  });

  it('a scope withdrawn from a client stops working within the authorizer cache TTL, in tokens already issued', async () => {
    const { dynamo, tableName } = await import('../../shared/platform/aws');
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { apiClientKeys } = await import('../../shared/identity/keys');
    const organization = await createOrganization({ name: 'Narrowing firm' });
    const { client, clientSecret } = await createTestClient({ name: 'narrowed', organizationId: organization.id });
    const token = await tokenFor(client.clientId, clientSecret);
    expect((await api('GET', '/v1/companies', { token })).status).toBe(200);
    const kept = client.scopes.filter((scope) => scope !== 'companies:read');
    await dynamo().send(new UpdateCommand({ TableName: tableName(), Key: apiClientKeys(client.clientId), UpdateExpression: 'SET scopes = :scopes', ExpressionAttributeValues: { ':scopes': kept } }));
    await authorizerCacheExpired();
    expectProblem(await api('GET', '/v1/companies', { token }), 403, 'insufficient_scope');
    expect((await api('GET', '/v1/whoami', { token })).body.scopes).toEqual(kept);
  });

  it('refuses a token for an unknown route with 404 before anything else, and a bad token on a public route is ignored', async () => {
    expectProblem(await api('GET', '/v1/nowhere', { token: 'garbage' }), 404, 'route_not_found');
    expect((await api('GET', '/v1/openapi.json', { token: 'garbage' })).status).toBe(200);
  });
});
