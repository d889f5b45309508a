import { v5 as uuidv5 } from 'uuid';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { processQueueBatch } from '../platform/queue-worker';
import { thinEvent } from './catalog';
import { sendMessages } from './queue';
import { organizationRepository } from '../identity/organization-repository';
import { outboxEventOf } from '../outbox/repository';
import { deliveryRepository, subscriptionRepository, type SubscriptionRecord } from './repository';

const deliveryNamespace = '3f1c2b9e-6f0a-4d51-9a57-8c1e0d6b2a47';

/** One delivery per (event, subscription): its id is derived from both, so a repeated fan-out finds it. */
export const deliveryIdOf = (eventId: string, subscriptionId: string): string => uuidv5(`${eventId}:${subscriptionId}`, deliveryNamespace);

/**
 * Does the subscription want this event? Not disabled (a subscription pending its handshake gets
 * the delivery, held until the handshake passes), the type named (or `*`), the company in its
 * filter (when it has one).
 */
export const wants = (subscription: SubscriptionRecord, type: string, companyId: string | null): boolean =>
  subscription.status !== 'disabled' &&
  (subscription.eventTypes.includes('*') || subscription.eventTypes.includes(type)) &&
  (subscription.companyIds === null || (companyId !== null && subscription.companyIds.includes(companyId)));

/**
 * The fan-out worker (webhook-fanout queue, fed by the relay): creates one pending delivery per
 * matching subscription of the event's organization and its ancestors (a subscription hears the
 * companies within its organization's reach) and queues each for the delivery worker. Repeats
 * are harmless: an existing delivery is queued again only while nothing was attempted yet.
 */
export const fanoutWorker = (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
  const known: SubscriptionsRead = new Map();
  return processQueueBatch(event, (record) => fanOut(JSON.parse(record.body) as FanoutMessage, known), { failureMessage: 'Fan-out failed; the message will be redelivered' }, context);
};

/** What the fan-out needs of a relayed event: its type, company, organization path and the thin event sent. */
export interface RelayedEvent {
  type: string;
  companyId: string;
  organizationPath: string;
  /** The thin event as the feed holds it and the deliveries send it (JSON). */
  payload: string;
}

/**
 * A message of the webhook-fanout queue. The relay sends the event along; a message without it
 * (queued before it was sent along, or redriven from then) reads it from the outbox.
 */
export interface FanoutMessage {
  eventId: string;
  relayed?: RelayedEvent;
}

/** An outbox event (its item) relayed in `organization`: what the feed holds and the fan-out needs. */
export const relayedEvent = (item: Record<string, unknown>, organization: { organizationId: string; organizationPath: string }): RelayedEvent => {
  const companyId = item.companyId as string;
  const type = item.type as string;
  return {
    type,
    companyId,
    organizationPath: organization.organizationPath,
    payload: JSON.stringify(thinEvent({ id: item.id as string, type, occurredAt: item.occurredAt as string, companyId, data: (item.data as Record<string, unknown>) ?? {} }, organization.organizationId)),
  };
};

const relayedEventOf = async (eventId: string): Promise<RelayedEvent> => {
  const item = await outboxEventOf(eventId);
  if (!item?.organizationPath) throw new Error(`Event ${eventId} is not relayed yet`);
  return relayedEvent(item, { organizationId: item.organizationId as string, organizationPath: item.organizationPath as string });
};

/**
 * The subscriptions of each organization path a batch has read: a burst of one organization's
 * events (a batch of the queue) reads them once. The index they come from is eventually
 * consistent, so a read at the batch's first message is as current as one at each.
 */
type SubscriptionsRead = Map<string, Promise<SubscriptionRecord[]>>;

const subscriptionsOf = (organizationPath: string, known: SubscriptionsRead): Promise<SubscriptionRecord[]> => {
  let read = known.get(organizationPath);
  if (!read) {
    // A deleted organization's subscriptions hear nothing more (its deletion also deletes them).
    const ids = organizationPath.split('/');
    read = subscriptionRepository.ofOrganizations(ids).then(async (subscriptions) => {
      if (subscriptions.length === 0) return subscriptions;
      const organizations = await organizationRepository.placements([...new Set(subscriptions.map((subscription) => subscription.organizationId))]);
      return subscriptions.filter((subscription) => organizations.get(subscription.organizationId)?.status === 'active');
    });
    void read.catch(() => known.delete(organizationPath)); // a failed read is not reused by the next message
    known.set(organizationPath, read);
  }
  return read;
};

const fanOut = async ({ eventId, relayed }: FanoutMessage, known: SubscriptionsRead): Promise<void> => {
  const { type, companyId, organizationPath, payload } = relayed ?? (await relayedEventOf(eventId));
  const subscriptions = (await subscriptionsOf(organizationPath, known)).filter((subscription) => wants(subscription, type, companyId));
  const queued: { deliveryId: string }[] = [];
  const now = new Date().toISOString();
  for (const subscription of subscriptions) {
    const id = deliveryIdOf(eventId, subscription.id);
    const created = await deliveryRepository.create({
      id,
      subscriptionId: subscription.id,
      organizationId: subscription.organizationId,
      eventId,
      eventType: type,
      payload,
      status: 'pending',
      attempts: [],
      nextAttemptAt: now,
      createdAt: now,
      updatedAt: now,
      redeliveryOf: null,
      notice: null,
    });
    if (created) queued.push({ deliveryId: id });
    else {
      const existing = await deliveryRepository.get(id);
      if (existing?.status === 'pending' && existing.attempts.length === 0) queued.push({ deliveryId: id });
    }
  }
  await sendMessages('webhooks', queued);
};
