/**
 * `npm run bench:suite`: where the test suite's time goes. Runs vitest (the whole suite, or one
 * project or file), samples its process tree from /proc every --interval-ms, and prints the wall
 * time, the exact CPU of the run (user + system of every process it waited for) and that CPU by
 * kind of process: the main process that hosts the local stack, the workers that run the test
 * files, DynamoDB Local, the CLIs that tests run as users do, and the rest. CPU seconds move far
 * less than wall time with other work on the machine: compare runs by them. Linux only (/proc).
 * With --dynamodb-calls it also counts every DynamoDB call of the run by operation, table and key
 * prefix (infra/tools/dynamodb-call-counter.cjs in every Node.js process): DynamoDB Local's CPU
 * follows them. With --per-file the files run one at a time and each file's CPU (the whole process
 * tree's, from the end of the file before to its own end) is listed, the most first
 * (test/support/file-cpu-reporter.ts). Writes .local/bench/suite.json (or --out); exits with
 * vitest's exit code.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { printTable, round, runBench, writeBenchResults } from './bench-support';
import { readCli } from './cli-args';
import { clockTicks, cpuByKind, largestOfKind, processTreeSampler, waitedChildrenTicks, type FileCpu } from './suite-cpu';
import { callsByOperation, largestCalls, readCallCounts, totalCalls } from './suite-dynamodb-calls';
import { compareCodeUnits } from '../../shared/platform/text';

const args = readCli({
  command: 'bench:suite',
  summary:
    'Runs the test suite (or one project or file) and prints its wall time, its exact CPU and that CPU by kind of process (the stack host, the test workers, DynamoDB Local, the CLIs, the rest), sampled from /proc (Linux); writes .local/bench/suite.json.',
  options: {
    project: { type: 'string', description: 'one vitest project: unit, unit-isolated or stack (default: all)' },
    file: { type: 'string', description: 'one test file, e.g. test/unit/json.test.ts (default: all)' },
    'interval-ms': { type: 'string', default: '500', description: 'how often the process tree is sampled, 50 to 5000 ms' },
    'dynamodb-calls': { type: 'boolean', default: false, description: 'also count every DynamoDB call of the run by operation, table and key prefix' },
    'per-file': { type: 'boolean', default: false, description: "run the files one at a time and list each file's CPU, the most first (a slower run: its wall time is not the suite's)" },
    'files-shown': { type: 'string', default: '25', description: 'with --per-file, how many files the table lists, 1 to 500 (the figures file has all)' },
    out: { type: 'string', default: '.local/bench/suite.json', description: 'where the figures are written (JSON)' },
  },
});

const intervalMs = Number(args['interval-ms']);
const filesShown = Number(args['files-shown']);

interface VitestJson {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
}

/** The files' lines the reporter wrote, the most CPU first. */
const readFileCpu = (file: string): FileCpu[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as FileCpu)
        .sort((a, b) => b.cpuSeconds - a.cpuSeconds || compareCodeUnits(a.file, b.file))
    : [];

