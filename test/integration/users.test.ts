import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { AdministrationError, createOrganization, deleteOrganization } from '../../shared/administration/service';
import { accessRepository } from '../../shared/identity/access-repository';
import { apiClientRepository } from '../../shared/identity/api-client-repository';
import { localCredentialIssuer, type CredentialIssuer } from '../../shared/identity/credential-issuers';
import { organizationRepository } from '../../shared/identity/organization-repository';
import { localPersonDirectory, type PersonDirectory } from '../../shared/identity/person-directories';
import { personRepository } from '../../shared/identity/person-repository';
import { addMembership, createUser, deleteUser, removeMembership } from '../../shared/people/service';
import { api, expectProblem, fetchToken } from '../support/api';
import { createTestClient } from '../support/clients';
import { newFirm, newPerson } from '../support/people';
import { refusedOverHttp } from '../support/text-rule';
import { testStack } from '../support/stack';

/** GET /v1/users and /v1/users/{id}: which people and which memberships a system client sees. */
let firm: Awaited<ReturnType<typeof newFirm>>;
const as = () => ({ token: firm.systemToken });
const memberships = (user: { memberships: { organizationId: string }[] }) => user.memberships.map((m) => m.organizationId);
const listed = async (query = '') => (await api('GET', `/v1/users${query}`, as())).body.data as { id: string; memberships: { organizationId: string }[] }[];

beforeAll(async () => {
  testStack();
  firm = await newFirm('Users');
});

describe('a deleted organization is not part of the subtree', () => {
  it('a person only in it is 404 and not listed; another shows only the memberships left', async () => {
    const doomed = await createOrganization({ name: 'Users doomed', parentId: firm.root.id });
    const only = await newPerson(doomed.id);
    const both = await newPerson(firm.root.id);
    await addMembership(both.person.userId, doomed.id);
    expect(memberships((await api('GET', `/v1/users/${both.person.userId}`, as())).body)).toEqual([firm.root.id, doomed.id]);
    await deleteOrganization(doomed.id, 'test', { issuer: localCredentialIssuer, directory: localPersonDirectory });

    expectProblem(await api('GET', `/v1/users/${only.person.userId}`, as()), 404, 'not_found');
    expectProblem(await api('GET', `/v1/users/${only.person.userId}/access`, as()), 404, 'not_found');
    expect((await listed()).map((u) => u.id)).not.toContain(only.person.userId);
    expect(await listed(`?email=${encodeURIComponent(only.person.email)}`)).toEqual([]);
    expect(await listed(`?organization_id=${doomed.id}`)).toEqual([]);

    expect(memberships((await api('GET', `/v1/users/${both.person.userId}`, as())).body)).toEqual([firm.root.id]);
    expect(memberships((await listed()).find((u) => u.id === both.person.userId)!)).toEqual([firm.root.id]);
    expect(memberships((await listed(`?email=${encodeURIComponent(both.person.email)}`))[0]!)).toEqual([firm.root.id]);
  });
});

describe('organization_id chooses people', () => {
  it('each listed person keeps all memberships within reach, as GET /v1/users/{id} shows them', async () => {
    const who = await newPerson(firm.root.id);
    await addMembership(who.person.userId, firm.child.id);
    const one = (await api('GET', `/v1/users/${who.person.userId}`, as())).body;
    expect(memberships(one)).toEqual([firm.root.id, firm.child.id]);
    expect((await listed(`?organization_id=${firm.child.id}`)).find((u) => u.id === who.person.userId)).toEqual(one);
    expect((await listed(`?organization_id=${firm.root.id}`)).find((u) => u.id === who.person.userId)).toEqual(one);
  });
});

describe('create-user checks the name and e-mail address as User documents them', () => {
  const create = (fields: { email?: string; name?: string }) =>
    createUser({ organizationId: firm.root.id, email: `user-${randomUUID().slice(0, 8)}@example.test`, name: 'Kari Nordmann', ...fields }, localPersonDirectory);

  const names: [string, string, RegExp][] = [
    ['301 characters', 'x'.repeat(301), /at most 200 characters/],
    ['blank', '   ', /must not be blank/],
    ...Object.entries(refusedOverHttp).map(([what, value]): [string, string, RegExp] => [what, `Kari ${value}`, /^The user name must /]),
  ];
  it.each(names)('refuses a name of %s', async (_what, name, message) => {
    const before = (await listed()).length;
    await expect(create({ name })).rejects.toThrow(message);
    expect(await listed()).toHaveLength(before);
  });

  it.each([
    ['NUL (U+0000)', 'kari\u0000@example.test'],
    ['a C1 control (U+0085)', 'kari\u0085@example.test'],
    ['a bidi override (U+202E)', 'kari\u202E@example.test'],
  ])('refuses an e-mail address with %s', async (_what, email) => {
    const before = (await listed()).length;
    await expect(create({ email })).rejects.toThrow(/is not an e-mail address/);
    expect(await listed()).toHaveLength(before);
  });

  it('takes a name of 200 characters, trimmed, and answers it as sent', async () => {
    const name = `Kari ${'N'.repeat(195)}`;
    const { person } = await create({ name: `  ${name} ` });
    expect((await api('GET', `/v1/users/${person.userId}`, as())).body).toMatchObject({ id: person.userId, name });
  });
});

