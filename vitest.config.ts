import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/sequencer.ts';

// Handlers run in this process (the global setup's local stack) and in the workers: errors only in test output.
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
// Client secrets and passwords hashed at scrypt's lowest allowed cost (stored with the hash): the
// run hashes and checks hundreds; the deployed cost is proven by test/unit/client-secrets.test.ts.
process.env.SECRET_HASH_SCRYPT_COST ??= '1024';

/** The unit tests that read the run's stack (its Node.js version, its DynamoDB Local). */
const unitTestsOnTheStack = ['test/unit/runtime.test.ts', 'test/unit/trial-balance-property.test.ts'];
/** The unit tests that replace modules (vi.mock, vi.resetModules): each in a fresh module graph. */
const unitTestsThatReplaceModules = ['test/unit/db-retry.test.ts', 'test/unit/reconciliation-queue-worker.test.ts', 'test/unit/tracer.test.ts'];

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Handlers that tests run in their own process write no metrics; the stack's go to a file (test/support/global-setup.ts).
    env: { POWERTOOLS_LOG_LEVEL: 'ERROR', POWERTOOLS_METRICS_DISABLED: 'true', SECRET_HASH_SCRYPT_COST: process.env.SECRET_HASH_SCRYPT_COST },
    // Longer than the waits for the shared queues (test/support/poll.ts queueWaitMs).
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Six on two cores: a stack file mostly waits (on the stack's one process, on queue windows,
    // on a throttle's window), so three files a core keep both busy. On a 2-core machine the run
    // used 0.87 of both cores with 6 (two runs), 0.82 with 4 (two runs beside them): docs/testing.md.
    maxWorkers: 6,
    // The unit tests first, then the stack's; the longest files of each first (test/support/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        extends: true,
        // No stack: run on their own (npx vitest run test/unit/...), these start nothing.
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/local/**/*.test.ts', 'test/infra/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...unitTestsOnTheStack, ...unitTestsThatReplaceModules],
          // One worker process runs many files (modules load once per worker): files restore the env they change.
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'unit-isolated', include: unitTestsThatReplaceModules },
      },
      {
        extends: true,
        // The stack's test files and the app modules they import are transformed while the unit tests
        // run, not one by one as each new worker imports them (its files started ~10 s sooner: 124 s, was 125-129).
        server: { warmup: { ssrFiles: ['./shared/**/*.ts', './functions/**/*.ts', './infra/local/**/*.ts', './test/support/**/*.ts', './test/integration/**/*.ts'] } },
        test: {
          name: 'stack',
          include: ['test/integration/**/*.test.ts', ...unitTestsOnTheStack],
          // The local stack starts once per run, shared by every test file of this project.
          globalSetup: ['test/support/global-setup.ts'],
          // It starts in the background (the unit tests run meanwhile); each file waits for it.
          setupFiles: ['test/support/stack-ready.ts'],
          // One worker process runs many files: the app's modules, the SDK and the compiled OpenAPI
          // validators load once per worker, not once per file (each file creates its own data).
          isolate: false,
        },
      },
    ],
  },
});
