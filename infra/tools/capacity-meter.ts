import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PartitionPacer } from '../../shared/db/partition-pacer';

/**
 * The bench's DynamoDB capacity meter: a middleware on the service's document client that asks
 * every call for `ReturnConsumedCapacity: 'INDEXES'` and records, per call, the function it was
 * made for, the units DynamoDB reported per table and index, when it ran, and which partitions
 * (table and index partition keys) each write touched. Pure helpers below sum the calls per
 * operation and replay the writes against DynamoDB's per-partition limit.
 */

/** Commands that accept ReturnConsumedCapacity. */
const metered = new Set(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'Scan', 'BatchGetItem', 'BatchWriteItem', 'TransactWriteItems', 'TransactGetItems']);
const readCommands = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);

export interface UnitsOf {
  /** `table` or `table/index`. */
  target: string;
  units: number;
}

export interface PartitionWrite {
  /** `table PK` or `table/GSI1 GSI1PK`. */
  partition: string;
  /** Estimated write units of this item on that partition (item size rounded up to 1 KB; x2 in a transaction). */
  units: number;
  /** The item's estimated size (puts only). */
  bytes?: number;
}

export interface MeteredCall {
  command: string;
  /** The function the call was made for (local IAM's caller), or `-` outside a handler. */
  caller: string;
  /** Partition key of the (first) item or query, for saying why a read is there. */
  key: string;
  read: boolean;
  /** Units DynamoDB reported, per table and index. */
  consumed: UnitsOf[];
  startMs: number;
  endMs: number;
  /** Items returned by a read, and their estimated size in bytes. */
  itemsRead: number;
  bytesRead: number;
  writes: PartitionWrite[];
  failed: boolean;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DynamoDB inputs and outputs of every command, read freely
type Loose = Record<string, any>;

/** DynamoDB's item size: attribute names plus values (numbers about one byte per two digits), as the capacity rules count it. */
export const itemBytes = (value: unknown): number => {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'bigint' || (typeof value === 'object' && value.constructor?.name === 'NumberValue')) {
    const digits = String(value).replace(/[^0-9]/g, '').length;
    return Math.ceil(digits / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, v) => sum + itemBytes(v), 0);
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, v) => sum + 1 + itemBytes(v), 0);
  if (typeof value === 'object') return Object.entries(value as Loose).reduce((sum, [name, v]) => sum + Buffer.byteLength(name, 'utf8') + itemBytes(v), 0);
  return 1;
};

const indexKeys: [string, string][] = [
  ['GSI1', 'GSI1PK'],
  ['GSI2', 'GSI2PK'],
];

/** The partitions a put of `item` writes: the table's, and each index whose key the item carries. */
const partitionsOfItem = (table: string, item: Loose, factor: number): PartitionWrite[] => {
  const bytes = itemBytes(item);
  const units = Math.max(1, Math.ceil(bytes / 1024)) * factor;
  const writes: PartitionWrite[] = [{ partition: `${table} ${String(item.PK)}`, units, bytes }];
  for (const [index, attribute] of indexKeys) if (typeof item[attribute] === 'string') writes.push({ partition: `${table}/${index} ${item[attribute]}`, units });
  return writes;
};

/** The partitions a write call touches (updates and deletes: the base partition; puts: with their index entries). */
export const partitionWrites = (command: string, input: Loose): PartitionWrite[] => {
  switch (command) {
    case 'PutItem':
      return partitionsOfItem(input.TableName, input.Item ?? {}, 1);
    case 'UpdateItem':
    case 'DeleteItem':
      return [{ partition: `${input.TableName} ${String(input.Key?.PK)}`, units: 1 }];
    case 'BatchWriteItem':
      return Object.entries((input.RequestItems ?? {}) as Record<string, Loose[]>).flatMap(([table, requests]) =>
        requests.flatMap((request) => (request.PutRequest ? partitionsOfItem(table, request.PutRequest.Item, 1) : [{ partition: `${table} ${String(request.DeleteRequest?.Key?.PK)}`, units: 1 }])),
      );
    case 'TransactWriteItems':
      return ((input.TransactItems ?? []) as Loose[]).flatMap((entry) => {
        if (entry.Put) return partitionsOfItem(entry.Put.TableName, entry.Put.Item, 2);
        const operation = entry.Update ?? entry.Delete ?? entry.ConditionCheck;
        return [{ partition: `${operation.TableName} ${String(operation.Key?.PK)}`, units: 2 }];
      });
    default:
      return [];
  }
};

