import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { createAssignment, recompute, replacePolicy } from '../../shared/access/service';
import { inParallel } from '../../shared/db/batch';
import { PolicyDocumentSchema } from '../../shared/identity/access-schemas';
import { dynamo } from '../../shared/platform/aws';
import { ProblemError } from '../../shared/platform/problem';
import { observingCalls } from '../support/sdk-calls';
import { createOrganization, deleteOrganization } from '../../shared/administration/service';
import { unitOfWork } from '../../shared/db/unit-of-work';
import { accessRepository, accessWrites, type PolicyRecord } from '../../shared/identity/access-repository';
import { localCredentialIssuer } from '../../shared/identity/credential-issuers';
import { localPersonDirectory } from '../../shared/identity/person-directories';
import { personWrites } from '../../shared/identity/person-repository';
import { administratorOf } from '../../shared/identity/principal';
import { addMembership, createUser, deleteUser, removeMembership } from '../../shared/people/service';
import { api, expectProblem, tokenFor } from '../support/api';
import { createTestClient } from '../support/clients';
import { newFirm, newPerson } from '../support/people';
import { eventually, queueWaitMs } from '../support/poll';
import { seededClient, testStack } from '../support/stack';
import type { Json } from '../support/json';

/** Users, access policies and assignments over HTTP (system clients only), and USER principals. */
let firm: Awaited<ReturnType<typeof newFirm>>;
let companies: { a: string; b: string; c: string; child: string };
let person: Awaited<ReturnType<typeof newPerson>>;

const as = () => ({ token: firm.systemToken });
const allowAll = (resources: { organizations?: string[]; companies?: string[] }) => ({ effect: 'allow', actions: ['companies:*', 'ledger:*', 'bank:*'], resources });

beforeAll(async () => {
  testStack();
  firm = await newFirm('Access');
  companies = { a: await firm.company(), b: await firm.company(), c: await firm.company(), child: await firm.company(firm.child) };
  person = await newPerson(firm.root.id);
});

