import type { Reporter, SerializedError, TestModule } from 'vitest/node';

export interface RunCounts {
  passed: number;
  failed: number;
  skipped: number;
}

/**
 * Counts a run as CI reads it: each test by its state, plus one failure for each file or suite
 * that failed without a failed test to show for it (a file that could not load, a beforeAll that
 * threw and left its tests skipped) and one for each error outside any test.
 */
export const countRun = (testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError> = []): RunCounts => {
  const counts = { passed: 0, failed: unhandledErrors.length, skipped: 0 };
  for (const module of testModules) {
    let failedTests = 0;
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') counts.passed++;
      else if (state === 'failed') failedTests++;
      else counts.skipped++;
    }
    const failedSuites = [...module.children.allSuites()].filter(
      (suite) => suite.state() === 'failed' && ![...suite.children.allTests()].some((test) => test.result().state === 'failed'),
    ).length;
    const moduleFailedAlone = module.state() === 'failed' && failedTests === 0 && failedSuites === 0;
    counts.failed += failedTests + failedSuites + (moduleFailedAlone ? 1 : 0);
  }
  return counts;
};

/** Ends the run with the plain closing line CI reads: "tests: N passed, N failed, N skipped". */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    const counts = countRun(testModules, unhandledErrors);
    process.stdout.write(`\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