const main = async (): Promise<number> => {
  if (!Number.isInteger(intervalMs) || intervalMs < 50 || intervalMs > 5000) {
    console.error(`--interval-ms must be a whole number from 50 to 5000, got ${args['interval-ms']}`);
    return 2;
  }
  if (!Number.isInteger(filesShown) || filesShown < 1 || filesShown > 500) {
    console.error(`--files-shown must be a whole number from 1 to 500, got ${args['files-shown']}`);
    return 2;
  }
  if (args.file !== undefined && !existsSync(resolve(args.file))) {
    console.error(`--file: no such test file: ${args.file}`);
    return 2;
  }
  if (!existsSync('/proc/self/stat')) {
    console.error('bench:suite reads /proc: it runs on Linux only');
    return 2;
  }
  const workDir = mkdtempSync(join(os.tmpdir(), 'bench-suite-'));
  try {
    const jsonFile = join(workDir, 'vitest.json');
    const vitestArgs = [
      resolve('node_modules/vitest/vitest.mjs'),
      'run',
      '--reporter=default',
      '--reporter=./test/support/summary-reporter.ts',
      '--reporter=json',
      `--outputFile.json=${jsonFile}`,
      ...(args['per-file'] ? ['--no-file-parallelism', '--reporter=./test/support/file-cpu-reporter.ts'] : []),
      ...(args.project ? ['--project', args.project] : []),
      ...(args.file ? [args.file] : []),
    ];
    const ticksBefore = waitedChildrenTicks();
    const started = performance.now();
    // As `npm test` runs it: without the metrics switch bench-support sets for the benches' own handlers.
    const { POWERTOOLS_METRICS_DISABLED: _benchOnly, ...env } = process.env;
    const callsDir = join(workDir, 'dynamodb-calls');
    const filesFile = join(workDir, 'files.jsonl');
    if (args['per-file']) env.SUITE_FILE_CPU_FILE = filesFile;
    if (args['dynamodb-calls']) {
      env.NODE_OPTIONS = [env.NODE_OPTIONS, `--require ${JSON.stringify(resolve('infra/tools/dynamodb-call-counter.cjs'))}`].filter(Boolean).join(' ');
      env.DYNAMODB_CALLS_DIR = callsDir;
    }
    const child = spawn(process.execPath, vitestArgs, { stdio: 'inherit', env });
    // Ctrl-C reaches vitest too (one process group); a SIGTERM is passed on. Either way vitest stops
    // its run, and the figures of the part that ran are printed.
    const interrupted = (signal: NodeJS.Signals) => () => {
      console.error('\n[bench:suite] interrupted: the figures below are of the part that ran');
      if (signal === 'SIGTERM') child.kill('SIGTERM');
    };
    process.once('SIGINT', interrupted('SIGINT'));
    process.once('SIGTERM', interrupted('SIGTERM'));
    const sampler = processTreeSampler(child.pid!);
    const timer = setInterval(sampler.sample, intervalMs);
    sampler.sample();
    const exitCode = await new Promise<number>((resolveExit) => child.on('exit', (code, signal) => resolveExit(code ?? (signal ? 1 : 0))));
    clearInterval(timer);
    const wallSeconds = (performance.now() - started) / 1000;
    const ticks = clockTicks();
    // A process its parent never waited for (an interrupted run, one killed and left) is missing from
    // the waited-for CPU; one that ended between samples, from the samples by process, but not from
    // the tree's total at a later sample. The largest of the three is the run's CPU.
    const sampledSeconds = sampler.processes().reduce((sum, sampled) => sum + sampled.cpuTicks, 0) / ticks;
    const totalSeconds = Math.max((waitedChildrenTicks() - ticksBefore) / ticks, sampledSeconds, sampler.treeTicks() / ticks);
    const rows = cpuByKind(sampler.processes(), totalSeconds, ticks);
    const counts = existsSync(jsonFile) ? (JSON.parse(readFileSync(jsonFile, 'utf8')) as VitestJson) : undefined;
    const cores = os.availableParallelism();

    console.log(`\nThe suite's CPU by kind of process (sampled every ${intervalMs} ms from /proc)\n`);
    printTable(
      { kind: 'kind of process', processes: 'processes', cpu: 'CPU seconds', share: 'share' },
      rows.map((row) => ({ kind: row.kind, processes: row.processes ? String(row.processes) : '', cpu: round(row.cpuSeconds).toFixed(1), share: `${round(row.share * 100)} %` })),
    );
    const largestOther = largestOfKind(sampler.processes(), 'other', 5, ticks).map((entry) => ({ ...entry, cpuSeconds: round(entry.cpuSeconds) }));
    if (largestOther.length) console.log(`\nThe largest of "other": ${largestOther.map((entry) => `${entry.command} ${entry.cpuSeconds} s`).join(', ')}`);
    const callCounts = args['dynamodb-calls'] ? readCallCounts(callsDir) : undefined;
    const dynamodbCalls = callCounts && {
      total: totalCalls(callCounts),
      byOperation: callsByOperation(callCounts).map((row) => ({ ...row, share: round(row.share, 3) })),
      largest: largestCalls(callCounts, 20).map((row) => ({ ...row, share: round(row.share, 3) })),
    };
    if (dynamodbCalls) {
      const callTable = (heading: string, rows: typeof dynamodbCalls.largest) =>
        printTable({ name: heading, calls: 'calls', share: 'share' }, rows.map((row) => ({ name: row.name, calls: String(row.calls), share: `${round(row.share * 100)} %` })));
      console.log(`\nDynamoDB calls of the run: ${dynamodbCalls.total}, by operation\n`);
      callTable('operation', dynamodbCalls.byOperation);
      console.log('\nThe most frequent calls (operation, table or index, key prefix)\n');
      callTable('call', dynamodbCalls.largest);
    }
    const files = args['per-file'] ? readFileCpu(filesFile) : undefined;
    if (files) {
      const filesCpu = files.reduce((sum, file) => sum + file.cpuSeconds, 0);
      console.log(`\nThe files by CPU, one at a time (the ${Math.min(filesShown, files.length)} largest of ${files.length}; together ${round(filesCpu)} s of the run's ${round(totalSeconds)} s; the rest: the workers' and the stack's start before the first file)\n`);
      printTable(
        { file: 'file', tests: 'tests', cpu: 'CPU seconds', wall: 'wall seconds', ratio: 'CPU / wall' },
        files.slice(0, filesShown).map((file) => ({
          file: file.file,
          tests: String(file.tests),
          cpu: file.cpuSeconds.toFixed(1),
          wall: file.wallSeconds.toFixed(1),
          ratio: file.wallSeconds > 0 ? (file.cpuSeconds / file.wallSeconds).toFixed(2) : '-',
        })),
      );
    }
    const summary = {
      tests: counts ? { passed: counts.numPassedTests, failed: counts.numFailedTests, skipped: counts.numPendingTests } : null,
      vitestExitCode: exitCode,
      wallSeconds: round(wallSeconds),
      cpuSeconds: round(totalSeconds),
      cores,
      /** The CPU over what the cores could give in the wall time: near 1, the run waits on CPU, not on timers. */
      utilisation: round(totalSeconds / (wallSeconds * cores), 2),
      /** The shortest wall time this CPU allows on these cores. */
      cpuBoundWallSeconds: round(totalSeconds / cores),
      byKind: rows.map((row) => ({ ...row, cpuSeconds: round(row.cpuSeconds), share: round(row.share, 3) })),
      largestOther,
      dynamodbCalls: dynamodbCalls ?? null,
      files: files?.map((file) => ({ ...file, cpuSeconds: round(file.cpuSeconds), wallSeconds: round(file.wallSeconds) })) ?? null,
      project: args.project ?? null,
      file: args.file ?? null,
    };
    console.log(
      `\nwall ${summary.wallSeconds} s, CPU ${summary.cpuSeconds} s on ${cores} cores (utilisation ${summary.utilisation}; ` +
        `this CPU needs at least ${summary.cpuBoundWallSeconds} s); tests: ${counts ? `${counts.numPassedTests} passed, ${counts.numFailedTests} failed` : 'no report'}`,
    );
    console.log(`Results: ${writeBenchResults('suite', summary, resolve(args.out))}`);
    return exitCode;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
};

runBench(main);
