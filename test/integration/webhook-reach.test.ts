import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../shared/administration/service';
import { api, expectProblem, tokenFor } from '../support/api';
import { createTestClient } from '../support/clients';
import { newFirm } from '../support/people';
import { queueWaitMs } from '../support/poll';
import { testStack } from '../support/stack';
import { eventually, startReceiver, verifySubscription } from '../support/webhook-receiver';

/**
 * Which subscriptions a system client sees: those of its organization and its descendants (its
 * reach, general rule 2), the same in the list as by id. A parent organization's client lists,
 * reads, changes, rotates, tests, verifies and deletes a child's subscription and reads and
 * redelivers its deliveries; the child's client gets 404 for every one of these on the parent's,
 * and so does a sibling on the child's.
 */
type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const receivers: Receiver[] = [];
afterAll(async () => {
  for (const receiver of receivers) await receiver.stop();
});

let parent: { token: string; organizationId: string; company: string };
let child: { token: string; organizationId: string; company: string };
let sibling: { token: string; organizationId: string };

const systemClientOf = async (organizationId: string, label: string) => {
  const { client, clientSecret } = await createTestClient({ name: `${label}-system`, organizationId, plan: 'premium' });
  return tokenFor(client.clientId, clientSecret);
};

/** A verified subscription of the token's organization to a receiver of its own on 127.0.0.1. */
const subscribe = async (token: string, companyIds?: string[]) => {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const created = await api('POST', '/v1/webhooks/subscriptions', { token, body: { url: receiver.url, eventTypes: ['webhook.test'], ...(companyIds && { companyIds }) } });
  expect(created.status).toBe(201);
  receiver.state.secrets = [created.body.secret];
  const id = created.body.id as string;
  await eventually(async () => (await api('GET', `/v1/webhooks/subscriptions/${id}`, { token })).body.status === 'active', queueWaitMs, 'the handshake');
  return { id, receiver };
};