const firstKeyOf = (command: string, input: Loose): string => {
  if (input.Key?.PK) return String(input.Key.PK);
  if (input.Item?.PK) return String(input.Item.PK);
  if (command === 'Query') {
    const value = Object.values((input.ExpressionAttributeValues ?? {}) as Loose)[0];
    return `${input.IndexName ? `${input.IndexName} ` : ''}${String(value)}`;
  }
  if (command === 'BatchGetItem') {
    const [table] = Object.values((input.RequestItems ?? {}) as Record<string, Loose>);
    return `${String(table?.Keys?.[0]?.PK)} (+${Math.max(0, (table?.Keys?.length ?? 1) - 1)})`;
  }
  if (command === 'BatchWriteItem') {
    const [requests] = Object.values((input.RequestItems ?? {}) as Record<string, Loose[]>);
    const first = requests?.[0];
    return String(first?.PutRequest?.Item?.PK ?? first?.DeleteRequest?.Key?.PK);
  }
  if (command === 'TransactWriteItems') {
    const first = input.TransactItems?.[0];
    return String((first?.Put?.Item ?? (first?.Update ?? first?.Delete ?? first?.ConditionCheck)?.Key)?.PK);
  }
  return '-';
};

/** Units per table and index from a ConsumedCapacity answer (one object, or one per table). */
export const consumedUnits = (consumed: unknown): UnitsOf[] => {
  const list = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) as Loose[];
  return list.flatMap((entry) => {
    const table = String(entry.TableName);
    const own = entry.Table?.CapacityUnits ?? (entry.GlobalSecondaryIndexes ? 0 : entry.CapacityUnits ?? 0);
    const units: UnitsOf[] = [{ target: table, units: Number(own) }];
    for (const [index, value] of Object.entries((entry.GlobalSecondaryIndexes ?? {}) as Record<string, Loose>)) units.push({ target: `${table}/${index}`, units: Number(value.CapacityUnits ?? 0) });
    return units.filter((unit) => unit.units > 0);
  });
};

const returnedItems = (output: Loose | undefined): Loose[] => {
  if (!output) return [];
  if (output.Item) return [output.Item];
  if (Array.isArray(output.Items)) return output.Items;
  if (output.Responses && !Array.isArray(output.Responses)) return Object.values(output.Responses as Record<string, Loose[]>).flat();
  if (Array.isArray(output.Responses)) return (output.Responses as Loose[]).map((response) => response.Item).filter(Boolean);
  return [];
};

export interface CapacityMeter {
  /** Starts recording (clears what was recorded). */
  begin(): void;
  /** Stops recording; answers the calls in the order they ended. */
  end(): MeteredCall[];
}

/** Installs the meter on the client (idempotent by name); `callerOf` names the function a call is made for. */
export const installCapacityMeter = (client: DynamoDBDocumentClient, callerOf: () => string | undefined, now: () => number = () => performance.now()): CapacityMeter => {
  let recording = false;
  let calls: MeteredCall[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? '').replace(/Command$/, '');
      if (!recording || !metered.has(command)) return next(args);
      const input = args.input as Loose;
      input.ReturnConsumedCapacity = 'INDEXES';
      const caller = callerOf() ?? '-';
      const startMs = now();
      const record = (output: Loose | undefined, failed: boolean, consumed: unknown) => {
        const items = returnedItems(output);
        const read = readCommands.has(command);
        calls.push({
          command,
          caller,
          key: firstKeyOf(command, input),
          read,
          consumed: consumedUnits(consumed),
          startMs,
          endMs: now(),
          itemsRead: items.length,
          bytesRead: items.reduce((sum, item) => sum + itemBytes(item), 0),
          writes: read ? [] : partitionWrites(command, input),
          failed,
        });
      };
      try {
        const result = await next(args);
        record(result.output, false, (result.output as Loose).ConsumedCapacity);
        return result;
      } catch (error) {
        // A failed conditional write still consumes its units; DynamoDB does not report them on the error.
        const failedUnits = command === 'UpdateItem' || command === 'PutItem' || command === 'DeleteItem' ? [{ TableName: input.TableName, CapacityUnits: 1 }] : undefined;
        record(undefined, true, failedUnits);
        throw error;
      }
    },
    { step: 'initialize', name: 'benchCapacityMeter', override: true },
  );
  return {
    begin: () => {
      calls = [];
      recording = true;
    },
    end: () => {
      recording = false;
      return calls;
    },
  };
};

