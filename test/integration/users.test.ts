import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, deleteOrganization } from '../../shared/administration/service';
import { localCredentialIssuer } from '../../shared/identity/credential-issuers';
import { localPersonDirectory } from '../../shared/identity/person-directories';
import { addMembership, createUser } from '../../shared/people/service';
import { api, expectProblem } from '../support/api';
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
    await deleteOrganization(doomed.id, 'test', localCredentialIssuer);

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