/** Every page of the token's subscription list. */
const listed = async (token: string) => {
  const all: { id: string; organizationId: string }[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 50; pages++) {
    const page: { status: number; body: { data: { id: string; organizationId: string }[]; pagination: { next_cursor: string | null } } } = await api(
      'GET',
      `/v1/webhooks/subscriptions?page_size=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { token },
    );
    expect(page.status).toBe(200);
    all.push(...page.body.data);
    cursor = page.body.pagination.next_cursor;
    if (!cursor) break;
  }
  return all;
};

/** A delivered webhook.test of the subscription, sent by `token`. */
const testDelivery = async (token: string, subscription: { id: string; receiver: Receiver }) => {
  const sent = await api('POST', `/v1/webhooks/subscriptions/${subscription.id}/test`, { token });
  expect(sent.status).toBe(202);
  await eventually(() => subscription.receiver.state.received.some((r) => r.event.data.ids.subscriptionId === subscription.id && r.id === sent.body.eventId), queueWaitMs, 'the test event');
  return sent.body.id as string;
};

beforeAll(async () => {
  testStack();
  const firm = await newFirm('Webhook reach');
  const siblingOrganization = await createOrganization({ name: 'Webhook reach sibling', parentId: firm.root.id });
  parent = { token: firm.systemToken, organizationId: firm.root.id, company: await firm.company(firm.root, 'Parent Selskap AS') };
  child = { token: await systemClientOf(firm.child.id, 'webhook-reach-child'), organizationId: firm.child.id, company: await firm.company(firm.child, 'Child Selskap AS') };
  sibling = { token: await systemClientOf(siblingOrganization.id, 'webhook-reach-sibling'), organizationId: siblingOrganization.id };
});

describe('webhook subscriptions across a parent and a child organization', () => {
  it("the parent lists, reads and changes the child's subscription; the child and a sibling get 404 on what is not theirs", async () => {
    const parentOwn = await subscribe(parent.token);
    const childOwn = await subscribe(child.token, [child.company]);
    const parentDelivery = await testDelivery(parent.token, parentOwn);

    // The list agrees with reach by id: the parent's shows its own first, then the child's.
    // (The other tests of this file may have left subscriptions of these organizations behind.)
    const ours = <T extends { id: string }>(list: T[]) => list.filter((s) => s.id === parentOwn.id || s.id === childOwn.id);
    const parentList = await listed(parent.token);
    expect(ours(parentList).map((s) => s.id)).toEqual([parentOwn.id, childOwn.id]);
    expect(ours(parentList).map((s) => s.organizationId)).toEqual([parent.organizationId, child.organizationId]);
    expect(new Set(parentList.map((s) => s.organizationId))).toEqual(new Set([parent.organizationId, child.organizationId]));
    const childList = await listed(child.token);
    expect(ours(childList).map((s) => s.id)).toEqual([childOwn.id]);
    expect(childList.every((s) => s.organizationId === child.organizationId)).toBe(true);
    expect(await listed(sibling.token)).toEqual([]);

    // Child (and sibling) -> the parent's subscription and its delivery: 404 for every operation, nothing changed.
    for (const token of [child.token, sibling.token]) {
      const base = `/v1/webhooks/subscriptions/${parentOwn.id}`;
      expectProblem(await api('GET', base, { token }), 404, 'not_found');
      expectProblem(await api('PATCH', base, { token, body: { description: 'taken over' } }), 404, 'not_found');
      expectProblem(await api('POST', `${base}/verify`, { token }), 404, 'not_found');
      expectProblem(await api('POST', `${base}/rotate-secret`, { token }), 404, 'not_found');
      expectProblem(await api('POST', `${base}/test`, { token }), 404, 'not_found');
      expectProblem(await api('GET', `${base}/deliveries`, { token }), 404, 'not_found');
      expectProblem(await api('GET', `/v1/webhooks/deliveries/${parentDelivery}`, { token }), 404, 'not_found');
      expectProblem(await api('POST', `/v1/webhooks/deliveries/${parentDelivery}/redeliver`, { token }), 404, 'not_found');
      expectProblem(await api('DELETE', base, { token }), 404, 'not_found');
    }
    // The sibling does not reach the child's either.
    expectProblem(await api('GET', `/v1/webhooks/subscriptions/${childOwn.id}`, { token: sibling.token }), 404, 'not_found');
    expectProblem(await api('POST', `/v1/webhooks/subscriptions/${childOwn.id}/rotate-secret`, { token: sibling.token }), 404, 'not_found');
    const untouched = await api('GET', `/v1/webhooks/subscriptions/${parentOwn.id}`, { token: parent.token });
    expect(untouched.body).toMatchObject({ status: 'active', description: null, previousSecretExpiresAt: null });
    expect(parentOwn.receiver.state.received.map((r) => r.event.type)).toEqual(['webhook.test']); // no test event nor redelivery went out

    // Parent -> the child's subscription: every operation.
    const base = `/v1/webhooks/subscriptions/${childOwn.id}`;
    const read = await api('GET', base, { token: parent.token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: childOwn.id, organizationId: child.organizationId, companyIds: [child.company] });

    const changed = await api('PATCH', base, { token: parent.token, body: { description: 'Watched by the parent' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ organizationId: child.organizationId, description: 'Watched by the parent' });

    const verified = await verifySubscription(childOwn.id, { token: parent.token });
    expect(verified.status).toBe(200);
    expect(verified.body.status).toBe('active');

    const rotated = await api('POST', `${base}/rotate-secret`, { token: parent.token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    childOwn.receiver.state.secrets = [rotated.body.secret];

    const childDelivery = await testDelivery(parent.token, childOwn);
    const arrived = childOwn.receiver.state.received.find((r) => r.event.type === 'webhook.test')!;
    expect(arrived.verifiedBy.library).toEqual([true]); // signed with the secret the parent rotated to

    const deliveries = await api('GET', `${base}/deliveries`, { token: parent.token });
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.data.map((d: { id: string }) => d.id)).toContain(childDelivery);
    const detail = await api('GET', `/v1/webhooks/deliveries/${childDelivery}`, { token: parent.token });
    expect(detail.status).toBe(200);
    expect(detail.body.subscriptionId).toBe(childOwn.id);
    const again = await api('POST', `/v1/webhooks/deliveries/${childDelivery}/redeliver`, { token: parent.token });
    expect(again.status).toBe(202);
    expect(again.body.redeliveryOf).toBe(childDelivery);
    await eventually(() => childOwn.receiver.state.received.filter((r) => r.id === detail.body.eventId).length === 2, queueWaitMs, 'the redelivery');

    // The child sees what the parent did, in its list too.
    expect((await api('GET', base, { token: child.token })).body.description).toBe('Watched by the parent');
    expect((await api('GET', `${base}/deliveries`, { token: child.token })).body.data.map((d: { id: string }) => d.id)).toEqual(expect.arrayContaining([childDelivery, again.body.id]));

    const deleted = await api('DELETE', base, { token: parent.token });
    expect(deleted.status).toBe(200);
    expectProblem(await api('GET', base, { token: child.token }), 404, 'not_found');
    expect(ours(await listed(child.token))).toEqual([]);
    expect(ours(await listed(parent.token)).map((s) => s.id)).toEqual([parentOwn.id]);
  }, 90_000);

  it("the parent's list holds its own subscriptions first (oldest first), then its descendants'", async () => {
    // Never verified (the receiver knows no secret): they stay pending, which is all this needs.
    const receiver = await startReceiver();
    receivers.push(receiver);
    const create = (token: string) => api('POST', '/v1/webhooks/subscriptions', { token, body: { url: `${receiver.url}/${randomUUID()}`, eventTypes: ['webhook.test'] } });
    const own = await create(parent.token);
    const childs = await create(child.token);
    const laterOwn = await create(parent.token);
    const ids = (await listed(parent.token)).map((s) => s.id);
    expect(ids.indexOf(own.body.id)).toBeLessThan(ids.indexOf(laterOwn.body.id));
    expect(ids.indexOf(laterOwn.body.id)).toBeLessThan(ids.indexOf(childs.body.id));
    const childIds = (await listed(child.token)).map((s) => s.id);
    expect(childIds).toContain(childs.body.id);
    expect(childIds).not.toContain(own.body.id);
    expect(childIds).not.toContain(laterOwn.body.id);
    for (const id of [own.body.id, childs.body.id, laterOwn.body.id]) expect((await api('DELETE', `/v1/webhooks/subscriptions/${id}`, { token: parent.token })).status).toBe(200);
  });

  it("a change the parent makes to the child's subscription may name only companies that subscription hears (the child's subtree)", async () => {
    const subscription = await subscribe(child.token);
    const base = `/v1/webhooks/subscriptions/${subscription.id}`;
    // The parent's company is within the parent's reach, but the child's subscription never hears its events.
    const outside = await api('PATCH', base, { token: parent.token, body: { companyIds: [parent.company] } });
    expectProblem(outside, 400, 'validation_failed');
    expect(outside.body.errors).toEqual([expect.objectContaining({ field: 'companyIds', index: 0 })]);
    expect((await api('GET', base, { token: child.token })).body.companyIds).toBeNull();
    const inside = await api('PATCH', base, { token: parent.token, body: { companyIds: [child.company] } });
    expect(inside.status).toBe(200);
    expect(inside.body.companyIds).toEqual([child.company]);
    // The child may not name its parent's company either.
    expectProblem(await api('PATCH', base, { token: child.token, body: { companyIds: [parent.company] } }), 400, 'validation_failed');
  });
});
