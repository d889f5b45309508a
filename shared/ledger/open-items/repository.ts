import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, NumberValue, PutCommand, QueryCommand, type QueryCommandOutput, UpdateCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../../db/batch';
import { queryCount } from '../../db/query-all';
import { dynamo, tableName } from '../../platform/aws';
import { type Decimal, fromStoredNumber, toStoredNumber } from '../../platform/money';
import { openItemKeys, openItemPartition, subLedgerKeys, subLedgerPartition } from '../keys';
import { subLedgerTypes } from './schemas';
import type {
  EntryCategory,
  OpenItem,
  OpenItemStatus,
  RetirementReason,
  SettlementStatus,
  SubLedgerType,
} from './schemas';

/**
 * Stored open items: one item per (company, subLedgerType, itemKey) in the partition of its
 * company and type (shared/ledger/keys.ts). Retired items stay (status `retired`), with their
 * matches marked retired. Besides the content, an item carries the idempotency marker of the
 * import chunk that last wrote it (lastImportId, lastChunk, lastOutcome, lastUsage), so that a
 * redelivered chunk returns the stored outcome and the same usage deltas.
 */

export interface StoredMatch {
  matchKey: string;
  matchDate: string;
  amount: Decimal;
  status: OpenItemStatus;
}

export interface Retirement {
  at: string;
  importId: string;
  datasetId: string;
  reason: RetirementReason;
  /** Mode of the import that retired the item. */
  mode: string;
}

export interface BaselineMark {
  importId: string;
  datasetId: string;
  at: string;
}

/** The sub-ledger keys the write moved the item's usage from and to (null: not counted). */
export interface UsageMove {
  from: string | null;
  to: string | null;
}

export type WriteOutcome = 'inserted' | 'updated' | 'deleted';

export interface OpenItemRecord {
  companyId: string;
  subLedgerType: SubLedgerType;
  itemKey: string;
  subLedgerKey: string;
  accountCode: string;
  documentId: string;
  entryCategory: EntryCategory;
  documentDate: string;
  dueDate: string;
  amount: Decimal;
  amountOpen: Decimal;
  settlementStatus: SettlementStatus;
  matches: StoredMatch[];
  status: OpenItemStatus;
  retired: Retirement | null;
  baseline: BaselineMark | null;
  /** Stamped by every import that touches the item. */
  datasetId: string;
  importId: string;
  createdAt: string;
  updatedAt: string;
  /** Optimistic concurrency: every write adds 1 and expects the version it read. */
  version: number;
  /** The chunk write that last changed the item (idempotency marker). */
  lastImportId: string;
  lastChunk: number;
  lastOutcome: WriteOutcome;
  lastUsage: UsageMove;
}

/** Sort-key prefix of the items in an open-items partition (openItemKeys). */
const itemSortPrefix = 'ITEM#';

const toItem = (record: OpenItemRecord): Record<string, NativeAttributeValue> => ({
  ...openItemKeys(record.companyId, record.subLedgerType, record.itemKey),
  entity: 'openItem',
  ...record,
  amount: toStoredNumber(record.amount),
  amountOpen: toStoredNumber(record.amountOpen),
  matches: record.matches.map((match) => ({ ...match, amount: toStoredNumber(match.amount) })),
});

const text = (value: unknown): string => String(value);
const int = (value: unknown): number => Number(value instanceof NumberValue ? value.toString() : value);

const toRecord = (item: Record<string, unknown>): OpenItemRecord => ({
  companyId: text(item.companyId),
  subLedgerType: item.subLedgerType as SubLedgerType,
  itemKey: text(item.itemKey),
  subLedgerKey: text(item.subLedgerKey),
  accountCode: text(item.accountCode),
  documentId: text(item.documentId),
  entryCategory: item.entryCategory as EntryCategory,
  documentDate: text(item.documentDate),
  dueDate: text(item.dueDate),
  amount: fromStoredNumber(item.amount),
  amountOpen: fromStoredNumber(item.amountOpen),
  settlementStatus: item.settlementStatus as SettlementStatus,
  matches: ((item.matches as Record<string, unknown>[] | undefined) ?? []).map((match) => ({
    matchKey: text(match.matchKey),
    matchDate: text(match.matchDate),
    amount: fromStoredNumber(match.amount),
    status: match.status as OpenItemStatus,
  })),
  status: item.status as OpenItemStatus,
  retired: (item.retired as Retirement | null | undefined) ?? null,
  baseline: (item.baseline as BaselineMark | null | undefined) ?? null,
  datasetId: text(item.datasetId),
  importId: text(item.importId),
  createdAt: text(item.createdAt),
  updatedAt: text(item.updatedAt),
  version: int(item.version),
  lastImportId: text(item.lastImportId),
  lastChunk: int(item.lastChunk),
  lastOutcome: item.lastOutcome as WriteOutcome,
  lastUsage: (item.lastUsage as UsageMove | undefined) ?? { from: null, to: null },
});

/** The read shape (OpenItem) of a stored item. */
export const toOpenItem = (record: OpenItemRecord): OpenItem => ({
  itemKey: record.itemKey,
  subLedgerType: record.subLedgerType,
  subLedgerKey: record.subLedgerKey,
  accountCode: record.accountCode,
  documentId: record.documentId,
  entryCategory: record.entryCategory,
  documentDate: record.documentDate,
  dueDate: record.dueDate,
  amount: record.amount,
  amountOpen: record.amountOpen,
  settlementStatus: record.settlementStatus,
  matches: record.matches.map((match) => ({ ...match })),
  status: record.status,
  retiredAt: record.retired?.at ?? null,
  retiredReason: record.retired?.reason ?? null,
  baseline: record.baseline !== null,
  datasetId: record.datasetId,
  importId: record.importId,
  updatedAt: record.updatedAt,
});


