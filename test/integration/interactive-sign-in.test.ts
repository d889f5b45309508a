import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectProblem } from '../support/api';
import { testStack } from '../support/stack';
import { runTool } from '../support/tools';
import { personKeys } from '../../shared/identity/person-keys';
import { membershipItem, personRepository } from '../../shared/identity/person-repository';
import { controlTableName, dynamo, tableName } from '../../shared/platform/aws';
import { rateLimitKeys } from '../../shared/platform/keys';
import { Browser, codeOf, createPerson, exchangeCode, loopbackRedirect, prefixed, signIn, startAuthorization, submit, tokenRequest, type Tokens } from '../support/sign-in';
import type { Json } from '../support/json';

/** Interactive sign-in (authorization code + PKCE) through the local login and consent pages, over HTTP. */
describe('interactive sign-in', () => {
  let person: Awaited<ReturnType<typeof createPerson>>;
  let organizationIds: string[];

  beforeAll(async () => {
    const [first, second] = testStack().organizations;
    person = await createPerson(first!.id, 'Ingrid Interactive');
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: membershipItem({ userId: person.userId, organizationId: second!.id, createdAt: new Date().toISOString() }) }));
    organizationIds = (await personRepository.memberships(person.userId)).map((m) => m.organizationId);
    expect(organizationIds.sort()).toEqual([first!.id, second!.id].sort());
  });

  const signInAs = (scopes: string[], extra: { resource?: string; clientId?: string; redirectUri?: string } = {}, browser?: Browser) =>
    signIn(person, { scopes, ...extra }, browser);

  it('publishes RFC 8414 metadata and OpenID discovery with PKCE S256, registration and every grant', async () => {
    const { interactive } = testStack();
    const metadata = async (name: string) => (await (await fetch(`${interactive.issuer}/.well-known/${name}`)).json()) as Record<string, Json>;
    const [oauth, openid] = [await metadata('oauth-authorization-server'), await metadata('openid-configuration')];
    expect(oauth).toEqual(openid);
    expect(oauth).toMatchObject({
      issuer: interactive.issuer,
      authorization_endpoint: interactive.authorizationUrl,
      token_endpoint: interactive.tokenUrl,
      registration_endpoint: interactive.registrationUrl,
      jwks_uri: testStack().internal.jwksUri,
      code_challenge_methods_supported: ['S256'],
    });
    expect([...oauth.grant_types_supported].sort()).toEqual(['authorization_code', 'client_credentials', 'refresh_token']);
    // Authorization code + PKCE only: no implicit or hybrid response types.
    expect(oauth.response_types_supported).toEqual(['code']);
    expect(oauth.scopes_supported).toEqual(expect.arrayContaining(prefixed(['context:read', 'companies:read'])));
    expect(interactive.redirectUris).toEqual(['http://127.0.0.1/callback']);
  });

  it('signs a person in: login, consent, code + verifier, and whoami answers INTERACTIVE with the person and their organizations', async () => {
    const tokens = await signInAs(['companies:read', 'context:read']);
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.scope.split(' ').sort()).toEqual(prefixed(['companies:read', 'context:read']).sort());
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ iss: testStack().interactive.issuer, aud: testStack().baseUrl, token_use: 'access', username: person.userId, client_id: testStack().interactive.clientId });

    const whoami = await api('GET', '/v1/whoami', { token: tokens.access_token });
    expect(whoami.status).toBe(200);
    expect({ ...whoami.body, organizationIds: [...whoami.body.organizationIds].sort() }).toEqual({
      clientId: testStack().interactive.clientId,
      mode: 'INTERACTIVE',
      organizationId: null,
      userId: person.userId,
      organizationIds: [...organizationIds].sort(),
      scopes: ['companies:read', 'context:read'],
    });
  });

  it('refuses a wrong password on the login page and signs in with the right one', async () => {
    const browser = new Browser();
    const started = await startAuthorization(browser, { scopes: ['companies:read'] });
    const refused = await submit(browser, started.landing, { email: person.email, password: 'not-the-password' }, started.redirectUri);
    expect(refused).toMatchObject({ kind: 'page', status: 401 });
    expect(refused.kind === 'page' && refused.html).toContain('Wrong e-mail address or password');
    const consent = await submit(browser, refused, { email: person.email, password: person.password }, started.redirectUri);
    expect(consent.kind === 'page' && consent.html).toContain('name="decision"');
  });

  const codeFor = async (scopes: string[]) => {
    const browser = new Browser();
    const started = await startAuthorization(browser, { scopes });
    const consent = await submit(browser, started.landing, { email: person.email, password: person.password }, started.redirectUri);
    return { ...started, code: codeOf(await submit(browser, consent, { decision: 'allow' }, started.redirectUri), started.state) };
  };

  it('refuses a wrong code verifier, and the failed attempt burns the code', async () => {
    const { code, pkce, redirectUri } = await codeFor(['companies:read']);
    const wrong = await exchangeCode(code, `${pkce.verifier}x`, redirectUri);
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: string }).error).toBe('invalid_grant');
    const right = await exchangeCode(code, pkce.verifier, redirectUri);
    expect(right.status).toBe(400);
    expect(((await right.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('redeems a code once: a second exchange is refused', async () => {
    const { code, pkce, redirectUri } = await codeFor(['companies:read']);
    expect((await exchangeCode(code, pkce.verifier, redirectUri)).status).toBe(200);
    const again = await exchangeCode(code, pkce.verifier, redirectUri);
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('accepts S256 only', async () => {
    const browser = new Browser();
    const started = await startAuthorization(browser, { scopes: ['companies:read'], codeChallengeMethod: 'plain' });
    expect(started.landing.kind).toBe('callback');
    expect(started.landing.kind === 'callback' && started.landing.url.searchParams.get('error')).toBe('invalid_request');
  });

  it('sends access_denied to the application when the person denies consent', async () => {
    const browser = new Browser();
    const started = await startAuthorization(browser, { scopes: ['ledger:read'] });
    const consent = await submit(browser, started.landing, { email: person.email, password: person.password }, started.redirectUri);
    const denied = await submit(browser, consent, { decision: 'deny' }, started.redirectUri);
    expect(denied.kind).toBe('callback');
    if (denied.kind !== 'callback') return;
    expect(denied.url.searchParams.get('error')).toBe('access_denied');
    expect(denied.url.searchParams.get('code')).toBeNull();
    expect(denied.url.searchParams.get('state')).toBe(started.state);
  });

  it('never grants the scopes reserved for system clients, even when asked for them', async () => {
    const browser = new Browser();
    const asked = ['companies:read', 'users:read', 'access:manage', 'webhooks:manage', 'imports:write'];
    const started = await startAuthorization(browser, { scopes: asked });
    const consent = await submit(browser, started.landing, { email: person.email, password: person.password }, started.redirectUri);
    expect(consent.kind === 'page' && consent.html).toContain('<li>companies:read</li>');
    for (const scope of asked.slice(1)) expect(consent.kind === 'page' && consent.html).not.toContain(scope);
    const code = codeOf(await submit(browser, consent, { decision: 'allow' }, started.redirectUri), started.state);
    const tokens = (await (await exchangeCode(code, started.pkce.verifier, started.redirectUri)).json()) as Tokens;
    expect(tokens.scope).toBe(prefixed(['companies:read'])[0]);
    expect((await api('GET', '/v1/whoami', { token: tokens.access_token })).body.scopes).toEqual(['companies:read']);
  });

  it('refreshes with the same scopes and refuses a refresh that asks for more', async () => {
    const tokens = await signInAs(['companies:read', 'ledger:read']);
    expect(tokens.refresh_token).toBeTruthy();
    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: testStack().interactive.clientId });
    expect(refreshed.status).toBe(200);
    const body = (await refreshed.json()) as Tokens;
    expect(body.scope.split(' ').sort()).toEqual(prefixed(['companies:read', 'ledger:read']).sort());
    expect((await api('GET', '/v1/whoami', { token: body.access_token })).body.scopes).toEqual(['companies:read', 'ledger:read']);

    const wider = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: body.refresh_token!,
      client_id: testStack().interactive.clientId,
      scope: prefixed(['companies:read', 'ledger:read', 'vat:read']).join(' '),
    });
    expect(wider.status).toBe(400);
    expect(((await wider.json()) as { error: string }).error).toBe('invalid_scope');
  });

  it('binds tokens to their resource: an MCP token is refused by the REST API, an unknown resource is refused', async () => {
    const mcp = await signInAs(['companies:read'], { resource: `${testStack().baseUrl}/mcp` });
    expect(decodeJwt(mcp.access_token).aud).toBe(`${testStack().baseUrl}/mcp`);
    expectProblem(await api('GET', '/v1/whoami', { token: mcp.access_token }), 401, 'invalid_token');

    const browser = new Browser();
    const started = await startAuthorization(browser, { scopes: ['companies:read'], resource: 'https://elsewhere.example/api' });
    expect(started.landing.kind === 'callback' && started.landing.url.searchParams.get('error')).toBe('invalid_target');
  });

  it('registers a client dynamically (RFC 7591); it signs in, and a new scope needs consent again', async () => {
    const redirectUri = loopbackRedirect();
    const registration = await fetch(testStack().interactive.registrationUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Registered connector', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }),
    });
    expect(registration.status).toBe(201);
    const client = (await registration.json()) as { client_id: string };

    const browser = new Browser();
    const first = await signInAs(['companies:read'], { clientId: client.client_id, redirectUri }, browser);
    expect((await api('GET', '/v1/whoami', { token: first.access_token })).body).toMatchObject({ clientId: client.client_id, mode: 'INTERACTIVE', userId: person.userId });

    // The same scopes again in the same browser: no login, no consent.
    const again = await startAuthorization(browser, { clientId: client.client_id, redirectUri, scopes: ['companies:read'] });
    expect(again.landing.kind).toBe('callback');
    codeOf(again.landing, again.state);

    // One more scope: the consent page asks for exactly the new one.
    const wider = await startAuthorization(browser, { clientId: client.client_id, redirectUri, scopes: ['companies:read', 'documents:read'] });
    expect(wider.landing.kind === 'page' && wider.landing.html).toContain('<li>documents:read</li>');
    expect(wider.landing.kind === 'page' && wider.landing.html).not.toContain('<li>companies:read</li>');
  });

  it('counts the rate limit per person, not per shared public client', async () => {
    const other = await createPerson(testStack().organizations[0]!.id, 'Second Person');
    const [mine, theirs] = [await signInAs(['companies:read']), await signIn(other, { scopes: ['companies:read'] })];
    const whoami = (token: string) => api('GET', '/v1/whoami', { token });
    const mineFirst = await whoami(mine.access_token);
    await whoami(mine.access_token);
    await whoami(mine.access_token);
    const limit = Number(mineFirst.headers.get('ratelimit-limit'));
    // The other person's first request starts a bucket of its own, full but for this request,
    // however long the three above took (a shared bucket would show them).
    const theirsFirst = await whoami(theirs.access_token);
    expect(Number(theirsFirst.headers.get('ratelimit-remaining'))).toBe(limit - 1);
    // One rate item per person within the shared public client.
    const clientId = mineFirst.body.clientId as string;
    expect(theirsFirst.body.clientId).toBe(clientId);
    for (const userId of [mineFirst.body.userId as string, theirsFirst.body.userId as string]) {
      const { Item } = await dynamo().send(new GetCommand({ TableName: controlTableName(), Key: rateLimitKeys(`${clientId}/${userId}`), ConsistentRead: true }));
      expect(Number(Item?.tat), `a rate bucket for ${userId}`).toBeGreaterThan(0);
    }
  });

  it('refuses an interactive token once the person is deleted (within the authorizer\'s decision TTL)', async () => {
    const other = await createPerson(testStack().organizations[0]!.id, 'Short-lived');
    const tokens = await signIn(other, { scopes: ['companies:read'] });
    expect((await api('GET', '/v1/whoami', { token: tokens.access_token })).status).toBe(200);
    await dynamo().send(new UpdateCommand({ TableName: tableName(), Key: personKeys(other.userId), UpdateExpression: 'SET #s = :d', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':d': 'deleted' } }));
    await new Promise((done) => setTimeout(done, testStack().authorizerCacheTtlSeconds * 1000 + 50));
    expectProblem(await api('GET', '/v1/whoami', { token: tokens.access_token }), 401, 'invalid_token');
  });

  it('npm run sign-in prints an access token of the person (the scripted sign-in of the README)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sign-in-'));
    try {
      writeFileSync(join(dir, 'stack.json'), JSON.stringify(testStack()));
      const run = (args: string[]) => promisify(execFile)('node_modules/.bin/tsx', ['infra/tools/sign-in.ts', '--stack-file', join(dir, 'stack.json'), ...args]);
      const { stdout } = await run(['--email', person.email, '--password', person.password, '--scope', 'companies:read,context:read']);
      const whoami = await api('GET', '/v1/whoami', { token: stdout.trim() });
      expect(whoami.body).toMatchObject({ mode: 'INTERACTIVE', userId: person.userId, scopes: ['companies:read', 'context:read'] });
      await expect(run(['--email', person.email, '--password', 'wrong'])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('Wrong e-mail address or password') });
      // A password may start with a dash: it is still the value of --password.
      const dashed = await createPerson(testStack().organizations[0]!.id, 'Dashed Password', '-dash-first-Secret1');
      const signedIn = await run(['--email', dashed.email, '--password', dashed.password, '--scope', 'companies:read']);
      expect((await api('GET', '/v1/whoami', { token: signedIn.stdout.trim() })).body).toMatchObject({ userId: dashed.userId });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('npm run sign-in: -h prints its usage, a missing --email is a usage error (exit 2), a stopped stack says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sign-in-'));
    try {
      // A port nothing listens on (one just let go of): connections to it are refused.
      const server = createServer();
      await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
      const closed = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await new Promise((done) => server.close(done));
      const stack = testStack();
      writeFileSync(join(dir, 'stale.json'), JSON.stringify({ ...stack, baseUrl: closed, authUrl: `${closed}/oauth2/token`, interactive: { ...stack.interactive, authorizationUrl: `${closed}/oauth2/authorize`, tokenUrl: `${closed}/oauth2/token` } }));
      const run = (args: string[]) => runTool('infra/tools/sign-in.ts', '--stack-file', join(dir, 'stale.json'), ...args);
      const help = await run(['-h']);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toContain('Usage: npm run -s sign-in');
      const missing = await run(['--password', 'x']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('--email and --password are required');
      const stale = await run(['--email', 'someone@example.com', '--password', 'x']);
      expect(stale.code, stale.stderr).toBe(1);
      expect(stale.stderr).toContain(`Cannot reach ${closed}: is the local stack still running? Start it with npm start.`);
      expect(stale.stderr).not.toContain('fetch failed');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

});

