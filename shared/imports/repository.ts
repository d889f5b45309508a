import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, NumberValue, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryPage, type Page, type PageRequest } from '../db/query-page';
import type { TransactionWrite } from '../db/unit-of-work';
import { dynamo, tableName } from '../platform/aws';
import type { ImportLane } from './kind';
import { fetchRunKeys, fetchRunPartition, importIdempotencyKeys, importKeys, importListKeys, importListPartition, ledgerStateKeys, queuedImportIndexKeys, queuedImportsPartition } from './keys';
import type { FetchRun, ImportRecord } from './schemas';

/** Worker progress, kept on the import item: chunks done in order and what they produced. */
export interface ImportProgress {
  nextChunk: number;
  rowsFailed: number;
  rowsInserted: number;
  rowsUpdated: number;
  /** Rows of the request deleted (deletion kinds, sourceDeleted items). */
  rowsDeletedFromRequest: number;
  /** Items retired beyond the request (snapshot modes), once finish has run. */
  rowsRetired: number | null;
  sampleErrors: string[];
  /** The first maxUnknownListed ids the ledger did not have (the item stays far below DynamoDB's 400 KB). */
  unknown: string[];
  /** All of them (absent on older items, whose list is whole). */
  unknownCount?: number;
  /** All-or-nothing kinds that failed: the valid rows, applied as none were (absent on older items). */
  rowsValidNotApplied?: number;
}

export interface ImportItem extends ImportRecord {
  companyId: string;
  lane: ImportLane;
  /** Claim check: the accepted request body in S3. */
  payloadKey: string;
  reportsDeletions: boolean;
  progress: ImportProgress;
  /** What the post-fetch engines recorded: newer than fetchCompletion, which the import's end writes (it may land after it). */
  postFetchCompletion?: ImportRecord['fetchCompletion'];
}

export const emptyProgress = (): ImportProgress => ({
  nextChunk: 0,
  rowsFailed: 0,
  rowsInserted: 0,
  rowsUpdated: 0,
  rowsDeletedFromRequest: 0,
  rowsRetired: null,
  sampleErrors: [],
  unknown: [],
  unknownCount: 0,
});

export const unknownCountOf = (progress: ImportProgress): number => progress.unknownCount ?? progress.unknown.length;

/** The stored item; `sweepable`: a queued import whose message is sent after the commit (in the sweep index until it moves on). */
export const importItem = (record: ImportItem, options: { sweepable?: boolean } = {}) => ({
  ...importKeys(record.id),
  ...importListKeys(record.companyId, record.createdAt, record.id),
  ...(options.sweepable && record.status === 'queued' && queuedImportIndexKeys(record.createdAt, record.id)),
  entity: 'import',
  ...record,
});

/** The public import record: counters derived from the progress so they always add up. */
export const toImportRecord = (item: ImportItem): ImportRecord => {
  const p = item.progress;
  const rowsDeleted = item.reportsDeletions ? p.rowsDeletedFromRequest + (p.rowsRetired ?? 0) : null;
  const rowsValid = p.rowsInserted + p.rowsUpdated + p.rowsDeletedFromRequest + unknownCountOf(p) + (p.rowsValidNotApplied ?? 0);
  return {
    id: item.id,
    kind: item.kind,
    year: item.year,
    mode: item.mode,
    status: item.status,
    jobId: item.jobId,
    datasetId: item.datasetId,
    lineCount: item.lineCount,
    rowsDiscovered: item.status === 'queued' && p.nextChunk === 0 ? item.lineCount : rowsValid + p.rowsFailed,
    rowsValid,
    rowsFailed: p.rowsFailed,
    rowsInserted: p.rowsInserted,
    rowsUpdated: p.rowsUpdated,
    rowsDeleted,
    sampleErrors: p.sampleErrors,
    warnings: item.warnings ?? [],
    failureReason: item.failureReason,
    // Kinds that delete (deletions, open items' sourceDeleted rows) may name rows the ledger does not have.
    ...(item.reportsDeletions ? { result: { unknown: p.unknown, unknownCount: unknownCountOf(p) } } : {}),
    ...((item.postFetchCompletion ?? item.fetchCompletion) && { fetchCompletion: item.postFetchCompletion ?? item.fetchCompletion }),
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    completedAt: item.completedAt,
  };
};

const fromItem = (item: Record<string, unknown>): ImportItem => {
  const { PK: _pk, SK: _sk, GSI1PK: _g1, GSI1SK: _g2, GSI2PK: _g3, GSI2SK: _g4, entity: _e, ...rest } = item;
  return numbersToPlain(rest) as ImportItem;
};

