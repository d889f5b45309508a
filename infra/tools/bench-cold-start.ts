import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
/**
 * `npm run bench:cold-start` (tsx infra/tools/bench-cold-start.ts): the cold start of every Lambda
 * of the API stack. Each function is bundled as the stack bundles it (infra/stacks/bundled-assets.ts:
 * one minified ESM file with the SDK and a source map), then run N times, each time in a fresh
 * Node.js 22 process as Lambda runs it (no NODE_OPTIONS, as deployed): the
 * process imports the bundle (init) and serves one event (first event), against its own local stack
 * (in memory, free ports). Its floor is a bare handler bundled the same way that imports only the
 * AWS SDK packages the function bundles and answers its first event with one GetItem.
 * Prints per function: bytes and modules of the bundle (deterministic), the median init and first
 * event of both, and the ratio; beside the wall-clock init, the CPU time of the init (the process's
 * user + system time: far less swayed by other work on a shared machine), and the median of each
 * round's CPU ratio (the goal's verdict: functions listed in initGoalExceptions print their reason);
 * writes .local/bench/cold-start.json.
 * Options: --runs N (processes per function and per floor, default 5), --only a,b (function names),
 * --modules (also: where each function's init goes, module by module; see moduleCosts),
 * --node-source-maps (functions and floors under NODE_OPTIONS=--enable-source-maps: what Node.js's
 * reading the source map at load costs, against the bundle's own lazy mapping, shared/platform/source-mapped-stacks.ts).
 * `npm run bench` runs it after its own tables.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Plugin } from 'esbuild';
import { bundleBudgetBytes, bundleBudgetExceptions, bundleLambda, initGoalExceptions, lambdaEntries, lambdaEsbuildOptions, type LambdaBundle } from '../stacks/bundled-assets';
import type { StackInfo } from '../local/stack';
import { median, round, runBench, writeBenchResults } from './bench-support';
import { applyStackEnv, valueAtPath } from './stack-env';
import { readCli } from './cli-args';

const repoRoot = resolve(import.meta.dirname, '../..');
/** Goal: a function's init at most this many times its floor's. */
const initGoal = 1.3;
/** Node.js's own source maps, read when a bundle loads (--node-source-maps); the deployed functions map stacks lazily instead. */
const nodeSourceMapsOption = '--enable-source-maps';

/** The event each function's first invocation serves: a sample event of events/ (a read), or a minimal event of its source. */
const firstEvents: Record<string, { file: string } | { event: (info: StackInfo) => unknown }> = {
  authorizer: { file: 'events/authorizer/request.json' },
  identity: { file: 'events/identity/whoami.json' },
  companies: { file: 'events/companies/getCompany.json' },
  ledger: { file: 'events/ledger/getTrialBalance.json' },
  vat: { file: 'events/vat/listVatTerms.json' },
  bank: { file: 'events/bank/listBankAccounts.json' },
  imports: { file: 'events/imports/listImports.json' },
  jobs: { file: 'events/jobs/listJobs.json' },
  documents: { file: 'events/documents/listDocuments.json' },
  users: { file: 'events/users/listUsers.json' },
  access: { file: 'events/access/listAccessPolicies.json' },
  webhooks: { file: 'events/webhooks/listWebhookSubscriptions.json' },
  openapi: { file: 'events/openapi/getOpenApiDocument.json' },
  mcp: { file: 'events/mcp/callMcp.json' },
  fallback: { file: 'events/fallback/unknown-route.json' },
  // Workers: one message naming nothing that exists (the handler loads, reads, and reports the record failed or skipped).
  'import-worker': { event: () => sqsEvent({ importId: randomUUID() }) },
  'post-fetch-worker': { event: () => sqsEvent({ companyId: randomUUID(), importId: randomUUID() }) },
  'upload-worker': { event: () => sqsEvent({ Records: [] }) },
  'webhook-fanout-worker': { event: () => sqsEvent({ eventId: randomUUID() }) },
  'webhook-delivery-worker': { event: () => sqsEvent({ deliveryId: randomUUID() }) },
  'webhook-relay': { event: () => ({ Records: [] }) },
  'outbox-sweeper': { event: () => ({}) },
};

