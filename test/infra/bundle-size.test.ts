import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleBudgetBytes, bundleBudgetExceptions, bundleLambda, lambdaEntries, type LambdaBundle } from '../../infra/stacks/bundled-assets';

/**
 * Every Lambda bundled as the stack bundles it (esbuild, the same options): its bytes and what is in
 * it are deterministic, so they are asserted here; its init time is measured by npm run bench:cold-start.
 */
const repoRoot = resolve('.');
const outDir = mkdtempSync(join(os.tmpdir(), 'ledger-bundle-size-'));
const bundles = new Map<string, LambdaBundle>();

beforeAll(async () => {
  // Two at a time: the machine is shared.
  const queue = [...lambdaEntries];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) bundles.set(next.name, await bundleLambda(next.name, next.entry, outDir, repoRoot));
  };
  await Promise.all([worker(), worker()]);
}, 900_000);

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;

describe('Lambda bundles', () => {
  it('lists every function of functions/ (each folder with a handler is a Lambda)', () => {
    const folders = readdirSync(join(repoRoot, 'functions'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && readdirSync(join(repoRoot, 'functions', entry.name)).includes('handler.ts'))
      .map((entry) => entry.name)
      .sort();
    expect(lambdaEntries.map((lambda) => lambda.name).sort()).toEqual(folders);
  });

  it('every bundle is at most 1 MiB, unless it is listed with its reason', () => {
    const over = [...bundles.values()].filter((bundle) => bundle.bytes > bundleBudgetBytes && !bundleBudgetExceptions[bundle.name]);
    expect(over.map((bundle) => `${bundle.name}: ${kib(bundle.bytes)}`)).toEqual([]);
    expect(bundles.size).toBe(lambdaEntries.length);
  });

  it('lists no bundle that is within the budget (a reason that no longer holds goes)', () => {
    const stale = Object.keys(bundleBudgetExceptions).filter((name) => (bundles.get(name)?.bytes ?? 0) <= bundleBudgetBytes);
    expect(stale).toEqual([]);
    for (const reason of Object.values(bundleBudgetExceptions)) expect(reason.length).toBeGreaterThan(20);
  });

  it('bundles only the parts of zod the schemas use (z imported as a namespace: none of its other locales)', () => {
    for (const bundle of bundles.values()) {
      const locales = bundle.inputs.filter((input) => /node_modules\/zod\/v4\/locales\/(?!en\.js|index\.js)/.test(input));
      expect(locales, bundle.name).toEqual([]);
    }
  });

  it('bundles the OpenAPI generator, the YAML writer and the MCP SDK only where they are used', () => {
    const holders = (input: RegExp) => [...bundles.values()].filter((bundle) => bundle.inputs.some((file) => input.test(file))).map((bundle) => bundle.name).sort();
    expect(holders(/^shared\/openapi\/document\.ts$/)).toEqual(['mcp', 'openapi']);
    expect(holders(/node_modules\/yaml\//)).toEqual(['openapi']);
    expect(holders(/node_modules\/@modelcontextprotocol\/sdk\//)).toEqual(['mcp']);
  });

  it('keeps the functions that answer from DynamoDB alone free of the S3 client', () => {
    const withS3 = [...bundles.values()].filter((bundle) => bundle.sdkPackages.includes('@aws-sdk/client-s3')).map((bundle) => bundle.name).sort();
    expect(withS3).toEqual(['documents', 'import-worker', 'imports', 'mcp', 'upload-worker']);
  });
});
