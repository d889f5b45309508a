import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
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
});
