import { randomUUID } from 'node:crypto';
import { reachable } from '../companies/reachable';
import type { Page } from '../db/query-page';
import { cursorCaller, type Principal } from '../identity/principal';
import { decodeCursor, encodeCursor, type CursorBinding } from '../platform/cursor';
import { within } from '../identity/reach';
import { webhookSettings } from '../platform/config';
import { problems } from '../platform/problem';
import { eventCatalog, thinEvent } from './catalog';
import { verifySubscription } from './delivery';
import { refusedUrl } from './outbound';
import { sendMessage } from './queue';
import { deliveryRepository, eventFeed, subscriptionRepository, type DeliveryRecord, type SubscriptionRecord } from './repository';
import type { CreateSubscriptionInput, Subscription, UpdateSubscriptionInput } from './schemas';
import { sealSigningSecret } from './secrets';
import { newSigningSecret } from './signing';

/** Webhook subscriptions and their deliveries (webhooks:manage, system clients). */
export const toSubscription = (record: SubscriptionRecord): Subscription => ({
  id: record.id,
  organizationId: record.organizationId,
  url: record.url,
  eventTypes: record.eventTypes,
  companyIds: record.companyIds,
  description: record.description,
  status: record.status,
  statusReason: record.statusReason,
  verifiedAt: record.verifiedAt,
  previousSecretExpiresAt: record.secrets.slice(1).find((secret) => secret.expiresAt && Date.parse(secret.expiresAt) > Date.now())?.expiresAt ?? null,
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
});

export const toDelivery = (record: DeliveryRecord) => ({
  id: record.id,
  subscriptionId: record.subscriptionId,
  eventId: record.eventId,
  eventType: record.eventType,
  status: record.status,
  attemptCount: record.attempts.length,
  nextAttemptAt: record.status === 'pending' ? record.nextAttemptAt : null,
  notice: record.notice,
  redeliveryOf: record.redeliveryOf,
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
});

export const toDeliveryWithAttempts = (record: DeliveryRecord) => ({
  ...toDelivery(record),
  event: JSON.parse(record.payload) as Record<string, unknown>,
  attempts: record.attempts.map(({ retryAfterSeconds: _retryAfter, ...attempt }) => attempt),
});

const checkUrl = (url: string) => {
  const refused = refusedUrl(url);
  if (refused) throw problems.validation(refused, [{ field: 'url', message: refused }]);
};

/**
 * Every named company must exist, be live, within the caller's reach and within the subscription's
 * organization's subtree, whose events it hears (a filter naming others would never match: refused).
 */
const checkCompanies = async (principal: Principal, subscriptionPath: string, companyIds: readonly string[] | null | undefined) => {
  for (const [index, id] of (companyIds ?? []).entries()) {
    const company = await reachable.company(principal, id, 'webhooks:manage');
    if (!company || !within(company.organizationPath, subscriptionPath)) {
      throw problems.validation("companyIds names a company that does not exist, or is outside your reach or the subscription's organization.", [
        { field: 'companyIds', index, message: `No company ${id} within your reach and the subscription's organization.` },
      ]);
    }
  }
};

const queueHandshake = (subscription: { id: string; url: string }) =>
  sendMessage('webhooks', { verifySubscriptionId: subscription.id, url: subscription.url }, webhookSettings().verificationDelaySeconds);

const awaitingHandshake = 'Waiting for the handshake (a signed webhook.verification event to the url).';

export const createSubscription = async (principal: Principal, input: CreateSubscriptionInput) => {
  checkUrl(input.url);
  await checkCompanies(principal, principal.organizationPath!, input.companyIds);
  const now = new Date().toISOString();
  const secret = newSigningSecret();
  const owner = { id: randomUUID(), organizationId: principal.organizationId! };
  const record: SubscriptionRecord = {
    ...owner,
    organizationPath: principal.organizationPath!,
    url: input.url,
    eventTypes: [...new Set(input.eventTypes)],
    companyIds: input.companyIds ? [...new Set(input.companyIds)] : null,
    description: input.description ?? null,
    status: 'pending_verification',
    statusReason: awaitingHandshake,
    secrets: [{ secret: await sealSigningSecret(secret, owner), createdAt: now, expiresAt: null }],
    createdAt: now,
    updatedAt: now,
    verifiedAt: null,
    failingSince: null,
    lastFailureAt: null,
  };
  await subscriptionRepository.create(record);
  try {
    await queueHandshake(record);
  } catch (error) {
    // Nothing half-written: a retry (same Idempotency-Key, released by the 500) creates it afresh.
    await subscriptionRepository.delete(record.id);
    throw error;
  }
  return { ...toSubscription(record), secret };
};

