import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
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

const parallelism = 16;

/**
 * Adds each delta exactly once per (import, chunk): the item remembers the last chunk that
 * touched it, and an addition whose chunk is not newer is skipped. A worker that crashes after
 * some updates and is redelivered therefore never counts twice. Correct because one import lane
 * (job) at a time writes a given counter and applies its chunks in order.
 */
export const applyDeltasOnce = async (deltas: CounterDelta[], marker: DeltaMarker): Promise<void> => {
  const merged = mergeByKey(deltas.filter((delta) => Object.values(delta.add).some((value) => !isZero(value))));
  for (let start = 0; start < merged.length; start += parallelism) {
    await Promise.all(merged.slice(start, start + parallelism).map((delta) => applyOne(delta, marker)));
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

const applyOne = async (delta: CounterDelta, marker: DeltaMarker) => {
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
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: delta.key,
        UpdateExpression: `SET ${sets.join(', ')} ADD ${adds.join(', ')}`,
        ConditionExpression: 'attribute_not_exists(#markerImport) OR #markerImport <> :import OR #markerChunk < :chunk',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error; // already applied by an earlier delivery
  }
};