/** The local directory, recording the logins it holds; `failRemoveOnce` makes the next remove throw (a throttled Cognito). */
const recordingDirectory = () => {
  const logins = new Set<string>();
  const calls: string[] = [];
  let failRemove = false;
  const directory: PersonDirectory = {
    async create(person, password) {
      calls.push('create');
      const login = await localPersonDirectory.create(person, password);
      logins.add(person.userId);
      return login;
    },
    async remove(userId) {
      calls.push('remove');
      if (failRemove) {
        failRemove = false;
        throw new Error('TooManyRequestsException: Rate exceeded');
      }
      logins.delete(userId);
    },
  };
  return { directory, logins, calls, failRemoveOnce: () => (failRemove = true) };
};

describe('create-user checks a given password against the login password policy', () => {
  it.each([
    ['15 characters', 'Correct-Horse-1', /at least 16 characters \(it has 15\)/],
    ['no uppercase letter', 'correct-horse-battery-1', /an uppercase letter/],
    ['no symbol', 'CorrectHorseBattery1', /a symbol/],
  ])('refuses one of %s before any login is made or anything written', async (_what, password, missing) => {
    const { directory, calls } = recordingDirectory();
    const email = `weak-${randomUUID().slice(0, 8)}@example.test`;
    const attempt = createUser({ organizationId: firm.root.id, email, name: 'Kari Nordmann', password }, directory);
    await expect(attempt).rejects.toBeInstanceOf(AdministrationError);
    await expect(attempt).rejects.toThrow(missing);
    expect(calls).toEqual([]);
    expect(await personRepository.findByEmail(email)).toBeUndefined();
  });

  it('takes one that meets it', async () => {
    const { directory, logins } = recordingDirectory();
    const { person, generated } = await createUser({ organizationId: firm.root.id, email: `strong-${randomUUID().slice(0, 8)}@example.test`, name: 'Kari', password: 'Correct-Horse-Battery-1' }, directory);
    expect(generated).toBe(false);
    expect([...logins]).toEqual([person.userId]);
  });

  it('leaves no login behind when a step after the login fails, so a re-run with the e-mail address works', async () => {
    const { directory, logins } = recordingDirectory();
    const email = `rerun-${randomUUID().slice(0, 8)}@example.test`;
    const create = () => createUser({ organizationId: firm.root.id, email, name: 'Kari', password: 'Correct-Horse-Battery-1' }, directory);
    const spy = vi.spyOn(organizationRepository, 'placements').mockRejectedValueOnce(new Error('ProvisionedThroughputExceededException'));
    try {
      await expect(create()).rejects.toThrow(/ProvisionedThroughputExceeded/);
    } finally {
      spy.mockRestore();
    }
    expect(logins.size).toBe(0);
    const { person } = await create();
    expect([...logins]).toEqual([person.userId]);
  });
});