/** Counters are small integers: read them back as plain numbers (the client wraps numbers). */
const numbersToPlain = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(numbersToPlain);
  if (value && typeof value === 'object') {
    if (value instanceof NumberValue) return Number(value.toString());
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, numbersToPlain(v)]));
  }
  return value;
};

/**
 * An Idempotency-Key that accepted an import: who sent it (the caller's idempotency scope, as the
 * request-control records have it), the import, and the fingerprint of the request. Written in the
 * import's accept transaction and kept for good (no TTL; small), beside the import it names.
 */
export interface ImportKeyEntry {
  caller: string;
  idempotencyKey: string;
  companyId: string;
  importId: string;
  fingerprint: string;
  createdAt: string;
}

/**
 * Sends an update whose condition holds unless the item records a newer outcome: refused because of
 * that, it is done (the newer one stays); refused because the item does not exist, it throws.
 */
const unlessNewerRecorded = async (update: UpdateCommand): Promise<void> => {
  update.input.ReturnValuesOnConditionCheckFailure = 'ALL_OLD';
  try {
    await dynamo().send(update);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException && error.Item) return;
    throw error;
  }
};

/** How an import ends (its terminal step writes this with the job, the event and the lane release). */
export interface ImportEnding {
  status: 'succeeded' | 'failed';
  failureReason?: string;
  progress?: ImportProgress;
  fetchCompletion?: ImportRecord['fetchCompletion'];
}