const createPolicy = async (rules: unknown[], name = 'Policy') => {
  const response = await api('POST', '/v1/access/policies', { ...as(), body: { name, rules } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
};
const assign = async (policyId: string, userId = person.person.userId) => {
  const response = await api('POST', '/v1/access/assignments', { ...as(), body: { policyId, userId } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
};
const listedCompanies = async (token: string) => ((await api('GET', '/v1/companies?page_size=200', { token })).body.data as { id: string }[]).map((c) => c.id).sort();

describe('policies', () => {
  it('create, read, list, replace with If-Match, delete', async () => {
    const policy = await createPolicy([allowAll({ companies: [companies.a] })], 'Lifecycle');
    expect(policy).toMatchObject({ organizationId: firm.root.id, name: 'Lifecycle', description: '', version: 1 });
    const read = await api('GET', `/v1/access/policies/${policy.id}`, as());
    expect(read.body).toEqual(policy);
    expect(read.headers.get('etag')).toBe('"1"');
    const list = await api('GET', '/v1/access/policies?page_size=200', as());
    expect(list.body.data.map((p: { id: string }) => p.id)).toContain(policy.id);

    const document = { name: 'Lifecycle v2', rules: [allowAll({ organizations: [firm.child.id] })] };
    // A 428 and a 412 are not stored under their key: the same key with the version read again replaces it.
    const key = randomUUID();
    expectProblem(await api('PUT', `/v1/access/policies/${policy.id}`, { ...as(), body: document, idempotencyKey: key }), 428, 'precondition_required');
    expectProblem(await api('PUT', `/v1/access/policies/${policy.id}`, { ...as(), body: document, headers: { 'if-match': '"7"' }, idempotencyKey: key }), 412, 'version_mismatch');
    const replaced = await api('PUT', `/v1/access/policies/${policy.id}`, { ...as(), body: document, headers: { 'if-match': '"1"' }, idempotencyKey: key });
    expect(replaced.status).toBe(200);
    expect(replaced.headers.get('idempotency-replayed')).toBeNull();
    expect(replaced.body).toMatchObject({ name: 'Lifecycle v2', version: 2, rules: document.rules });
    expectProblem(await api('PUT', `/v1/access/policies/${policy.id}`, { ...as(), body: document, headers: { 'if-match': '1' } }), 412, 'version_mismatch');

    expect((await api('DELETE', `/v1/access/policies/${policy.id}`, as())).status).toBe(200);
    expectProblem(await api('GET', `/v1/access/policies/${policy.id}`, as()), 404, 'not_found');
  });

  it('422 names each rule resource outside the owning organization\'s subtree', async () => {
    const foreign = testStack().companies.find((c) => c.organizationId === seededClient('b-system').organizationId)!.id;
    const response = await api('POST', '/v1/access/policies', {
      ...as(),
      body: { name: 'Too wide', rules: [allowAll({ companies: [companies.a] }), allowAll({ companies: [foreign], organizations: [randomUUID()] })] },
    });
    expectProblem(response, 422, 'resource_outside_organization');
    expect(response.body.errors.map((e: { field: string }) => e.field)).toEqual(['rules[1].resources.organizations[0]', 'rules[1].resources.companies[0]']);
    // A policy owned by the child cannot name the root's company.
    const owned = await api('POST', '/v1/access/policies', { ...as(), body: { name: 'Child', organizationId: firm.child.id, rules: [allowAll({ companies: [companies.a] })] } });
    expectProblem(owned, 422, 'resource_outside_organization');
    expectProblem(await api('POST', '/v1/access/policies', { ...as(), body: { name: 'Empty', rules: [{ effect: 'allow', actions: ['ledger:read'], resources: {} }] } }), 400, 'validation_failed');
    expectProblem(await api('POST', '/v1/access/policies', { ...as(), body: { name: 'Bad action', rules: [{ effect: 'allow', actions: ['ledger:write'], resources: { companies: [companies.a] } }] } }), 400, 'validation_failed');
  });

  it('a policy in use cannot be deleted: 409 policy_in_use lists the assignments', async () => {
    const policy = await createPolicy([allowAll({ companies: [companies.c] })], 'In use');
    const assignment = await assign(policy.id);
    const refused = await api('DELETE', `/v1/access/policies/${policy.id}`, as());
    expectProblem(refused, 409, 'policy_in_use');
    expect(refused.body.inUse).toEqual([{ id: assignment.id, userId: person.person.userId }]);
    expectProblem(await api('POST', '/v1/access/assignments', { ...as(), body: { policyId: policy.id, userId: person.person.userId } }), 409, 'conflict');
    const listed = await api('GET', `/v1/access/assignments?policy_id=${policy.id}`, as());
    expect(listed.body.data).toEqual([assignment]);
    expect((await api('GET', `/v1/access/assignments?user_id=${person.person.userId}&page_size=200`, as())).body.data.map((a: { id: string }) => a.id)).toContain(assignment.id);
    expect((await api('DELETE', `/v1/access/assignments/${assignment.id}`, as())).status).toBe(200);
    expectProblem(await api('DELETE', `/v1/access/assignments/${assignment.id}`, as()), 404, 'not_found');
    expect((await api('DELETE', `/v1/access/policies/${policy.id}`, as())).status).toBe(200);
  });

  it('policies, assignments and people of another firm answer 404; body references too', async () => {
    const other = { as: 'b-system' };
    const policy = await createPolicy([allowAll({ companies: [companies.a] })], 'Private');
    const assignment = await assign(policy.id);
    expectProblem(await api('GET', `/v1/access/policies/${policy.id}`, other), 404, 'not_found');
    expectProblem(await api('PUT', `/v1/access/policies/${policy.id}`, { ...other, body: { name: 'x', rules: [allowAll({ companies: [companies.a] })] }, headers: { 'if-match': '1' } }), 404, 'not_found');
    expectProblem(await api('DELETE', `/v1/access/policies/${policy.id}`, other), 404, 'not_found');
    expectProblem(await api('DELETE', `/v1/access/assignments/${assignment.id}`, other), 404, 'not_found');
    expectProblem(await api('GET', `/v1/users/${person.person.userId}`, other), 404, 'not_found');
    expectProblem(await api('GET', `/v1/users/${person.person.userId}/access`, other), 404, 'not_found');
    expectProblem(await api('POST', '/v1/access/assignments', { ...other, body: { policyId: policy.id, userId: person.person.userId } }), 404, 'not_found');
    expect((await api('GET', `/v1/access/assignments?policy_id=${policy.id}`, other)).body.data).toEqual([]);
    expect((await api('GET', '/v1/users', other)).body.data.map((u: { id: string }) => u.id)).not.toContain(person.person.userId);
    await api('DELETE', `/v1/access/assignments/${assignment.id}`, as());
  });
});

describe('users', () => {
  it('lists the members of the subtree in one page, with filters; reads one with memberships', async () => {
    const list = await api('GET', '/v1/users', as());
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ next_cursor: null, has_more: false });
    expect(list.body.data).toContainEqual(expect.objectContaining({ id: person.person.userId, email: person.person.email, memberships: [expect.objectContaining({ organizationId: firm.root.id })] }));
    expect((await api('GET', `/v1/users?email=${encodeURIComponent(person.person.email.toUpperCase())}`, as())).body.data.map((u: { id: string }) => u.id)).toEqual([person.person.userId]);
    expect((await api('GET', `/v1/users?organization_id=${firm.child.id}`, as())).body.data).toEqual([]);
    const one = await api('GET', `/v1/users/${person.person.userId}`, as());
    expect(one.body).toMatchObject({ id: person.person.userId, name: 'Test Person', status: 'active' });
    expectProblem(await api('GET', `/v1/users/${randomUUID()}`, as()), 404, 'not_found');
  });

  it('effective access and its explanation follow the rules: deny wins, no rule, member only', async () => {
    const who = await newPerson(firm.root.id);
    const policy = await createPolicy([
      allowAll({ organizations: [firm.root.id] }),
      { effect: 'deny', actions: ['ledger:read'], resources: { companies: [companies.b] } },
      { effect: 'deny', actions: ['companies:*', 'ledger:*', 'bank:*'], resources: { companies: [companies.c] } },
    ]);
    await assign(policy.id, who.person.userId);
    const access = await api('GET', `/v1/users/${who.person.userId}/access?page_size=200`, as());
    const byCompany = Object.fromEntries(access.body.data.map((e: { companyId: string; actions: string[] }) => [e.companyId, e.actions]));
    expect(byCompany[companies.a]).toEqual(['companies:read', 'companies:write', 'ledger:read', 'bank:read']);
    expect(byCompany[companies.b]).toEqual(['companies:read', 'companies:write', 'bank:read']);
    expect(byCompany[companies.c]).toBeUndefined();
    expect(byCompany[companies.child]).toHaveLength(4);
    expect((await api('GET', `/v1/users/${who.person.userId}/access?company_id=${companies.c}`, as())).body.data).toEqual([]);
    expect((await api('GET', `/v1/users/${who.person.userId}/access?company_id=${companies.a}`, as())).body.data).toEqual([{ companyId: companies.a, actions: byCompany[companies.a] }]);

    const explain = (companyId: string, action: string) => api('GET', `/v1/users/${who.person.userId}/access/explain?company_id=${companyId}&action=${action}`, as());
    expect((await explain(companies.a, 'ledger:read')).body).toMatchObject({ decision: 'allow', reason: 'allow_rule', policy: { id: policy.id }, ruleIndex: 0 });
    expect((await explain(companies.b, 'ledger:read')).body).toMatchObject({ decision: 'deny', reason: 'deny_rule', policy: { id: policy.id }, ruleIndex: 1, rule: { effect: 'deny' } });
    expect((await explain(companies.a, 'documents:read')).body).toMatchObject({ decision: 'deny', reason: 'no_matching_rule', policy: null, ruleIndex: null, rule: null });
    expectProblem(await explain(testStack().companies[3]!.id, 'ledger:read'), 404, 'not_found');
    expectProblem(await api('GET', `/v1/users/${who.person.userId}/access/explain?company_id=${companies.a}`, as()), 400, 'validation_failed');
  });
});

describe('system clients only', () => {
  it('per-user clients get 403 system_client_required on users and access management, whatever the path names', async () => {
    for (const [method, path] of [
      ['GET', '/v1/users'],
      ['GET', `/v1/users/${person.person.userId}`],
      ['GET', `/v1/users/${randomUUID()}/access`],
      ['GET', `/v1/users/${person.person.userId}/access/explain?company_id=${companies.a}&action=ledger:read`],
      ['GET', '/v1/access/policies'],
      ['POST', '/v1/access/policies'],
      ['GET', `/v1/access/policies/${randomUUID()}`],
      ['PUT', `/v1/access/policies/${randomUUID()}`],
      ['DELETE', `/v1/access/policies/${randomUUID()}`],
      ['POST', '/v1/access/assignments'],
      ['GET', '/v1/access/assignments'],
      ['DELETE', `/v1/access/assignments/${randomUUID()}`],
    ] as const) {
      expectProblem(await api(method, path, { token: person.token, body: method === 'GET' || method === 'DELETE' ? undefined : {} }), 403, 'system_client_required');
    }
  });

  it('a system client without the scope gets 403 insufficient_scope (a-readonly holds users:read, not access:manage)', async () => {
    expectProblem(await api('GET', '/v1/access/policies', { as: 'a-readonly' }), 403, 'insufficient_scope');
  });
});

describe('per-user principals (USER)', () => {
  it('whoami: mode USER, the person, the client\'s organization', async () => {
    const whoami = await api('GET', '/v1/whoami', { token: person.token });
    expect(whoami.body).toMatchObject({ clientId: person.client.clientId, mode: 'USER', userId: person.person.userId, organizationId: firm.root.id });
  });

  it('sees exactly the allowed companies; assignments, revocations and policy edits hold on the next request', async () => {
    const who = await newPerson(firm.root.id);
    expect(await listedCompanies(who.token)).toEqual([]);
    expectProblem(await api('GET', `/v1/companies/${companies.a}`, { token: who.token }), 404, 'not_found');

    const policy = await createPolicy([allowAll({ companies: [companies.a, companies.b] })], 'Two companies');
    const assignment = await assign(policy.id, who.person.userId);
    expect(await listedCompanies(who.token)).toEqual([companies.a, companies.b].sort());
    expect((await api('GET', `/v1/companies/${companies.a}`, { token: who.token })).status).toBe(200);

    const edited = await api('PUT', `/v1/access/policies/${policy.id}`, {
      ...as(),
      body: { name: 'Subtree but b', rules: [allowAll({ organizations: [firm.root.id] }), { effect: 'deny', actions: ['companies:read'], resources: { companies: [companies.b] } }] },
      headers: { 'if-match': '1' },
    });
    expect(edited.status).toBe(200);
    expect(await listedCompanies(who.token)).toEqual([companies.a, companies.c, companies.child].sort());
    expectProblem(await api('GET', `/v1/companies/${companies.b}`, { token: who.token }), 404, 'not_found');

    expect((await api('DELETE', `/v1/access/assignments/${assignment.id}`, as())).status).toBe(200);
    expectProblem(await api('GET', `/v1/companies/${companies.a}`, { token: who.token }), 404, 'not_found');
    expect(await listedCompanies(who.token)).toEqual([]);
  });

  it("a per-user client works only while its person is active and a member of the client's organization", async () => {
    const who = await newPerson(firm.root.id);
    await addMembership(who.person.userId, firm.child.id);
    const { client, clientSecret } = await createTestClient({ name: 'user-in-child', organizationId: firm.child.id, userId: who.person.userId, plan: 'premium', scopes: ['companies:read'] });
    const inChild = await tokenFor(client.clientId, clientSecret);
    expect((await api('GET', '/v1/whoami', { token: inChild })).body).toMatchObject({ mode: 'USER', userId: who.person.userId, organizationId: firm.child.id });

    // Leaving the organization ends its per-user client (within the authorizer cache's TTL), not the other one.
    await removeMembership(who.person.userId, firm.child.id, localCredentialIssuer);
    await eventually(async () => (await api('GET', '/v1/whoami', { token: inChild })).status === 401, queueWaitMs, 'the client of the left organization refused');
    expectProblem(await api('GET', '/v1/whoami', { token: inChild }), 401, 'invalid_token');
    expect((await api('GET', '/v1/whoami', { token: who.token })).status).toBe(200);

    // A deleted person's client is refused even if its revocation never happened (a delete-user that stopped half-way).
    await unitOfWork().add('person', personWrites.markDeleted(who.person.userId)).commit();
    await eventually(async () => (await api('GET', '/v1/whoami', { token: who.token })).status === 401, queueWaitMs, "the deleted person's client refused");
    expectProblem(await api('GET', '/v1/companies', { token: who.token }), 401, 'invalid_token');
  });

  it('lists page through the allowed companies with a cursor', async () => {
    const who = await newPerson(firm.root.id);
    await assign((await createPolicy([allowAll({ organizations: [firm.root.id] }), { effect: 'deny', actions: ['companies:read'], resources: { companies: [companies.b] } }])).id, who.person.userId);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Json = await api('GET', `/v1/companies?page_size=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: who.token });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((c: { id: string }) => c.id));
      cursor = page.body.pagination.next_cursor;
    } while (cursor);
    expect(seen.sort()).toEqual([companies.a, companies.c, companies.child].sort());
  });
});

describe('policy bounds', () => {
  it('a policy naming more than 2,000 organizations and companies in all is 400, naming the rules; nothing is created', async () => {
    const firm = await newFirm('Policy bounds');
    const rule = () => allowAll({ companies: Array.from({ length: 500 }, () => randomUUID()) });
    const refused = await api('POST', '/v1/access/policies', { token: firm.systemToken, body: { name: 'Too many', rules: [rule(), rule(), rule(), rule(), allowAll({ organizations: [firm.root.id] })] } });
    expectProblem(refused, 400, 'validation_failed');
    expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'rules', message: expect.stringContaining('at most 2000 organizations and companies') })]);
    expect((await api('GET', '/v1/access/policies?page_size=200', { token: firm.systemToken })).body.data).toEqual([]);
  });
});

describe('explain across organizations', () => {
  it("shows a sub-organization's system client the decision but not a policy of the organization above it", async () => {
    const firm = await newFirm('Explain reach');
    const childCompany = await firm.company(firm.child);
    const childSystem = await createTestClient({ name: 'explain-child-system', organizationId: firm.child.id, plan: 'premium' });
    const childToken = await tokenFor(childSystem.client.clientId, childSystem.clientSecret);
    const who = await newPerson(firm.child.id);
    const rootPolicy = await api('POST', '/v1/access/policies', { token: firm.systemToken, body: { name: 'Root policy', rules: [allowAll({ organizations: [firm.root.id] })] } });
    expect((await api('POST', '/v1/access/assignments', { token: firm.systemToken, body: { policyId: rootPolicy.body.id, userId: who.person.userId } })).status).toBe(201);
    const path = `/v1/users/${who.person.userId}/access/explain?company_id=${childCompany}&action=ledger:read`;
    expect((await api('GET', path, { token: firm.systemToken })).body).toMatchObject({ decision: 'allow', reason: 'allow_rule', policy: { id: rootPolicy.body.id, name: 'Root policy' }, ruleIndex: 0 });
    expectProblem(await api('GET', `/v1/access/policies/${rootPolicy.body.id}`, { token: childToken }), 404, 'not_found');
    expect((await api('GET', path, { token: childToken })).body).toMatchObject({ decision: 'allow', reason: 'allow_rule', policy: null, ruleIndex: null, rule: null });
  });
});

describe('a person granted two organizations apart', () => {
  it('pages through the companies of both with a cursor, past the end of either', async () => {
    const firm = await newFirm('Two subtrees');
    const east = await createOrganization({ name: 'East', parentId: firm.root.id });
    const west = await createOrganization({ name: 'West', parentId: firm.root.id });
    // Two in each: whichever sorts first, a page of the second follows a cursor past the first.
    const expected = [await firm.company(east), await firm.company(east), await firm.company(west), await firm.company(west)];
    const who = await newPerson(firm.root.id);
    const policy = await api('POST', '/v1/access/policies', { token: firm.systemToken, body: { name: 'East and West', rules: [allowAll({ organizations: [east.id, west.id] })] } });
    expect((await api('POST', '/v1/access/assignments', { token: firm.systemToken, body: { policyId: policy.body.id, userId: who.person.userId } })).status).toBe(201);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Json = await api('GET', `/v1/companies?page_size=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: who.token });
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      seen.push(...page.body.data.map((c: { id: string }) => c.id));
      cursor = page.body.pagination.next_cursor;
    } while (cursor && seen.length <= expected.length);
    expect(seen.sort()).toEqual(expected.sort());
  });
});

