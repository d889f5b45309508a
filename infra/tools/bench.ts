import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
/**
 * `npm run bench` (tsx infra/tools/bench.ts): performance report of the ledger against its own local
 * stack (in memory, free ports, so a running `npm start` is never touched). All traffic goes to
 * 127.0.0.1 and every loop is bounded. It measures:
 *
 *  1. a 10,000-line GL import of one company-year, from POST to `succeeded` (lines/s);
 *  2. the raw DynamoDB Local BatchWriteItem rate for 10,000 items shaped like GL-line items (same
 *     attributes and GSI keys, 25 a call, 8 calls in flight as the worker's putItems), into a
 *     throwaway company id, and the ratio 1/2;
 *  3. the 202 latency of that POST;
 *  4. trial-balance latency at 1k and at 200k lines (20 imports of 10,000 lines), median of 20;
 *  5. a 200-line GL page over HTTP vs a raw Query of the same items on the period GSI, median of 20;
 *  6. the peak RSS of the import worker applying a 10k-line import alone in its own process, as its
 *     Lambda would (infra/tools/bench-worker.ts), and, for information, that of the whole local stack.
 *
 * Prints progress, then one table (measure | value | target | pass/fail), and writes every figure
 * to .local/bench/results.json (gitignored). Exit code 0 even when a target is missed; non-zero
 * only when the run itself fails.
 *
 * Options: --imports N (10k-line imports for the big year, default 20), --budget-minutes M (time
 * allowed for building the big year, default 10), --layout sorted|interleaved (how lines spread
 * over periods: sorted = in period order like a date-sorted GL export, the default; interleaved =
 * period = line % 12 + 1), --samples N (requests per latency median, default 20).
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { LocalStack, StackInfo } from '../local/stack';
import { build as esbuild } from 'esbuild';

// Handlers log every request at INFO; the report needs errors only (as the tests do). Set before
// any handler module is loaded (they are imported dynamically below).
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';

const { values: args } = parseArgs({
  options: {
    imports: { type: 'string', default: '20' },
    'budget-minutes': { type: 'string', default: '10' },
    layout: { type: 'string', default: 'sorted' },
    samples: { type: 'string', default: '20' },
  },
});
const plannedImports = boundedInt(args.imports, 'imports', 1, 20);
const budgetMs = boundedInt(args['budget-minutes'], 'budget-minutes', 1, 60) * 60_000;
const samples = boundedInt(args.samples, 'samples', 3, 200);
const layout = args.layout === 'interleaved' ? 'interleaved' : args.layout === 'sorted' ? 'sorted' : fail(`--layout must be sorted or interleaved`);

const year = 2025;
const linesPerImport = 10_000;
const accountCount = 50;
const smallLines = 1_000;
const warmups = 3;
/** Imports (and raw writes after each) whose medians make the import / raw ratio. */
const ratioSamples = 3;
const pollMs = 200;
const buildPollMs = 250;
const importDeadlineMs = 15 * 60_000;
const resultsFile = resolve('.local/bench/results.json');

function boundedInt(text: string | undefined, name: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) fail(`--${name} must be an integer ${min}..${max}`);
  return value;
}
function fail(message: string): never {
  throw new Error(message);
}

const runStarted = performance.now();
const elapsed = () => `${((performance.now() - runStarted) / 1000).toFixed(1).padStart(6)} s`;
const log = (message: string) => console.log(`[bench ${elapsed()}] ${message}`);
const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);

/** A full GC before memory baselines (the flag is set at run time, so no node option is needed). */
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

// ---------------------------------------------------------------------------------------------
// HTTP against the stack's gateway
// ---------------------------------------------------------------------------------------------

interface HttpResult {
  status: number;
  body: any;
  ms: number;
}

let baseUrl = '';
let token = '';
let rateLimited = 0;

/** One request; 429 answers wait for Retry-After and are sent again (bounded), only the answered attempt is timed. */
const http = async (method: string, path: string, body?: string): Promise<HttpResult> => {
  for (let attempt = 0; attempt < 10; attempt++) {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET') headers['idempotency-key'] = crypto.randomUUID();
    const started = performance.now();
    const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined && { body }) });
    const text = await response.text();
    const ms = performance.now() - started;
    if (response.status === 429) {
      rateLimited++;
      await sleep(1000 * Math.max(1, Number(response.headers.get('retry-after') ?? 1)));
      continue;
    }
    return { status: response.status, body: text ? JSON.parse(text) : undefined, ms };
  }
  throw new Error(`${method} ${path}: still rate limited after 10 attempts`);
};

const expectStatus = (result: HttpResult, status: number, what: string): HttpResult => {
  if (result.status !== status) throw new Error(`${what}: expected ${status}, got ${result.status}: ${JSON.stringify(result.body).slice(0, 500)}`);
  return result;
};

const fetchToken = async (info: StackInfo): Promise<string> => {
  const client = info.clients.find((c) => c.name === 'a-system') ?? fail('no seeded a-system client');
  const response = await fetch(info.authUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
  });
  if (response.status !== 200) throw new Error(`token endpoint answered ${response.status}`);
  return ((await response.json()) as { access_token: string }).access_token;
};

// ---------------------------------------------------------------------------------------------
// DynamoDB call meter: a middleware on the shared document client (the one the handlers and the
// worker use in this process), counting calls and summed latency per command while enabled.
// ---------------------------------------------------------------------------------------------

