/** The two general-purpose indexes the single table and the outbox table both have (each entity's keys.ts fills them). */
const generalIndexes = [
  { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
  { indexName: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
] as const;

/** The single table's physical shape; CDK and the local stack create it from this. Entity keys are built by each feature's keys.ts. No stream: the outbox has its own table. */
export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  timeToLiveAttribute: 'expiresAt',
  globalSecondaryIndexes: generalIndexes,
} as const;

/**
 * The request-control table: per-client rate-limit state and idempotency records, written by the
 * request pipeline of every endpoint group. Kept apart from the single table so that groups that
 * only read the books need no write access to it. Same key names (shared/platform/keys.ts builds
 * its keys), no indexes, TTL on `expiresAt`.
 */
export const controlTableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  timeToLiveAttribute: 'expiresAt',
  globalSecondaryIndexes: [],
} as const;

/**
 * The outbox table: one item per event (shared/outbox/keys.ts), written in the same transaction as
 * the change it announces. The only table with a stream: its new images feed the webhook relay
 * (shared/webhooks/relay.ts), so bulk writes to the single table neither pay for a stream nor
 * queue ahead of events. GSI1 lists a company's events in order, GSI2 the pending ones per day.
 * No TTL: events are kept.
 */
export const outboxTableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  streamViewType: 'NEW_IMAGE',
  globalSecondaryIndexes: generalIndexes,
} as const;

/** What a table definition holds; the local stack creates each table from one. */
export interface TableDefinition {
  readonly partitionKey: string;
  readonly sortKey: string;
  readonly timeToLiveAttribute?: string;
  readonly streamViewType?: 'NEW_IMAGE';
  readonly globalSecondaryIndexes: readonly { readonly indexName: string; readonly partitionKey: string; readonly sortKey: string }[];
}