describe('the demo people of .local/stack.json', () => {
  it('the accountant\'s per-user client sees exactly her two companies; the auditor and the person of B are seeded with passwords', async () => {
    const stack = testStack();
    expect(stack.people.map((p) => p.email)).toEqual(['kari.nordmann@nordlys.example', 'ola.hansen@nordlys.example', 'ingrid.berg@fjordtall.example']);
    for (const p of stack.people) expect(p.password.length).toBeGreaterThanOrEqual(8);
    const accountant = stack.clients.find((c) => c.name === 'a-accountant')!;
    expect(accountant).toMatchObject({ mode: 'USER', userId: stack.people[0]!.userId, organizationId: stack.organizations[0]!.id });
    const listed = ((await api('GET', '/v1/companies', { as: 'a-accountant' })).body.data as { id: string }[]).map((c) => c.id).sort();
    expect(listed).toEqual([stack.companies[0]!.id, stack.companies[2]!.id].sort());
    const auditor = await api('GET', `/v1/users/${stack.people[1]!.userId}/access`, { as: 'a-system' });
    expect(auditor.body.data).toEqual([{ companyId: stack.companies[0]!.id, actions: ['companies:read', 'ledger:read', 'vat:read', 'bank:read', 'reconciliation:read', 'documents:read'] }]);
    expectProblem(await api('GET', `/v1/users/${stack.people[2]!.userId}`, { as: 'a-system' }), 404, 'not_found');
    expect((await api('GET', `/v1/users/${stack.people[2]!.userId}/access`, { as: 'b-system' })).body.data).toEqual([]);
  });
});

