import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectProblem } from '../support/api';
import { newFirm } from '../support/people';
import { Browser, codeOf, createPerson, exchangeCode, signIn, startAuthorization, submit, tokenRequest, type Tokens } from '../support/sign-in';
import { eventually } from '../support/webhook-receiver';
import { testStack } from '../support/stack';

/** What one person's interactive session may not do with another's, and what a refused or replayed grant leaves behind. */
let firm: Awaited<ReturnType<typeof newFirm>>;
let companies: string[];
let first: Awaited<ReturnType<typeof createPerson>>;
let second: Awaited<ReturnType<typeof createPerson>>;

beforeAll(async () => {
  firm = await newFirm('Sessions');
  companies = [await firm.company(), await firm.company()];
  [first, second] = [await createPerson(firm.root.id, 'First Person'), await createPerson(firm.root.id, 'Second Person')];
  const policy = await api('POST', '/v1/access/policies', {
    token: firm.systemToken,
    body: { name: 'Readers', rules: [{ effect: 'allow', actions: ['companies:read'], resources: { companies } }] },
  });
  expect(policy.status, JSON.stringify(policy.body)).toBe(201);
  for (const person of [first, second]) {
    expect((await api('POST', '/v1/access/assignments', { token: firm.systemToken, body: { policyId: policy.body.id, userId: person.userId } })).status).toBe(201);
  }
});

describe('cursors of interactive sessions', () => {
  it('are bound to the person: another person signed in through the same public client gets 400 invalid_cursor', async () => {
    const [mine, theirs] = [await signIn(first, { scopes: ['companies:read'] }), await signIn(second, { scopes: ['companies:read'] })];
    const page = await api('GET', '/v1/companies?page_size=1', { token: mine.access_token });
    expect(page.status).toBe(200);
    expect(page.body.pagination.has_more).toBe(true);
    const cursor = encodeURIComponent(page.body.pagination.next_cursor);

    expectProblem(await api('GET', `/v1/companies?page_size=1&cursor=${cursor}`, { token: theirs.access_token }), 400, 'invalid_cursor');
    const next = await api('GET', `/v1/companies?page_size=1&cursor=${cursor}`, { token: mine.access_token });
    expect(next.status).toBe(200);
    expect([page.body.data[0].id, next.body.data[0].id].sort()).toEqual([...companies].sort());
  });
});

describe('refresh naming a resource', () => {
  it('an unknown or another resource is refused invalid_target and the grant stays usable: a later correct refresh works', async () => {
    const tokens = await signIn(first, { scopes: ['companies:read'] });
    const refresh = (resource?: string) =>
      tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: testStack().interactive.clientId, ...(resource && { resource }) });
    for (const resource of ['https://elsewhere.example/api', `${testStack().baseUrl}/mcp`]) {
      const refused = await refresh(resource);
      expect(refused.status, resource).toBe(400);
      expect(((await refused.json()) as { error: string }).error, resource).toBe('invalid_target');
    }
    const refreshed = await refresh(testStack().baseUrl);
    expect(refreshed.status).toBe(200);
    const body = (await refreshed.json()) as Tokens;
    expect((await api('GET', '/v1/whoami', { token: body.access_token })).body).toMatchObject({ mode: 'INTERACTIVE', userId: first.userId });
    // The rotated refresh token goes on working.
    const again = await tokenRequest({ grant_type: 'refresh_token', refresh_token: body.refresh_token!, client_id: testStack().interactive.clientId });
    expect(again.status).toBe(200);
  });
});

describe('a replayed authorization code', () => {
  it('revokes the grant: its refresh token is refused at once, its access token within the authorizer cache TTL', async () => {
    const browser = new Browser();
    const started = await startAuthorization(browser, { scopes: ['companies:read'] });
    const consent = await submit(browser, started.landing, { email: second.email, password: second.password }, started.redirectUri);
    const code = codeOf(await submit(browser, consent, { decision: 'allow' }, started.redirectUri), started.state);
    const redeemed = await exchangeCode(code, started.pkce.verifier, started.redirectUri);
    expect(redeemed.status).toBe(200);
    const tokens = (await redeemed.json()) as Tokens;
    expect((await api('GET', '/v1/whoami', { token: tokens.access_token })).status).toBe(200);

    const replayed = await exchangeCode(code, started.pkce.verifier, started.redirectUri);
    expect(replayed.status).toBe(400);
    expect(((await replayed.json()) as { error: string }).error).toBe('invalid_grant');
    const refresh = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: testStack().interactive.clientId });
    expect(((await refresh.json()) as { error: string }).error).toBe('invalid_grant');

    // The test stack keeps the authorizer's decisions 1 s: polled, bounded by a few TTLs.
    const refused = await eventually(async () => {
      const answer = await api('GET', '/v1/whoami', { token: tokens.access_token });
      return answer.status === 401 && answer;
    }, testStack().authorizerCacheTtlSeconds * 1000 * 10, 'the access token of the replayed code to be refused');
    expectProblem(refused, 401, 'invalid_token');
    expect(refused.body.detail).toMatch(/revoked/);

    // The person's other sessions are untouched.
    const other = await signIn(second, { scopes: ['companies:read'] });
    expect((await api('GET', '/v1/whoami', { token: other.access_token })).status).toBe(200);
  });
});

describe('a revoked refresh token', () => {
  it('ends its grant: the refresh token is refused at once, the access token within the authorizer cache TTL; other sessions stay', async () => {
    const tokens = await signIn(first, { scopes: ['companies:read'] });
    expect((await api('GET', '/v1/whoami', { token: tokens.access_token })).status).toBe(200);
    const revocationUrl = testStack().interactive.tokenUrl.replace(/\/oauth2\/token$/, '/oauth2/revoke');
    const revoked = await fetch(revocationUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token!, token_type_hint: 'refresh_token', client_id: testStack().interactive.clientId }),
    });
    expect(revoked.status).toBe(200);
    const refresh = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: testStack().interactive.clientId });
    expect(((await refresh.json()) as { error: string }).error).toBe('invalid_grant');
    const refused = await eventually(async () => {
      const answer = await api('GET', '/v1/whoami', { token: tokens.access_token });
      return answer.status === 401 && answer;
    }, testStack().authorizerCacheTtlSeconds * 1000 * 10, 'the access token of the revoked grant to be refused');
    expect(refused.body.detail).toMatch(/revoked/);
    const other = await signIn(first, { scopes: ['companies:read'] });
    expect((await api('GET', '/v1/whoami', { token: other.access_token })).status).toBe(200);
  });
});