const sqsEvent = (body: unknown) => ({
  Records: [
    {
      messageId: randomUUID(),
      receiptHandle: 'cold-start',
      body: JSON.stringify(body),
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()), SenderId: 'bench', ApproximateFirstReceiveTimestamp: String(Date.now()) },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:eu-north-1:000000000000:cold-start',
      awsRegion: 'eu-north-1',
    },
  ],
});

/** The process each run starts: imports the bundle, then serves the event; prints one JSON line. Plain ESM, run by Node.js 22. */
const childSource = `
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
const [bundle, eventFile, name] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const cpu = () => { const used = process.cpuUsage(); return (used.user + used.system) / 1000; };
const startedCpu = cpu();
const started = performance.now();
const { handler } = await import(bundle);
const loaded = performance.now();
const initCpuMs = cpu() - startedCpu;
const awsRequestId = randomUUID();
const context = { callbackWaitsForEmptyEventLoop: true, functionName: name, functionVersion: '$LATEST', invokedFunctionArn: 'arn:aws:lambda:eu-north-1:000000000000:function:' + name, memoryLimitInMB: '1024', awsRequestId, logGroupName: '/aws/lambda/' + name, logStreamName: 'cold/' + awsRequestId, getRemainingTimeInMillis: () => 30000, done() {}, fail() {}, succeed() {} };
let outcome;
try {
  const result = await handler(event, context);
  outcome = result && typeof result === 'object' ? String(result.statusCode ?? (result.isAuthorized !== undefined ? 'authorized ' + result.isAuthorized : Array.isArray(result.batchItemFailures) ? result.batchItemFailures.length + ' failed' : 'ok')) : 'ok';
} catch (error) {
  outcome = 'threw ' + (error?.name ?? 'Error');
}
const served = performance.now();
process.stdout.write(JSON.stringify({ bootMs: started, initMs: loaded - started, initCpuMs, firstMs: served - loaded, outcome }) + '\\n');
process.exit(0);
`;

/** A bare handler that imports the same SDK packages: the clients are referenced (so bundled and evaluated), DynamoDB answers the first event. */
const floorSource = (sdkPackages: string[]): string => {
  const lines = [
    "import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';",
    'const kept = [];',
  ];
  const exportsOf: Record<string, string> = {
    '@aws-sdk/client-s3': 'S3Client',
    '@aws-sdk/client-sqs': 'SQSClient',
    '@aws-sdk/client-secrets-manager': 'SecretsManagerClient',
    '@aws-sdk/client-kms': 'KMSClient',
    '@aws-sdk/client-cognito-identity-provider': 'CognitoIdentityProviderClient',
    '@aws-sdk/lib-dynamodb': 'DynamoDBDocumentClient',
    '@aws-sdk/s3-request-presigner': 'getSignedUrl',
  };
  for (const pkg of sdkPackages) {
    if (pkg === '@aws-sdk/client-dynamodb') continue;
    const name = exportsOf[pkg];
    if (!name) throw new Error(`The floor does not know the SDK package ${pkg}: add its main export`);
    lines.push(`import { ${name} } from '${pkg}';`, `kept.push(${name});`);
  }
  lines.push(
    "const dynamo = new DynamoDBClient({ region: process.env.AWS_REGION, ...(process.env.DYNAMODB_ENDPOINT && { endpoint: process.env.DYNAMODB_ENDPOINT }) });",
    'export const handler = async () => {',
    "  await dynamo.send(new GetItemCommand({ TableName: process.env.TABLE_NAME, Key: { PK: { S: 'COLD#START' }, SK: { S: 'COLD#START' } } }));",
    '  return { statusCode: 200, kept: kept.length };',
    '};',
  );
  return lines.join('\n');
};