describe('actions a policy cannot grant', () => {
  it('system-only actions (users, access management, webhooks, imports) are 400 naming each, on create and replace; "imports:*" too', async () => {
    const systemOnly = ['imports:*', 'access:manage', 'users:read', 'webhooks:manage', 'imports:write', 'access:*'];
    const refused = await api('POST', '/v1/access/policies', { ...as(), body: { name: 'System only', rules: [{ effect: 'allow', actions: ['ledger:read', ...systemOnly], resources: { companies: [companies.a] } }] } });
    expectProblem(refused, 400, 'validation_failed');
    expect(refused.body.errors.map((e: { field: string; message: string }) => [e.field, e.message])).toEqual(
      systemOnly.map((action, index) => [`rules.0.actions.${index + 1}`, `"${action}" is for system clients only: a policy cannot grant it`]),
    );
    const policy = await createPolicy([{ effect: 'allow', actions: ['ledger:*', 'context:read'], resources: { companies: [companies.a] } }], 'Person actions');
    const replaced = await api('PUT', `/v1/access/policies/${policy.id}`, { ...as(), headers: { 'if-match': '1' }, body: { name: 'x', rules: [{ effect: 'allow', actions: ['webhooks:*'], resources: { companies: [companies.a] } }] } });
    expectProblem(replaced, 400, 'validation_failed');
    expect(replaced.body.errors).toEqual([{ field: 'rules.0.actions.0', message: '"webhooks:*" is for system clients only: a policy cannot grant it' }]);
    expect((await api('GET', `/v1/access/policies/${policy.id}`, as())).body.version).toBe(1);
    await api('DELETE', `/v1/access/policies/${policy.id}`, as());
  });

  it('effective access never reports a system-only action, even from a policy stored before the rule', async () => {
    const firm = await newFirm('Stored actions');
    const company = await firm.company();
    const who = await newPerson(firm.root.id);
    const now = new Date().toISOString();
    const stored: PolicyRecord = {
      id: randomUUID(),
      organizationId: firm.root.id,
      name: 'Stored before the rule',
      description: '',
      rules: [
        { effect: 'allow', actions: ['imports:*'], resources: { companies: [company] } },
        { effect: 'allow', actions: ['imports:*', 'access:manage', 'users:read', 'webhooks:manage', 'ledger:read'], resources: { companies: [company] } },
      ],
      version: 1,
      createdAt: now,
      updatedAt: now,
      rootOrganizationId: firm.root.rootId,
      organizationPath: firm.root.path,
      assignmentCount: 0,
    };
    await unitOfWork().add('policy', accessWrites.putPolicy(stored, null)).commit();
    const assigned = await api('POST', '/v1/access/assignments', { token: firm.systemToken, body: { policyId: stored.id, userId: who.person.userId } });
    expect(assigned.status).toBe(201);
    expect((await api('GET', `/v1/users/${who.person.userId}/access?company_id=${company}`, { token: firm.systemToken })).body.data).toEqual([{ companyId: company, actions: ['ledger:read'] }]);
    expect((await api('GET', `/v1/users/${who.person.userId}/access?page_size=200`, { token: firm.systemToken })).body.data).toEqual([{ companyId: company, actions: ['ledger:read'] }]);
    const explain = await api('GET', `/v1/users/${who.person.userId}/access/explain?company_id=${company}&action=users:read`, { token: firm.systemToken });
    expect(explain.body).toMatchObject({ decision: 'deny', reason: 'no_matching_rule', policy: null, rule: null });
    // Read, it shows what it grants (Policy's schema holds): the actions no policy can grant are left out,
    // and a rule left without one; explain names the deciding rule as the policy shows it.
    expect((await api('GET', `/v1/access/policies/${stored.id}`, { token: firm.systemToken })).body.rules).toEqual([{ effect: 'allow', actions: ['ledger:read'], resources: { companies: [company] } }]);
    const decided = await api('GET', `/v1/users/${who.person.userId}/access/explain?company_id=${company}&action=ledger:read`, { token: firm.systemToken });
    expect(decided.body).toMatchObject({ decision: 'allow', ruleIndex: 0, rule: { effect: 'allow', actions: ['ledger:read'], resources: { companies: [company] } } });
  });
});