/** The subscriptions of the caller's organization and its descendants: what it may read and change by id (shared/composition/owners.ts). */
export const listSubscriptions = async (principal: Principal, page: { pageSize: number; cursor?: string }, operationId: string): Promise<Page<Subscription>> => {
  const result = await subscriptionRepository.listSubtree(principal.organizationPath!, { ...page, binding: { ...cursorCaller(principal, operationId), filters: {} } });
  return { ...result, data: result.data.map(toSubscription) };
};

export const updateSubscription = async (principal: Principal, current: SubscriptionRecord, patch: UpdateSubscriptionInput): Promise<Subscription> => {
  if (patch.url !== undefined) checkUrl(patch.url);
  if (patch.companyIds) await checkCompanies(principal, current.organizationPath, patch.companyIds);
  const urlChanged = patch.url !== undefined && patch.url !== current.url;
  // The url sent again while its handshake is pending queues the handshake again (the change's own
  // may have failed to queue: a retry of it finds the url already stored).
  const handshakeDue = urlChanged || (patch.url !== undefined && current.status === 'pending_verification');
  const changes: Partial<SubscriptionRecord> = {
    ...(patch.url !== undefined && { url: patch.url }),
    ...(patch.eventTypes !== undefined && { eventTypes: [...new Set(patch.eventTypes)] }),
    ...(patch.companyIds !== undefined && { companyIds: patch.companyIds ? [...new Set(patch.companyIds)] : null }),
    ...(patch.description !== undefined && { description: patch.description }),
    ...(urlChanged && { status: 'pending_verification' as const, statusReason: awaitingHandshake, verifiedAt: null }),
  };
  if (Object.keys(changes).length === 0) {
    if (handshakeDue) await queueHandshake(current);
    return toSubscription(current);
  }
  changes.updatedAt = new Date().toISOString();
  if (!(await subscriptionRepository.update(current.id, changes, [], current.url))) throw problems.conflict('The subscription changed meanwhile; read it and try again.');
  const updated = { ...current, ...changes };
  if (handshakeDue) await queueHandshake(updated);
  return toSubscription(updated);
};

/** An organization cascade: the subscriptions of these (deleted) organizations go, so nothing more is delivered to them. */
export const deleteSubscriptionsOf = async (organizationIds: readonly string[]): Promise<number> => {
  const subscriptions = await subscriptionRepository.ofOrganizations(organizationIds);
  for (const subscription of subscriptions) await subscriptionRepository.delete(subscription.id);
  return subscriptions.length;
};

export const deleteSubscription = async (subscription: SubscriptionRecord) => {
  await subscriptionRepository.delete(subscription.id);
  return { id: subscription.id, deleted: true as const };
};

/** The handshake, now; passing it makes the subscription active (also a disabled one). */
export const verifyNow = async (subscription: SubscriptionRecord): Promise<Subscription> => {
  const verified = await verifySubscription(subscription);
  if (verified) return toSubscription(verified);
  if (!(await subscriptionRepository.get(subscription.id))) throw problems.notFound('subscription');
  throw problems.conflict('The subscription changed while its handshake ran (its url or status); read it and verify again.', { reason: 'subscription_changed' });
};

/** At most this many secrets sign at once (the new one and the previous ones still in their overlap). */
export const maxSigningSecrets = 3;

/**
 * A new secret; the current one signs on for the overlap (24 h), and so does every older one still
 * inside the overlap a rotation before gave it. Past `maxSigningSecrets` signing at once: 409.
 */
export const rotateSecret = async (subscription: SubscriptionRecord) => {
  const now = Date.now();
  const secret = newSigningSecret();
  const previousSecretExpiresAt = new Date(now + webhookSettings().secretOverlapSeconds * 1000).toISOString();
  const [current, ...older] = subscription.secrets;
  const stillSigning = older.filter((kept) => kept.expiresAt !== null && Date.parse(kept.expiresAt) > now);
  if (2 + stillSigning.length > maxSigningSecrets) {
    throw problems.conflict(
      `${1 + stillSigning.length} secrets sign already (the current one and ${stillSigning.length} in their overlap after a rotation); a rotation now would make more than ${maxSigningSecrets}. Rotate again after ${stillSigning.map((kept) => kept.expiresAt!).sort()[0]}.`,
      { reason: 'too_many_signing_secrets' },
    );
  }
  // All sealed: a secret stored in plain text before encryption is sealed now.
  const secrets = [
    { secret: await sealSigningSecret(secret, subscription), createdAt: new Date(now).toISOString(), expiresAt: null },
    { ...current!, secret: await sealSigningSecret(current!.secret, subscription), expiresAt: previousSecretExpiresAt },
    ...(await Promise.all(stillSigning.map(async (kept) => ({ ...kept, secret: await sealSigningSecret(kept.secret, subscription) })))),
  ];
  if (!(await subscriptionRepository.replaceSecrets(subscription.id, secrets, current!.createdAt, new Date(now).toISOString()))) {
    if (!(await subscriptionRepository.get(subscription.id))) throw problems.notFound('subscription');
    throw problems.conflict('Another request rotated the secret meanwhile, and its secret is the one stored; this rotation stored nothing. Use that secret, or rotate again.', {
      reason: 'concurrent_rotation',
    });
  }
  return { id: subscription.id, secret, previousSecretExpiresAt };
};

