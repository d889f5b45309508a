import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * Where a test file's CDK apps write their cloud assembly: a folder per app, all under one folder
 * removed after the file (an App without an outdir leaves a cdk.out* folder in the temp folder).
 * Call at the top of a test file.
 */
export const appOutdirs = (): (() => string) => {
  const root = mkdtempSync(join(tmpdir(), 'ledger-cdk-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let apps = 0;
  return () => join(root, `app-${++apps}`);
};