interface CommandStats {
  calls: number;
  totalMs: number;
  /** Wall time with at least one call of this command in flight. */
  busyMs: number;
  inFlight: number;
  busySince: number;
}

const newStats = (): CommandStats => ({ calls: 0, totalMs: 0, busyMs: 0, inFlight: 0, busySince: 0 });
const meter = { enabled: false, started: 0, byCommand: new Map<string, CommandStats>(), any: newStats() };

const callStarted = (stats: CommandStats, now: number) => {
  if (stats.inFlight++ === 0) stats.busySince = now;
};
const callEnded = (stats: CommandStats, now: number, ms: number) => {
  stats.calls++;
  stats.totalMs += ms;
  if (--stats.inFlight === 0) stats.busyMs += now - stats.busySince;
};

const startMeter = () => {
  meter.byCommand = new Map();
  meter.any = newStats();
  meter.started = performance.now();
  meter.enabled = true;
};
/** Per command: calls, summed latency, mean latency and busy wall time; `any` = wall time with any call in flight. */
const stopMeter = () => {
  meter.enabled = false;
  const wallMs = performance.now() - meter.started;
  const summary = (stats: CommandStats) => ({
    calls: stats.calls,
    totalMs: round(stats.totalMs),
    meanMs: round(stats.totalMs / Math.max(1, stats.calls), 2),
    busyMs: round(stats.busyMs),
  });
  return {
    wallMs: round(wallMs),
    anyCallInFlightMs: round(meter.any.busyMs),
    byCommand: Object.fromEntries(
      [...meter.byCommand.entries()].sort(([, a], [, b]) => b.busyMs - a.busyMs).map(([name, stats]) => [name, summary(stats)]),
    ),
  };
};

// ---------------------------------------------------------------------------------------------
// Test data
// ---------------------------------------------------------------------------------------------

const accountCodes = [
  ...Array.from({ length: accountCount / 2 }, (_, i) => String(1000 + i * 40)),
  ...Array.from({ length: accountCount / 2 }, (_, i) => String(3000 + i * 200)),
];

const chartBody = () =>
  JSON.stringify({
    year,
    accounts: accountCodes.map((code) => ({
      accountCode: code,
      accountDescription: `Account ${code}`,
      accountCategory: Number(code) < 3000 ? 'Balance' : 'Result',
    })),
  });

const pad2 = (n: number) => String(n).padStart(2, '0');

/** Deterministic pseudo-random integer (no Math.random: every run imports the same books). */
const mix = (n: number) => {
  let x = (n ^ 0x9e3779b9) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
};