export interface CapacitySummary {
  calls: number;
  rcu: number;
  wcu: number;
  /** The longest chain of calls one after the other (calls that overlap count once): round trips on the critical path. */
  roundTrips: number;
  byCommand: Record<string, number>;
  byTarget: Record<string, { rcu: number; wcu: number }>;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** Sums a set of calls: units by table and index, calls by command, and the round trips on the critical path. */
export const summarize = (calls: readonly MeteredCall[]): CapacitySummary => {
  const byCommand: Record<string, number> = {};
  const byTarget: Record<string, { rcu: number; wcu: number }> = {};
  let rcu = 0;
  let wcu = 0;
  for (const call of calls) {
    byCommand[call.command] = (byCommand[call.command] ?? 0) + 1;
    for (const { target, units } of call.consumed) {
      const sums = (byTarget[target] ??= { rcu: 0, wcu: 0 });
      if (call.read) {
        sums.rcu += units;
        rcu += units;
      } else {
        sums.wcu += units;
        wcu += units;
      }
    }
  }
  for (const sums of Object.values(byTarget)) Object.assign(sums, { rcu: round2(sums.rcu), wcu: round2(sums.wcu) });
  return { calls: calls.length, rcu: round2(rcu), wcu: round2(wcu), roundTrips: criticalPath(calls), byCommand, byTarget };
};

/** The most calls that ran strictly one after another (earliest end first: the longest chain of non-overlapping intervals). */
export const criticalPath = (calls: readonly Pick<MeteredCall, 'startMs' | 'endMs'>[]): number => {
  let count = 0;
  let free = -Infinity;
  for (const call of [...calls].sort((a, b) => a.endMs - b.endMs)) {
    if (call.startMs >= free) {
      count++;
      free = call.endMs;
    }
  }
  return count;
};

/** Read units an answer of `bytes` needs at the least: one eventually consistent read of that much (4 KB a half unit). */
export const minimumReadUnits = (bytes: number): number => Math.max(0.5, Math.ceil(bytes / 4096) * 0.5);

// ---------------------------------------------------------------------------------------------
// Hot partitions: the import's writes replayed against DynamoDB's per-partition write limit.
// ---------------------------------------------------------------------------------------------

export interface TimedWrite {
  /** ms since the first write. */
  atMs: number;
  /** The item's partitions (table and each index), written together or not at all. */
  partitions: PartitionWrite[];
}

export interface ReplayOptions {
  /** Units a partition key takes per second (AWS: 1,000 WCU). */
  partitionLimit: number;
  /** Items the writer can send per second when nothing throttles it. */
  clientItemsPerSecond: number;
  /** Items in flight: a throttled item holds its place, later items wait behind the window (8 BatchWriteItem of 25 = 200). */
  window: number;
  /** Spreads GSI1 over this many keys (`#0`..`#n-1` by a hash of the sort order); 1 = as today. */
  gsi1Shards?: number;  /** Each write is sent no earlier than its `atMs` (a paced sequence, see pacedWrites); else as fast as the client goes. */
  sendAtTimes?: boolean;
}

export interface ReplayResult {
  items: number;
  seconds: number;
  /** Seconds the same writes take with no partition limit (client capacity alone). */
  unthrottledSeconds: number;
  /** Item attempts refused for a full partition (each a retry with backoff on AWS). */
  throttledAttempts: number;
  hottest: { partition: string; units: number; peakUnitsPerSecond: number }[];
}

const shardOf = (text: string, shards: number) => {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) >>> 0;
  return hash % shards;
};

/**
 * Deterministic replay of a write sequence, one-second steps: in order, each item in the window is
 * written when every partition it touches has budget left this second and the client has capacity;
 * otherwise it is refused (throttled) and tried again the next second. Answers how long the writes
 * take and the hottest partitions.
 */
