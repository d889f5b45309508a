import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareCodeUnits } from '../../shared/platform/text';

/**
 * The DynamoDB calls of a test run, as infra/tools/dynamodb-call-counter.cjs wrote them (one file
 * per Node.js process): merged, by operation and by call (`Operation table prefix`).
 */
export type CallCounts = ReadonlyMap<string, number>;

/** Every process's counts in `directory`, added up; empty when no process made a call. */
export const readCallCounts = (directory: string): CallCounts => {
  const merged = new Map<string, number>();
  if (!existsSync(directory)) return merged;
  for (const file of readdirSync(directory).filter((name) => name.endsWith('.json'))) {
    const { calls } = JSON.parse(readFileSync(join(directory, file), 'utf8')) as { calls: Record<string, number> };
    for (const [call, count] of Object.entries(calls)) merged.set(call, (merged.get(call) ?? 0) + count);
  }
  return merged;
};

export interface CallRow {
  name: string;
  calls: number;
  share: number;
}

const rowsOf = (totals: ReadonlyMap<string, number>, all: number): CallRow[] =>
  [...totals].map(([name, calls]) => ({ name, calls, share: all ? calls / all : 0 })).sort((a, b) => b.calls - a.calls || compareCodeUnits(a.name, b.name));

export const totalCalls = (counts: CallCounts): number => [...counts.values()].reduce((sum, count) => sum + count, 0);

/** Calls by operation (GetItem, UpdateItem, ...), the most first. */
export const callsByOperation = (counts: CallCounts): CallRow[] => {
  const byOperation = new Map<string, number>();
  for (const [call, count] of counts) {
    const operation = call.split(' ')[0]!;
    byOperation.set(operation, (byOperation.get(operation) ?? 0) + count);
  }
  return rowsOf(byOperation, totalCalls(counts));
};

/** The `limit` most frequent calls by operation, table and key prefix. */
export const largestCalls = (counts: CallCounts, limit: number): CallRow[] => rowsOf(counts, totalCalls(counts)).slice(0, limit);
