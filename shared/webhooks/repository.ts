import { DeleteCommand, GetCommand, PutCommand, QueryCommand, ScanCommand, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { storedInteger, storedIntegerOrNull, textOrNull, type Item } from '../db/attributes';
import { queryAll } from '../db/query-all';
import { queryPage, type Page, type PageRequest } from '../db/query-page';
import { putIfAbsent, updateItem } from '../db/update';
import { dynamo, tableName } from '../platform/aws';
import type { AttemptOutcome } from './outbound';
import {
  deliveriesPartition,
  deliveryKeys,
  deliveryListKeys,
  deliverySlotKeys,
  eventFeedEntrySortKey,
  eventFeedPartition,
  subscriptionKeys,
  subscriptionListKeys,
  subscriptionsPartition,
  subscriptionSubtreePrefix,
  subscriptionTreeKeys,
  subscriptionTreePartition,
} from './keys';
import type { TransactionWrite } from '../db/unit-of-work';
import { eventFeedCounterKeys, eventFeedEntryKeys } from './keys';

export type SubscriptionStatus = 'pending_verification' | 'active' | 'disabled';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'dead';

export interface SigningSecret {
  /** Sealed (shared/webhooks/secrets.ts); in plain text only on subscriptions written before encryption. */
  secret: string;
  createdAt: string;
  /** Set on the previous secret by a rotation: it signs until then. */
  expiresAt: string | null;
}

export interface SubscriptionRecord {
  id: string;
  organizationId: string;
  organizationPath: string;
  url: string;
  eventTypes: string[];
  companyIds: string[] | null;
  description: string | null;
  status: SubscriptionStatus;
  /** Why it is pending or disabled (the last handshake's failure, a 410, five days of failures). */
  statusReason: string | null;
  secrets: SigningSecret[];
  createdAt: string;
  updatedAt: string;
  verifiedAt: string | null;
  /** Since when every attempt has failed (cleared by any success); drives the automatic disable. */
  failingSince: string | null;
  /** The last failed attempt of that streak: a quiet spell after it starts a new streak. */
  lastFailureAt: string | null;
}

export interface DeliveryRecord {
  id: string;
  subscriptionId: string;
  organizationId: string;
  eventId: string;
  eventType: string;
  /** The signed body, byte for byte the same on every attempt. */
  payload: string;
  status: DeliveryStatus;
  attempts: AttemptOutcome[];
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
  redeliveryOf: string | null;
  /** Why it ended without success, or a notice (webhook.disabled). */
  notice: string | null;
}

const get = async (key: { PK: string; SK: string }, table: string = tableName()): Promise<Item | undefined> =>
  (await dynamo().send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;

/** What a delivery read of a subscription and acts on: the url its attempt went to, and (when given) its failing streak. */
export interface SubscriptionAsRead {
  url: string;
  failingSince?: string | null;
  lastFailureAt?: string | null;
}

/** The condition that the subscription exists and is still as read (null: absent or null). */
const asRead = (read: SubscriptionAsRead | undefined): { expression: string; names: Record<string, string>; values: Record<string, unknown> } => {
  const expression = ['attribute_exists(PK)'];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (read) {
    expression.push('#readUrl = :readUrl');
    names['#readUrl'] = 'url';
    values[':readUrl'] = read.url;
    for (const field of ['failingSince', 'lastFailureAt'] as const) {
      const value = read[field];
      if (value === undefined) continue;
      names[`#read_${field}`] = field;
      if (value === null) {
        expression.push(`(attribute_not_exists(#read_${field}) OR attribute_type(#read_${field}, :readNull))`);
        values[':readNull'] = 'NULL';
      } else {
        expression.push(`#read_${field} = :read_${field}`);
        values[`:read_${field}`] = value;
      }
    }
  }
  return { expression: expression.join(' AND '), names, values };
};

export const subscriptionRepository = {
  async create(record: SubscriptionRecord): Promise<void> {
    await putIfAbsent({
      ...subscriptionKeys(record.id),
      ...subscriptionListKeys(record.organizationId, record.createdAt, record.id),
      ...subscriptionTreeKeys(record.organizationPath, record.createdAt, record.id),
      entity: 'webhookSubscription',
      ...record,
    });
  },

  async get(id: string): Promise<SubscriptionRecord | undefined> {
    const item = await get(subscriptionKeys(id));
    return item ? toSubscription(item) : undefined;
  },

  /**
   * Gives subscriptions written before the subtree index its keys, so every list shows them
   * (an upgrade step, run once with the admin CLI; idempotent). Answers how many it changed.
   */
  async addMissingTreeKeys(): Promise<number> {
    let changed = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await dynamo().send(
        new ScanCommand({
          TableName: tableName(),
          FilterExpression: 'entity = :entity AND attribute_not_exists(GSI2PK)',
          ExpressionAttributeValues: { ':entity': 'webhookSubscription' },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const { GSI2PK, GSI2SK } = subscriptionTreeKeys(String(item.organizationPath), String(item.createdAt), String(item.id));
        try {
          await dynamo().send(
            new UpdateCommand({
              TableName: tableName(),
              Key: subscriptionKeys(String(item.id)),
              UpdateExpression: 'SET GSI2PK = :pk, GSI2SK = :sk',
              ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(GSI2PK)',
              ExpressionAttributeValues: { ':pk': GSI2PK, ':sk': GSI2SK },
            }),
          );
          changed++;
        } catch (error) {
          if (!(error instanceof ConditionalCheckFailedException)) throw error; // deleted or done meanwhile
        }
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return changed;
  },

  /** The subscriptions of an organization and its descendants (the reach of its system clients). */
  listSubtree(organizationPath: string, page: PageRequest): Promise<Page<SubscriptionRecord>> {
    return queryPage(
      {
        TableName: tableName(),
        IndexName: 'GSI2',
        KeyConditionExpression: 'GSI2PK = :pk AND begins_with(GSI2SK, :prefix)',
        ExpressionAttributeValues: { ':pk': subscriptionTreePartition(organizationPath.split('/')[0]!), ':prefix': subscriptionSubtreePrefix(organizationPath) },
      },
      page,
      toSubscription,
    );
  },

  /** Every subscription of these organizations (fan-out: the event's organization and its ancestors). */
  async ofOrganizations(organizationIds: readonly string[]): Promise<SubscriptionRecord[]> {
    const lists = await Promise.all(
      organizationIds.map((id) => queryAll({ IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': subscriptionsPartition(id) } })),
    );
    return lists.flat().map(toSubscription);
  },

  /** Sets (and removes) fields of an existing subscription; `expectedUrl` guards against a concurrent url change. False when it is gone or the url moved. */
  update(id: string, set: Partial<SubscriptionRecord>, remove: string[] = [], expectedUrl?: string, expectedStatus?: SubscriptionRecord['status']): Promise<boolean> {
    const url = expectedUrl === undefined ? undefined : { expression: '#url = :url', names: { '#url': 'url' }, values: { ':url': expectedUrl } };
    const status = expectedStatus === undefined ? undefined : { expression: '#status = :expectedStatus', names: { '#status': 'status' }, values: { ':expectedStatus': expectedStatus } };
    const guards = [url, status].filter((guard) => guard !== undefined);
    return updateItem(
      subscriptionKeys(id),
      Object.fromEntries(Object.entries(set).filter(([, value]) => value !== undefined)),
      remove,
      {
        expression: ['attribute_exists(PK)', ...guards.map((guard) => guard.expression)].join(' AND '),
        names: Object.assign({}, ...guards.map((guard) => guard.names)) as Record<string, string>,
        values: Object.assign({}, ...guards.map((guard) => guard.values)) as Record<string, unknown>,
      },
    );
  },

  /**
   * Replaces the signing secrets if the newest is still the one the caller read: of two rotations
   * side by side, one stores its secret (true) and the other stores nothing (false; false too when
   * the subscription is gone).
   */
  replaceSecrets(id: string, secrets: SigningSecret[], newestReadAt: string, at: string): Promise<boolean> {
    return updateItem(subscriptionKeys(id), { secrets, updatedAt: at }, [], {
      expression: 'attribute_exists(PK) AND #secrets[0].#createdAt = :newest',
      names: { '#secrets': 'secrets', '#createdAt': 'createdAt' },
      values: { ':newest': newestReadAt },
    });
  },

  /**
   * Disables it unless it is disabled already: of deliveries failing side by side, one disables
   * (true) and leaves the notice; the others answer false. False too when it is gone, or when it
   * is no longer as `read` (url, failing streak) says.
   */
  async disable(id: string, reason: string, at: string, read?: SubscriptionAsRead): Promise<boolean> {
    try {
      await dynamo().send(new UpdateCommand(subscriptionRepository.disableWrite(id, reason, at, read).Update!));
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  },

  /** `disable` as a transaction's write (with the webhook.disabled notice and the attempt that caused it). */
  disableWrite(id: string, reason: string, at: string, read?: SubscriptionAsRead): TransactionWrite {
    const guard = asRead(read);
    return {
      Update: {
        TableName: tableName(),
        Key: subscriptionKeys(id),
        UpdateExpression: 'SET #status = :setDisabled, statusReason = :setReason, updatedAt = :setAt',
        ConditionExpression: ['#status <> :disabled', guard.expression].join(' AND '),
        ExpressionAttributeNames: { '#status': 'status', ...guard.names },
        ExpressionAttributeValues: { ':disabled': 'disabled', ':setDisabled': 'disabled', ':setReason': reason, ':setAt': at, ...guard.values },
      },
    };
  },

  /** Sets the failing streak if the subscription is still as `read` (its url, its streak); false when not (re-read and decide again). */
  noteFailingStreak(id: string, read: SubscriptionAsRead, set: { failingSince?: string; lastFailureAt: string }): Promise<boolean> {
    return updateItem(subscriptionKeys(id), set, [], asRead(read));
  },

  /** Ends the failing streak if it began no later than `attemptStartedAt` (a success's; a later failure's streak stays). */
  endFailingStreak(id: string, attemptStartedAt: string): Promise<boolean> {
    return updateItem(subscriptionKeys(id), {}, ['failingSince', 'lastFailureAt'], {
      expression: '#failingSince <= :started',
      names: { '#failingSince': 'failingSince' },
      values: { ':started': attemptStartedAt },
    });
  },

  async delete(id: string): Promise<void> {
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: subscriptionKeys(id) }));
  },
};

export const deliveryRepository = {
  /** False when the delivery exists already (fan-out ran again for the same event). */
  create(record: DeliveryRecord): Promise<boolean> {
    return putIfAbsent({ ...deliveryKeys(record.id), ...deliveryListKeys(record.subscriptionId, record.createdAt, record.id), entity: 'webhookDelivery', ...record });
  },

  /** `create` as a transaction's write. */
  createWrite(record: DeliveryRecord): TransactionWrite {
    return {
      Put: {
        TableName: tableName(),
        Item: { ...deliveryKeys(record.id), ...deliveryListKeys(record.subscriptionId, record.createdAt, record.id), entity: 'webhookDelivery', ...record },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    };
  },

  async get(id: string): Promise<(DeliveryRecord & { leaseUntil: string | null }) | undefined> {
    const item = await get(deliveryKeys(id));
    return item ? { ...toDelivery(item), leaseUntil: textOrNull(item.leaseUntil) } : undefined;
  },

  list(subscriptionId: string, filters: { status?: DeliveryStatus; eventType?: string }, page: PageRequest): Promise<Page<DeliveryRecord>> {
    const conditions: string[] = [];
    const values: Record<string, unknown> = { ':pk': deliveriesPartition(subscriptionId) };
    const names: Record<string, string> = {};
    if (filters.status) {
      conditions.push('#status = :status');
      names['#status'] = 'status';
      values[':status'] = filters.status;
    }
    if (filters.eventType) {
      conditions.push('eventType = :type');
      values[':type'] = filters.eventType;
    }
    const input: Omit<QueryCommandInput, 'Limit' | 'ExclusiveStartKey'> = {
      TableName: tableName(),
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: values,
      ScanIndexForward: false,
      ...(conditions.length > 0 && { FilterExpression: conditions.join(' AND ') }),
      ...(Object.keys(names).length > 0 && { ExpressionAttributeNames: names }),
    };
    return queryPage(input, page, toDelivery);
  },

  /** Takes the lease of the next attempt: only while pending, at this attempt count, and no live lease. */
  claim(id: string, attemptCount: number, token: string, leaseUntil: string, now: string): Promise<boolean> {
    return updateItem(deliveryKeys(id), { leaseToken: token, leaseUntil }, [], {
      expression: '#status = :pending AND size(attempts) = :count AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
      names: { '#status': 'status' },
      values: { ':pending': 'pending', ':count': attemptCount, ':now': now },
    });
  },

  /** Appends an attempt and moves the delivery on, releasing the lease taken with `token`; false when the lease was lost. */
  async recordAttempt(id: string, token: string, attempt: AttemptOutcome, set: { status: DeliveryStatus; nextAttemptAt: string | null; notice?: string | null }): Promise<boolean> {
    try {
      await dynamo().send(new UpdateCommand(deliveryRepository.recordAttemptWrite(id, token, attempt, set).Update!));
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  },

  /** `recordAttempt` as a transaction's write. */
  recordAttemptWrite(id: string, token: string, attempt: AttemptOutcome, set: { status: DeliveryStatus; nextAttemptAt: string | null; notice?: string | null }): TransactionWrite {
    return {
      Update: {
        TableName: tableName(),
        Key: deliveryKeys(id),
        UpdateExpression: 'SET attempts = list_append(attempts, :attempt), #status = :status, nextAttemptAt = :next, notice = :notice, updatedAt = :at REMOVE leaseToken, leaseUntil',
        ConditionExpression: 'leaseToken = :token',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':attempt': [attempt], ':status': set.status, ':next': set.nextAttemptAt, ':notice': set.notice ?? null, ':at': attempt.at, ':token': token },
      },
    };
  },

  /** Ends a delivery without an attempt (its subscription was disabled or deleted). */
  end(id: string, status: DeliveryStatus, notice: string): Promise<boolean> {
    return updateItem(deliveryKeys(id), { status, notice, nextAttemptAt: null, updatedAt: new Date().toISOString() }, [], {
      expression: '#status = :pending',
      names: { '#status': 'status' },
      values: { ':pending': 'pending' },
    });
  },
};

export const deliverySlots = {
  /** A free slot of the subscription (or one whose lease expired), leased until `until`; undefined when all are busy. */
  async acquire(subscriptionId: string, slots: number, token: string, until: string, now: string): Promise<number | undefined> {
    for (let slot = 0; slot < slots; slot++) {
      try {
        await dynamo().send(
          new PutCommand({
            TableName: tableName(),
            Item: { ...deliverySlotKeys(subscriptionId, slot), entity: 'webhookSlot', token, leaseUntil: until, expiresAt: Math.ceil(Date.parse(until) / 1000) + 3600 },
            ConditionExpression: 'attribute_not_exists(PK) OR leaseUntil < :now',
            ExpressionAttributeValues: { ':now': now },
          }),
        );
        return slot;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    return undefined;
  },

  async release(subscriptionId: string, slot: number, token: string): Promise<void> {
    try {
      await dynamo().send(
        new DeleteCommand({ TableName: tableName(), Key: deliverySlotKeys(subscriptionId, slot), ConditionExpression: '#token = :token', ExpressionAttributeNames: { '#token': 'token' }, ExpressionAttributeValues: { ':token': token } }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  },
};

export interface FeedEntry {
  sequence: number;
  event: string;
}

export const eventFeed = {
  /**
   * Entries after `after`, in order, at most `limit`; type and company filters are applied by
   * DynamoDB, so up to 10 reads are made to fill the page. `lastRead` is the last sequence read
   * (matching or not): where the next page starts. Strongly consistent: an entry is visible once
   * its transaction committed, and entries commit in sequence order (shared/webhooks/relay.ts).
   */
  async page(organizationId: string, after: number, limit: number, filters: { type?: string; companyId?: string }): Promise<{ entries: FeedEntry[]; lastRead: number; hasMore: boolean }> {
    const conditions: string[] = [];
    const values: Record<string, unknown> = { ':pk': eventFeedPartition(organizationId), ':from': eventFeedEntrySortKey(after + 1), ':to': eventFeedEntrySortKey(999_999_999_999_999) };
    if (filters.type) {
      conditions.push('eventType = :type');
      values[':type'] = filters.type;
    }
    if (filters.companyId) {
      conditions.push('companyId = :company');
      values[':company'] = filters.companyId;
    }
    const entries: FeedEntry[] = [];
    let lastRead = after;
    let startKey: Record<string, unknown> | undefined;
    for (let reads = 0; reads < 10 && entries.length < limit; reads++) {
      const result = await dynamo().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
          ExpressionAttributeValues: values,
          ConsistentRead: true,
          Limit: limit - entries.length,
          ExclusiveStartKey: startKey,
          ...(conditions.length > 0 && { FilterExpression: conditions.join(' AND ') }),
        }),
      );
      for (const item of result.Items ?? []) entries.push({ sequence: storedInteger(item.sequence), event: item.event as string });
      startKey = result.LastEvaluatedKey;
      if (startKey) lastRead = Number(String(startKey.SK).slice(4));
      else if (entries.length > 0) lastRead = Math.max(lastRead, entries.at(-1)!.sequence);
      if (!startKey) break;
    }
    if (entries.length > 0) lastRead = Math.max(lastRead, entries.at(-1)!.sequence);
    return { entries, lastRead, hasMore: startKey !== undefined };
  },
};

const toSubscription = (item: Item): SubscriptionRecord => ({
  id: item.id as string,
  organizationId: item.organizationId as string,
  organizationPath: item.organizationPath as string,
  url: item.url as string,
  eventTypes: item.eventTypes as string[],
  companyIds: (item.companyIds as string[] | null | undefined) ?? null,
  description: textOrNull(item.description),
  status: item.status as SubscriptionStatus,
  statusReason: textOrNull(item.statusReason),
  secrets: (item.secrets as SigningSecret[]).map((secret) => ({ secret: secret.secret, createdAt: secret.createdAt, expiresAt: secret.expiresAt ?? null })),
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
  verifiedAt: textOrNull(item.verifiedAt),
  failingSince: textOrNull(item.failingSince),
  lastFailureAt: textOrNull(item.lastFailureAt),
});

const toDelivery = (item: Item): DeliveryRecord => ({
  id: item.id as string,
  subscriptionId: item.subscriptionId as string,
  organizationId: item.organizationId as string,
  eventId: item.eventId as string,
  eventType: item.eventType as string,
  payload: item.payload as string,
  status: item.status as DeliveryStatus,
  attempts: ((item.attempts as Item[] | undefined) ?? []).map((attempt) => ({
    at: attempt.at as string,
    statusCode: storedIntegerOrNull(attempt.statusCode),
    error: textOrNull(attempt.error),
    latencyMs: storedInteger(attempt.latencyMs),
    responseBody: textOrNull(attempt.responseBody),
    retryAfterSeconds: storedIntegerOrNull(attempt.retryAfterSeconds),
  })),
  nextAttemptAt: textOrNull(item.nextAttemptAt),
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
  redeliveryOf: textOrNull(item.redeliveryOf),
  notice: textOrNull(item.notice),
});

// ---------------------------------------------------------------------------------------------
// The relay's side of the event feed (shared/webhooks/relay.ts): the per-organization sequence
// counter and the entries, written in the relay's transaction.
// ---------------------------------------------------------------------------------------------

/** One event's entry in an organization's feed. */
export interface FeedEntryWrite {
  eventId: string;
  eventType: string;
  companyId: string;
  /** The thin payload (JSON), as GET /v1/events answers it. */
  event: string;
  /** Epoch seconds after which the entry may go (TTL). */
  expiresAt: number;
}

export const eventFeedSequence = {
  /** The organization's last sequence number (0 before its first event); strongly consistent. */
  async current(organizationId: string): Promise<number> {
    const item = await get(eventFeedCounterKeys(organizationId));
    return item ? storedInteger(item.sequence) : 0;
  },

  /** Moves the counter from `current` (0: absent) to current + 1; refused (condition) when it moved meanwhile. */
  advanceWrite(organizationId: string, current: number): TransactionWrite {
    return {
      Update: {
        TableName: tableName(),
        Key: eventFeedCounterKeys(organizationId),
        UpdateExpression: 'SET #sequence = :next',
        ConditionExpression: current === 0 ? 'attribute_not_exists(PK)' : '#sequence = :current',
        ExpressionAttributeNames: { '#sequence': 'sequence' },
        ExpressionAttributeValues: { ':next': current + 1, ...(current !== 0 && { ':current': current }) },
      },
    };
  },

  /** The feed entry of one sequence number. */
  entryWrite(organizationId: string, sequence: number, entry: FeedEntryWrite): TransactionWrite {
    return {
      Put: {
        TableName: tableName(),
        Item: { ...eventFeedEntryKeys(organizationId, sequence), entity: 'eventFeedEntry', sequence, eventId: entry.eventId, eventType: entry.eventType, companyId: entry.companyId, event: entry.event, expiresAt: entry.expiresAt },
      },
    };
  },
};
