import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectProblem } from '../support/api';
import { newFirm } from '../support/people';
import { createPerson, signIn } from '../support/sign-in';

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
