import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { batchPut, inParallel } from '../db/batch';
import { backoff } from '../db/retry';
import { dynamo, tableName } from '../platform/aws';
import { Decimal, toStoredNumber } from '../platform/money';

/**
 * Additions to one counter item (a trial-balance aggregate, a usage count, a year summary).
 * Rule: a counter item is written by one import lane only (keys carry the lane where several
 * lanes count the same thing), so the exactly-once marker below stays sound.
 */
export interface CounterDelta {
  key: { PK: string; SK: string };
  add: Record<string, Decimal | number>;
  /** Attributes set along with the addition (e.g. accountCode, period on first write). */
  set?: Record<string, unknown>;
}

/** Which step of which import applies the deltas; chunks of one import are applied in order. */
export interface DeltaMarker {
  importId: string;
  chunk: number;
}

/** Counter updates per TransactWriteItems (DynamoDB's limit) and transactions in flight. */
const transactionSize = 100;
const transactionsInFlight = 4;
const maxTransactionAttempts = 8;

/**
 * Adds each delta exactly once per (import, chunk): the item remembers the last chunk that
 * touched it, and an addition whose chunk is not newer is skipped. A worker that crashes after
 * some updates and is redelivered therefore never counts twice. Correct because one import lane
 * (job) at a time writes a given counter and applies its chunks in order.
 *
 * The conditional additions go 100 to a TransactWriteItems: on DynamoDB Local that halves the
 * cost of a 10k-line import's ~750 counter updates against one UpdateItem each (npm run bench).
 * A transaction is all or nothing, so an earlier delivery applied all of its updates or none;
 * the updates it names as already applied (ConditionalCheckFailed) are dropped and the rest sent
 * again, as are all of them after a conflict with another transaction (TransactionConflict).
 */
export const applyDeltasOnce = async (deltas: CounterDelta[], marker: DeltaMarker): Promise<void> => {
  const merged = mergeByKey(deltas.filter((delta) => Object.values(delta.add).some((value) => !isZero(value))));
  const groups: CounterDelta[][] = [];
  for (let start = 0; start < merged.length; start += transactionSize) groups.push(merged.slice(start, start + transactionSize));
  await inParallel(groups, transactionsInFlight, (group) => applyGroup(group, marker));
};

/**
 * Counters that cannot exist yet are written whole, 25 to a BatchWriteItem, with the same marker
 * the additions leave (so a redelivered chunk's conditional additions skip them). The caller
 * knows they cannot exist: cells of a year no import of the lane wrote before (its claim, see
 * claimUnreadChunk) that no earlier row of the import named. A repeated put writes the same item.
 */
export const putNewCounters = async (deltas: CounterDelta[], marker: DeltaMarker): Promise<void> => {
  const merged = mergeByKey(deltas.filter((delta) => Object.values(delta.add).some((value) => !isZero(value))));
  await batchPut(
    merged.map((delta) => ({
      ...delta.key,
      ...delta.set,
      ...Object.fromEntries(Object.entries(delta.add).map(([name, value]) => [name, value instanceof Decimal ? toStoredNumber(value) : value])),
      markerImport: marker.importId,
      markerChunk: marker.chunk,
    })),
  );
};

const applyGroup = async (group: CounterDelta[], marker: DeltaMarker): Promise<void> => {
  let pending = group;
  for (let attempt = 1; pending.length > 0; attempt++) {
    try {
      await dynamo().send(new TransactWriteCommand({ TransactItems: pending.map((delta) => ({ Update: counterUpdate(delta, marker) })) }));
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException) || attempt >= maxTransactionAttempts) throw error;
      const reasons = error.CancellationReasons ?? [];
      const conflict = reasons.some((reason) => reason.Code === 'TransactionConflict');
      const applied = new Set(reasons.flatMap((reason, i) => (reason.Code === 'ConditionalCheckFailed' ? [i] : [])));
      if (!conflict && applied.size === 0) throw error; // refused for another reason (e.g. ValidationError)
      pending = pending.filter((_, i) => !applied.has(i));
      if (conflict) await backoff(attempt);
    }
  }
};

const isZero = (value: Decimal | number) => (value instanceof Decimal ? value.isZero() : value === 0);

const mergeByKey = (deltas: CounterDelta[]): CounterDelta[] => {
  const byKey = new Map<string, CounterDelta>();
  for (const delta of deltas) {
    const id = `${delta.key.PK}|${delta.key.SK}`;
    const existing = byKey.get(id);
    if (!existing) {
      byKey.set(id, { key: delta.key, add: { ...delta.add }, ...(delta.set && { set: { ...delta.set } }) });
      continue;
    }
    for (const [name, value] of Object.entries(delta.add)) {
      const current = existing.add[name];
      existing.add[name] = current === undefined ? value : add(current, value);
    }
    if (delta.set) existing.set = { ...existing.set, ...delta.set };
  }
  return [...byKey.values()];
};

const add = (a: Decimal | number, b: Decimal | number): Decimal | number =>
  a instanceof Decimal || b instanceof Decimal ? new Decimal(a.toString()).plus(b.toString()) : a + b;

const counterUpdate = (delta: CounterDelta, marker: DeltaMarker) => {
  const names: Record<string, string> = { '#markerImport': 'markerImport', '#markerChunk': 'markerChunk' };
  const values: Record<string, unknown> = { ':import': marker.importId, ':chunk': marker.chunk };
  const sets = ['#markerImport = :import', '#markerChunk = :chunk'];
  const adds: string[] = [];
  Object.entries(delta.add).forEach(([name, value], i) => {
    names[`#a${i}`] = name;
    values[`:a${i}`] = value instanceof Decimal ? toStoredNumber(value) : value;
    adds.push(`#a${i} :a${i}`);
  });
  Object.entries(delta.set ?? {}).forEach(([name, value], i) => {
    names[`#s${i}`] = name;
    values[`:s${i}`] = value;
    sets.push(`#s${i} = :s${i}`);
  });
  return {
    TableName: tableName(),
    Key: delta.key,
    UpdateExpression: `SET ${sets.join(', ')} ADD ${adds.join(', ')}`,
    ConditionExpression: 'attribute_not_exists(#markerImport) OR #markerImport <> :import OR #markerChunk < :chunk',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
};