export const importRepository = {
  /** Imports in the sweep index queued (or last sent again) before `before` (ISO instant), oldest first, at most `limit` (one page). */
  async queuedBefore(before: string, limit: number): Promise<SweepEntry[]> {
    return queuedBefore(queuedImportsPartition, before, limit);
  },

  /** The sweeper's hold on an import's sweep-index entry (see takeSweepEntry). */
  takeSweepEntry(entry: SweepEntry, at: string, options: { countResend: boolean }): Promise<boolean> {
    return takeSweepEntry(importKeys(entry.id), queuedImportsPartition, entry, at, options);
  },

  /** Undoes takeSweepEntry after a send that failed (see releaseSweepEntry). */
  releaseSweepEntry(entry: SweepEntry, takenAt: string): Promise<void> {
    return releaseSweepEntry(importKeys(entry.id), queuedImportsPartition, entry, takenAt);
  },

  async get(importId: string): Promise<ImportItem | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: importKeys(importId), ConsistentRead: true }));
    return Item ? fromItem(Item) : undefined;
  },

  /** Records one applied chunk; refused (false) when another delivery recorded it first. Out of the sweep index from the first. */
  async recordChunk(importId: string, chunkIndex: number, progress: ImportProgress, updatedAt: string): Promise<boolean> {
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: importKeys(importId),
          UpdateExpression: 'SET progress = :progress, updatedAt = :at REMOVE GSI2PK, GSI2SK',
          // Only while queued: a delivery still applying an import the sweeper failed meanwhile stops at its next record.
          ConditionExpression: 'progress.nextChunk = :chunk AND #status = :queued',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':progress': progress, ':at': updatedAt, ':chunk': chunkIndex, ':queued': 'queued' },
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  },

  listOfCompany(companyId: string, filter: { kind?: string; status?: string; year?: number }, page: PageRequest): Promise<Page<ImportItem>> {
    const conditions: string[] = [];
    const values: Record<string, unknown> = { ':pk': importListPartition(companyId) };
    const names: Record<string, string> = {};
    if (filter.kind) {
      conditions.push('kind = :kind');
      values[':kind'] = filter.kind;
    }
    if (filter.status) {
      conditions.push('#status = :status');
      names['#status'] = 'status';
      values[':status'] = filter.status;
    }
    if (filter.year !== undefined) {
      conditions.push('#year = :year');
      names['#year'] = 'year';
      values[':year'] = filter.year;
    }
    return queryPage(
      {
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ...(conditions.length && { FilterExpression: conditions.join(' AND ') }),
        ...(Object.keys(names).length && { ExpressionAttributeNames: names }),
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
      },
      page,
      fromItem,
    );
  },

  fetchRunItem(companyId: string, run: FetchRun) {
    return { ...fetchRunKeys(companyId, run.completedAt, run.importId), entity: 'fetchRun', companyId, ...run };
  },

  /** The accepted import; `sweepable` puts it in the sweep index (an import whose queue message follows the commit). */
  createWrite(item: ImportItem, options: { sweepable?: boolean } = {}): TransactionWrite {
    return { Put: { TableName: tableName(), Item: importItem(item, options) } };
  },

  /** The key's permanent entry, in the accept transaction: refused (its condition fails) when the key accepted an import before. */
  idempotencyKeyWrite(entry: ImportKeyEntry): TransactionWrite {
    return {
      Put: {
        TableName: tableName(),
        Item: { ...importIdempotencyKeys(entry.caller, entry.idempotencyKey), entity: 'importIdempotencyKey', ...entry },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    };
  },

  /** The import this caller's Idempotency-Key accepted, if any (whatever its age). */
  async idempotencyKeyEntry(caller: string, idempotencyKey: string): Promise<ImportKeyEntry | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: importIdempotencyKeys(caller, idempotencyKey), ConsistentRead: true }));
    if (!Item) return undefined;
    return {
      caller: String(Item.caller),
      idempotencyKey: String(Item.idempotencyKey),
      companyId: String(Item.companyId),
      importId: String(Item.importId),
      fingerprint: String(Item.fingerprint),
      createdAt: String(Item.createdAt),
    };
  },

  /** Frees a key whose import never went out (it failed before its answer: a retry with the key accepts anew). Only while it names that import. */
  async releaseIdempotencyKey(caller: string, idempotencyKey: string, importId: string): Promise<void> {
    try {
      await dynamo().send(
        new DeleteCommand({
          TableName: tableName(),
          Key: importIdempotencyKeys(caller, idempotencyKey),
          ConditionExpression: 'importId = :importId',
          ExpressionAttributeValues: { ':importId': importId },
        }),
      );
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
  },

  /** The import's terminal state, only from queued (a redelivered message finds it terminal and changes nothing); out of the sweep index. */
  finishWrite(importId: string, ending: ImportEnding, at: string): TransactionWrite {
    const sets = ['#status = :status', 'completedAt = :at', 'updatedAt = :at', 'failureReason = :reason'];
    const values: Record<string, unknown> = { ':status': ending.status, ':at': at, ':reason': ending.failureReason ?? null, ':queued': 'queued' };
    if (ending.progress) {
      sets.push('progress = :progress');
      values[':progress'] = ending.progress;
    }
    if (ending.fetchCompletion) {
      sets.push('fetchCompletion = :fetch');
      values[':fetch'] = ending.fetchCompletion;
    }
    return {
      Update: {
        TableName: tableName(),
        Key: importKeys(importId),
        UpdateExpression: `SET ${sets.join(', ')} REMOVE GSI2PK, GSI2SK`,
        ConditionExpression: '#status = :queued',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: values,
      },
    };
  },

  fetchRunWrite(companyId: string, run: FetchRun): TransactionWrite {
    return { Put: { TableName: tableName(), Item: this.fetchRunItem(companyId, run) } };
  },

  /** The ledger's last-updated instant moves with each recorded fetch run. */
  ledgerUpdatedWrite(companyId: string, run: FetchRun, at: string): TransactionWrite {
    return {
      Update: {
        TableName: tableName(),
        Key: ledgerStateKeys(companyId),
        UpdateExpression: 'SET lastUpdatedAt = :at, lastFetchRunId = :run',
        ExpressionAttributeValues: { ':at': at, ':run': run.id },
      },
    };
  },

  listFetchRuns(companyId: string, page: PageRequest): Promise<Page<FetchRun>> {
    return queryPage(
      {
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': fetchRunPartition(companyId) },
        ScanIndexForward: false,
      },
      page,
      (item) => {
        const run = fromItem(item) as unknown as FetchRun & { companyId?: string };
        const { companyId: _c, ...rest } = run;
        return rest;
      },
    );
  },

  /**
   * A fetch run by its keys. Its completedAt is its import's createdAt: a message without it (sent
   * before messages carried it) reads it from the import.
   */
  async findFetchRun(companyId: string, importId: string, completedAt?: string): Promise<FetchRun | undefined> {
    const at = completedAt ?? (await this.get(importId))?.createdAt;
    if (!at) return undefined;
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: fetchRunKeys(companyId, at, importId), ConsistentRead: true }));
    return Item ? (fromItem(Item) as unknown as FetchRun) : undefined;
  },

  /**
   * Records the post-fetch engines' outcomes on a fetch run, unless a later run of them recorded
   * first (a redelivered message run twice at once): the newest outcome stays, as on the import.
   */
  async recordEngineResults(companyId: string, run: FetchRun, engines: FetchRun['engines'], at: string): Promise<void> {
    await unlessNewerRecorded(
      new UpdateCommand({
        TableName: tableName(),
        Key: fetchRunKeys(companyId, run.completedAt, run.importId),
        UpdateExpression: 'SET engines = :engines, postFetchCompletedAt = :at',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(postFetchCompletedAt) OR postFetchCompletedAt <= :at)',
        ExpressionAttributeValues: { ':engines': engines, ':at': at },
      }),
    );
  },

  /**
   * Sets the fetch completion the post-fetch engines reached, of an import that exists (refused
   * otherwise), unless a later run of them recorded first. Its own attribute: the import's end
   * writes fetchCompletion, and may land after this.
   */
  async setFetchCompletion(importId: string, completion: NonNullable<ImportRecord['fetchCompletion']>): Promise<void> {
    await unlessNewerRecorded(
      new UpdateCommand({
        TableName: tableName(),
        Key: importKeys(importId),
        UpdateExpression: 'SET postFetchCompletion = :completion',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(postFetchCompletion) OR postFetchCompletion.recordedAt <= :at)',
        ExpressionAttributeValues: { ':completion': completion, ':at': completion.recordedAt },
      }),
    );
  },

  /** When the books last changed: the ledger state each fetch run moves (null before the first fetch). */
  async ledgerUpdatedAt(companyId: string): Promise<string | null> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: ledgerStateKeys(companyId), ConsistentRead: true }));
    return typeof Item?.lastUpdatedAt === 'string' ? Item.lastUpdatedAt : null;
  },

  /** The newest imports of the company (the import list's index), without a cursor. */
  async recentOfCompany(companyId: string, limit: number): Promise<Record<string, unknown>[]> {
    const { Items } = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': importListPartition(companyId) },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return Items ?? [];
  },
};

