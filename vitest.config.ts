import { defineConfig } from 'vitest/config';

// Handlers run in this process (the global setup's local stack) and in the workers: errors only in test output.
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // The local stack starts once per run, shared by every test file.
    globalSetup: ['test/support/global-setup.ts'],
    env: { POWERTOOLS_LOG_LEVEL: 'ERROR' },
    // Longer than the waits for the shared queues (test/support/poll.ts queueWaitMs).
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