describe('a deleted organization', () => {
  it('its policies are not found: read, list, replace, delete and assignment answer 404, as creating one there does', async () => {
    const doomed = await createOrganization({ name: 'Access doomed', parentId: firm.root.id });
    const created = await api('POST', '/v1/access/policies', { ...as(), body: { name: 'Doomed', organizationId: doomed.id, rules: [allowAll({ organizations: [doomed.id] })] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const policyId = created.body.id as string;
    const listed = async () => ((await api('GET', '/v1/access/policies?page_size=200', as())).body.data as { id: string }[]).map((p) => p.id);
    expect(await listed()).toContain(policyId);
    await deleteOrganization(doomed.id, 'test', { issuer: localCredentialIssuer, directory: localPersonDirectory });

    expectProblem(await api('GET', `/v1/access/policies/${policyId}`, as()), 404, 'not_found');
    expect(await listed()).not.toContain(policyId);
    const document = { name: 'Doomed v2', rules: [allowAll({ organizations: [doomed.id] })] };
    expectProblem(await api('PUT', `/v1/access/policies/${policyId}`, { ...as(), body: document, headers: { 'if-match': '1' } }), 404, 'not_found');
    expectProblem(await api('DELETE', `/v1/access/policies/${policyId}`, as()), 404, 'not_found');
    expectProblem(await api('POST', '/v1/access/assignments', { ...as(), body: { policyId, userId: person.person.userId } }), 404, 'not_found');
    expectProblem(await api('POST', '/v1/access/policies', { ...as(), body: { ...document, organizationId: doomed.id } }), 404, 'not_found');
  });
});

describe('an assignment racing a deletion', () => {
  const principal = () => administratorOf(firm.root, 'test', ['access:manage']);

  /** Runs `during` once, after createAssignment has found the person within reach, as it computes the person's access for its transaction. */
  const racing = async <T>(userId: string, during: () => Promise<unknown>, run: () => Promise<T>): Promise<T> => {
    const effectiveAccess = accessRepository.effectiveAccess.bind(accessRepository);
    let raced = false;
    const spy = vi.spyOn(accessRepository, 'effectiveAccess').mockImplementation(async (id) => {
      if (!raced && id === userId) {
        raced = true;
        await during();
      }
      return effectiveAccess(id);
    });
    try {
      return await run();
    } finally {
      spy.mockRestore();
      expect(raced).toBe(true);
    }
  };

  it('with delete-user: 404 and no assignment, so the policy is not left in use', async () => {
    const who = await newPerson(firm.root.id);
    const policy = await createPolicy([allowAll({ companies: [companies.a] })], 'Raced by delete-user');
    const attempt = racing(
      who.person.userId,
      () => deleteUser(who.person.userId, localPersonDirectory, localCredentialIssuer),
      () => createAssignment(principal(), { policyId: policy.id, userId: who.person.userId }),
    );
    await expect(attempt).rejects.toMatchObject({ problem: expect.objectContaining({ status: 404 }) });
    expect((await api('GET', `/v1/access/assignments?policy_id=${policy.id}`, as())).body.data).toEqual([]);
    expect((await api('DELETE', `/v1/access/policies/${policy.id}`, as())).status).toBe(200);
  });
});

describe('a policy assigned to more people than its transaction holds', () => {
  let big: Awaited<ReturnType<typeof newFirm>>;
  let shown: string;
  let hidden: string;
  let people: string[];
  let policyId: string;
  const document = (companyIds: string[], name: string) => ({ name, rules: [{ effect: 'allow', actions: ['companies:read'], resources: { companies: companyIds } }] });
  const held = async (userId: string) => (await accessRepository.effectiveAccess(userId))!.rules.flatMap((rule) => rule.resources.companies ?? []).sort();

  beforeAll(async () => {
    big = await newFirm('Many assignees');
    [shown, hidden] = [await big.company(), await big.company()];
    const administrator = administratorOf(big.root, 'test', ['access:manage']);
    // 100 people: the policy's own transaction takes 98 of them, the other two are recomputed after it.
    people = (await inParallel(Array.from({ length: 100 }, (_, index) => index), 4, async (index) =>
      (await createUser({ organizationId: big.root.id, email: `many-${index}-${randomUUID().slice(0, 8)}@example.test`, name: `Person ${index}` }, localPersonDirectory)).person.userId));
    const created = await api('POST', '/v1/access/policies', { token: big.systemToken, body: document([shown, hidden], 'Both') });
    policyId = created.body.id;
    await inParallel(people, 4, (userId) => createAssignment(administrator, { policyId, userId }));
  });

  it('recomputes everyone before it answers, those past its transaction too', async () => {
    const replaced = await api('PUT', `/v1/access/policies/${policyId}`, { token: big.systemToken, body: document([shown], 'Shown only'), headers: { 'if-match': '1' } });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body).toMatchObject({ version: 2, name: 'Shown only' });
    expect(replaced.body.recomputePending).toBeUndefined();
    expect(replaced.body.recomputationPending).toBe(false);
    for (const userId of people) expect(await held(userId), userId).toEqual([shown]);
    const last = people.at(-1)!;
    expect((await api('GET', `/v1/users/${last}/access?company_id=${hidden}`, { token: big.systemToken })).body.data).toEqual([]);
  });

  it('answers 503 when some could not be recomputed, and the same request again finishes it (not 412)', async () => {
    const current = (await accessRepository.policy(policyId))!;
    // Every recomputation after the policy's transaction (one write each) fails, as under a storm of conflicts.
    const failing = () =>
      observingCalls(
        dynamo(),
        (commandName, input) => {
          const writes = (input.TransactItems as { Put?: { Item?: Record<string, unknown> } }[] | undefined) ?? [];
          if (commandName === 'TransactWriteItemsCommand' && writes.length === 1 && writes[0]!.Put?.Item?.entity === 'effectiveAccess') {
            throw new TransactionCanceledException({ message: 'Transaction cancelled [ConditionalCheckFailed]', $metadata: {}, CancellationReasons: [{ Code: 'ConditionalCheckFailed' }] });
          }
        },
        () => replacePolicy(current, '2', PolicyDocumentSchema.parse(document([hidden], 'Hidden only'))).then(() => undefined, (error: unknown) => error),
      );
    const refused = await failing();
    expect(refused).toBeInstanceOf(ProblemError);
    expect((refused as ProblemError).problem).toMatchObject({ status: 503, error: 'recomputation_incomplete' });
    expect((refused as ProblemError).headers).toEqual({ 'Retry-After': '1' });
    const stored = await api('GET', `/v1/access/policies/${policyId}`, { token: big.systemToken });
    expect(stored.body).toMatchObject({ version: 3, name: 'Hidden only', recomputationPending: true });
    const behind = [];
    for (const userId of people) if ((await held(userId)).includes(shown)) behind.push(userId);
    expect(behind).toHaveLength(2);

    // Another document with the old If-Match is a conflicting edit: 412, as always.
    expectProblem(await api('PUT', `/v1/access/policies/${policyId}`, { token: big.systemToken, body: document([shown], 'Other'), headers: { 'if-match': '2' } }), 412, 'version_mismatch');
    const again = await api('PUT', `/v1/access/policies/${policyId}`, { token: big.systemToken, body: document([hidden], 'Hidden only'), headers: { 'if-match': '2' } });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ version: 3, name: 'Hidden only', recomputationPending: false });
    expect((await api('GET', `/v1/access/policies/${policyId}`, { token: big.systemToken })).body.recomputationPending).toBe(false);
    for (const userId of behind) expect(await held(userId), userId).toEqual([hidden]);
    expect((await accessRepository.policy(policyId))!.recomputePending).toBeUndefined();
    // Finished, the same request is a conflicting edit again.
    expectProblem(await api('PUT', `/v1/access/policies/${policyId}`, { token: big.systemToken, body: document([hidden], 'Hidden only'), headers: { 'if-match': '2' } }), 412, 'version_mismatch');
  });
});

