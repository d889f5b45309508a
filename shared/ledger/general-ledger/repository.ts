import { createHash } from 'node:crypto';
import {
  NumberValue,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { keyId, textOrNull, type Item, type Key } from '../../db/attributes';
import { batchGet, inParallel } from '../../db/batch';
import { queryAll } from '../../db/query-all';
import type { TransactionWrite } from '../../db/unit-of-work';
import { updateItem } from '../../db/update';
import { dynamo, tableName } from '../../platform/aws';
import { type Decimal, fromStoredNumber } from '../../platform/money';
import {
  accountKeys,
  balancePartition,
  dimensionKeys,
  glAccountPartition,
  glLineKeys,
  glPeriodPartition,
  ledgerPartition,
  ledgerYearKeys,
  ledgerYearPrefix,
  openingBalanceKeys,
  pad2,
  subLedgerKeys,
  vatCellPartition,
} from '../keys';

/** DynamoDB access of the general ledger: GL lines, opening balances, their aggregates and helpers. */
/**
 * The service's stable text id of a GL line: Crockford base32 (lower case) of the first 128 bits
 * of SHA-256 over (company, year, integrator id), 26 characters. Deterministic, so a re-import
 * finds the line without a lookup; ':' cannot occur in integrator ids, so the input is unambiguous.
 */
export const lineIdOf = (companyId: string, year: number, sourceLineId: string): string =>
  base32(createHash('sha256').update(`${companyId}:${year}:${sourceLineId}`).digest().subarray(0, 16));

const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';

const base32 = (bytes: Uint8Array): string => {
  let text = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      text += alphabet[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) text += alphabet[(buffer << (5 - bits)) & 31];
  return text;
};

export const storedInteger = (value: unknown): number => (value instanceof NumberValue ? Number(value.toString()) : Number(value));



export { queryAll };

/** One Query call (a page of an index). */
export const queryOnce = async (input: Omit<QueryCommandInput, 'TableName'>) =>
  dynamo().send(new QueryCommand({ TableName: tableName(), ...input }));

export interface ChartAccount {
  accountCode: string;
  hidden: boolean;
}

/** The named accounts of a year's chart that exist (an item marked deleted counts as absent). */
export const getAccounts = async (companyId: string, year: number, codes: string[]): Promise<Map<string, ChartAccount>> => {
  const items = await batchGet(
    [...new Set(codes)].map((code) => accountKeys(companyId, year, code)),
    ['accountCode', 'hidden', 'deleted'],
  );
  const accounts = new Map<string, ChartAccount>();
  for (const item of items.values()) {
    if (item.deleted === true) continue;
    const code = String(item.accountCode ?? String(item.SK).slice('ACCOUNT#'.length));
    accounts.set(code, { accountCode: code, hidden: item.hidden === true });
  }
  return accounts;
};

export type KeyKind = 'dimension' | 'subLedger';

/**
 * Rule 2: a key a line names that was not pushed yet is created as a plain value. Only missing
 * keys are written, each with a conditional put, so a key pushed meanwhile is never overwritten.
 */
export const ensureKeysExist = async (companyId: string, kind: KeyKind, keys: string[], createdAt: string): Promise<void> => {
  if (keys.length === 0) return;
  const keyOf = (key: string) => (kind === 'dimension' ? dimensionKeys(companyId, key) : subLedgerKeys(companyId, key));
  const existing = await batchGet(keys.map(keyOf), []);
  const missing = keys.filter((key) => !existing.has(keyId(keyOf(key))));
  await inParallel(missing, 16, async (key) => {
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...keyOf(key), entity: kind, key, value: key, type: null, autoCreated: true, createdAt },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error; // pushed meanwhile: keep it
    }
  });
};

