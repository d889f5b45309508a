import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importKindNames } from '../../shared/imports/schemas';

const source = (path: string) => readFileSync(resolve(import.meta.dirname, '../..', path), 'utf8');

/** Use cases and workers that reach storage only through repositories (which own expressions and keys). */
const throughRepositories = [
  'shared/imports/pipeline.ts',
  'shared/imports/worker.ts',
  'shared/imports/post-fetch.ts',
  'shared/imports/completion.ts',
  'shared/imports/fetch-completion.ts',
  'shared/ledger/readiness.ts',
  'shared/webhooks/relay.ts',
  'shared/webhooks/fanout.ts',
];

describe('storage seam', () => {
  it.each(throughRepositories)('%s builds no DynamoDB request and no key', (path) => {
    const text = source(path);
    expect(text).not.toMatch(/@aws-sdk\/lib-dynamodb/);
    expect(text).not.toMatch(/\b(Update|Condition|KeyCondition|Filter|Projection)Expression\b/);
    expect(text).not.toMatch(/from '\.\.?\/(?:[\w-]+\/)*keys'/);
  });

  it.each(['shared/imports/pipeline.ts', 'shared/imports/worker.ts'])('%s names no import kind (the kinds carry what differs)', (path) => {
    const text = source(path);
    for (const name of importKindNames) expect(text, name).not.toContain(`'${name}'`);
  });

  it("no feature builds another feature's keys: a key module is imported from its own folder only", () => {
    const root = resolve(import.meta.dirname, '../..');
    const walk = (dir: string): string[] => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : name.endsWith('.ts') ? [join(dir, name)] : []));
    const featureOf = (path: string) => relative(join(root, 'shared'), path).split('/')[0];
    const crossings = walk(join(root, 'shared')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']*keys)'/g)]
        .map((match) => resolve(file, '..', match[1]!))
        .filter((target) => featureOf(target) !== featureOf(file))
        .map((target) => `${relative(root, file)} -> ${relative(root, target)}`),
    );
    expect(crossings).toEqual([]);
  });

  it('services hold no DynamoDB expressions', () => {
    const root = resolve(import.meta.dirname, '../..');
    const walk = (dir: string): string[] => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : name === 'service.ts' ? [join(dir, name)] : []));
    const services = walk(join(root, 'shared'));
    expect(services.length).toBeGreaterThan(10);
    for (const file of services) expect(readFileSync(file, 'utf8'), relative(root, file)).not.toMatch(/\b(Update|Condition|KeyCondition|Filter|Projection)Expression\b/);
  });
});