/** An entry of a sweep index (GSI2, `<instant>#<id>`): the imports' and SAF-T imports' (shared/saft/repository.ts). */
export interface SweepEntry {
  id: string;
  companyId: string;
  /** The import kind (empty on a SAF-T import). */
  kind: string;
  /** The entry's sort key as read: the condition of the sweeper's write. */
  sweepKey: string;
  /** The instant of the entry: the acceptance (start), or the last time the sweeper sent its message again. */
  queuedAt: string;
  /** How many times the sweeper has sent its message again (requeueCount on the item, absent = 0). */
  requeues: number;
}

/** Items of a sweep-index partition queued before `before`, oldest first. */
export const queuedBefore = async (partition: string, before: string, limit: number): Promise<SweepEntry[]> => {
  const { Items } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK < :before',
      ExpressionAttributeValues: { ':pk': partition, ':before': before },
      Limit: limit,
    }),
  );
  return (Items ?? []).map((item) => ({
    id: String(item.id),
    companyId: String(item.companyId),
    kind: String(item.kind ?? ''),
    sweepKey: String(item.GSI2SK),
    queuedAt: String(item.GSI2SK).split('#')[0]!,
    requeues: Number(item.requeueCount ?? 0),
  }));
};

/**
 * The sweeper takes an entry before it acts on it: its sort key moves to `<at>#<id>` (so the item
 * comes up again only a whole age window later) and, with `countResend`, requeueCount grows by
 * one. Only while the item is queued and its entry is still the one read (false otherwise: the
 * worker moved it on, or another sweep took it first), so each entry is acted on once per window.
 */
export const takeSweepEntry = async (key: Record<string, string>, partition: string, entry: SweepEntry, at: string, options: { countResend: boolean }): Promise<boolean> => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: options.countResend ? 'SET GSI2SK = :next, requeueCount = if_not_exists(requeueCount, :zero) + :one' : 'SET GSI2SK = :next',
        ConditionExpression: '#status = :queued AND GSI2PK = :pk AND GSI2SK = :read',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':next': `${at}#${entry.id}`,
          ':queued': 'queued',
          ':pk': partition,
          ':read': entry.sweepKey,
          ...(options.countResend && { ':zero': 0, ':one': 1 }),
        },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
};

/** Gives back an entry taken at `takenAt` for a re-send whose message could not be sent: the entry read, its count, so the next run tries again. Only while still as taken. */
export const releaseSweepEntry = async (key: Record<string, string>, partition: string, entry: SweepEntry, takenAt: string): Promise<void> => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET GSI2SK = :read, requeueCount = :count',
        ConditionExpression: 'GSI2PK = :pk AND GSI2SK = :taken',
        ExpressionAttributeValues: { ':read': entry.sweepKey, ':count': entry.requeues, ':pk': partition, ':taken': `${takenAt}#${entry.id}` },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
};