/** Records when a lane last imported into a year (beside the counts applyDeltasOnce keeps on the same item). */
export const touchLedgerYear = async (companyId: string, year: number, lane: string, at: string): Promise<void> => {
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: ledgerYearKeys(companyId, year, lane),
      UpdateExpression: 'SET lastImportAt = :at, entity = :entity, #year = :year, lane = :lane',
      ConditionExpression: 'attribute_not_exists(lastImportAt) OR lastImportAt < :at',
      ExpressionAttributeNames: { '#year': 'year' },
      ExpressionAttributeValues: { ':at': at, ':entity': 'ledgerYear', ':year': year, ':lane': lane },
    }),
  ).catch((error: unknown) => {
    if (!(error instanceof ConditionalCheckFailedException)) throw error; // already as new or newer
  });
};

/**
 * Whether a chunk may skip reading the current items of its rows: no item of this lane and year
 * exists but this import's own. The lane's year summary is claimed for the import by its first
 * chunk (only when the summary does not exist yet: nothing was ever imported into the year), and
 * each later chunk renews the claim once; one conditional update, made before any row of the chunk
 * is written. A year imported before, another import, or a chunk started before (a redelivery,
 * whose rows may be written already) answers false, and the chunk reads as always. The lane lock
 * keeps every other import of the lane out meanwhile.
 */
export const claimUnreadChunk = async (companyId: string, year: number, lane: string, importId: string, chunk: number): Promise<boolean> => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: ledgerYearKeys(companyId, year, lane),
        UpdateExpression: 'SET unreadImportId = :import, unreadChunk = :chunk, entity = :entity, #year = :year, lane = :lane',
        ConditionExpression: 'attribute_not_exists(PK) OR (unreadImportId = :import AND unreadChunk < :chunk)',
        ExpressionAttributeNames: { '#year': 'year' },
        ExpressionAttributeValues: { ':import': importId, ':chunk': chunk, ':entity': 'ledgerYear', ':year': year, ':lane': lane },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
};

/** The counts a year summary item may hold (each written by the lane that keeps it). */
export const ledgerYearCounts = ['accounts', 'mappedAccounts', 'openingBalances', 'generalLedgerLines'] as const;

/** One lane's summary of a year (`YEAR#<year>#<lane>`): the counts it holds and when the lane last imported. */
export interface LedgerYearSummary {
  year: number;
  lane: string;
  counts: Partial<Record<(typeof ledgerYearCounts)[number], number>>;
  lastImportAt: string | null;
}

/**
 * Every lane's summary of every year of the company: one Query of a few small items, read strongly
 * (readiness reads them beside the chart, which it reads strongly: one answer, one moment).
 */
export const ledgerYearSummaries = async (companyId: string): Promise<LedgerYearSummary[]> => {
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': ledgerPartition(companyId), ':prefix': ledgerYearPrefix },
      ConsistentRead: true,
    }),
  );
  return Items.map((item) => {
    const [, year, lane] = String(item.SK).split('#');
    const counts: LedgerYearSummary['counts'] = {};
    for (const field of ledgerYearCounts) if (item[field] !== undefined) counts[field] = Number(String(item[field]));
    return { year: Number(year), lane: lane ?? '', counts, lastImportAt: textOrNull(item.lastImportAt) };
  });
};

/** Every trial-balance aggregate of a year: one Query of O(accounts x 13) items. */
export const balanceItems = (companyId: string, year: number): Promise<Item[]> =>
  queryAll({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': balancePartition(companyId, year) },
  });

/**
 * A deletion claims the live rows it names before it checks what holds them (deletingBy, and
 * deletingUntil, when the claim lapses); reconciliation takes no claimed row, so the deletion is
 * all or nothing. Use with :now.
 */
const notClaimed = '(attribute_not_exists(deletingUntil) OR deletingUntil < :now)';
export const deletionClaimAttributes = ['deletingBy', 'deletingUntil'];

