import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const fixtures = fileURLToPath(new URL('../fixtures/summary-reporter', import.meta.url));

describe('the summary line CI reads', () => {
  it('counts a file that cannot load and a suite whose setup throws as failed, beside failed tests', () => {
    const run = spawnSync(process.execPath, [fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url)), 'run', '--root', fixtures], {
      encoding: 'utf8',
      env: { ...process.env, CI: '1', NO_COLOR: '1' },
    });
    // 4 fixture files: one passing test; a failing and a passing test; a beforeAll that throws
    // (two tests left skipped); a file that throws while loading.
    expect(run.stdout).toContain('tests: 2 passed, 3 failed, 2 skipped');
    expect(run.status).toBe(1);
  });
});
