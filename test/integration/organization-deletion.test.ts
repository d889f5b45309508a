import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAssignment } from '../../shared/access/service';
import { companyRepository } from '../../shared/companies/repository';
import { createOrganization, deleteOrganization } from '../../shared/administration/service';
import { accessRepository } from '../../shared/identity/access-repository';
import { localCredentialIssuer } from '../../shared/identity/credential-issuers';
import { organizationRepository } from '../../shared/identity/organization-repository';
import { localPersonDirectory } from '../../shared/identity/person-directories';
import { personRepository } from '../../shared/identity/person-repository';
import { administratorOf } from '../../shared/identity/principal';
import { addMembership, createUser } from '../../shared/people/service';
import { api, expectProblem, tokenFor } from '../support/api';
import { createTestClient } from '../support/clients';
import { queueWaitMs } from '../support/poll';
import { signIn } from '../support/sign-in';
import { testStack } from '../support/stack';
import { eventually, startReceiver } from '../support/webhook-receiver';

/**
 * Deleting an organization offboards it: nothing of it keeps working. Its webhook subscriptions
 * hear nothing more, its access policies go with their assignments, a person who belongs nowhere
 * else is deleted (no sign-in), one who stays in another organization keeps only that membership.
 */
type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const receivers: Receiver[] = [];
afterAll(async () => {
  for (const receiver of receivers) await receiver.stop();
});

const systemTokenOf = async (organizationId: string, label: string) => {
  const { client, clientSecret } = await createTestClient({ name: `${label}-system`, organizationId, plan: 'premium' });
  return tokenFor(client.clientId, clientSecret);
};

const subscribe = async (token: string) => {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const created = await api('POST', '/v1/webhooks/subscriptions', { token, body: { url: receiver.url, eventTypes: ['*'] } });
  expect(created.status).toBe(201);
  receiver.state.secrets = [created.body.secret];
  const id = created.body.id as string;
  await eventually(async () => (await api('GET', `/v1/webhooks/subscriptions/${id}`, { token })).body.status === 'active', queueWaitMs, 'the handshake');
  return { id, receiver };
};

const newUser = async (organizationId: string, label: string) => {
  const password = `Offboarding-${randomUUID().slice(0, 8)}-Pw1!`;
  const { person } = await createUser({ organizationId, email: `${label}-${randomUUID().slice(0, 8)}@example.test`, name: label, password }, localPersonDirectory);
  return { ...person, password };
};