/** The stored items of these keys (absent ones left out). */
const readItems = async (keys: { PK: string; SK: string }[]) => [...(await batchGet(keys)).values()];

export const openItemRepository = {
  async get(companyId: string, subLedgerType: string, itemKey: string): Promise<OpenItemRecord | undefined> {
    const { Item } = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: openItemKeys(companyId, subLedgerType, itemKey), ConsistentRead: true }),
    );
    return Item ? toRecord(Item) : undefined;
  },

  /** The stored items (live or retired) of the given keys, by itemKey. */
  async getMany(companyId: string, subLedgerType: string, itemKeys: string[]): Promise<Map<string, OpenItemRecord>> {
    const unique = [...new Set(itemKeys)];
    const items = await readItems(unique.map((itemKey) => openItemKeys(companyId, subLedgerType, itemKey)));
    return new Map(items.map((item) => toRecord(item)).map((record) => [record.itemKey, record]));
  },

  /**
   * Writes the whole item, expecting the version read (null: the item must not exist yet).
   * False when another write came first.
   */
  async put(record: OpenItemRecord, expectedVersion: number | null): Promise<boolean> {
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: toItem(record),
          ...(expectedVersion === null
            ? { ConditionExpression: 'attribute_not_exists(PK)' }
            : { ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': expectedVersion } }),
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  },

  /**
   * Retires a live item whose version is still the one read: keeps its content, marks it and its
   * matches retired, stamps the import. False when it changed meanwhile.
   */
  async retire(record: OpenItemRecord, retirement: Retirement): Promise<boolean> {
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: openItemKeys(record.companyId, record.subLedgerType, record.itemKey),
          UpdateExpression:
            'SET #status = :retired, retired = :retirement, matches = :matches, importId = :importId, datasetId = :datasetId, updatedAt = :at, version = version + :one',
          ConditionExpression: '#status = :live AND version = :expected',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':retired': 'retired',
            ':live': 'live',
            ':retirement': retirement,
            ':matches': record.matches.map((match) => ({ ...match, amount: toStoredNumber(match.amount), status: 'retired' })),
            ':importId': retirement.importId,
            ':datasetId': retirement.datasetId,
            ':at': retirement.at,
            ':one': 1,
            ':expected': record.version,
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  },

  /**
   * Walks every stored item (live and retired) of a company and sub-ledger type in itemKey order,
   * one Query page (at most 1 MB) at a time, so memory stays bounded however large the sub-ledger.
   */
  async forEachPage(companyId: string, subLedgerType: string, visit: (records: OpenItemRecord[]) => Promise<void>): Promise<void> {
    let startKey: Record<string, NativeAttributeValue> | undefined;
    do {
      const result: QueryCommandOutput = await dynamo().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :item)',
          ExpressionAttributeValues: { ':pk': openItemPartition(companyId, subLedgerType), ':item': itemSortPrefix },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      await visit((result.Items ?? []).map(toRecord));
      startKey = result.LastEvaluatedKey;
    } while (startKey);
  },

  /**
   * How many live items of a company (both sub-ledger types) name an account and are dated on or
   * before a day: still open, they are on that account in every year from their document's on.
   */
  async countLiveOnAccount(companyId: string, accountCode: string, datedOnOrBefore: string): Promise<number> {
    let total = 0;
    for (const subLedgerType of subLedgerTypes) {
      total += await queryCount({
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :item)',
        FilterExpression: '#status = :live AND accountCode = :code AND documentDate <= :through',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pk': openItemPartition(companyId, subLedgerType), ':item': itemSortPrefix, ':live': 'live', ':code': accountCode, ':through': datedOnOrBefore },
        ConsistentRead: true,
      });
    }
    return total;
  },

  /** How many items of a company and sub-ledger type are not retired (a COUNT Query, page by page). */
  async countLive(companyId: string, subLedgerType: string): Promise<number> {
    return queryCount({
      KeyConditionExpression: 'PK = :pk',
      FilterExpression: '#status <> :retired',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':pk': openItemPartition(companyId, subLedgerType), ':retired': 'retired' },
    });
  },

  /** Every stored item (live and retired) of a company and sub-ledger type, in itemKey order. */
  async listAll(companyId: string, subLedgerType: string): Promise<OpenItemRecord[]> {
    const records: OpenItemRecord[] = [];
    await openItemRepository.forEachPage(companyId, subLedgerType, async (page) => {
      records.push(...page);
    });
    return records;
  },

  /**
   * The type (`customer` / `supplier`) stored for each of the given sub-ledger keys that exists
   * and carries one (attribute `type`, as the sub-ledgers import names it).
   */
  async subLedgerTypes(companyId: string, keys: string[]): Promise<Map<string, string>> {
    const keyBySortKey = new Map([...new Set(keys)].map((key) => [subLedgerKeys(companyId, key).SK, key]));
    const items = await readItems([...keyBySortKey.keys()].map((sortKey) => ({ PK: subLedgerPartition(companyId), SK: sortKey })));
    const types = new Map<string, string>();
    for (const item of items) {
      const key = keyBySortKey.get(String(item.SK));
      if (key !== undefined && typeof item.type === 'string') types.set(key, item.type);
    }
    return types;
  },
};
