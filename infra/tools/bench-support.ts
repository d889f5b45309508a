import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { lambdaEsbuildOptions, tracingModuleOptions } from '../stacks/bundled-assets';
import { tracingModuleFile } from '../../shared/platform/tracer';
import { clockTicks, parseProcStat } from './suite-cpu';

// The functions a bench runs in its process write no EMF lines between its tables.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

/** What the bench scripts share: where their figures go, how they exit, and how they bundle a function as CDK does. */

/** Writes the figures of one bench script to .local/bench/<name>.json (gitignored), or to `file`; answers the file's path. */
export const writeBenchResults = (name: string, results: unknown, file = resolve('.local/bench', `${name}.json`)): string => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  return file;
};

/** Runs a bench script's main and exits with its code (0 unless it answers another), or 1 when it throws. */
export const runBench = (main: () => Promise<number | void>): void => {
  main().then(
    (code) => process.exit(code ?? 0),
    (error: unknown) => {
      console.error(`[bench] failed: ${(error as Error).stack ?? String(error)}`);
      process.exit(1);
    },
  );
};

/**
 * Bundles an entry as CDK bundles a Lambda (infra/stacks/bundled-assets.ts lambdaEsbuildOptions),
 * with the tracing module beside it (built with the same plugins); answers the sizes in bytes.
 */
export const bundleAsLambda = async (entry: string, outfile: string, options: { minify?: boolean; plugins?: Plugin[] } = {}): Promise<{ bytes: number; tracingModuleBytes: number }> => {
  const plugins = options.plugins ?? [];
  const tracingModule = join(dirname(outfile), tracingModuleFile);
  await build({ ...lambdaEsbuildOptions(resolve(entry), outfile), minify: options.minify ?? true, sourcemap: false, plugins });
  await build({ ...tracingModuleOptions(tracingModule), plugins });
  return { bytes: statSync(outfile).size, tracingModuleBytes: statSync(tracingModule).size };
};

/** Rounds to `digits` decimals (for printed figures). */
export const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;

/** The median (the mean of the two middle values of an even count). */
export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Nearest-rank percentile. */
export const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
};

/** Prints rows as an aligned table. */
export const printTable = <R extends { [K in keyof R]: string }>(header: R, rows: R[]): void => {
  const keys = Object.keys(header) as (keyof R)[];
  const width = (key: keyof R) => Math.max(...[header, ...rows].map((row) => String(row[key]).length));
  const line = (row: R) => keys.map((key) => String(row[key]).padEnd(width(key))).join(' | ');
  console.log(line(header));
  console.log(keys.map((key) => '-'.repeat(width(key))).join('-+-'));
  for (const row of rows) console.log(line(row));
};

/** CPU time (user + system, ms) of a process from /proc; undefined where /proc is not readable. */
export const processCpuMs = (pid: number | undefined): number | undefined => {
  if (pid === undefined) return undefined;
  try {
    return (parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).cpuTicks * 1000) / clockTicks();
  } catch {
    return undefined;
  }
};

/** CPU used by this process and by DynamoDB Local (java) over a window. */
export const cpuWindow = (javaPid: number | undefined) => {
  const node = process.cpuUsage();
  const java = processCpuMs(javaPid);
  const started = performance.now();
  return () => {
    const wall = performance.now() - started;
    const nodeUsed = process.cpuUsage(node);
    const javaEnd = processCpuMs(javaPid);
    return {
      wallMs: round(wall),
      nodeCpuMs: round((nodeUsed.user + nodeUsed.system) / 1000),
      javaCpuMs: java === undefined || javaEnd === undefined ? null : round(javaEnd - java),
    };
  };
};