/** Cents as a decimal string ("-1234.56"). */
const decimalOf = (cents: number) => {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${pad2(abs % 100)}`;
};

interface LineSpec {
  id: string;
  accountCode: string;
  amount: string;
  period: number;
  transactionId: string;
  description: string;
  transactionDate: string;
}

/**
 * `count` lines of one year: pairs that balance (line 2k and 2k+1 share a voucher and cancel out),
 * accounts spread pseudo-randomly over the chart, periods spread evenly over 1..12 (in period
 * order, or interleaved), amounts as decimal strings.
 */
const glLines = (prefix: string, count: number): LineSpec[] =>
  Array.from({ length: count }, (_, i) => {
    const period = layout === 'sorted' ? Math.floor((i * 12) / count) + 1 : (i % 12) + 1;
    const pair = Math.floor(i / 2);
    const cents = (mix(pair + prefix.length * 7919) % 5_000_000) + 1;
    return {
      id: `${prefix}-${i}`,
      accountCode: accountCodes[mix(i * 31 + prefix.charCodeAt(0)) % accountCount]!,
      amount: decimalOf(i % 2 === 0 ? cents : -cents),
      period,
      transactionId: `${prefix}-V${pair}`,
      description: `Bench line ${i} of ${prefix}`,
      transactionDate: `${year}-${pad2(period)}-${pad2((pair % 28) + 1)}`,
    };
  });

const glBody = (prefix: string, count: number) => JSON.stringify({ year, lines: glLines(prefix, count) });

// ---------------------------------------------------------------------------------------------
// Imports over HTTP
// ---------------------------------------------------------------------------------------------

const newCompany = async (name: string): Promise<string> => {
  const created = expectStatus(
    await http('POST', '/v1/companies', JSON.stringify({ displayName: `${name} ${crypto.randomUUID().slice(0, 8)} AS`, accountingSystem: 'Api' })),
    201,
    'create company',
  );
  return created.body.id as string;
};

interface ImportRun {
  importId: string;
  postMs: number;
  /** From just before the POST until a poll saw the import terminal. */
  totalMs: number;
  /** createdAt -> completedAt as the service recorded them (ms resolution). */
  serverMs: number;
  polls: number;
  record: any;
}

/** POSTs an import and polls it until it is terminal (bounded); throws unless it succeeded with every row inserted. */
const runImport = async (companyId: string, path: string, body: string, expectedRows: number, interval = pollMs): Promise<ImportRun> => {
  const started = performance.now();
  const accepted = expectStatus(await http('POST', `/v1/companies/${companyId}/imports/${path}`, body), 202, `POST imports/${path}`);
  const postMs = performance.now() - started;
  const importId = accepted.body.id as string;
  let polls = 0;
  for (;;) {
    if (performance.now() - started > importDeadlineMs) throw new Error(`import ${importId} not terminal after ${importDeadlineMs / 60_000} min`);
    await sleep(interval);
    const polled = expectStatus(await http('GET', `/v1/companies/${companyId}/imports/${importId}`), 200, 'GET import');
    polls++;
    if (polled.body.status === 'queued') continue;
    const totalMs = performance.now() - started;
    const record = polled.body;
    if (record.status !== 'succeeded' || record.rowsInserted + record.rowsUpdated !== expectedRows || record.rowsFailed !== 0) {
      throw new Error(`import ${importId} ended ${record.status}: ${JSON.stringify(record).slice(0, 800)}`);
    }
    const serverMs = Date.parse(record.completedAt) - Date.parse(record.createdAt);
    return { importId, postMs, totalMs, serverMs, polls, record };
  }
};

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

interface Row {
  measure: string;
  value: string;
  target: string;
  verdict: 'pass' | 'fail' | 'info';
}

const javaProcesses = (): { pid: number; args: string }[] => {
  try {
    return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
      .split('\n')
      .map((line) => line.trim().match(/^(\d+)\s+(.*)$/))
      .filter((match): match is RegExpMatchArray => match !== null && /(^|\/)java\s/.test(match[2]!))
      .map((match) => ({ pid: Number(match[1]), args: match[2]! }));
  } catch {
    return [];
  }
};

/** CPU time (user + system, ms) of a process from /proc; undefined where /proc is not readable. */
const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();
const processCpuMs = (pid: number | undefined): number | undefined => {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return undefined;
  }
};

/** CPU used by this process and by DynamoDB Local (java) over a window. */
const cpuWindow = (javaPid: number | undefined) => {
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

/** The commit measured and the files that differ from it (the code is loaded once, at stack start). */
const gitState = () => {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(3));
    return { commit, changedFiles: changed };
  } catch {
    return { commit: null, changedFiles: [] as string[] };
  }
};

const main = async (): Promise<number> => {
  const startedAt = new Date();
  const git = gitState();
  const dataDir = mkdtempSync(join(os.tmpdir(), 'ledger-bench-'));
  const { startLocalStack } = await import('../local/stack');
  const { dynamo, tableName } = await import('../../shared/platform/aws');
  const { BatchWriteCommand, QueryCommand, NumberValue } = await import('@aws-sdk/lib-dynamodb');
  const keys = await import('../../shared/ledger/keys');
  const { lineIdOf } = await import('../../shared/ledger/general-ledger/repository');
  const installMeter = () =>
    dynamo().middlewareStack.add(
      (next, context) => async (input) => {
        if (!meter.enabled) return next(input);
        const name = String(context.commandName ?? 'unknown').replace(/Command$/, '');
        const stats = meter.byCommand.get(name) ?? newStats();
        meter.byCommand.set(name, stats);
        const any = meter.any;
        const started = performance.now();
        callStarted(stats, started);
        callStarted(any, started);
        try {
          return await next(input);
        } finally {
          const now = performance.now();
          callEnded(stats, now, now - started);
          callEnded(any, now, now - started);
        }
      },
      { step: 'initialize', name: 'benchMeter', override: true },
    );

  const javaBefore = new Set(javaProcesses().map((p) => p.pid));
  log(`starting the local stack (in memory, free ports; data dir ${dataDir})`);
  let stack: LocalStack | undefined;
  const results: Record<string, unknown> = {};
  const rows: Row[] = [];
  const notes: string[] = [];
  let exitCode = 0;
  let dynamoPort = '';

  try {
    stack = await startLocalStack({ port: 0, authPort: 0, dataDir, onProgress: (message) => log(`stack: ${message}`) });
    const info = stack.info;
    baseUrl = info.baseUrl;
    dynamoPort = new URL(info.internal.dynamodbEndpoint).port;
    const javaPid = javaProcesses().find((p) => !javaBefore.has(p.pid) && p.args.includes(`-port ${dynamoPort}`))?.pid;
    for (const url of [info.baseUrl, info.authUrl, info.internal.dynamodbEndpoint]) {
      if (!['127.0.0.1', 'localhost'].includes(new URL(url).hostname)) throw new Error(`refusing non-loopback endpoint ${url}`);
    }
    log(`stack up: gateway ${info.baseUrl}, DynamoDB Local ${info.internal.dynamodbEndpoint}`);
    token = await fetchToken(info);
    installMeter();

    // -- warm-up and the 1k-line company (trial balance at 1k lines) ---------------------------
    const small = await newCompany('Bench 1k');
    await runImport(small, 'accounts', chartBody(), accountCount);
    const smallRun = await runImport(small, 'general-ledger-lines', glBody('s', smallLines), smallLines);
    log(`warm-up: 1k-line company ready (${smallLines} lines in ${round(smallRun.totalMs / 1000, 2)} s)`);
    // A full-size import first, so the measured ones do not pay the JIT warm-up of node and java.
    const warm = await newCompany('Bench warm-up');
    await runImport(warm, 'accounts', chartBody(), accountCount);
    const warmRun = await runImport(warm, 'general-ledger-lines', glBody('w', linesPerImport), linesPerImport);
    log(`warm-up: one ${linesPerImport}-line import in ${round(warmRun.totalMs / 1000, 2)} s (not measured)`);

    // -- raw BatchWriteItem (before the import; repeated after it, the ratio uses the mean) -----
    const rawCompany = crypto.randomUUID(); // no such company: a throwaway partition set
    const rawWrite = async (label: string) => {
      const importId = crypto.randomUUID();
      const datasetId = crypto.randomUUID();
      const at = new Date().toISOString();
      // Items as applyMerge writes a new GL line (same attributes and index keys), built before timing.
      const items = glLines(`raw${label}`, linesPerImport).map((line, i) => {
        const lineId = lineIdOf(rawCompany, year, line.id);
        return {
          ...keys.glLineKeys(rawCompany, year, lineId),
          entity: 'glLine',
          companyId: rawCompany,
          year,
          lineId,
          sourceLineId: line.id,
          accountCode: line.accountCode,
          amount: NumberValue.from(line.amount),
          period: line.period,
          transactionId: line.transactionId,
          description: line.description,
          transactionDate: line.transactionDate,
          ...keys.glLinePeriodIndexKeys(rawCompany, year, line.period, lineId),
          ...keys.glLineAccountIndexKeys(rawCompany, year, line.accountCode, line.period, lineId),
          version: 1,
          createdAt: at,
          updatedAt: at,
          datasetId,
          lastImportId: importId,
          lastRow: i,
          lastOutcome: 'inserted',
        };
      });
      const batches: (typeof items)[] = [];
      for (let start = 0; start < items.length; start += 25) batches.push(items.slice(start, start + 25));
      let next = 0;
      let calls = 0;
      let unprocessedRetries = 0;
      const started = performance.now();
      const writer = async () => {
        while (next < batches.length) {
          let pending = batches[next++]!.map((item) => ({ PutRequest: { Item: item } }));
          for (let attempt = 0; pending.length > 0; attempt++) {
            if (attempt >= 8) throw new Error(`raw BatchWrite: ${pending.length} items unprocessed after 8 attempts`);
            if (attempt > 0) {
              unprocessedRetries++;
              await sleep(Math.min(1000, 25 * 2 ** attempt));
            }
            calls++;
            const result = await dynamo().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
            pending = (result.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
          }
        }
      };
      const cpu = cpuWindow(javaPid);
      await Promise.all(Array.from({ length: 8 }, writer));
      const cpuUsed = cpu();
      const ms = performance.now() - started;
      const itemBytes = Math.round(items.reduce((sum, item) => sum + JSON.stringify(item).length, 0) / items.length);
      log(`raw BatchWriteItem (${label}): ${items.length} items in ${round(ms / 1000, 2)} s = ${round(items.length / (ms / 1000))} items/s`);
      return { items: items.length, calls, unprocessedRetries, ms: round(ms), itemsPerSecond: round(items.length / (ms / 1000)), approxItemJsonBytes: itemBytes, cpu: cpuUsed };
    };

    // -- (1) (3) (6): the 10k-line import into an empty company-year ----------------------------
    const big = await newCompany('Bench 200k');
    await runImport(big, 'accounts', chartBody(), accountCount);
    const firstBody = glBody('b1', linesPerImport);
    gc();
    await sleep(200);
    const baselineMemory = process.memoryUsage();
    const baselineRss = baselineMemory.rss;
    let peakMemory = baselineMemory;
    let peakAtMs = 0;
    const importStarted = performance.now();
    const maxRssBeforeKb = process.resourceUsage().maxRSS;
    let peakRss = baselineRss;
    let rssSamples = 0;
    const sampler = setInterval(() => {
      rssSamples++;
      const memory = process.memoryUsage();
      if (memory.rss > peakRss) {
        peakRss = memory.rss;
        peakMemory = memory;
        peakAtMs = performance.now() - importStarted;
      }
    }, 50);
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    log(`import 1/${plannedImports}: POST ${linesPerImport} lines (${mb(firstBody.length)} MB body); baseline RSS ${mb(baselineRss)} MB`);
    let first: ImportRun;
    startMeter();
    const importCpu = cpuWindow(javaPid);
    try {
      first = await runImport(big, 'general-ledger-lines', firstBody, linesPerImport);
    } finally {
      clearInterval(sampler);
      loopDelay.disable();
    }
    const importCalls = stopMeter();
    const importCpuUsed = importCpu();
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    const maxRssAfterKb = process.resourceUsage().maxRSS;
    // Retained or merely uncollected? A full GC once the import is done tells.
    gc();
    await sleep(200);
    const afterGcMemory = process.memoryUsage();
    const importLinesPerSecond = linesPerImport / (first.totalMs / 1000);
    log(
      `import 1: 202 in ${round(first.postMs)} ms, succeeded after ${round(first.totalMs / 1000, 2)} s ` +
        `(${round(importLinesPerSecond)} lines/s; server ${round(first.serverMs / 1000, 2)} s); peak RSS ${mb(peakRss)} MB`,
    );

    // Raw writes right after imports 1, 2 and 3 (the same point of DynamoDB Local's warm-up and
    // table size as those imports); the ratio compares the medians of the three of each.
    const rawFirst = await rawWrite('after import 1');
    const rawRuns = [rawFirst];

    // -- the 200k-line company-year: 19 more imports, bounded by the time budget ---------------
    let rawInBuildMs = rawFirst.ms;
    const buildStarted = performance.now() - first.totalMs;
    const buildRuns: { import: number; totalMs: number; postMs: number; serverMs: number; linesPerSecond: number }[] = [
      { import: 1, totalMs: round(first.totalMs), postMs: round(first.postMs), serverMs: first.serverMs, linesPerSecond: round(importLinesPerSecond) },
    ];
    let reducedBecause: string | null = null;
    for (let n = 2; n <= plannedImports; n++) {
      const spent = performance.now() - buildStarted - rawInBuildMs;
      const average = spent / (n - 1);
      if (spent + average > budgetMs) {
        reducedBecause = `stopped after ${n - 1} of ${plannedImports} imports: ${round(spent / 60_000, 1)} min spent, the next would pass the ${budgetMs / 60_000}-minute budget`;
        log(reducedBecause);
        break;
      }
      const run = await runImport(big, 'general-ledger-lines', glBody(`b${n}`, linesPerImport), linesPerImport, buildPollMs);
      const linesPerSecond = linesPerImport / (run.totalMs / 1000);
      buildRuns.push({ import: n, totalMs: round(run.totalMs), postMs: round(run.postMs), serverMs: run.serverMs, linesPerSecond: round(linesPerSecond) });
      log(`import ${n}/${plannedImports}: ${round(run.totalMs / 1000, 1)} s (${round(linesPerSecond)} lines/s, 202 in ${round(run.postMs)} ms)`);
      if (n <= ratioSamples) {
        const raw = await rawWrite(`after import ${n}`);
        rawRuns.push(raw);
        rawInBuildMs += raw.ms;
      }
    }
    while (rawRuns.length < ratioSamples) rawRuns.push(await rawWrite(`extra ${rawRuns.length + 1}`));
    const rawItemsPerSecond = median(rawRuns.map((run) => run.itemsPerSecond));
    const importSamples = buildRuns.slice(0, ratioSamples).map((run) => run.linesPerSecond);
    const medianImportLinesPerSecond = median(importSamples);
    const writeRatio = medianImportLinesPerSecond / rawItemsPerSecond;
    const postLatencies = buildRuns.map((run) => run.postMs);
    const bigLines = buildRuns.length * linesPerImport;
    const buildMs = performance.now() - buildStarted - rawInBuildMs;
    if (reducedBecause) notes.push(`The big company-year has ${bigLines} lines, not ${plannedImports * linesPerImport}: ${reducedBecause}.`);
    else if (plannedImports < 20) notes.push(`The big company-year has ${bigLines} lines (--imports ${plannedImports}).`);

    const readiness = expectStatus(await http('GET', `/v1/companies/${big}/imports/readiness`), 200, 'readiness');
    const countedLines = readiness.body.years?.find((y: { year: number }) => y.year === year)?.generalLedgerLines;
    if (countedLines !== bigLines) throw new Error(`readiness counts ${countedLines} GL lines, expected ${bigLines}`);
    log(`big company-year: ${bigLines} lines in ${round(buildMs / 60_000, 2)} min (readiness agrees)`);

    /**
     * Two timed operations compared: warm-ups of each, then `samples` rounds running both, the
     * order alternating per round, so neither side profits from running later (JIT, caches).
     */
    const compare = async (a: () => Promise<number>, b: () => Promise<number>): Promise<[number[], number[]]> => {
      for (let i = 0; i < warmups; i++) {
        await a();
        await b();
      }
      const timesA: number[] = [];
      const timesB: number[] = [];
      for (let i = 0; i < samples; i++) {
        if (i % 2 === 0) {
          timesA.push(await a());
          timesB.push(await b());
        } else {
          timesB.push(await b());
          timesA.push(await a());
        }
      }
      return [timesA, timesB];
    };

    // -- (4) trial balance at 1k and at the big size ---------------------------------------------
    const trialBalance = (companyId: string) => async () => {
      const result = expectStatus(await http('GET', `/v1/companies/${companyId}/trial-balance?year=${year}`), 200, 'trial balance');
      if (result.body.accounts.length !== accountCount) throw new Error(`trial balance lists ${result.body.accounts.length} accounts, expected ${accountCount}`);
      if (Number(result.body.totals.closingBalance) !== 0) throw new Error(`trial balance does not balance: ${result.body.totals.closingBalance}`);
      return result.ms;
    };
    const [tbSmall, tbBig] = await compare(trialBalance(small), trialBalance(big));
    const tbSmallMedian = median(tbSmall);
    const tbBigMedian = median(tbBig);
    const tbRatio = tbBigMedian / tbSmallMedian;
    log(`trial balance: ${round(tbSmallMedian, 2)} ms at ${smallLines} lines, ${round(tbBigMedian, 2)} ms at ${bigLines} lines (median of ${samples})`);

    // -- (5) a 200-line GL page vs a raw Query of the same items ---------------------------------
    const pagePath = `/v1/companies/${big}/general-ledger/lines?page_size=200&period=1`;
    const apiPage = async () => {
      const result = expectStatus(await http('GET', pagePath), 200, 'GL page');
      if (result.body.data.length !== 200 || result.body.data.some((line: { year: number; period: number }) => line.year !== year || line.period !== 1)) {
        throw new Error(`GL page: expected 200 lines of ${year} period 1, got ${result.body.data.length}`);
      }
      return { ms: result.ms, ids: result.body.data.map((line: { lineId: string }) => line.lineId).join() as string };
    };
    const pageIds = (await apiPage()).ids;
    const rawQuery = async () => {
      const started = performance.now();
      const result = await dynamo().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :pk',
          ExpressionAttributeValues: { ':pk': keys.glPeriodPartition(big, year, 1) },
          Limit: 200,
        }),
      );
      const ms = performance.now() - started;
      if ((result.Items ?? []).map((item) => String(item.GSI1SK)).join() !== pageIds) throw new Error('the raw Query did not return the items of the API page');
      return ms;
    };
    const [pageTimes, queryTimes] = await compare(async () => (await apiPage()).ms, rawQuery);
    startMeter();
    await http('GET', pagePath);
    const pageCalls = stopMeter();
    startMeter();
    await http('GET', `/v1/companies/${big}/trial-balance?year=${year}`);
    const trialBalanceCalls = stopMeter();
    const pageMedian = median(pageTimes);
    const queryMedian = median(queryTimes);
    const pageRatio = pageMedian / queryMedian;
    log(`GL page: ${round(pageMedian, 2)} ms over HTTP vs ${round(queryMedian, 2)} ms raw Query (median of ${samples})`);

    // -- (6) the worker alone, in its own process as on Lambda --------------------------------
    // The import is accepted by the real pipeline onto a queue nobody polls, then a child process
    // that loads only the worker's handler applies it.
    const workerAlone = async () => {
      const { ensureQueue, localSqsClient } = await import('../local/sqs');
      const { submitImport } = await import('../../shared/imports/pipeline');
      const { importKind } = await import('../../shared/composition/import-kinds');
      const { importRepository } = await import('../../shared/imports/repository');
      const { parse } = await import('lossless-json');
      const { queues } = await import('../../shared/queues');
      const company = await newCompany('Bench worker alone');
      await runImport(company, 'accounts', chartBody(), accountCount);
      const parked = await ensureQueue(localSqsClient(info.internal.sqsEndpoint), { name: 'bench-parked', visibilityTimeoutSeconds: 900, maxReceiveCount: 5 });
      const queueEnv = queues.find((queue) => queue.name === 'imports')!.urlEnv;
      const ownQueue = process.env[queueEnv];
      process.env[queueEnv] = parked.url;
      const organization = info.organizations[0]!;
      const { companyRepository } = await import('../../shared/companies/repository');
      const accepted = await submitImport(
        { clientId: 'bench', mode: 'SYSTEM', organizationId: organization.id, organizationPath: organization.id, userId: null, organizationIds: [], scopes: ['imports:write'], plan: 'premium' },
        (await companyRepository.get(company))!,
        importKind('general_ledger_lines'),
        parse(glBody('alone', linesPerImport)),
      ).finally(() => {
        process.env[queueEnv] = ownQueue;
      });
      const stackFile = join(dataDir, 'stack.json');
      writeFileSync(stackFile, JSON.stringify(info));
      // Asynchronously: the S3 and SQS emulators the child talks to run in this process.
      // Bundled as CDK bundles the worker's Lambda (infra/stacks/api-stack.ts): ESM, minified, SDK included.
      const bundle = join(dataDir, 'bench-worker.mjs');
      await esbuild({
        entryPoints: [resolve('infra/tools/bench-worker.ts')],
        outfile: bundle,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        mainFields: ['module', 'main'],
        banner: { js: "import { createRequire } from 'module';const require = createRequire(import.meta.url);" },
        minify: true,
        logLevel: 'error',
      });
      const { stdout: output } = await promisify(execFile)(process.execPath, [bundle, stackFile, accepted.id], {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
        timeout: importDeadlineMs,
      });
      const measured = JSON.parse(output.trim().split('\n').at(-1)!) as { baselineRss: number; peakRss: number; ms: number };
      const record = await importRepository.get(accepted.id);
      if (record?.status !== 'succeeded' || record.progress.rowsInserted !== linesPerImport) throw new Error(`worker alone: import ended ${record?.status}`);
      return measured;
    };
    const alone = await workerAlone();
    log(`worker alone: ${linesPerImport} lines in ${round(alone.ms / 1000, 2)} s, RSS ${mb(alone.baselineRss)} MB at start, peak ${mb(alone.peakRss)} MB`);

    // -- report ------------------------------------------------------------------------------
    const peakMb = mb(peakRss);
    const kernelPeakMb = maxRssAfterKb > maxRssBeforeKb ? round(maxRssAfterKb / 1024, 1) : null;
    rows.push(
      { measure: `(1) GL import 10k lines, POST -> succeeded (median of ${importSamples.length})`, value: `${round(medianImportLinesPerSecond)} lines/s (${importSamples.map((v) => round(v)).join(' / ')})`, target: '-', verdict: 'info' },
      { measure: `(2) raw BatchWriteItem, 10k items x25, 8 in flight (median of ${rawRuns.length})`, value: `${round(rawItemsPerSecond)} items/s (${rawRuns.map((r) => round(r.itemsPerSecond)).join(' / ')})`, target: '-', verdict: 'info' },
      { measure: '(2) ratio import / raw write', value: round(writeRatio, 3).toString(), target: '>= 0.5', verdict: writeRatio >= 0.5 ? 'pass' : 'fail' },
      { measure: '(3) 202 latency of the 10k-line POST', value: `${round(first.postMs)} ms`, target: '< 1 s', verdict: first.postMs < 1000 ? 'pass' : 'fail' },
      { measure: `(3) 202 latency, median / max of ${postLatencies.length} imports`, value: `${round(median(postLatencies))} / ${round(Math.max(...postLatencies))} ms`, target: '< 1 s', verdict: Math.max(...postLatencies) < 1000 ? 'pass' : 'fail' },
      { measure: `(4) trial balance at ${smallLines} lines (median)`, value: `${round(tbSmallMedian, 2)} ms`, target: '-', verdict: 'info' },
      { measure: `(4) trial balance at ${bigLines} lines (median)`, value: `${round(tbBigMedian, 2)} ms`, target: '-', verdict: 'info' },
      { measure: `(4) ratio TB ${bigLines / 1000}k / 1k`, value: round(tbRatio, 3).toString(), target: '<= 1.5', verdict: tbRatio <= 1.5 ? 'pass' : 'fail' },
      { measure: '(5) GL page 200 lines over HTTP (median)', value: `${round(pageMedian, 2)} ms`, target: '-', verdict: 'info' },
      { measure: '(5) raw GSI1 Query, same 200 items (median)', value: `${round(queryMedian, 2)} ms`, target: '-', verdict: 'info' },
      { measure: '(5) ratio page / raw Query', value: round(pageRatio, 3).toString(), target: '<= 2', verdict: pageRatio <= 2 ? 'pass' : 'fail' },
      {
        measure: '(6) worker peak RSS, 10k lines, worker alone (as on Lambda)',
        value: `${mb(alone.peakRss)} MB (${mb(alone.baselineRss)} MB at start)`,
        target: '<= 256 MB',
        verdict: mb(alone.peakRss) <= 256 ? 'pass' : 'fail',
      },
      {
        measure: '(6) peak RSS of the whole local stack process during the 10k import',
        value: `${peakMb} MB (baseline ${mb(baselineRss)} MB, +${round(peakMb - mb(baselineRss), 1)})`,
        target: '-',
        verdict: 'info',
      },
    );
    notes.push(
      'RSS: process.memoryUsage().rss of the bench process sampled every 50 ms from just before the POST until the import was seen succeeded, ' +
        'no subtraction. The worker runs in this process together with the gateway, the handlers, the S3 and SQS emulators and the bench client ' +
        '(DynamoDB Local is a separate java process, not counted), so the figure is an upper bound of the worker alone. Baseline after a forced GC, ' +
        `request body already built. Kernel peak (getrusage maxRSS) ${kernelPeakMb === null ? 'did not rise during the import' : `rose to ${kernelPeakMb} MB`}. ` +
        `Heap used: ${mb(baselineMemory.heapUsed)} MB before, ${mb(peakMemory.heapUsed)} MB at the RSS peak (${round(peakAtMs / 1000, 1)} s after the POST, ` +
        `${peakAtMs <= first.postMs ? 'before the 202' : 'in the worker phase'}), ${mb(afterGcMemory.heapUsed)} MB after a full GC once the import was done.`,
      `Lines: ${layout === 'sorted' ? 'in period order (like a date-sorted GL export), so a 500-row chunk touches 1-2 periods' : 'interleaved over the periods (period = line % 12 + 1)'}; ` +
        `accounts pseudo-random over ${accountCount}; amounts decimal strings in balancing pairs.`,
      `Raw write: the same item shape and GSI attributes as an inserted GL line, 25 per BatchWriteItem, 8 calls in flight (the worker's putItems), ` +
        `through the same DynamoDB document client, into a throwaway company id; measured after each of imports 1 to ${ratioSamples}; the ratio is the median import rate over the median raw rate. A ${linesPerImport}-line import into another company runs first as a warm-up and is not measured.`,
      `CPU (s): the 10k import used node ${round((importCpuUsed.nodeCpuMs) / 1000, 1)} and DynamoDB Local (java) ${importCpuUsed.javaCpuMs === null ? 'n/a' : round(importCpuUsed.javaCpuMs / 1000, 1)} ` +
        `in ${round(importCpuUsed.wallMs / 1000, 1)} wall; the raw writes used java ${rawRuns.map((r) => (r.cpu.javaCpuMs === null ? 'n/a' : round(r.cpu.javaCpuMs / 1000, 1))).join(' / ')} ` +
        `and node ${rawRuns.map((r) => round(r.cpu.nodeCpuMs / 1000, 1)).join(' / ')} (${os.cpus().length} cores).`,
      `Import time is client-observed (POST sent until a poll every ${pollMs} ms sees succeeded); the service's own createdAt -> completedAt was ${round(first.serverMs / 1000, 2)} s.`,
      `Latency medians: ${samples} sequential requests of each side after ${warmups} warm-ups, the two sides of each comparison alternating; HTTP timings are request to full body read, client in the same process as the stack.`,
    );

    Object.assign(results, {
      timestamp: startedAt.toISOString(),
      git,
      node: process.version,
      platform: `${os.platform()} ${os.release()} ${os.arch()}`,
      cores: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      totalMemoryMb: mb(os.totalmem()),
      options: { imports: plannedImports, budgetMinutes: budgetMs / 60_000, layout, samples, warmups, linesPerImport, accounts: accountCount, year },
      import10k: {
        lines: linesPerImport,
        postToSucceededMs: round(first.totalMs),
        serverCreatedToCompletedMs: first.serverMs,
        linesPerSecond: round(importLinesPerSecond),
        postMs: round(first.postMs),
        polls: first.polls,
        pollIntervalMs: pollMs,
        eventLoopDelayMaxMs: round(loopDelay.max / 1e6),
        eventLoopDelayP99Ms: round(loopDelay.percentile(99) / 1e6),
        cpu: importCpuUsed,
      },
      postLatenciesMs: postLatencies,
      rawBatchWrite: { runs: rawRuns, medianItemsPerSecond: round(rawItemsPerSecond), parallelism: 8, batchSize: 25 },
      importRatio: { importLinesPerSecond: importSamples, medianImportLinesPerSecond: round(medianImportLinesPerSecond), ratio: round(writeRatio, 3) },
      dynamoCalls: {
        note:
          'Calls through the shared DynamoDB client while metered, per command: calls, summed latency (calls overlap, so it exceeds wall time), ' +
          'busyMs = wall time with at least one call of that command in flight; anyCallInFlightMs = wall time with any DynamoDB call in flight',
        import10k: importCalls,
        glPageRequest: pageCalls,
        trialBalanceRequest: trialBalanceCalls,
      },
      ratioImportToRawWrite: round(writeRatio, 4),
      bigYear: { lines: bigLines, imports: buildRuns.length, plannedImports, buildMs: round(buildMs), reduced: reducedBecause, runs: buildRuns },
      trialBalance: {
        smallLines,
        bigLines,
        smallMs: tbSmall.map((ms) => round(ms, 2)),
        bigMs: tbBig.map((ms) => round(ms, 2)),
        smallMedianMs: round(tbSmallMedian, 2),
        bigMedianMs: round(tbBigMedian, 2),
        ratio: round(tbRatio, 4),
      },
      glPage: {
        path: pagePath.replace(big, '{companyId}'),
        httpMs: pageTimes.map((ms) => round(ms, 2)),
        rawQueryMs: queryTimes.map((ms) => round(ms, 2)),
        httpMedianMs: round(pageMedian, 2),
        rawQueryMedianMs: round(queryMedian, 2),
        ratio: round(pageRatio, 4),
      },
      rss: {
        baselineMb: mb(baselineRss),
        peakMb,
        samples: rssSamples,
        sampleIntervalMs: 50,
        kernelMaxRssBeforeMb: round(maxRssBeforeKb / 1024, 1),
        kernelMaxRssAfterMb: round(maxRssAfterKb / 1024, 1),
        peakAtMsAfterPost: round(peakAtMs),
        peakDuring: peakAtMs <= first.postMs ? 'the POST (202 not yet answered)' : 'the worker phase (after the 202)',
        baselineBreakdownMb: Object.fromEntries(Object.entries(baselineMemory).map(([name, bytes]) => [name, mb(bytes)])),
        peakBreakdownMb: Object.fromEntries(Object.entries(peakMemory).map(([name, bytes]) => [name, mb(bytes)])),
        afterImportFullGcMb: Object.fromEntries(Object.entries(afterGcMemory).map(([name, bytes]) => [name, mb(bytes)])),
        method: 'process.memoryUsage().rss sampled every 50 ms in the process that runs the stack (worker, gateway, emulators, bench client); absolute, nothing subtracted',
      },
      rateLimitedRetries: rateLimited,
      rows,
      notes,
    });
  } catch (error) {
    exitCode = 1;
    console.error(`[bench] failed: ${(error as Error).stack ?? error}`);
    results.error = String((error as Error).message ?? error);
  } finally {
    if (stack) {
      log('stopping the stack');
      await stack.stop();
    }
    rmSync(dataDir, { recursive: true, force: true });
  }

  // No java of ours may be left: DynamoDB Local listens on the port the stack picked.
  await sleep(200);
  const leftover = javaProcesses().filter((p) => !javaBefore.has(p.pid) && (!dynamoPort || p.args.includes(`-port ${dynamoPort}`)));
  for (const p of leftover) {
    console.error(`[bench] java ${p.pid} (DynamoDB Local of this run) still running after stop; killing it`);
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    exitCode = 1;
  }
  const wallMs = performance.now() - runStarted;
  Object.assign(results, { javaLeftAfterStop: leftover.map((p) => p.pid), wallTimeMs: round(wallMs), wallTime: `${round(wallMs / 60_000, 2)} min` });
  log(leftover.length === 0 ? 'stack stopped; no java process of this run is left' : 'java was left running (see above)');

  mkdirSync(resolve(resultsFile, '..'), { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);

  if (rows.length > 0) {
    const header: Row = { measure: 'measure', value: 'value', target: 'target', verdict: 'pass/fail' as Row['verdict'] };
    const width = (key: keyof Row) => Math.max(...[header, ...rows].map((row) => String(row[key]).length));
    const line = (row: Row) =>
      `${row.measure.padEnd(width('measure'))} | ${row.value.padEnd(width('value'))} | ${row.target.padEnd(width('target'))} | ${row.verdict}`;
    const code = git.commit ? `, commit ${git.commit}${git.changedFiles.length ? ` + ${git.changedFiles.length} changed file(s)` : ''}` : '';
    console.log(`\nLedger benchmark${code}, ${os.cpus().length} cores, Node ${process.version}, wall time ${round(wallMs / 60_000, 2)} min\n`);
    console.log(line(header));
    console.log(`${'-'.repeat(width('measure'))}-+-${'-'.repeat(width('value'))}-+-${'-'.repeat(width('target'))}-+-${'-'.repeat(9)}`);
    for (const row of rows) console.log(line(row));
    console.log('');
    for (const note of notes) console.log(`- ${note}`);
  }
  console.log(`\nResults: ${resultsFile}`);
  return exitCode;
};

main()
  .then((code) => process.exit(code))
  .catch((error: unknown) => {
    console.error(`[bench] failed: ${(error as Error).stack ?? error}`);
    process.exit(1);
  });
