import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
/**
 * `npm run bench` (tsx infra/tools/bench.ts): the ledger's speed against floors measured side by
 * side, in one run, on a second DynamoDB Local of the same jar (the floors). Its own local stack
 * (in memory, free ports, so a running `npm start` is never touched); all traffic to 127.0.0.1,
 * every loop bounded. It measures:
 *
 *  1. GET /v1/companies/{id}: p50 and p99 of N sequential warm requests vs a raw GetItem of the
 *     same item on the floor instance, and the per-stage timing of those requests (gateway,
 *     authorizer: token verification and client read, rate limit, reach, operation);
 *  2. a 200-line GL page over HTTP vs a raw Query of the same 200 items on the floor instance;
 *  3. 10,000-line GL imports (each into a new company-year), 202 -> succeeded, vs raw
 *     BatchWriteItem of 10,000 items of the same shape (25 a call, 8 in flight) into a table with
 *     the two GSIs and into one without indexes; and the 202 latency;
 *  4. the peak RSS of the import worker applying a 10k-line import alone in its own process, as
 *     its Lambda would (infra/tools/bench-worker.ts).
 *  5. the GetItem and raw-write floors again from a separate, quiet process (infra/tools/bench-floors.ts);
 *  6. capacity units per operation (infra/tools/bench-capacity.ts), last, also to .local/bench/capacity.json.
 *
 * Prints progress, then the tables, and writes every figure to .local/bench/results.json
 * (gitignored). Exit code 0 even when a goal is missed; non-zero only when the run itself fails.
 *
 * Options (to shorten a run): --read-samples N (GET company requests and GetItems, default 200),
 * --samples N (GL pages and raw Queries, default 50), --import-samples N (measured imports, each
 * followed by the two raw writes, default 3), --no-worker (skip the worker-alone RSS run), --no-capacity (skip the capacity units per operation), --profile-worker DIR (write a V8 CPU profile of
 * the worker-alone run into DIR, for chrome://inspect or speedscope), --profile-import DIR (a CPU
 * profile of this process, which runs the whole stack, during the first measured import),
 * --layout sorted|interleaved (how lines spread over periods, default sorted).
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { LocalStack, StackInfo } from '../local/stack';
import { bundleAsLambda, cpuWindow, median, percentile, printTable, round, runBench, writeBenchResults } from './bench-support';
import { printCapacity, runCapacityBench } from './bench-capacity';
import type { RawGlLine } from './bench-gl-items';
import { quietFloors } from './bench-floors';
import { readCli } from './cli-args';

// Handlers log every request at INFO; the report needs errors only (as the tests do). Set before
// any handler module is loaded (they are imported dynamically below).
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';

const args = readCli({
  command: 'bench',
  summary: 'The performance report: GET company, a GL page and 10k-line imports against raw DynamoDB floors (in-process and from a quiet process), capacity units per operation, then the cold-start table; writes .local/bench/results.json.',
  options: {
    'read-samples': { type: 'string', default: '200', description: 'requests per read measure' },
    samples: { type: 'string', default: '50', description: 'samples of the 202 latency and the stage timing' },
    'import-samples': { type: 'string', default: '3', description: '10k-line imports, each followed by the two raw writes' },
    'no-worker': { type: 'boolean', description: 'skip the worker-alone RSS run' },
    'no-capacity': { type: 'boolean', description: 'skip the capacity units per operation' },
    'profile-worker': { type: 'string', description: 'write a V8 CPU profile of the worker-alone run into this directory' },
    'profile-import': { type: 'string', description: 'write a CPU profile of this process during the first measured import into this directory' },
    layout: { type: 'string', default: 'sorted', description: 'how lines spread over periods: sorted or interleaved' },
    scale: { type: 'boolean', description: 'also the scale rows (npm run bench:scale, long)' },
  },
});
const readSamples = boundedInt(args['read-samples'], 'read-samples', 10, 2000);
const samples = boundedInt(args.samples, 'samples', 3, 500);
const importSamples = boundedInt(args['import-samples'], 'import-samples', 1, 10);
const layout = args.layout === 'interleaved' ? 'interleaved' : args.layout === 'sorted' ? 'sorted' : fail(`--layout must be sorted or interleaved`);

const year = 2025;
const linesPerImport = 10_000;
const accountCount = 50;
const warmups = 10;
const pollMs = 250;
const importDeadlineMs = 15 * 60_000;
/** The floor instance's tables: the single table's shape with its two GSIs, and the same without indexes. */
const rawIndexedTable = 'bench-floor-indexed';
const rawPlainTable = 'bench-floor-plain';

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
const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);

// ---------------------------------------------------------------------------------------------
// HTTP against the stack's gateway
// ---------------------------------------------------------------------------------------------

interface HttpResult {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the stack's own responses, read freely by the bench
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

type LineSpec = RawGlLine;

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
  /**
   * The 202 arriving at the client -> the service's completedAt: the import's own time, on one
   * clock (the stack runs in this process), with neither the POST (measured on its own) nor the
   * polling interval in it.
   */
  acceptedToSucceededMs: number;
  polls: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the import as GET returned it, read freely by the bench
  record: any;
}