/** Claims a live row for a deletion; answers the row as it is now, undefined when it is not live. */
export const claimForDeletion = async (key: Key, importId: string, until: number): Promise<Item | undefined> => {
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET deletingBy = :import, deletingUntil = :until',
        ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(deleted)',
        ExpressionAttributeValues: { ':import': importId, ':until': until },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
};

/** Ends this deletion's claim of a row (a refused deletion). */
export const releaseDeletionClaim = (key: Key, importId: string): Promise<boolean> =>
  updateItem(key, {}, deletionClaimAttributes, { expression: 'deletingBy = :import', values: { ':import': importId } });

const reconcile = (key: Key, groupId: string) =>
  updateItem(key, { reconciliationGroupId: groupId }, [], {
    expression: `attribute_exists(PK) AND attribute_not_exists(deleted) AND (attribute_not_exists(#group) OR #group = :group) AND ${notClaimed}`,
    names: { '#group': 'reconciliationGroupId' },
    values: { ':group': groupId, ':now': Date.now() },
  });

/**
 * For the reconciliation feature: marks a live GL line as reconciled in a group, which keeps it
 * from being deleted. False when the line does not exist, is deleted, is in another group or is
 * claimed by a deletion.
 */
export const markLineReconciled = (companyId: string, year: number, lineId: string, groupId: string): Promise<boolean> =>
  reconcile(glLineKeys(companyId, year, lineId), groupId);

/** The reverse, when a group is deleted. False when the line is not in that group. */
export const clearLineReconciliation = (companyId: string, year: number, lineId: string, groupId: string): Promise<boolean> =>
  updateItem(glLineKeys(companyId, year, lineId), {}, ['reconciliationGroupId'], {
    expression: 'attribute_exists(PK) AND #group = :group',
    names: { '#group': 'reconciliationGroupId' },
    values: { ':group': groupId },
  });

/** Same marker on an opening balance (by the integrator's id): it is then in use and not deletable. */
export const markOpeningBalanceReconciled = (companyId: string, year: number, sourceId: string, groupId: string): Promise<boolean> =>
  reconcile(openingBalanceKeys(companyId, year, sourceId), groupId);

export type LineQuerySegment = Omit<QueryCommandInput, 'TableName' | 'Limit' | 'ExclusiveStartKey'>;

/** The Queries that list a year's GL lines in order: one over the account index, or one per period over the period index. */
export const lineQuerySegments = (companyId: string, year: number, query: { account?: string; period?: number }): LineQuerySegment[] => {
  if (query.account !== undefined) {
    return [
      {
        IndexName: 'GSI2',
        KeyConditionExpression: query.period === undefined ? 'GSI2PK = :pk' : 'GSI2PK = :pk AND begins_with(GSI2SK, :period)',
        ExpressionAttributeValues: {
          ':pk': glAccountPartition(companyId, year, query.account),
          ...(query.period !== undefined && { ':period': `${pad2(query.period)}#` }),
        },
      },
    ];
  }
  const periods = query.period === undefined ? Array.from({ length: 12 }, (_, i) => i + 1) : [query.period];
  return periods.map((period) => ({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': glPeriodPartition(companyId, year, period) },
  }));
};

/** A GL line as another feature names it (the bank's reconciliation groups). */
export interface GlLineRef {
  companyId: string;
  year: number;
  lineId: string;
}

