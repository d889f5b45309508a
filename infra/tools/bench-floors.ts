import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bundleAsLambda } from './bench-support';

/**
 * The bench's floors taken a second way: from a separate, quiet Node process (bench-floor-child.ts,
 * bundled as a Lambda is), against the same floor DynamoDB Local, table and items as the in-process
 * floors of infra/tools/bench.ts. The in-process floors share their event loop with the whole
 * local stack (gateway, handlers, pollers), which delays every call's callbacks.
 */
export interface QuietFloors {
  getItemMs: number[];
  writes: { items: number; ms: number; itemsPerSecond: number }[];
}

const numbersAsText = (_key: string, value: unknown) =>
  value && typeof value === 'object' && value.constructor?.name === 'NumberValue' ? { $n: String(value) } : value;

export const quietFloors = async (options: {
  dir: string;
  endpoint: string;
  region: string;
  table: string;
  getKey?: Record<string, string>;
  getSamples: number;
  warmups: number;
  /** The items of one raw write, and the company id in them (replaced by a fresh one per run). */
  items?: readonly unknown[];
  company?: string;
  runs: number;
}): Promise<QuietFloors> => {
  const { dir, items = [], ...rest } = options;
  const jobFile = join(dir, 'quiet-floor-job.json');
  writeFileSync(jobFile, JSON.stringify({ company: '-', ...rest, items: JSON.stringify(items, numbersAsText) }));
  const bundle = join(dir, 'bench-floor-child.mjs');
  if (!existsSync(bundle)) await bundleAsLambda('infra/tools/bench-floor-child.ts', bundle);
  const { stdout } = await promisify(execFile)(process.execPath, [bundle, jobFile], { encoding: 'utf8', maxBuffer: 8 << 20, timeout: 10 * 60_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as QuietFloors;
};