const requireActive = (subscription: SubscriptionRecord) => {
  if (subscription.status !== 'active') {
    throw problems.conflict(`The subscription is ${subscription.status}; verify it first (POST .../verify).`, { reason: 'subscription_not_active' });
  }
};

const queueDelivery = async (record: DeliveryRecord) => {
  await deliveryRepository.create(record);
  try {
    await sendMessage('webhooks', { deliveryId: record.id });
  } catch (error) {
    // Never left pending with nothing to send it: the log says it failed, and a retry queues a new one.
    await deliveryRepository.end(record.id, 'failed', 'The delivery could not be queued; nothing was sent.');
    throw error;
  }
  return toDelivery(record);
};

const newDelivery = (subscription: SubscriptionRecord, eventId: string, eventType: string, payload: string, redeliveryOf: string | null): DeliveryRecord => {
  const now = new Date().toISOString();
  return { id: randomUUID(), subscriptionId: subscription.id, organizationId: subscription.organizationId, eventId, eventType, payload, status: 'pending', attempts: [], nextAttemptAt: now, createdAt: now, updatedAt: now, redeliveryOf, notice: null };
};

/** Sends a webhook.test event now (a delivery like any other). */
export const sendTestEvent = async (subscription: SubscriptionRecord) => {
  requireActive(subscription);
  const id = randomUUID();
  const event = thinEvent({ id, type: 'webhook.test', occurredAt: new Date().toISOString(), companyId: null, data: { subscriptionId: subscription.id } }, subscription.organizationId);
  return queueDelivery(newDelivery(subscription, id, event.type, JSON.stringify(event), null));
};

/** The same event (same id, same body) again, now, as a new delivery of the same subscription. */
export const redeliver = async (delivery: DeliveryRecord, subscription: SubscriptionRecord) => {
  requireActive(subscription);
  return queueDelivery(newDelivery(subscription, delivery.eventId, delivery.eventType, delivery.payload, delivery.id));
};

export const listDeliveries = async (
  principal: Principal,
  subscription: SubscriptionRecord,
  query: { status?: DeliveryRecord['status']; event_type?: string; page_size: number; cursor?: string },
  operationId: string,
) => {
  const filters = { status: query.status, eventType: query.event_type };
  const page = await deliveryRepository.list(subscription.id, filters, { pageSize: query.page_size, cursor: query.cursor, binding: { ...cursorCaller(principal, operationId), filters: { subscriptionId: subscription.id, ...filters } } });
  return { ...page, data: page.data.map(toDelivery) };
};

export const eventTypes = () => ({
  data: eventCatalog.map((entry) => ({ type: entry.type, description: entry.description, ids: [...entry.ids], link: entry.link(Object.fromEntries(entry.ids.map((id) => [id, `{${id}}`])), '{companyId}') })),
  pagination: { next_cursor: null, has_more: false },
});

/**
 * The organization's feed (its own and its descendants' companies), in sequence order. It starts
 * after `after` (a resume position: a sequence the reader kept, any filters) or where `cursor`
 * (signed, bound to the caller and the filters: the last sequence the previous page read, matching
 * or not) left off; next_cursor is null on the last page.
 */
export const listEvents = async (principal: Principal, query: { after?: number; cursor?: string; page_size: number; type?: string; company_id?: string }, operationId: string) => {
  const binding: CursorBinding = { ...cursorCaller(principal, operationId), filters: { type: query.type ?? null, companyId: query.company_id ?? null } };
  const after = query.cursor ? feedPosition(await decodeCursor(query.cursor, binding)) : (query.after ?? 0);
  const page = await eventFeed.page(principal.organizationId!, after, query.page_size, { type: query.type, companyId: query.company_id });
  return {
    data: page.entries.map((entry) => ({ ...(JSON.parse(entry.event) as object), sequence: entry.sequence })),
    pagination: { next_cursor: page.hasMore ? await encodeCursor({ after: page.lastRead }, binding) : null, has_more: page.hasMore },
  };
};

const feedPosition = ({ after }: Record<string, unknown>): number => {
  if (typeof after !== 'number' || !Number.isSafeInteger(after) || after < 0) throw problems.invalidCursor('The cursor is malformed; restart from the first page without a cursor.');
  return after;
};