/** The GL-line reads and writes other features make (bank reconciliation, the context pictures), so that they never build ledger keys. */
export const glLineRepository = {
  /** GL lines by reference (strongly consistent; `projection` limits the attributes read): a lookup that answers undefined for a line not found. */
  async many(refs: readonly GlLineRef[], projection?: readonly string[]): Promise<(ref: GlLineRef) => Item | undefined> {
    const found = await batchGet(
      refs.map((ref) => glLineKeys(ref.companyId, ref.year, ref.lineId)),
      projection,
    );
    return (ref) => found.get(keyId(glLineKeys(ref.companyId, ref.year, ref.lineId)));
  },

  /** The GL lines of one account in a year (GSI2), in (period, lineId) order. */
  linesOfAccount: (companyId: string, year: number, accountCode: string): Promise<Item[]> =>
    queryAll({
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :pk',
      ExpressionAttributeValues: { ':pk': glAccountPartition(companyId, year, accountCode) },
    }),

  /** The integrator's ids (sourceLineId) of a year's live GL lines (GSI1, period by period). */
  async liveSourceLineIds(companyId: string, year: number): Promise<string[]> {
    const ids: string[] = [];
    for (const segment of lineQuerySegments(companyId, year, {})) {
      const items = await queryAll({ ...segment, ProjectionExpression: 'sourceLineId, deleted' });
      for (const item of items) if (item.deleted !== true && typeof item.sourceLineId === 'string') ids.push(item.sourceLineId);
    }
    return ids;
  },

  /**
   * A write for a unit of work: marks the line as in a reconciliation group, only if it exists, is
   * not deleted, is in no group, is not claimed by a deletion and is still at the version that was read.
   */
  markReconciledWrite: (ref: GlLineRef, groupId: string, version: unknown): TransactionWrite => ({
    Update: {
      TableName: tableName(),
      Key: glLineKeys(ref.companyId, ref.year, ref.lineId),
      UpdateExpression: 'SET reconciliationGroupId = :group',
      ConditionExpression: `attribute_exists(PK) AND attribute_not_exists(reconciliationGroupId) AND #version = :version AND attribute_not_exists(deleted) AND ${notClaimed}`,
      ExpressionAttributeNames: { '#version': 'version' },
      ExpressionAttributeValues: { ':group': groupId, ':version': version, ':now': Date.now() },
    },
  }),

  /** A write for a unit of work: releases the line from the group it is in (only from that group). */
  releaseReconciledWrite: (ref: GlLineRef, groupId: string): TransactionWrite => ({
    Update: {
      TableName: tableName(),
      Key: glLineKeys(ref.companyId, ref.year, ref.lineId),
      UpdateExpression: 'REMOVE reconciliationGroupId',
      ConditionExpression: 'reconciliationGroupId = :group',
      ExpressionAttributeValues: { ':group': groupId },
    },
  }),
};

/* The aggregates the VAT terms are read from (kept by the GL-line import; no GL line is read). */

const countOf = (value: unknown): number => Number(String(value ?? 0));

export interface VatCell {
  taxCode: string;
  period: number;
  basis: Decimal;
  taxAmount: Decimal;
  lineCount: number;
}

export interface AccountCell {
  accountCode: string;
  period: number;
  amount: Decimal;
  lineCount: number;
}

/** Every VAT aggregate of a year: one Query of O(tax codes x 12) items. */
export const vatCells = async (companyId: string, year: number): Promise<VatCell[]> =>
  (
    await queryAll({
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': vatCellPartition(companyId, year) },
    })
  ).map((item) => ({
    taxCode: String(item.taxCode),
    period: countOf(item.period),
    basis: fromStoredNumber(item.basis),
    taxAmount: fromStoredNumber(item.taxAmount),
    lineCount: countOf(item.lineCount),
  }));

/**
 * The trial-balance aggregates of the accounts whose code starts with 270 or 271 (the VAT
 * accounts; the caller classifies them): one Query of a key range of the year's balance
 * partition, O(VAT accounts x 13) items. Sort keys are `<code>#<pp>`, so the range '270' to '272'
 * holds exactly the codes starting with 270 or 271.
 */
export const vatAccountCells = async (companyId: string, year: number): Promise<AccountCell[]> =>
  (
    await queryAll({
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': balancePartition(companyId, year), ':from': '270', ':to': '272' },
    })
  ).map((item) => ({
    accountCode: String(item.accountCode),
    period: countOf(item.period),
    amount: fromStoredNumber(item.amount),
    lineCount: countOf(item.lineCount),
  }));