/** POSTs an import and polls it until it is terminal (bounded); throws unless it succeeded with every row inserted. */
const runImport = async (companyId: string, path: string, body: string, expectedRows: number, interval = pollMs): Promise<ImportRun> => {
  const started = performance.now();
  const accepted = expectStatus(await http('POST', `/v1/companies/${companyId}/imports/${path}`, body), 202, `POST imports/${path}`);
  const postMs = performance.now() - started;
  const acceptedAt = Date.now();
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
    return { importId, postMs, totalMs, serverMs, acceptedToSucceededMs: Date.parse(record.completedAt) - acceptedAt, polls, record };
  }
};

/** A V8 CPU profile of this process (node:inspector), written as DIR/import-<time>.cpuprofile. */
const startProfiler = async () => {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    stopInto: async (dir: string) => {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      mkdirSync(dir, { recursive: true });
      const file = join(resolve(dir), `import-${Date.now()}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
};

/**
 * Waits (bounded) until the post-fetch engines that a GL import queued have run, so that their
 * work (auto-reconciliation, the context picture) never overlaps the next measurement; returns
 * how long after the import's success they finished.
 */
const waitForPostFetch = async (companyId: string, importId: string, succeededAt: number): Promise<number> => {
  for (;;) {
    if (performance.now() - succeededAt > importDeadlineMs) throw new Error(`post-fetch engines of import ${importId} not done after ${importDeadlineMs / 60_000} min`);
    const runs = expectStatus(await http('GET', `/v1/companies/${companyId}/fetch-runs?page_size=10`), 200, 'GET fetch-runs');
    const run = (runs.body.data as { id: string; postFetchCompletedAt?: string | null }[]).find((candidate) => candidate.id === importId);
    if (run?.postFetchCompletedAt) return performance.now() - succeededAt;
    await sleep(pollMs);
  }
};

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

interface Row {
  measure: string;
  value: string;
  floor: string;
  ratio: string;
  goal: string;
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
  const { startDynamoDbLocal, ensureTable } = await import('../local/dynamodb-local');
  const { freePort } = await import('../local/ports');
  const { tableDefinition } = await import('../../shared/db/table-definition');
  const { dynamo, tableName } = await import('../../shared/platform/aws');
  const { config } = await import('../../shared/platform/config');
  const { setStageSink } = await import('../../shared/platform/stage-timing');
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } = await import('@aws-sdk/lib-dynamodb');
  const keys = await import('../../shared/ledger/keys');
  const { companyKeys } = await import('../../shared/companies/keys');
  const { rawGlLineItem } = await import('./bench-gl-items');
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
  log(`starting the local stack and the floor DynamoDB Local (in memory, free ports; data dir ${dataDir})`);
  let stack: LocalStack | undefined;
  let floorDb: Awaited<ReturnType<typeof startDynamoDbLocal>> | undefined;
  const results: Record<string, unknown> = {};
  const rows: Row[] = [];
  const stageRows: { stage: string; p50: string; p90: string; share: string }[] = [];
  const importStageRows: { stage: string; ms: string; share: string }[] = [];
  const notes: string[] = [];
  let exitCode = 0;
  const ourPorts: string[] = [];
  let floorItems: { company: string; items: unknown[] } | undefined; // one raw write's items, for the quiet floors

  try {
    const floorPort = await freePort();
    [stack, floorDb] = await Promise.all([
      startLocalStack({ port: 0, authPort: 0, dataDir, onProgress: (message) => log(`stack: ${message}`) }),
      startDynamoDbLocal({ port: floorPort }),
    ]);
    const info = stack.info;
    baseUrl = info.baseUrl;
    const dynamoPort = new URL(info.internal.dynamodbEndpoint).port;
    ourPorts.push(dynamoPort, String(floorPort));
    const javaPid = javaProcesses().find((p) => !javaBefore.has(p.pid) && p.args.includes(`-port ${dynamoPort}`))?.pid;
    const floorPid = floorDb.pid;
    for (const url of [info.baseUrl, info.authUrl, info.internal.dynamodbEndpoint, floorDb.endpoint]) {
      if (!['127.0.0.1', 'localhost'].includes(new URL(url).hostname)) throw new Error(`refusing non-loopback endpoint ${url}`);
    }
    await ensureTable(floorDb.endpoint, rawIndexedTable, tableDefinition);
    await ensureTable(floorDb.endpoint, rawPlainTable, { ...tableDefinition, globalSecondaryIndexes: [] });
    // The floor's client is configured as the service's (shared/platform/aws.ts), only the endpoint differs.
    const floor = DynamoDBDocumentClient.from(new DynamoDBClient({ region: config().region, endpoint: floorDb.endpoint }), {
      marshallOptions: { removeUndefinedValues: true },
      unmarshallOptions: { wrapNumbers: true },
    });
    log(`stack up: gateway ${info.baseUrl}, DynamoDB Local ${info.internal.dynamodbEndpoint}; floor DynamoDB Local ${floorDb.endpoint}`);
    token = await fetchToken(info);
    installMeter();

    /**
     * Two timed operations compared: warm-ups of each, then `count` rounds running both, the order
     * alternating per round, so neither side profits from running later (JIT, caches).
     */
    const compare = async (a: () => Promise<number>, b: () => Promise<number>, count: number): Promise<[number[], number[]]> => {
      for (let i = 0; i < warmups; i++) {
        await a();
        await b();
      }
      const timesA: number[] = [];
      const timesB: number[] = [];
      for (let i = 0; i < count; i++) {
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

    // -- (1) GET company vs raw GetItem, and the per-stage timing ------------------------------
    const company = await newCompany('Bench read');
    const companyItem = (await dynamo().send(new GetCommand({ TableName: tableName(), Key: companyKeys(company) }))).Item!;
    await floor.send(new PutCommand({ TableName: rawIndexedTable, Item: companyItem }));
    let stageRequest: Map<string, number> | undefined;
    const perRequestStages: Map<string, number>[] = [];
    setStageSink((stage, ms) => stageRequest?.set(stage, (stageRequest.get(stage) ?? 0) + ms));
    const getCompany = async () => {
      stageRequest = new Map();
      const result = expectStatus(await http('GET', `/v1/companies/${company}`), 200, 'GET company');
      if (result.body.id !== company) throw new Error('GET company answered another company');
      stageRequest.set('client: fetch, request to full body', result.ms);
      perRequestStages.push(stageRequest);
      stageRequest = undefined;
      return result.ms;
    };
    const rawGetItem = async () => {
      const started = performance.now();
      const { Item } = await floor.send(new GetCommand({ TableName: rawIndexedTable, Key: companyKeys(company) }));
      const ms = performance.now() - started;
      if (Item?.id !== company) throw new Error('raw GetItem did not find the company');
      return ms;
    };
    log(`GET company: ${warmups} warm-ups, then ${readSamples} requests and ${readSamples} raw GetItems, alternating`);
    const [getTimes, getItemTimes] = await compare(getCompany, rawGetItem, readSamples);
    setStageSink(undefined);
    const measuredStages = perRequestStages.slice(-readSamples);
    startMeter();
    await http('GET', `/v1/companies/${company}`);
    const getCalls = stopMeter();
    const getP50 = median(getTimes);
    const getP99 = percentile(getTimes, 99);
    const getItemP50 = median(getItemTimes);
    const getItemP99 = percentile(getItemTimes, 99);
    log(`GET company p50 ${round(getP50, 2)} ms, p99 ${round(getP99, 2)} ms; raw GetItem p50 ${round(getItemP50, 2)} ms, p99 ${round(getItemP99, 2)} ms`);
    // The same GetItem from a separate, quiet process, right after (infra/tools/bench-floors.ts).
    const quietFloor = (options: { getSamples: number; runs: number }) =>
      quietFloors({ dir: dataDir, endpoint: floorDb!.endpoint, region: config().region, table: rawIndexedTable, getKey: companyKeys(company), warmups, ...floorItems, ...options });
    const quiet = { getItemMs: (await quietFloor({ getSamples: readSamples, runs: 0 })).getItemMs, writes: [] as Awaited<ReturnType<typeof quietFloors>>['writes'] };
    const quietGetP50 = median(quiet.getItemMs);

    // Per stage: p50 and p90 over the requests; derived stages from each request's own figures.
    const stageOf = (stages: Map<string, number>, name: string) => stages.get(name) ?? 0;
    for (const stages of measuredStages) {
      const gateway = stageOf(stages, 'gateway: request');
      const handler = stageOf(stages, 'gateway: handler');
      const authorizer = stageOf(stages, 'gateway: authorizer');
      stages.set('client: HTTP and socket (fetch - gateway request)', stageOf(stages, 'client: fetch, request to full body') - gateway);
      stages.set('gateway: own work (request - authorizer - handler)', gateway - authorizer - handler);
      stages.set(
        'authorizer: rest (authorizer - verification - client read)',
        authorizer - stageOf(stages, 'authorizer: token verification') - stageOf(stages, 'authorizer: client read'),
      );
      // Rate limit and reach overlap when the runner runs them side by side: the longer one counts.
      const rateAndReach = stages.has('runner: rate limit + reach (side by side)')
        ? stageOf(stages, 'runner: rate limit + reach (side by side)')
        : stageOf(stages, 'runner: rate limit') + stageOf(stages, 'runner: reach (owner resolution)');
      stages.set('handler: rest (handler - rate limit and reach - operation)', handler - rateAndReach - stageOf(stages, 'runner: operation'));
    }
    const stageOrder = [
      'client: fetch, request to full body',
      'client: HTTP and socket (fetch - gateway request)',
      'gateway: request',
      'gateway: own work (request - authorizer - handler)',
      'gateway: authorizer',
      'authorizer: token verification',
      'authorizer: client read',
      'authorizer: rest (authorizer - verification - client read)',
      'gateway: handler',
      'runner: rate limit + reach (side by side)',
      'runner: rate limit',
      'runner: reach (owner resolution)',
      'runner: operation',
      'handler: rest (handler - rate limit and reach - operation)',
    ];
    const stageSummary: Record<string, { p50: number; p90: number; present: number }> = {};
    const totalP50 = median(measuredStages.map((stages) => stageOf(stages, 'client: fetch, request to full body')));
    for (const stage of stageOrder) {
      const values = measuredStages.filter((stages) => stages.has(stage)).map((stages) => stages.get(stage)!);
      const present = values.length;
      const padded = [...values, ...Array.from({ length: measuredStages.length - present }, () => 0)]; // a stage skipped costs 0
      stageSummary[stage] = { p50: round(median(padded), 3), p90: round(percentile(padded, 90), 3), present };
      stageRows.push({
        stage: `${stage}${present < measuredStages.length ? ` (ran in ${present} of ${measuredStages.length})` : ''}`,
        p50: `${round(median(padded), 3)} ms`,
        p90: `${round(percentile(padded, 90), 3)} ms`,
        share: `${Math.round((median(padded) / totalP50) * 100)} %`,
      });
    }

    // -- (3) imports vs raw batch writes -------------------------------------------------------
    const chartImported = async (name: string) => {
      const id = await newCompany(name);
      await runImport(id, 'accounts', chartBody(), accountCount);
      return id;
    };
    const warm = await chartImported('Bench warm-up');
    const warmRun = await runImport(warm, 'general-ledger-lines', glBody('w', linesPerImport), linesPerImport);
    await waitForPostFetch(warm, warmRun.importId, performance.now());
    log(`warm-up: one ${linesPerImport}-line import in ${round(warmRun.totalMs / 1000, 2)} s (not measured)`);

    const rawWrite = async (table: string, label: string) => {
      const rawCompany = crypto.randomUUID();
      const importId = crypto.randomUUID();
      const datasetId = crypto.randomUUID();
      const at = new Date().toISOString();
      // Items as the import writes a new GL line (same attributes and index keys), built before timing.
      const items = glLines(`raw${label}`, linesPerImport).map((line, i) => rawGlLineItem(rawCompany, year, line, at, i, { datasetId, importId }));
      floorItems ??= { company: rawCompany, items };
      const batches: (typeof items)[] = [];
      for (let start = 0; start < items.length; start += 25) batches.push(items.slice(start, start + 25));
      let next = 0;
      let calls = 0;
      let unprocessedRetries = 0;
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
            const result = await floor.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
            pending = (result.UnprocessedItems?.[table] ?? []) as typeof pending;
          }
        }
      };
      const cpu = cpuWindow(floorPid);
      const started = performance.now();
      await Promise.all(Array.from({ length: 8 }, writer));
      const ms = performance.now() - started;
      const cpuUsed = cpu();
      log(`raw BatchWriteItem into ${table} (${label}): ${items.length} items in ${round(ms / 1000, 2)} s = ${round(items.length / (ms / 1000))} items/s`);
      return { table, items: items.length, calls, unprocessedRetries, ms: round(ms), itemsPerSecond: round(items.length / (ms / 1000)), cpu: cpuUsed };
    };

    type Measured = ImportRun & { linesPerSecond: number; observedLinesPerSecond: number; postFetchMs: number; cpu: ReturnType<ReturnType<typeof cpuWindow>>; calls?: ReturnType<typeof stopMeter> };
    const imports: Measured[] = [];
    // Where the first measured import's time goes: every stage the worker reports, summed (shared/platform/stage-timing.ts).
    const importStages = new Map<string, number>();
    let firstImportTimes = { postMs: 0, serverMs: 0, totalMs: 0 };
    const rawIndexed: Awaited<ReturnType<typeof rawWrite>>[] = [];
    const rawPlain: Awaited<ReturnType<typeof rawWrite>>[] = [];
    let pageCompany = '';
    for (let n = 1; n <= importSamples; n++) {
      const target = await chartImported(`Bench import ${n}`);
      const body = glBody(`b${n}`, linesPerImport);
      if (n === 1) startMeter();
      if (n === 1) setStageSink((stage, ms) => importStages.set(stage, (importStages.get(stage) ?? 0) + ms));
      const profiler = n === 1 && args['profile-import'] ? await startProfiler() : undefined;
      const cpu = cpuWindow(javaPid);
      const run = await runImport(target, 'general-ledger-lines', body, linesPerImport);
      const cpuUsed = cpu();
      const calls = n === 1 ? stopMeter() : undefined;
      if (profiler) log(`CPU profile of the stack's process during import 1: ${await profiler.stopInto(args['profile-import']!)}`);
      if (n === 1) {
        setStageSink(undefined);
        firstImportTimes = { postMs: run.postMs, serverMs: run.serverMs, totalMs: run.totalMs };
      }
      const linesPerSecond = linesPerImport / (run.acceptedToSucceededMs / 1000);
      const observedLinesPerSecond = linesPerImport / (run.totalMs / 1000);
      const postFetchMs = await waitForPostFetch(target, run.importId, performance.now());
      imports.push({ ...run, linesPerSecond, observedLinesPerSecond, postFetchMs: round(postFetchMs), cpu: cpuUsed, ...(calls && { calls }) });
      log(
        `import ${n}/${importSamples}: 202 in ${round(run.postMs)} ms, succeeded ${round(run.acceptedToSucceededMs / 1000, 2)} s after it (${round(linesPerSecond)} lines/s); seen by a poll ${round(run.totalMs / 1000, 2)} s after the POST was sent (${round(observedLinesPerSecond)} lines/s); post-fetch engines done ${round(postFetchMs / 1000, 2)} s later`,
      );
      // The two floors right after each import, alternating which goes first.
      if (n % 2 === 1) {
        rawIndexed.push(await rawWrite(rawIndexedTable, `${n}`));
        rawPlain.push(await rawWrite(rawPlainTable, `${n}`));
      } else {
        rawPlain.push(await rawWrite(rawPlainTable, `${n}`));
        rawIndexed.push(await rawWrite(rawIndexedTable, `${n}`));
      }
      quiet.writes.push(...(await quietFloor({ getSamples: 0, runs: 1 })).writes); // the same items from a quiet process
      pageCompany = target;
    }
    // The worker's stages (chunk stages sum over the chunks; rows and counters of a chunk overlap).
    const workerStages = ['import: payload (S3 get, parse, validate)', 'import: apply chunks', 'import: record chunk, extend lease', 'import: fetch completion', 'import: finish (import, job, event)'];
    const workerMs = workerStages.reduce((sum, stage) => sum + (importStages.get(stage) ?? 0), 0);
    const importStageList: [string, number][] = [
      ['client: POST to 202', firstImportTimes.postMs],
      ['server: accepted to succeeded (createdAt -> completedAt)', firstImportTimes.serverMs],
      ['  queue pickup, job running (the rest)', firstImportTimes.serverMs - workerMs],
      ...[...importStages].filter(([stage]) => stage.startsWith('import: ')).map(([stage, ms]): [string, number] => [`  ${workerStages.includes(stage) ? '' : '  '}${stage.slice('import: '.length)}`, ms]),
      ['client: the rest (POST before createdAt, the 202, polls every 250 ms)', firstImportTimes.totalMs - firstImportTimes.serverMs],
    ];
    for (const [stage, ms] of importStageList) importStageRows.push({ stage, ms: `${round(ms)} ms`, share: `${Math.round((ms / firstImportTimes.totalMs) * 100)} %` });
    const importRate = median(imports.map((run) => run.linesPerSecond));
    const observedRate = median(imports.map((run) => run.observedLinesPerSecond));
    const indexedRate = median(rawIndexed.map((run) => run.itemsPerSecond));
    const plainRate = median(rawPlain.map((run) => run.itemsPerSecond));
    const postLatencies = imports.map((run) => run.postMs);

    // -- (2) a 200-line GL page vs a raw Query of the same 200 items on the floor --------------
    const pagePath = `/v1/companies/${pageCompany}/general-ledger/lines?page_size=200&period=1&year=${year}`;
    const apiPage = async () => {
      const result = expectStatus(await http('GET', pagePath), 200, 'GL page');
      if (result.body.data.length !== 200 || result.body.data.some((line: { year: number; period: number }) => line.year !== year || line.period !== 1)) {
        throw new Error(`GL page: expected 200 lines of ${year} period 1, got ${result.body.data.length}`);
      }
      return { ms: result.ms, ids: result.body.data.map((line: { lineId: string }) => line.lineId).join() as string };
    };
    const pageIds = (await apiPage()).ids;
    // The same 200 items (all attributes, so the same bytes) copied to the floor's indexed table.
    const periodPartition = keys.glPeriodPartition(pageCompany, year, 1);
    const pageItems = (
      await dynamo().send(
        new QueryCommand({ TableName: tableName(), IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': periodPartition }, Limit: 200 }),
      )
    ).Items!;
    for (let start = 0; start < pageItems.length; start += 25) {
      await floor.send(new BatchWriteCommand({ RequestItems: { [rawIndexedTable]: pageItems.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } })) } }));
    }
    const rawQuery = async () => {
      const started = performance.now();
      const result = await floor.send(
        new QueryCommand({ TableName: rawIndexedTable, IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': periodPartition }, Limit: 200 }),
      );
      const ms = performance.now() - started;
      if ((result.Items ?? []).map((item) => String(item.lineId)).join() !== pageIds) throw new Error('the raw Query did not return the items of the API page');
      return ms;
    };
    log(`GL page: ${warmups} warm-ups, then ${samples} pages and ${samples} raw Queries, alternating`);
    const [pageTimes, queryTimes] = await compare(async () => (await apiPage()).ms, rawQuery, samples);
    startMeter();
    await http('GET', pagePath);
    const pageCalls = stopMeter();
    const pageP50 = median(pageTimes);
    const queryP50 = median(queryTimes);
    log(`GL page: ${round(pageP50, 2)} ms over HTTP vs ${round(queryP50, 2)} ms raw Query (p50 of ${samples})`);

    const quietWriteRate = median(quiet.writes.map((run) => run.itemsPerSecond));
    log(`quiet floors: GetItem p50 ${round(quietGetP50, 2)} ms (in-process ${round(getItemP50, 2)} ms); raw writes ${round(quietWriteRate)} items/s (in-process ${round(indexedRate)})`);

    // -- (4) the worker alone, in its own process as on Lambda --------------------------------
    // The import is accepted by the real pipeline onto a queue nobody polls, then a child process
    // that loads only the worker's handler applies it.
    const workerAlone = async () => {
      const { ensureQueue, localSqsClient } = await import('../local/sqs');
      const { submitImport } = await import('../../shared/imports/pipeline');
      const { importKind } = await import('../../shared/composition/import-kinds');
      const { importRepository } = await import('../../shared/imports/repository');
      const { parse } = await import('lossless-json');
      const { queues } = await import('../../shared/queues');
      const target = await chartImported('Bench worker alone');
      const parked = await ensureQueue(localSqsClient(info.internal.sqsEndpoint), { name: 'bench-parked', visibilityTimeoutSeconds: 900, maxReceiveCount: 5 });
      const queueEnv = queues.find((queue) => queue.name === 'imports')!.urlEnv;
      const ownQueue = process.env[queueEnv];
      process.env[queueEnv] = parked.url;
      const organization = info.organizations[0]!;
      const { companyRepository } = await import('../../shared/companies/repository');
      const accepted = await submitImport(
        { clientId: 'bench', mode: 'SYSTEM', organizationId: organization.id, organizationPath: organization.id, userId: null, organizationIds: [], scopes: ['imports:write'], plan: 'premium' },
        (await companyRepository.get(target))!,
        importKind('general_ledger_lines'),
        parse(glBody('alone', linesPerImport)),
      ).finally(() => {
        process.env[queueEnv] = ownQueue;
      });
      const stackFile = join(dataDir, 'stack.json');
      writeFileSync(stackFile, JSON.stringify(info));
      // Bundled as CDK bundles the worker's Lambda (infra/stacks/api-stack.ts): ESM, minified, SDK included.
      const bundle = join(dataDir, 'bench-worker.mjs');
      await bundleAsLambda('infra/tools/bench-worker.ts', bundle, { minify: !args['profile-worker'] }); // a profile names functions
      // Asynchronously: the S3 and SQS emulators the child talks to run in this process.
      const profile = args['profile-worker'] ? ['--cpu-prof', '--cpu-prof-dir', resolve(args['profile-worker'])] : [];
      const { stdout: output } = await promisify(execFile)(process.execPath, [...profile, bundle, stackFile, accepted.id], {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
        timeout: importDeadlineMs,
      });
      const measured = JSON.parse(output.trim().split('\n').at(-1)!) as { baselineRss: number; peakRss: number; ms: number };
      const record = await importRepository.get(accepted.id);
      if (record?.status !== 'succeeded' || record.progress.rowsInserted !== linesPerImport) throw new Error(`worker alone: import ended ${record?.status}`);
      return measured;
    };
    const alone = args['no-worker'] ? undefined : await workerAlone();
    if (alone) log(`worker alone: ${linesPerImport} lines in ${round(alone.ms / 1000, 2)} s, RSS ${mb(alone.baselineRss)} MB at start, peak ${mb(alone.peakRss)} MB`);

    // -- capacity units per operation (infra/tools/bench-capacity.ts), last: its meter changes every call
    if (!args['no-capacity']) writeBenchResults('capacity', (results.capacity = await runCapacityBench(info, log))); // npm run cost reads it

    // -- report ------------------------------------------------------------------------------
    const ratio = (value: number, floorValue: number) => round(value / floorValue, 2);
    const getRatio = getP50 / getItemP50;
    const importRatio = importRate / indexedRate;
    const firstPost = imports[0]!.postMs;
    rows.push(
      {
        measure: `GET /v1/companies/{id}, p50 of ${readSamples}`,
        value: `${round(getP50, 2)} ms`,
        floor: `raw GetItem p50 ${round(getItemP50, 2)} ms`,
        ratio: `${ratio(getP50, getItemP50)} x`,
        goal: '<= 3 x',
        verdict: getRatio <= 3 ? 'pass' : 'fail',
      },
      {
        measure: `GET /v1/companies/{id}, p99 of ${readSamples}`,
        value: `${round(getP99, 2)} ms`,
        floor: `raw GetItem p99 ${round(getItemP99, 2)} ms`,
        ratio: `${ratio(getP99, getItemP99)} x`,
        goal: '-',
        verdict: 'info',
      },
      {
        measure: `GET /v1/companies/{id}, p50, against a GetItem from a quiet separate process`,
        value: `${round(getP50, 2)} ms`,
        floor: `quiet GetItem p50 ${round(quietGetP50, 2)} ms (in-process ${round(getItemP50, 2)} ms)`,
        ratio: `${ratio(getP50, quietGetP50)} x`,
        goal: '-',
        verdict: 'info',
      },
      {
        measure: `GL page of 200 lines, p50 of ${samples}`,
        value: `${round(pageP50, 2)} ms`,
        floor: `raw Query of 200 p50 ${round(queryP50, 2)} ms`,
        ratio: `${ratio(pageP50, queryP50)} x`,
        goal: '-',
        verdict: 'info',
      },
      {
        measure: `10,000-line GL import, 202 -> succeeded (median of ${imports.length})`,
        value: `${round(importRate)} lines/s (${imports.map((run) => round(run.linesPerSecond)).join(' / ')})`,
        floor: `raw BatchWriteItem, two GSIs, 8 in flight: ${round(indexedRate)} items/s (${rawIndexed.map((run) => round(run.itemsPerSecond)).join(' / ')})`,
        ratio: `${round(importRatio, 2)}`,
        goal: '>= 0.8',
        verdict: importRatio >= 0.8 ? 'pass' : 'fail',
      },
      {
        measure: '10,000-line GL import, 202 -> succeeded (same runs), against raw writes from a quiet separate process',
        value: `${round(importRate)} lines/s`,
        floor: `quiet raw BatchWriteItem, two GSIs, 8 in flight: ${round(quietWriteRate)} items/s (${quiet.writes.map((run) => run.itemsPerSecond).join(' / ')})`,
        ratio: `${round(importRate / quietWriteRate, 2)}`,
        goal: '-',
        verdict: 'info',
      },
      {
        measure: `same imports, POST sent -> succeeded seen by a poll every ${pollMs} ms`,
        value: `${round(observedRate)} lines/s (${imports.map((run) => round(run.observedLinesPerSecond)).join(' / ')})`,
        floor: `raw BatchWriteItem, two GSIs, 8 in flight: ${round(indexedRate)} items/s`,
        ratio: `${round(observedRate / indexedRate, 2)}`,
        goal: '-',
        verdict: 'info',
      },
      {
        measure: '10,000-line GL import, 202 -> succeeded (same runs)',
        value: `${round(importRate)} lines/s`,
        floor: `raw BatchWriteItem, no index, 8 in flight: ${round(plainRate)} items/s (${rawPlain.map((run) => round(run.itemsPerSecond)).join(' / ')})`,
        ratio: `${ratio(importRate, plainRate)}`,
        goal: '-',
        verdict: 'info',
      },
      {
        measure: `202 for 10,000 lines (first / max of ${imports.length})`,
        value: `${round(firstPost)} / ${round(Math.max(...postLatencies))} ms`,
        floor: '-',
        ratio: '-',
        goal: '< 0.5 s',
        verdict: Math.max(...postLatencies) < 500 ? 'pass' : 'fail',
      },
      alone
        ? {
            measure: 'import worker peak RSS, 10k lines, alone in its process (as on Lambda)',
            value: `${mb(alone.peakRss)} MB (${mb(alone.baselineRss)} MB at start; ${round(alone.ms / 1000, 2)} s)`,
            floor: '-',
            ratio: '-',
            goal: '<= 256 MB',
            verdict: mb(alone.peakRss) <= 256 ? 'pass' : 'fail',
          }
        : { measure: 'import worker peak RSS', value: 'skipped (--no-worker)', floor: '-', ratio: '-', goal: '<= 256 MB', verdict: 'info' },
    );
    const callsText = (calls: ReturnType<typeof stopMeter>) =>
      Object.entries(calls.byCommand)
        .map(([name, stats]) => `${name} ${stats.calls}`)
        .join(', ');
    notes.push(
      `Quiet floors: the same GetItem and raw writes (same table, items and client configuration) from a separate Node process that loads only the SDK (infra/tools/bench-floor-child.ts), while this process, which hosts the stack's gateway, handlers and pollers, waits.`,
      `Floors: a second DynamoDB Local of the same jar and JVM options (${floorDb.endpoint}), same SDK client configuration; tables ${rawIndexedTable} (the single table's keys and its two GSIs) and ${rawPlainTable} (no index).`,
      `Latencies: ${warmups} warm-ups of each side, then the service and its floor alternate request by request; HTTP timings are request sent to full body read, client in the same process as the stack.`,
      `DynamoDB calls of one GET company (service's client; the authorizer and the rate limiter included): ${callsText(getCalls)}. Of one GL page: ${callsText(pageCalls)}.`,
      `DynamoDB calls of the first measured 10k-line import (POST to succeeded, polls included): ${callsText(imports[0]!.calls!)}.`,
      `CPU (s) of the 10k imports: node ${imports.map((run) => round(run.cpu.nodeCpuMs / 1000, 1)).join(' / ')}, DynamoDB Local ${imports.map((run) => (run.cpu.javaCpuMs === null ? 'n/a' : round(run.cpu.javaCpuMs / 1000, 1))).join(' / ')}, wall ${imports.map((run) => round(run.cpu.wallMs / 1000, 1)).join(' / ')}; raw writes (floor java) with GSIs ${rawIndexed.map((run) => (run.cpu.javaCpuMs === null ? 'n/a' : round(run.cpu.javaCpuMs / 1000, 1))).join(' / ')}, without ${rawPlain.map((run) => (run.cpu.javaCpuMs === null ? 'n/a' : round(run.cpu.javaCpuMs / 1000, 1))).join(' / ')} (${os.cpus().length} cores).`,
      `Import time: from the 202 arriving at the client to the service's completedAt (one clock: the stack runs in this process), so neither the POST (its own row) nor the polling interval is in it; also shown as a client sees it by polling (POST sent until a poll every ${pollMs} ms sees succeeded) and as the service's createdAt -> completedAt (${imports.map((run) => round(run.serverMs / 1000, 2)).join(' / ')} s). Each import goes into a new company-year; lines ${layout === 'sorted' ? 'in period order (like a date-sorted GL export)' : 'interleaved over the periods'}, accounts pseudo-random over ${accountCount}. After each import the run waits for its post-fetch engines (auto-reconciliation, the context picture: done ${imports.map((run) => round(run.postFetchMs / 1000, 2)).join(' / ')} s after success), so their work overlaps no measurement.`,
      `Stages: measured in the same ${readSamples} GET company requests (shared/platform/stage-timing.ts); p50 per stage over the requests, so the parts do not add up exactly to the whole.`,
    );

    Object.assign(results, {
      timestamp: startedAt.toISOString(),
      git,
      node: process.version,
      platform: `${os.platform()} ${os.release()} ${os.arch()}`,
      cores: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      options: { readSamples, samples, importSamples, warmups, layout, linesPerImport, accounts: accountCount, year },
      getCompany: {
        httpMs: getTimes.map((ms) => round(ms, 3)),
        rawGetItemMs: getItemTimes.map((ms) => round(ms, 3)),
        p50: round(getP50, 3),
        p99: round(getP99, 3),
        rawP50: round(getItemP50, 3),
        rawP99: round(getItemP99, 3),
        ratioP50: round(getRatio, 3),
        ratioP99: round(getP99 / getItemP99, 3),
        dynamoCalls: getCalls,
        stages: stageSummary,
      },
      glPage: { httpMs: pageTimes.map((ms) => round(ms, 2)), rawQueryMs: queryTimes.map((ms) => round(ms, 2)), p50: round(pageP50, 3), rawP50: round(queryP50, 3), ratio: round(pageP50 / queryP50, 3), dynamoCalls: pageCalls },
      imports: imports.map(({ record, ...run }) => ({ ...run, linesPerSecond: round(run.linesPerSecond), observedLinesPerSecond: round(run.observedLinesPerSecond), rowsInserted: record.rowsInserted })),
      rawIndexed,
      rawPlain,
      importRatio: { importLinesPerSecond: round(importRate), rawIndexedItemsPerSecond: round(indexedRate), rawPlainItemsPerSecond: round(plainRate), ratioIndexed: round(importRatio, 3), ratioPlain: round(importRate / plainRate, 3) },
      workerAlone: alone ?? null,
      quietFloors: { ...quiet, getItemP50: round(quietGetP50, 3), writeItemsPerSecond: round(quietWriteRate), getRatioP50: round(getP50 / quietGetP50, 3), importRatio: round(importRate / quietWriteRate, 3) },
      rateLimitedRetries: rateLimited,
      rows,
      stageRows,
      importStageRows,
      notes,
    });
  } catch (error) {
    exitCode = 1;
    console.error(`[bench] failed: ${(error as Error).stack ?? String(error)}`);
    results.error = String((error as Error).message ?? error);
  } finally {
    setStageSink(undefined);
    if (stack) {
      log('stopping the stack and the floor');
      await stack.stop();
    }
    await floorDb?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  // No java of ours may be left: the DynamoDB Locals listen on the ports this run picked.
  await sleep(200);
  const leftover = javaProcesses().filter((p) => !javaBefore.has(p.pid) && ourPorts.some((port) => p.args.includes(`-port ${port}`)));
  for (const p of leftover) {
    console.error(`[bench] java ${p.pid} (a DynamoDB Local of this run) still running after stop; killing it`);
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    exitCode = 1;
  }
  const wallMs = performance.now() - runStarted;
  Object.assign(results, { javaLeftAfterStop: leftover.map((p) => p.pid), wallTimeMs: round(wallMs), wallTime: `${round(wallMs / 60_000, 2)} min` });
  log(leftover.length === 0 ? 'stopped; no java process of this run is left' : 'java was left running (see above)');

  const resultsFile = writeBenchResults('results', results);

  if (rows.length > 0) {
    const code = git.commit ? `, commit ${git.commit}${git.changedFiles.length ? ` + ${git.changedFiles.length} changed file(s)` : ''}` : '';
    console.log(`\nLedger benchmark${code}, ${os.cpus().length} cores, Node ${process.version}, wall time ${round(wallMs / 60_000, 2)} min\n`);
    printTable<Record<keyof Row, string>>({ measure: 'path', value: 'this service', floor: 'floor', ratio: 'ratio', goal: 'goal', verdict: 'pass/fail' }, rows);
    console.log(`\nPer-stage timing of GET /v1/companies/{id} (p50 / p90 over ${readSamples} requests; share of the client's p50)\n`);
    printTable({ stage: 'stage', p50: 'p50', p90: 'p90', share: 'share' }, stageRows);
    if (importStageRows.length > 0) {
      console.log(`\nWhere the first measured 10k-line import's time goes (worker stages summed over its chunks; a chunk writes rows and counters side by side)\n`);
      printTable({ stage: 'stage', ms: 'time', share: 'share of POST -> seen succeeded' }, importStageRows);
    }
    if (results.capacity) printCapacity(results.capacity as Parameters<typeof printCapacity>[0]);
    console.log('');
    for (const note of notes) console.log(`- ${note}`);
  }
  console.log(`\nResults: ${resultsFile}`);
  await (await import('./bench-cold-start')).coldStartBench(); // the cold-start table (its own stack)
  if (args.scale) await (await import('./bench-scale')).scaleBench(); // the scale rows (its own stack)
  exitCode ||= await (await import('./bench-saft')).benchSaft(20_000); // SAF-T in vs the six kinds, on its own stack (npm run bench:saft: 100,000 lines)
  return exitCode;
};

runBench(main);
