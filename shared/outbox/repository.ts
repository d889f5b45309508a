import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, NumberValue, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll } from '../db/query-all';
import type { TransactionWrite } from '../db/unit-of-work';
import { dynamo, outboxTableName } from '../platform/aws';
import type { EventDataFor, EventType } from './events';
import { outboxCompanyIndexKeys, outboxCompanyPartition, outboxEventKeys, outboxPendingIndexKeys, outboxPendingPartition } from './keys';

export { outboxEventTypes, type EventType } from './events';

export interface OutboxEvent {
  id: string;
  type: EventType;
  occurredAt: string;
  companyId: string;
  /** Thin payload: names what changed; receivers fetch the resource. */
  data: Record<string, string | number | null>;
  deliveryStatus: 'pending' | 'delivered';
}

/**
 * The durable outbox: events are written in the same transaction as the change they announce
 * (a transaction may span the outbox table and the single table), as pending items (GSI2 lists
 * the pending ones per day, until their fan-out message is sent) that the relay picks up from the
 * outbox table's stream.
 */
export const outboxEventItem = (type: EventType, companyId: string, data: OutboxEvent['data'], occurredAt: string) => {
  const id = randomUUID();
  const event: OutboxEvent = { id, type, occurredAt, companyId, data, deliveryStatus: 'pending' };
  return {
    ...outboxEventKeys(id),
    ...outboxCompanyIndexKeys(companyId, occurredAt, id),
    ...outboxPendingIndexKeys(occurredAt, id),
    entity: 'outboxEvent',
    ...event,
  };
};

/**
 * The event as a write of a unit of work (a Put in the outbox table): announced in the same
 * transaction as the change. The data is the one the event's definition names (shared/outbox/events.ts).
 */
export const outboxEventWrite = <Type extends EventType>(type: Type, companyId: string, data: EventDataFor<Type>, occurredAt: string): TransactionWrite => ({
  Put: { TableName: outboxTableName(), Item: outboxEventItem(type, companyId, data as OutboxEvent['data'], occurredAt) },
});

/** The stored outbox item of an event (as the relay left it: with its organization), or undefined. */
export const outboxEventOf = async (eventId: string): Promise<Record<string, unknown> | undefined> =>
  (await dynamo().send(new GetCommand({ TableName: outboxTableName(), Key: outboxEventKeys(eventId), ConsistentRead: true }))).Item;

/**
 * The relay's mark on an event (a write of its unit of work): relayed, with the organization it
 * was sequenced in. Refused (condition) when the event is absent or relayed before. The event stays
 * in the pending index until outboxFannedOut: a fan-out message that could not be sent is found
 * again by the sweeper.
 */
export const outboxRelayedWrite = (eventId: string, organization: { organizationId: string; organizationPath: string }, at: string): TransactionWrite => ({
  Update: {
    TableName: outboxTableName(),
    Key: outboxEventKeys(eventId),
    UpdateExpression: 'SET relayedAt = :at, organizationId = :org, organizationPath = :path, deliveryStatus = :relayed',
    ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(relayedAt)',
    ExpressionAttributeValues: { ':at': at, ':org': organization.organizationId, ':path': organization.organizationPath, ':relayed': 'relayed' },
  },
});

/**
 * The relay's second mark, once the event's fan-out message is sent: out of the pending index.
 * Conditional on the event's presence (never creates an item); a repeat only moves fannedOutAt.
 */
export const outboxFannedOut = async (eventId: string, at: string): Promise<void> => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: outboxTableName(),
        Key: outboxEventKeys(eventId),
        UpdateExpression: 'SET fannedOutAt = :at REMOVE GSI2PK, GSI2SK',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':at': at },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
};

/**
 * Events still pending (not relayed, or relayed but not yet queued for fan-out) that occurred
 * before `before`, oldest first, from the pending index's day partitions `days` (YYYY-MM-DD), at
 * most `limit`. The index drops an event at outboxFannedOut.
 */
export const pendingEventsBefore = async (before: string, days: readonly string[], limit: number): Promise<Record<string, unknown>[]> => {
  const found: Record<string, unknown>[] = [];
  for (const day of days) {
    if (found.length >= limit) break;
    const items = await queryAll(
      {
        IndexName: 'GSI2',
        KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK < :before',
        ExpressionAttributeValues: { ':pk': outboxPendingPartition(day), ':before': before },
      },
      outboxTableName(),
    );
    found.push(...items.slice(0, limit - found.length));
  }
  return found;
};

/** When the company's newest event occurred (null: none in the outbox). */
export const latestEventAtOfCompany = async (companyId: string): Promise<string | null> => {
  const { Items } = await dynamo().send(
    new QueryCommand({
      TableName: outboxTableName(),
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': outboxCompanyPartition(companyId) },
      ScanIndexForward: false,
      Limit: 1,
    }),
  );
  const occurredAt = Items?.[0]?.occurredAt;
  return typeof occurredAt === 'string' ? occurredAt : null;
};

/** A company's events, oldest first. */
export const eventsOfCompany = async (companyId: string): Promise<OutboxEvent[]> => {
  const items = await queryAll(
    {
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': outboxCompanyPartition(companyId) },
    },
    outboxTableName(),
  );
  return items.map((item) => ({
    id: item.id,
    type: item.type,
    occurredAt: item.occurredAt,
    companyId: item.companyId,
    data: plainData(item.data),
    deliveryStatus: item.deliveryStatus,
  }));
};

/** Event data as written: the table client reads numbers as NumberValue (exact decimals); here they are small integers. */
const plainData = (data: Record<string, unknown>): OutboxEvent['data'] =>
  Object.fromEntries(Object.entries(data ?? {}).map(([name, value]) => [name, value instanceof NumberValue ? Number(value.toString()) : (value as string | number | null)]));
