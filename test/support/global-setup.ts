import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { LocalStack, StackInfo } from '../../infra/local/stack';
import { register } from 'tsx/esm/api';
import type * as StackHostModule from './stack-host';
import { testWebhookSchedule } from './webhook-windows';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the started stack is described (test/support/stack.ts reads it): written once it is ready. */
    stackReadyFile: string;
  }
}

/** What the global setup writes once the stack is up (or failed to start). */
export interface ReadyStack {
  stack: StackInfo;
  /** process.version of the process that runs the local stack (gateway, handlers, workers). */
  stackNodeVersion: string;
  /** The OpenAPI document, built once for the run (test/support/openapi-validator.ts). */
  openapiDocument: unknown;
  /** The variables the stack set in its process (workers started before it was up lack them). */
  env: Record<string, string>;
}

/** Written aside, then renamed: a reader never sees half of it. */
const writeWhole = (file: string, value: unknown) => {
  writeFileSync(`${file}.partial`, JSON.stringify(value));
  renameSync(`${file}.partial`, file);
};

let stack: LocalStack | undefined;
let starting: Promise<void> | undefined;
let dataDir: string | undefined;
type StackHost = typeof StackHostModule;
let hostModule: Promise<StackHost> | undefined;

/**
 * The stack's modules load through tsx, as `npm start` loads them, not through vitest's module
 * runner: the AWS SDK then runs its CommonJS build (the runner loaded its ESM build, which took
 * about twice the CPU per call), and the stack is up sooner. One namespace, so the teardown reads
 * the same IAM log the handlers wrote.
 */
const loadHost = (): Promise<StackHost> => register({ namespace: 'local-stack' }).import('./stack-host.ts', import.meta.url) as Promise<StackHost>;

/**
 * Starts the whole local stack once per test run, on free ports (a running `npm start` does not
 * collide). It returns at once: the stack starts while the unit tests run, and each file of the
 * stack project waits for it (test/support/stack-ready.ts).
 */
export default function setup(project: TestProject) {
  const dir = (dataDir = mkdtempSync(join(tmpdir(), 'ledger-test-')));
  const readyFile = join(dir, 'ready.json');
  project.provide('stackReadyFile', readyFile);
  // Webhook schedules in seconds (the handlers run in this process): see test/support/webhook-windows.ts.
  Object.assign(process.env, {
    WEBHOOK_RETRY_DELAYS_SECONDS: testWebhookSchedule.retryDelaysSeconds,
    WEBHOOK_TIMEOUT_SECONDS: String(testWebhookSchedule.timeoutSeconds),
    WEBHOOK_VERIFICATION_DELAY_SECONDS: String(testWebhookSchedule.verificationDelaySeconds),
    WEBHOOK_DISABLE_AFTER_SECONDS: String(testWebhookSchedule.disableAfterSeconds),
  });
  const envBefore = { ...process.env };
  // The stack's modules load in the background too: the unit tests start meanwhile.
  const host = (hostModule = loadHost());
  // A short authorizer cache (the authorizer's decisions per token) so the revocation tests wait seconds, not minutes.
  // Failed sign-ins: 5 per account and per address as deployed, a 10 s window: the throttle tests wait seconds,
  // and each of their failures lands within the window of the one before even when a request stalls.
  starting = host
    .then(({ startLocalStack, suiteRateLimit }) => startLocalStack({
    port: 0,
    authPort: 0,
    dataDir: dir,
    authorizerCacheTtlSeconds: 1,
    signInThrottle: { maxFailures: 5, windowSeconds: 10 },
    seedClientRateLimit: suiteRateLimit,
    // The functions' metrics (EMF lines) go to a file of the run, not to the test output (test/integration/metrics.test.ts reads it).
    metricsFile: join(dir, 'metrics.log'),
    idlePollCapMs: 100, // idle pollers back off no further than the stream's 100 ms
  }))
    .then(async (started) => {
      stack = started;
      const { buildOpenApiDocument } = await host;
      const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && envBefore[entry[0]] !== entry[1]));
      const ready: ReadyStack = { stack: started.info, stackNodeVersion: process.version, openapiDocument: buildOpenApiDocument(), env };
      writeWhole(readyFile, ready);
    })
    .catch((error: unknown) => writeWhole(readyFile, { error: (error as Error).stack ?? String(error) }));
  return async () => {
    await starting;
    await stack?.stop();
    const { denials } = await hostModule!;
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    // A handler touched DynamoDB outside its function's grants (infra/local/iam.ts): the run fails
    // even when the test that caused it tolerated the resulting 500.
    if (denials.length > 0) throw new Error(`Local IAM denied ${denials.length} request(s):\n${[...new Set(denials)].join('\n')}`);
  };
}