/**
 * Where the init goes, module by module (--modules): the bundle built again with a mark before and
 * after the top-level code of each source file, run in fresh processes; the CPU time between marks
 * is charged to the file evaluating (to its npm package for node_modules), the time before the
 * first mark to reading, parsing and compiling the bundle. Marks add a little time of their own.
 */
const markPlugin: Plugin = {
  name: 'module-marks',
  setup(build) {
    build.onLoad({ filter: /\.(m?[jt]s|cjs)$/ }, (args) => {
      const relativePath = relative(repoRoot, args.path);
      const key = JSON.stringify(/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(relativePath)?.[1] ?? relativePath);
      const source = readFileSync(args.path, 'utf8');
      // A hashbang and a 'use strict' directive stay first.
      const head = /^(#![^\n]*\n)?(\s*(['"])use strict\3;?)?/.exec(source)?.[0] ?? '';
      return {
        contents: `${head}\n;globalThis.__coldMark?.(0,${key});\n${source.slice(head.length)}\n;globalThis.__coldMark?.(1,${key});\n`,
        loader: args.path.endsWith('.ts') ? 'ts' : 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};

const marksChildSource = `
const cpu = () => { const used = process.cpuUsage(); return (used.user + used.system) / 1000; };
const costs = {}; const stack = []; let seen = false; let last = cpu();
const charge = () => { const now = cpu(); const key = stack.at(-1) ?? (seen ? '(between modules)' : '(read, parse, compile)'); costs[key] = (costs[key] ?? 0) + now - last; last = now; };
globalThis.__coldMark = (end, key) => { charge(); seen = true; if (end) { const at = stack.lastIndexOf(key); if (at >= 0) stack.splice(at, 1); } else stack.push(key); };
await import(process.argv[2]);
charge();
process.stdout.write(JSON.stringify(costs) + '\\n');
process.exit(0);
`;

export const moduleCosts = async (lambda: { name: string; entry: string }, workDir: string, runs: number, env: NodeJS.ProcessEnv, node: string): Promise<[string, number][]> => {
  const { build } = await import('esbuild');
  const file = join(workDir, `${lambda.name}.marks.mjs`);
  await build({ ...lambdaEsbuildOptions(join(repoRoot, lambda.entry), file), absWorkingDir: repoRoot, plugins: [markPlugin] });
  const child = join(workDir, 'marks-child.mjs');
  writeFileSync(child, marksChildSource);
  const samples = new Map<string, number[]>();
  for (let run = 0; run < runs; run++) {
    const { stdout } = await promisify(execFile)(node, [child, pathToFileURL(file).href], { env, encoding: 'utf8', timeout: 60_000, maxBuffer: 1 << 20 });
    const costs = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, number>;
    for (const [key, cpuMs] of Object.entries(costs)) samples.set(key, [...(samples.get(key) ?? []), cpuMs]);
  }
  return [...samples]
    .map(([key, values]): [string, number] => [key, round(median([...values, ...Array<number>(runs - values.length).fill(0)]))])
    .sort((a, b) => b[1] - a[1]);
};

const kib = (bytes: number) => `${round(bytes / 1024, 0)} KiB`;

/** The Node.js 22 binary: this one when it is 22 (npm scripts run the one npm install fetched), else that one. */
const node22 = (): string => {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  const bundled = join(repoRoot, 'node_modules', '.bin', 'node');
  if (existsSync(bundled)) return bundled;
  throw new Error(`Cold starts are measured on Node.js 22 (the Lambda runtime); this is ${process.version} and node_modules/.bin/node is missing (npm install fetches it)`);
};

/** Fills the placeholders of a sample event ({{token:CLIENT}}, {{uuid}}, {{A ?? B}} over the stack file) as npm run invoke does. */
const resolvePlaceholders = async (value: unknown, info: StackInfo, token: (client: string) => Promise<string>): Promise<unknown> => {
  if (typeof value === 'string') {
    let text = value;
    for (const match of value.matchAll(/\{\{\s*([^{}]+?)\s*\}\}/g)) {
      let replacement: string | undefined;
      for (const candidate of match[1]!.split('??').map((part) => part.trim())) {
        if (candidate === 'uuid') replacement = randomUUID();
        else if (candidate.startsWith('token:')) replacement = await token(candidate.slice('token:'.length));
        else if (/^\d+$/.test(candidate)) replacement = candidate;
        else if (candidate === 'companyId') replacement = info.companies[0]?.id; // the samples' company: the first seeded one
        else {
          const found = valueAtPath(info, candidate);
          if (typeof found === 'string' || typeof found === 'number') replacement = String(found);
        }
        if (replacement !== undefined) break;
      }
      if (replacement === undefined) throw new Error(`Cannot fill {{${match[1]}}} of a sample event from the stack`);
      text = text.replace(match[0], replacement);
    }
    return text;
  }
  if (Array.isArray(value)) return Promise.all(value.map((item) => resolvePlaceholders(item, info, token)));
  if (value && typeof value === 'object') {
    return Object.fromEntries(await Promise.all(Object.entries(value).map(async ([key, inner]) => [key, await resolvePlaceholders(inner, info, token)] as const)));
  }
  return value;
};

export interface ColdStartRow {
  name: string;
  bytes: number;
  modules: number;
  sdkPackages: string[];
  floorBytes: number;
  floorModules: number;
  initMs: number;
  firstMs: number;
  /** CPU time (user + system) of the init. */
  initCpuMs: number;
  floorInitCpuMs: number;
  initCpuRatio: number;
  /**
   * The median of each round's ratio (the function's init CPU over its floor's, run one after the
   * other): load that changes between rounds sways it less than the ratio of the medians.
   */
  pairedCpuRatio: number;
  /** The init's CPU time with tracing on, as deployed (the tracing module loaded), and its paired ratio to the floor. */
  tracedInitCpuMs: number;
  tracedPairedCpuRatio: number;
  floorInitMs: number;
  floorFirstMs: number;
  initRatio: number;
  totalRatio: number;
  outcome: string;
  budget: 'within' | 'over, with a reason' | 'over';
}

interface Run {
  initMs: number;
  initCpuMs: number;
  firstMs: number;
  outcome: string;
}

/** Measures every function (or those named); prints the table; answers the rows. */
export const coldStartBench = async (options: { runs?: number; only?: string[]; modules?: boolean; nodeSourceMaps?: boolean; log?: (message: string) => void } = {}): Promise<ColdStartRow[]> => {
  const runs = options.runs ?? 5;
  const log = options.log ?? ((message: string) => console.log(`[cold-start] ${message}`));
  const selected = lambdaEntries.filter((lambda) => !options.only?.length || options.only.includes(lambda.name));
  if (selected.length === 0) throw new Error(`--only names no function; known: ${lambdaEntries.map((lambda) => lambda.name).join(', ')}`);
  const node = node22();
  const nodeVersion = (await promisify(execFile)(node, ['--version'], { encoding: 'utf8' })).stdout.trim();
  const workDir = mkdtempSync(join(os.tmpdir(), 'ledger-cold-start-'));
  const { startLocalStack } = await import('../local/stack');
  const { build } = await import('esbuild');
  log(`bundling ${selected.length} functions as the stack does, and starting a local stack (in memory, free ports)`);
  const [bundles, stack] = await Promise.all([
    (async () => {
      const built: LambdaBundle[] = [];
      for (const lambda of selected) built.push(await bundleLambda(lambda.name, lambda.entry, workDir, repoRoot)); // one at a time: the machine is shared
      return built;
    })(),
    startLocalStack({ port: 0, authPort: 0, dataDir: join(workDir, 'data') }),
  ]);
  const rows: ColdStartRow[] = [];
  try {
    // Floors: one per set of SDK packages.
    const floors = new Map<string, { file: string; bytes: number; modules: number }>();
    for (const bundle of bundles) {
      const key = bundle.sdkPackages.join(' ');
      if (floors.has(key)) continue;
      const file = join(workDir, `floor-${floors.size}.mjs`);
      const options = lambdaEsbuildOptions('floor', file);
      delete options.entryPoints;
      const result = await build({ ...options, stdin: { contents: floorSource(bundle.sdkPackages), resolveDir: repoRoot, sourcefile: 'floor.mjs', loader: 'js' }, metafile: true });
      const output = Object.entries(result.metafile.outputs).find(([name]) => name.endsWith('.mjs'))![1];
      floors.set(key, { file, bytes: statSync(file).size, modules: Object.keys(output.inputs).length });
    }

    // Each function's first event, filled from the stack; the Lambda environment of the stack.
    const info = stack.info;
    const tokens = new Map<string, Promise<string>>();
    const token = (clientName: string) => {
      if (!tokens.has(clientName)) {
        const client = info.clients.find((candidate) => candidate.name === clientName);
        if (!client) throw new Error(`No client ${clientName} in the stack`);
        tokens.set(
          clientName,
          fetch(info.authUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
          }).then(async (response) => ((await response.json()) as { access_token: string }).access_token),
        );
      }
      return tokens.get(clientName)!;
    };
    // Route events carry the authorizer's answer, as API Gateway passes it: the production authorizer decides once, here.
    const { loadHandler, lambdaContext } = await import('../local/gateway');
    const authorizerEvent = (await resolvePlaceholders(JSON.parse(readFileSync(join(repoRoot, 'events/authorizer/request.json'), 'utf8')), info, token)) as Record<string, unknown>;
    const decision = (await (await loadHandler('functions/authorizer/handler.ts'))(authorizerEvent, lambdaContext('authorizer', 10))) as { isAuthorized: boolean; context?: unknown };
    if (!decision.isAuthorized) throw new Error('The authorizer refused the sample token');
    const eventFiles = new Map<string, string>();
    for (const bundle of bundles) {
      const source = firstEvents[bundle.name];
      if (!source) throw new Error(`No first event for ${bundle.name}: add one to firstEvents`);
      let event: unknown;
      if ('file' in source) {
        const resolved = (await resolvePlaceholders(JSON.parse(readFileSync(join(repoRoot, source.file), 'utf8')), info, token)) as { type?: string; headers?: Record<string, string>; requestContext: Record<string, unknown> };
        if (resolved.type !== 'REQUEST' && resolved.headers?.authorization) resolved.requestContext.authorizer = { lambda: decision.context };
        event = resolved;
      } else {
        event = source.event(info);
      }
      const file = join(workDir, `${bundle.name}.event.json`);
      writeFileSync(file, JSON.stringify(event));
      eventFiles.set(bundle.name, file);
    }
    const child = join(workDir, 'child.mjs');
    writeFileSync(child, childSource);
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
    applyStackEnv(info, env);
    Object.assign(env, { NODE_OPTIONS: options.nodeSourceMaps ? nodeSourceMapsOption : '', POWERTOOLS_LOG_LEVEL: 'ERROR', POWERTOOLS_SERVICE_NAME: 'ledger', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
    // Tracing on, as deployed (active tracing): the function loads the tracing module beside it and sends its segments to a daemon address nobody listens on.
    const tracingEnv: NodeJS.ProcessEnv = {
      ...env,
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      LAMBDA_TASK_ROOT: workDir,
      _HANDLER: 'index.handler',
      _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
      AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:9',
    };
    const runOnce = async (bundleFile: string, eventFile: string, name: string, runEnv = env): Promise<Run> => {
      // Asynchronously: the emulators the child talks to run in this process.
      const { stdout } = await promisify(execFile)(node, [child, pathToFileURL(bundleFile).href, eventFile, name], { env: runEnv, encoding: 'utf8', timeout: 60_000, maxBuffer: 1 << 20 });
      const line = stdout.trim().split('\n').at(-1) ?? '';
      return JSON.parse(line) as Run;
    };

    // Rounds: every function, then its floor, once per round, so noise spreads over both.
    const measured = new Map<string, { runs: Run[]; floorRuns: Run[]; tracedRuns: Run[] }>(bundles.map((bundle) => [bundle.name, { runs: [], floorRuns: [], tracedRuns: [] }]));
    log(`${runs} rounds of ${bundles.length} functions and their floors, each in a fresh ${nodeVersion} process`);
    for (let round = 0; round < runs; round++) {
      for (const bundle of bundles) {
        const floor = floors.get(bundle.sdkPackages.join(' '))!;
        const entry = measured.get(bundle.name)!;
        entry.runs.push(await runOnce(bundle.file, eventFiles.get(bundle.name)!, bundle.name));
        entry.floorRuns.push(await runOnce(floor.file, eventFiles.get(bundle.name)!, `${bundle.name}-floor`));
        entry.tracedRuns.push(await runOnce(bundle.file, eventFiles.get(bundle.name)!, bundle.name, tracingEnv));
      }
      log(`round ${round + 1} of ${runs} done`);
    }
    if (options.modules) {
      log('where the init goes (CPU ms, median; the largest costs of each function):');
      for (const lambda of selected) {
        const costs = await moduleCosts(lambda, workDir, runs, env, node);
        log(`${lambda.name}: ${costs.slice(0, 10).map(([key, cpuMs]) => `${key} ${cpuMs}`).join('; ')}`);
      }
    }
    for (const bundle of bundles) {
      const floor = floors.get(bundle.sdkPackages.join(' '))!;
      const { runs: own, floorRuns, tracedRuns } = measured.get(bundle.name)!;
      const initMs = median(own.map((run) => run.initMs));
      const firstMs = median(own.map((run) => run.firstMs));
      const floorInitMs = median(floorRuns.map((run) => run.initMs));
      const floorFirstMs = median(floorRuns.map((run) => run.firstMs));
      const initCpuMs = median(own.map((run) => run.initCpuMs));
      const floorInitCpuMs = median(floorRuns.map((run) => run.initCpuMs));
      const outcomes = [...new Set(own.map((run) => run.outcome))].join(', ');
      const reason = bundleBudgetExceptions[bundle.name];
      rows.push({
        name: bundle.name,
        bytes: bundle.bytes,
        modules: bundle.modules,
        sdkPackages: bundle.sdkPackages,
        floorBytes: floor.bytes,
        floorModules: floor.modules,
        initMs: round(initMs),
        firstMs: round(firstMs),
        initCpuMs: round(initCpuMs),
        floorInitCpuMs: round(floorInitCpuMs),
        initCpuRatio: round(initCpuMs / floorInitCpuMs, 2),
        pairedCpuRatio: round(median(own.map((run, index) => run.initCpuMs / floorRuns[index]!.initCpuMs)), 2),
        tracedInitCpuMs: round(median(tracedRuns.map((run) => run.initCpuMs))),
        tracedPairedCpuRatio: round(median(tracedRuns.map((run, index) => run.initCpuMs / floorRuns[index]!.initCpuMs)), 2),
        floorInitMs: round(floorInitMs),
        floorFirstMs: round(floorFirstMs),
        initRatio: round(initMs / floorInitMs, 2),
        totalRatio: round((initMs + firstMs) / (floorInitMs + floorFirstMs), 2),
        outcome: outcomes,
        budget: bundle.bytes <= bundleBudgetBytes ? 'within' : reason ? 'over, with a reason' : 'over',
      });
    }
  } finally {
    await stack.stop();
    rmSync(workDir, { recursive: true, force: true });
  }

  const table = rows.map((row) => ({
    function: row.name,
    bundle: `${kib(row.bytes)}, ${row.modules} modules`,
    floor: `${kib(row.floorBytes)}, ${row.floorModules} modules`,
    init: `${row.initMs} ms / ${row.floorInitMs} ms`,
    ratio: `${row.initRatio} x`,
    cpu: `${row.initCpuMs} / ${row.floorInitCpuMs} ms = ${row.initCpuRatio} x`,
    paired: `${row.pairedCpuRatio} x`,
    traced: `${row.tracedInitCpuMs} ms = ${row.tracedPairedCpuRatio} x`,
    first: `${row.firstMs} ms / ${row.floorFirstMs} ms`,
    total: `${row.totalRatio} x`,
    verdict: row.initRatio <= initGoal && row.budget !== 'over' ? 'pass' : 'fail',
    cpuGoal: row.pairedCpuRatio <= initGoal ? 'within' : initGoalExceptions[row.name] ? 'over, reason' : 'over',
    answer: row.outcome,
  }));
  const header = { function: 'function', bundle: 'bundle (<= 1 MiB)', floor: 'floor bundle', init: 'init: fn / floor', ratio: `ratio (<= ${initGoal})`, cpu: 'init CPU: fn / floor', paired: 'CPU, paired', traced: 'init CPU, tracing on', first: 'first event: fn / floor', total: 'init+first', verdict: 'pass/fail', cpuGoal: `CPU <= ${initGoal} x`, answer: 'first answer' };
  const keys = Object.keys(header) as (keyof typeof header)[];
  const width = (key: keyof typeof header) => Math.max(...[header, ...table].map((row) => row[key].length));
  console.log(`\nCold starts: median of ${runs} fresh ${nodeVersion} processes per function and per floor${options.nodeSourceMaps ? `, NODE_OPTIONS=${nodeSourceMapsOption}` : ''} (init = importing the bundle; first event = serving one event against the local stack; tracing off but for the column "tracing on", where the function loads tracing.mjs as with active tracing)\n`);
  console.log(keys.map((key) => header[key].padEnd(width(key))).join(' | '));
  console.log(keys.map((key) => '-'.repeat(width(key))).join('-+-'));
  for (const row of table) console.log(keys.map((key) => row[key].padEnd(width(key))).join(' | '));
  for (const row of rows.filter((candidate) => candidate.budget === 'over, with a reason')) console.log(`- ${row.name} is over 1 MiB: ${bundleBudgetExceptions[row.name]}`);
  for (const row of rows.filter((candidate) => candidate.pairedCpuRatio > initGoal && initGoalExceptions[candidate.name])) console.log(`- ${row.name}'s init is over ${initGoal} x its floor: ${initGoalExceptions[row.name]}`);
  return rows;
};

const main = async (): Promise<number> => {
  const values = readCli({
    command: 'bench:cold-start',
    summary: 'Every Lambda bundled as deployed: bytes, modules, init and first event in fresh Node.js 22 processes against a bare bundle of the same SDK clients; writes .local/bench/cold-start.json.',
    options: {
      runs: { type: 'string', default: '5', description: 'fresh processes per function and per floor (1..50)' },
      only: { type: 'string', description: 'these functions only, comma-separated (e.g. ledger,mcp)' },
      modules: { type: 'boolean', description: 'also where each init goes, module by module (CPU time)' },
      'node-source-maps': { type: 'boolean', description: `functions and floors under NODE_OPTIONS=${nodeSourceMapsOption}: what reading the source maps at load would cost` },
    },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 50) throw new Error('--runs must be an integer 1..50');
  const rows = await coldStartBench({ runs, only: values.only?.split(',').map((name) => name.trim()), modules: values.modules, nodeSourceMaps: values['node-source-maps'] });
  const file = writeBenchResults('cold-start', { timestamp: new Date().toISOString(), runs, nodeOptions: values['node-source-maps'] ? nodeSourceMapsOption : '', machine: `${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}`, rows });
  console.log(`\nResults: ${file}`);
  return 0;
};

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) runBench(main);
