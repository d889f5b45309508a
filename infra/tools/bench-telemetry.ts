import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
/**
 * `npm run bench:telemetry`: the cold-start cost of the telemetry (Powertools Tracer and Metrics).
 * Bundles two functions as CDK does (esbuild, minified ESM for Node 22, AWS SDK included, the
 * tracing module tracing.mjs beside) three ways: as shipped; with the Tracer packages replaced by
 * no-op stand-ins; with the Metrics package replaced too. Then, --runs times per bundle (interleaved), a fresh `node` process imports the
 * bundle and serves one event with tracing on, as in Lambda (AWS_EXECUTION_ENV, a trace header, a
 * daemon address nobody listens on). Needs no stack: the events touch no AWS service (the
 * authorizer without a token, whoami without one). Prints the medians; writes .local/bench/telemetry.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';
import { bundleAsLambda, runBench, writeBenchResults } from './bench-support';
import { readCli } from './cli-args';

const args = readCli({
  command: 'bench:telemetry',
  summary: 'The cold-start cost of the Tracer and Metrics (no stack): bundle size, init and first invocation of two functions with and without them; writes .local/bench/telemetry.json.',
  options: { runs: { type: 'string', default: '10', description: 'fresh processes per variant' } },
});
const runs = Number(args.runs);

const functions = [
  {
    name: 'authorizer',
    entry: 'functions/authorizer/handler.ts',
    event: { version: '2.0', type: 'REQUEST', routeArn: 'arn', identitySource: [], routeKey: 'GET /v1/whoami', rawPath: '/v1/whoami', rawQueryString: '', headers: {}, requestContext: { requestId: 'bench' } },
  },
  {
    name: 'identity',
    entry: 'functions/identity/handler.ts',
    event: {
      version: '2.0',
      routeKey: 'GET /v1/whoami',
      rawPath: '/v1/whoami',
      rawQueryString: '',
      headers: {},
      isBase64Encoded: false,
      requestContext: { requestId: 'bench', domainName: 'api.example', http: { method: 'GET', path: '/v1/whoami' }, authorizer: { lambda: { authenticated: false, failure: 'missing bearer token' } } },
    },
  },
] as const;

/** No-op stand-ins for a package's exports, in place of the package (what the bundle would be without it). */
const stub = (packages: Record<string, string>): Plugin => ({
  name: 'telemetry-stubs',
  setup(build) {
    build.onResolve({ filter: /^@aws-lambda-powertools\/(tracer|metrics)(\/middleware)?$/ }, (resolved) =>
      packages[resolved.path] === undefined ? undefined : { path: resolved.path, namespace: 'stub' },
    );
    build.onLoad({ filter: /.*/, namespace: 'stub' }, (loaded) => ({ contents: packages[loaded.path], loader: 'js' }));
  },
});
const noTracer = {
  '@aws-lambda-powertools/tracer': 'export class Tracer { captureAWSv3Client(c) { return c; } putAnnotation() {} isTracingEnabled() { return false; } }',
  '@aws-lambda-powertools/tracer/middleware': 'export const captureLambdaHandler = () => ({ before: () => {} });',
};
const noMetrics = {
  '@aws-lambda-powertools/metrics': 'export const MetricUnit = { Count: "Count", Milliseconds: "Milliseconds" }; export class Metrics { addMetric() { return this; } addMetadata() {} hasStoredMetrics() { return false; } publishStoredMetrics() {} }',
};
const variants = [
  { name: 'as shipped (Tracer + Metrics)', plugins: [] },
  { name: 'without the Tracer', plugins: [stub(noTracer)] },
  { name: 'without Tracer and Metrics', plugins: [stub({ ...noTracer, ...noMetrics })] },
];

/** Imports the bundle and serves one event in a fresh process; answers its init (import) and first-invocation times. */
const child = `
const started = performance.now();
const { handler } = await import(process.env.BENCH_BUNDLE);
const imported = performance.now();
await handler(JSON.parse(process.env.BENCH_EVENT), { functionName: 'bench', awsRequestId: 'bench', getRemainingTimeInMillis: () => 10000 });
process.stderr.write('BENCH ' + JSON.stringify({ initMs: imported - started, firstInvokeMs: performance.now() - imported }) + '\\n');
`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const log = (message: string) => process.stderr.write(`[bench:telemetry] ${message}\n`);

const main = async () => {
  const dir = mkdtempSync(join(os.tmpdir(), 'ledger-bench-telemetry-'));
  try {
    const bundles = [];
    for (const fn of functions) {
      for (const variant of variants) {
        const outfile = join(dir, `${fn.name}-${bundles.length}`, 'index.mjs');
        const { bytes, tracingModuleBytes } = await bundleAsLambda(fn.entry, outfile, { plugins: variant.plugins });
        bundles.push({ fn, variant, outfile, bytes: bytes + tracingModuleBytes, initMs: [] as number[], firstInvokeMs: [] as number[] });
      }
    }
    log(`${bundles.length} bundles built; ${runs} cold starts each (interleaved, after one discarded round that warms the file cache)`);
    for (let run = -1; run < runs; run++) {
      for (const bundle of bundles) {
        const result = spawnSync(process.execPath, ['--input-type=module', '-e', child], {
          env: {
            PATH: process.env.PATH,
            BENCH_BUNDLE: bundle.outfile,
            BENCH_EVENT: JSON.stringify(bundle.fn.event),
            AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
            LAMBDA_TASK_ROOT: join(bundle.outfile, '..'),
            _HANDLER: 'index.handler',
            _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
            AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:9',
            AWS_REGION: 'eu-north-1',
            TABLE_NAME: 'bench',
            JWT_ISSUER: 'https://issuer.example',
            POWERTOOLS_LOG_LEVEL: 'ERROR',
            POWERTOOLS_SERVICE_NAME: 'ledger-api',
          },
          encoding: 'utf8',
        });
        const line = result.stderr.split('\n').find((text) => text.startsWith('BENCH '));
        if (result.status !== 0 || !line) throw new Error(`${bundle.fn.name} (${bundle.variant.name}) failed: ${result.stderr.slice(-2000)}`);
        const { initMs, firstInvokeMs } = JSON.parse(line.slice(6)) as { initMs: number; firstInvokeMs: number };
        if (run < 0) continue;
        bundle.initMs.push(initMs);
        bundle.firstInvokeMs.push(firstInvokeMs);
      }
    }
    const rows = bundles.map((bundle) => ({
      function: bundle.fn.name,
      variant: bundle.variant.name,
      bundleKiB: Math.round(bundle.bytes / 102.4) / 10,
      initMs: Math.round(median(bundle.initMs) * 10) / 10,
      firstInvokeMs: Math.round(median(bundle.firstInvokeMs) * 10) / 10,
    }));
    console.log(`Node ${process.version}, medians of ${runs} cold starts (fresh process: import the bundle, serve one event, tracing on)\n`);
    console.log('| function | bundle | size (minified, with tracing.mjs) | init (import) | first invocation |');
    console.log('|---|---|---|---|---|');
    for (const row of rows) console.log(`| ${row.function} | ${row.variant} | ${row.bundleKiB} KiB | ${row.initMs} ms | ${row.firstInvokeMs} ms |`);
    log(`wrote ${writeBenchResults('telemetry', { node: process.version, runs, rows })}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

runBench(main);