describe('the seeded accountant, signed in interactively', () => {
  it('sees only her companies; users and access management answer 403 system_client_required', async () => {
    const kari = testStack().people[0]!;
    const tokens = await signIn(kari, { scopes: ['companies:read', 'ledger:read'] });
    const token = tokens.access_token;
    const whoami = await api('GET', '/v1/whoami', { token });
    expect(whoami.body).toEqual({ clientId: testStack().interactive.clientId, mode: 'INTERACTIVE', organizationId: null, userId: kari.userId, organizationIds: [kari.organizationId], scopes: ['companies:read', 'ledger:read'] });
    const listed = (await api('GET', '/v1/companies?page_size=200', { token })).body.data.map((c: { name: string }) => c.name).sort();
    expect(listed).toEqual(['Bakeriet Solsiden AS', 'Havbris Fiskeri AS']);
    const others = testStack().companies.filter((c) => !listed.includes(c.name));
    expect(others.length).toBeGreaterThan(0);
    for (const company of others) expectProblem(await api('GET', `/v1/companies/${company.id}`, { token }), 404, 'not_found');
    for (const path of ['/v1/users', `/v1/users/${kari.userId}/access`, '/v1/access/policies', '/v1/access/assignments']) {
      expectProblem(await api('GET', path, { token }), 403, 'system_client_required');
    }
  });
});