describe('delete-user is finished by running it again', () => {
  const policyFor = async () => {
    const company = await firm.company();
    const response = await api('POST', '/v1/access/policies', { ...as(), body: { name: `Doomed ${randomUUID().slice(0, 8)}`, rules: [{ effect: 'allow', actions: ['companies:read'], resources: { companies: [company] } }] } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.id as string;
  };
  const assign = async (policyId: string, userId: string) => expect((await api('POST', '/v1/access/assignments', { ...as(), body: { policyId, userId } })).status).toBe(201);

  it('after the login removal failed: access ended at once, the re-run completes, the e-mail address is free again', async () => {
    const { directory, failRemoveOnce } = recordingDirectory();
    const who = await newPerson(firm.root.id);
    const userId = who.person.userId;
    failRemoveOnce();
    await expect(deleteUser(userId, directory, localCredentialIssuer)).rejects.toThrow(/Rate exceeded/);
    expectProblem(await api('GET', `/v1/users/${userId}`, as()), 404, 'not_found');
    await expect(createUser({ organizationId: firm.root.id, email: who.person.email, name: 'Again' }, localPersonDirectory)).rejects.toThrow(/exists already/);

    expect(await deleteUser(userId, directory, localCredentialIssuer)).toEqual({ resumed: true, assignmentsDeleted: 0, clientsRevoked: 0 });
    expectProblem(await api('GET', `/v1/users/${userId}`, as()), 404, 'not_found');
    expect(await personRepository.memberships(userId)).toEqual([]);
    const successor = await createUser({ organizationId: firm.root.id, email: who.person.email, name: 'Successor' }, localPersonDirectory);

    // Once more: nothing left to do, and the successor keeps the address.
    expect(await deleteUser(userId, directory, localCredentialIssuer)).toEqual({ resumed: true, assignmentsDeleted: 0, clientsRevoked: 0 });
    expect((await personRepository.findByEmail(who.person.email))?.userId).toBe(successor.person.userId);
    await expect(createUser({ organizationId: firm.root.id, email: who.person.email, name: 'Third' }, localPersonDirectory)).rejects.toThrow(/exists already/);
  });

  it('after a failure among the assignments: the re-run finds the assignments and per-user clients left', async () => {
    const who = await newPerson(firm.root.id);
    const userId = who.person.userId;
    const policyId = await policyFor();
    await assign(policyId, userId);
    const spy = vi.spyOn(accessRepository, 'assignment').mockRejectedValueOnce(new Error('ProvisionedThroughputExceededException'));
    try {
      await expect(deleteUser(userId, localPersonDirectory, localCredentialIssuer)).rejects.toThrow(/ProvisionedThroughputExceeded/);
    } finally {
      spy.mockRestore();
    }
    expectProblem(await api('GET', `/v1/users/${userId}`, as()), 404, 'not_found');

    expect(await deleteUser(userId, localPersonDirectory, localCredentialIssuer)).toEqual({ resumed: true, assignmentsDeleted: 1, clientsRevoked: 1 });
    expect((await apiClientRepository.listByOrganization(firm.root.id)).find((client) => client.clientId === who.client.clientId)?.status).toBe('revoked');
    expect((await api('DELETE', `/v1/access/policies/${policyId}`, as())).status).toBe(200);
  });

  it('a user never created is not found', async () => {
    await expect(deleteUser(randomUUID(), localPersonDirectory, localCredentialIssuer)).rejects.toThrow(/^User .* not found$/);
  });
});

describe('removing a membership', () => {
  it("revokes the person's per-user clients of that organization; adding the membership again does not bring them back", async () => {
    const who = await newPerson(firm.root.id);
    const userId = who.person.userId;
    await addMembership(userId, firm.child.id);
    const { client, clientSecret } = await createTestClient({ name: 'user-in-child', organizationId: firm.child.id, userId, plan: 'premium', scopes: ['companies:read'] });
    expect((await fetchToken(client.clientId, clientSecret)).status).toBe(200);

    await removeMembership(userId, firm.child.id, localCredentialIssuer);
    const status = async (clientId: string) => (await apiClientRepository.get(clientId))?.status;
    expect(await status(client.clientId)).toBe('revoked');
    expect(await status(who.client.clientId)).toBe('active');
    expect((await fetchToken(client.clientId, clientSecret)).status).not.toBe(200);

    await addMembership(userId, firm.child.id);
    expect(await status(client.clientId)).toBe('revoked');
    expect((await fetchToken(client.clientId, clientSecret)).status).not.toBe(200);
    // delete-user revokes the one client left active (the root organization's).
    expect(await deleteUser(userId, localPersonDirectory, localCredentialIssuer)).toMatchObject({ clientsRevoked: 1 });
  });

  it('revokes the clients before the membership goes: a revocation that fails leaves the membership, and the same command again finishes', async () => {
    const who = await newPerson(firm.root.id);
    const userId = who.person.userId;
    await addMembership(userId, firm.child.id);
    const { client } = await createTestClient({ name: 'user-in-child-2', organizationId: firm.child.id, userId, plan: 'premium', scopes: ['companies:read'] });
    const failing: CredentialIssuer = { ...localCredentialIssuer, revoke: () => Promise.reject(new Error('Cognito is throttling')) };
    await expect(removeMembership(userId, firm.child.id, failing)).rejects.toThrow(/throttling/);
    expect((await personRepository.memberships(userId)).map((membership) => membership.organizationId)).toContain(firm.child.id);
    await removeMembership(userId, firm.child.id, localCredentialIssuer);
    expect((await apiClientRepository.get(client.clientId))?.status).toBe('revoked');
    expect((await personRepository.memberships(userId)).map((membership) => membership.organizationId)).not.toContain(firm.child.id);
    await deleteUser(userId, localPersonDirectory, localCredentialIssuer);
  });
});