export const replayWrites = (writes: readonly TimedWrite[], options: ReplayOptions): ReplayResult => {
  const shards = options.gsi1Shards ?? 1;
  const items = writes.map((write, n) =>
    write.partitions.map((p) => (shards > 1 && p.partition.includes('/GSI1 ') ? { ...p, partition: `${p.partition}#${shardOf(String(n), shards)}` } : p)),
  );
  const totals = new Map<string, number>();
  const peaks = new Map<string, number>();
  let next = 0;
  const pending: number[] = [];
  let seconds = 0;
  let throttled = 0;
  while (next < items.length || pending.length > 0) {
    if (seconds > 1_000_000) throw new Error('replay did not finish');
    seconds++;
    const used = new Map<string, number>();
    let capacity = options.clientItemsPerSecond;
    while (pending.length < options.window && next < items.length) pending.push(next++);
    for (let i = 0; i < pending.length && capacity > 0; ) {
      if (options.sendAtTimes && writes[pending[i]!]!.atMs >= seconds * 1000) break; // not sent yet (the times only grow)
      const item = items[pending[i]!]!;
      const fits = item.every((p) => (used.get(p.partition) ?? 0) + p.units <= options.partitionLimit);
      capacity--;
      if (fits) {
        for (const p of item) used.set(p.partition, (used.get(p.partition) ?? 0) + p.units);
        pending.splice(i, 1);
        if (pending.length < options.window && next < items.length) pending.push(next++);
      } else {
        throttled++;
        i++;
      }
    }
    for (const [partition, units] of used) {
      totals.set(partition, (totals.get(partition) ?? 0) + units);
      peaks.set(partition, Math.max(peaks.get(partition) ?? 0, units));
    }
  }
  const hottest = [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([partition, units]) => ({ partition, units, peakUnitsPerSecond: peaks.get(partition) ?? 0 }));
  return { items: items.length, seconds, unthrottledSeconds: Math.ceil(items.length / options.clientItemsPerSecond), throttledAttempts: throttled, hottest };
};

/**
 * The writes as the import worker sends them with its pacer (shared/db/partition-pacer.ts, the real
 * one on a simulated clock): BatchWriteItem of `batchSize` in order, each sent when the client is
 * ready (`clientItemsPerSecond`) and the pacer lets its index entries through. Answers the same
 * writes with the time each is sent, for replayWrites with `sendAtTimes`.
 */
export const pacedWrites = async (
  writes: readonly TimedWrite[],
  options: { indexUnitsPerSecond: number; clientItemsPerSecond: number; batchSize?: number },
): Promise<{ writes: TimedWrite[]; waits: number; waitedMs: number }> => {
  let now = 0;
  const pacer = new PartitionPacer(options.indexUnitsPerSecond, { now: () => now, sleep: async (ms) => void (now += ms) });
  const size = options.batchSize ?? 25;
  const paced: TimedWrite[] = [];
  for (let first = 0; first < writes.length; first += size) {
    const batch = writes.slice(first, first + size);
    now = Math.max(now, (first / options.clientItemsPerSecond) * 1000);
    const units = new Map<string, number>();
    for (const p of batch.flatMap((write) => write.partitions)) if (p.partition.includes('/')) units.set(p.partition, (units.get(p.partition) ?? 0) + 1);
    await pacer.take(units);
    for (const write of batch) paced.push({ atMs: now, partitions: write.partitions });
  }
  return { writes: paced, waits: pacer.waits, waitedMs: pacer.waitedMs };
};

/** Units per partition per whole second of the measured run (the local write timing, no limit). */
export const measuredPeaks = (writes: readonly TimedWrite[]): { partition: string; units: number; peakUnitsPerSecond: number }[] => {
  const perSecond = new Map<string, Map<number, number>>();
  for (const write of writes) {
    const second = Math.floor(write.atMs / 1000);
    for (const p of write.partitions) {
      const seconds = perSecond.get(p.partition) ?? new Map<number, number>();
      seconds.set(second, (seconds.get(second) ?? 0) + p.units);
      perSecond.set(p.partition, seconds);
    }
  }
  return [...perSecond]
    .map(([partition, seconds]) => ({ partition, units: [...seconds.values()].reduce((a, b) => a + b, 0), peakUnitsPerSecond: Math.max(...seconds.values()) }))
    .sort((a, b) => b.units - a.units)
    .slice(0, 3);
};