describe('deleting an organization offboards it', () => {
  let parentToken: string;
  let parent: Awaited<ReturnType<typeof createOrganization>>;
  let child: Awaited<ReturnType<typeof createOrganization>>;

  beforeAll(async () => {
    testStack();
    parent = await createOrganization({ name: `Offboarding ${randomUUID().slice(0, 8)}` });
    child = await createOrganization({ name: 'Offboarding branch', parentId: parent.id });
    parentToken = await systemTokenOf(parent.id, 'offboarding-parent');
  });

  it('subscriptions, policies, memberships and people of the organization go; what belongs to the parent stays', async () => {
    const childToken = await systemTokenOf(child.id, 'offboarding-child');
    const company = (await api('POST', '/v1/companies', { token: parentToken, body: { displayName: 'Moderselskap AS', accountingSystem: 'Api' } })).body.id as string;
    const [childSubscription, parentSubscription] = [await subscribe(childToken), await subscribe(parentToken)];
    const policy = await api('POST', '/v1/access/policies', {
      token: childToken,
      body: { name: 'Branch readers', rules: [{ effect: 'allow', actions: ['companies:read'], resources: { organizations: [child.id] } }] },
    });
    expect(policy.status).toBe(201);
    const onlyInChild = await newUser(child.id, 'only-in-branch');
    const inBoth = await newUser(parent.id, 'in-both');
    await addMembership(inBoth.userId, child.id);
    await createAssignment(administratorOf(child, 'test', ['access:manage']), { policyId: policy.body.id, userId: inBoth.userId });
    const before = await signIn(onlyInChild, { scopes: ['companies:read'] });
    expect((await api('GET', '/v1/whoami', { token: before.access_token })).status).toBe(200);

    const result = await deleteOrganization(child.id, 'test', { issuer: localCredentialIssuer, directory: localPersonDirectory });
    expect(result).toEqual({ companiesDeleted: 0, organizationsDeleted: 1, clientsRevoked: 1, subscriptionsDeleted: 1, policiesDeleted: 1, membershipsEnded: 1, usersDeleted: 1 });

    // The branch's subscription is gone and hears nothing more; the parent's hears the next change.
    expectProblem(await api('GET', `/v1/webhooks/subscriptions/${childSubscription.id}`, { token: parentToken }), 404, 'not_found');
    const heardBefore = childSubscription.receiver.state.received.length;
    expect((await api('PATCH', `/v1/companies/${company}`, { token: parentToken, body: { displayName: 'Moderselskap Nytt AS' } })).status).toBe(200);
    await eventually(async () => parentSubscription.receiver.state.received.some((received) => received.event?.type === 'company.updated'), queueWaitMs, 'the parent hears the change');
    expect(childSubscription.receiver.state.received.slice(heardBefore).map((received) => received.event?.type)).toEqual([]);

    // The branch's policy is gone, and with it the assignment of the person who stays in the parent.
    expectProblem(await api('GET', `/v1/access/policies/${policy.body.id}`, { token: parentToken }), 404, 'not_found');
    expect((await accessRepository.effectiveAccess(inBoth.userId))!.assignments).toEqual([]);
    const stays = await api('GET', `/v1/users/${inBoth.userId}`, { token: parentToken });
    expect(stays.status).toBe(200);
    expect((await personRepository.memberships(inBoth.userId)).map((membership) => membership.organizationId)).toEqual([parent.id]);

    // The person who belonged only to the branch is deleted: no sign-in, no token.
    expect((await personRepository.get(onlyInChild.userId))?.status).toBe('deleted');
    expectProblem(await api('GET', `/v1/users/${onlyInChild.userId}`, { token: parentToken }), 404, 'not_found');
    await expect(signIn(onlyInChild, { scopes: ['companies:read'] })).rejects.toThrow();
    await eventually(async () => (await api('GET', '/v1/whoami', { token: before.access_token })).status === 401, queueWaitMs, 'the earlier token refused');

    // Run again, it finds everything done.
    expect(await deleteOrganization(child.id, 'test', { issuer: localCredentialIssuer, directory: localPersonDirectory })).toEqual({
      companiesDeleted: 0,
      organizationsDeleted: 0,
      clientsRevoked: 0,
      subscriptionsDeleted: 0,
      policiesDeleted: 0,
      membershipsEnded: 0,
      usersDeleted: 0,
    });
  });

  it('deletes a company the company index does not show yet (created just before): it reads the index until it shows as many as the organization counts', async () => {
    const branch = await createOrganization({ name: 'Offboarding fresh branch', parentId: parent.id });
    const branchToken = await systemTokenOf(branch.id, 'offboarding-fresh');
    const created = await Promise.all(
      ['Eldre AS', 'Nyeste AS'].map(async (displayName) => (await api('POST', '/v1/companies', { token: branchToken, body: { displayName, accountingSystem: 'Api' } })).body.id as string),
    );
    const directlyDeleted = (await api('POST', '/v1/companies', { token: branchToken, body: { displayName: 'Avviklet AS', accountingSystem: 'Api' } })).body.id as string;
    expect((await api('DELETE', `/v1/companies/${directlyDeleted}`, { token: branchToken })).status).toBe(200);
    // The index lags: its first read does not show the newest company yet.
    const read = companyRepository.allInSubtree.bind(companyRepository);
    let reads = 0;
    const lagging = vi.spyOn(companyRepository, 'allInSubtree').mockImplementation(async (...args) => {
      const companies = await read(...args);
      return reads++ === 0 ? companies.filter((company) => company.id !== created[1]) : companies;
    });
    try {
      const result = await deleteOrganization(branch.id, 'test', { issuer: localCredentialIssuer, directory: localPersonDirectory });
      expect(result.companiesDeleted).toBe(2);
    } finally {
      lagging.mockRestore();
    }
    expect(reads).toBeGreaterThan(1);
    for (const id of created) expect((await companyRepository.get(id))?.deletion?.cause).toBe('organization_cascade');
    expect((await companyRepository.get(directlyDeleted))?.deletion?.cause).toBe('direct');
  });

  it('deletes a child organization the tree index does not show yet (created just before): it reads the index until it shows as many children as each organization counts', async () => {
    const branch = await createOrganization({ name: 'Offboarding tree branch', parentId: parent.id });
    const twig = await createOrganization({ name: 'Offboarding newest twig', parentId: branch.id });
    const read = organizationRepository.subtree.bind(organizationRepository);
    let reads = 0;
    const lagging = vi.spyOn(organizationRepository, 'subtree').mockImplementation(async (...args) => {
      const members = await read(...args);
      return reads++ === 0 ? members.filter((member) => member.id !== twig.id) : members;
    });
    try {
      const result = await deleteOrganization(branch.id, 'test', { issuer: localCredentialIssuer, directory: localPersonDirectory });
      expect(result.organizationsDeleted).toBe(2);
    } finally {
      lagging.mockRestore();
    }
    expect(reads).toBeGreaterThan(1);
    expect((await organizationRepository.get(twig.id))?.status).toBe('deleted');
  });

  it('refuses a child organization whose parent is deleted after it was read, and creates nothing', async () => {
    const branch = await createOrganization({ name: 'Offboarding closing branch', parentId: parent.id });
    const get = organizationRepository.get.bind(organizationRepository);
    const stale = vi.spyOn(organizationRepository, 'get').mockImplementationOnce(async (id) => {
      const read = await get(id); // read while active, then deleted before the child is written
      await deleteOrganization(branch.id, 'test', { issuer: localCredentialIssuer, directory: localPersonDirectory });
      return read;
    });
    try {
      await expect(createOrganization({ name: 'Offboarding orphan', parentId: branch.id })).rejects.toThrow(`Parent organization ${branch.id} not found`);
    } finally {
      stale.mockRestore();
    }
    expect((await organizationRepository.subtree(branch)).map((member) => member.id)).toEqual([branch.id]);
  });

  it("a deleted organization's subscription that outlived the deletion hears nothing, and is not found", async () => {
    const branch = await createOrganization({ name: 'Offboarding late branch', parentId: parent.id });
    const branchToken = await systemTokenOf(branch.id, 'offboarding-late');
    const subscription = await subscribe(branchToken);
    const company = (await api('POST', '/v1/companies', { token: branchToken, body: { displayName: 'Filial AS', accountingSystem: 'Api' } })).body.id as string;
    await eventually(async () => subscription.receiver.state.received.some((received) => received.event?.type === 'company.created'), queueWaitMs, 'the branch hears its company');
    // As if created while the deletion ran: the organization is marked deleted, the subscription left.
    await organizationRepository.markDeleted(branch.id, new Date().toISOString());
    const heardBefore = subscription.receiver.state.received.length;
    const parentSubscription = await subscribe(parentToken);
    expect((await api('PATCH', `/v1/companies/${company}`, { token: parentToken, body: { displayName: 'Filial Nytt AS' } })).status).toBe(200);
    await eventually(async () => parentSubscription.receiver.state.received.some((received) => received.event?.type === 'company.updated'), queueWaitMs, 'the parent hears the change');
    expect(subscription.receiver.state.received.slice(heardBefore).map((received) => received.event?.type)).toEqual([]);
    expectProblem(await api('GET', `/v1/webhooks/subscriptions/${subscription.id}`, { token: parentToken }), 404, 'not_found');
  });
});
