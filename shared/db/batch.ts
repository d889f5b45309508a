import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../platform/aws';
import { keyId, type Item, type Key } from './attributes';
import { backoff } from './retry';

/**
 * Batch reads and writes of the table with one retry policy: what DynamoDB leaves unprocessed
 * (throttling) is sent again after the one backoff (shared/db/retry.ts), at most `maxBatchAttempts`
 * times; batches run with at most `batchConcurrency` requests in flight.
 */
export const maxBatchAttempts = 8;
export const batchConcurrency = 8;

const slices = <T>(items: readonly T[], size: number): T[][] => {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
};

/** Runs fn over items with at most `limit` calls in flight; results in the items' order. */
export const inParallel = async <T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> => {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
};

/** Sends a batch request until nothing is left unprocessed, under the one retry policy. */
const untilProcessed = async <T>(what: string, first: T[], send: (pending: T[]) => Promise<T[]>): Promise<void> => {
  let pending = first;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt >= maxBatchAttempts) throw new Error(`${what}: ${pending.length} still unprocessed after ${maxBatchAttempts} attempts`);
    if (attempt > 0) await backoff(attempt);
    pending = await send(pending);
  }
};

/** Strongly consistent BatchGetItem (100 keys a request); found items by keyId. `projection` limits the attributes read. */
export const batchGet = async (keys: readonly Key[], projection?: readonly string[]): Promise<Map<string, Item>> => {
  const unique = [...new Map(keys.map((key) => [keyId(key), key])).values()];
  const found = new Map<string, Item>();
  const attributes = projection && [...new Set(['PK', 'SK', ...projection])];
  const projectionInput = attributes && {
    ProjectionExpression: attributes.map((_, i) => `#p${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(attributes.map((name, i) => [`#p${i}`, name])),
  };
  await inParallel(slices(unique, 100), batchConcurrency, (batch) =>
    untilProcessed('BatchGet', batch, async (pending) => {
      const result = await dynamo().send(new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true, ...projectionInput } } }));
      for (const item of result.Responses?.[tableName()] ?? []) found.set(keyId(item as Key), item);
      return (result.UnprocessedKeys?.[tableName()]?.Keys ?? []) as Key[];
    }),
  );
  return found;
};

/** BatchWriteItem puts (25 items a request); `beforeBatch` runs before each request's first send (pacing). */
export const batchPut = async (items: readonly Item[], beforeBatch?: (batch: readonly Item[]) => Promise<void>): Promise<void> => {
  await inParallel(slices(items, 25), batchConcurrency, async (batch) => {
    await beforeBatch?.(batch);
    await untilProcessed(
      'BatchWrite',
      batch.map((item) => ({ PutRequest: { Item: item } })),
      async (pending) => {
        const result = await dynamo().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
        return (result.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
      },
    );
  });
};