describe('a policy replaced while its assignment index lags', () => {
  it('recomputes the person just assigned, though the index still lists the one just unassigned (the same count)', async () => {
    const [x, y] = [await newPerson(firm.root.id), await newPerson(firm.root.id)];
    const policy = await createPolicy([allowAll({ companies: [companies.a] }), allowAll({ companies: [companies.b] })], 'Lagging index');
    const ofX = await assign(policy.id, x.person.userId);
    const stale = (await accessRepository.assignment(ofX.id))!;
    expect((await api('DELETE', `/v1/access/assignments/${ofX.id}`, as())).status).toBe(200);
    await assign(policy.id, y.person.userId);
    const held = async (userId: string) => (await accessRepository.effectiveAccess(userId))!.rules.flatMap((rule) => rule.resources.companies ?? []).sort();
    expect(await held(y.person.userId)).toEqual([companies.a, companies.b].sort());

    // The index answers as it did before: X's assignment, not Y's (one row, as the policy counts).
    const listing = vi.spyOn(accessRepository, 'assignmentsOfPolicy').mockResolvedValueOnce([stale]).mockResolvedValueOnce([stale]);
    try {
      // In this process (the spy does not reach the stack's): as PUT with If-Match 1 replaces it.
      const replaced = await replacePolicy((await accessRepository.policy(policy.id))!, '1', PolicyDocumentSchema.parse({ name: 'Lagging index', rules: [allowAll({ companies: [companies.a] })] }));
      expect(replaced.version).toBe(2);
      expect(listing).toHaveBeenCalled();
    } finally {
      listing.mockRestore();
    }
    expect(await held(y.person.userId)).toEqual([companies.a]);
    expect((await api('GET', `/v1/users/${y.person.userId}/access?company_id=${companies.b}`, as())).body.data).toEqual([]);
  });
});

describe("a deleted person's effective access", () => {
  it('is not written back by a membership change that read it before delete-user, nor by a recomputation after it', async () => {
    const who = await newPerson(firm.root.id);
    const userId = who.person.userId;
    const effectiveAccess = accessRepository.effectiveAccess.bind(accessRepository);
    let raced = false;
    // addMembership reads the person's effective access (revision r); delete-user runs before it writes revision r+1.
    const spy = vi.spyOn(accessRepository, 'effectiveAccess').mockImplementation(async (id) => {
      const read = await effectiveAccess(id);
      if (!raced && id === userId) {
        raced = true;
        await deleteUser(userId, localPersonDirectory, localCredentialIssuer);
      }
      return read;
    });
    try {
      await expect(addMembership(userId, firm.child.id)).rejects.toThrow(/not found/);
    } finally {
      spy.mockRestore();
    }
    expect(raced).toBe(true);
    expect(await accessRepository.effectiveAccess(userId)).toBeUndefined();
    await recompute(userId);
    expect(await accessRepository.effectiveAccess(userId)).toBeUndefined();
  });
});
