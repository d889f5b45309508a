import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import { LongestFirstSequencer, longestFiles } from '../support/sequencer';

const spec = (project: string, file: string) => ({ project: { name: project, config: { sequence: { groupOrder: 0 }, isolate: project === 'unit' } }, moduleId: `/repo/${file}` }) as unknown as TestSpecification;

describe('the test sequencer', () => {
  it('names only files that exist, each once', () => {
    for (const file of longestFiles) expect(existsSync(file), file).toBe(true);
    expect(new Set(longestFiles).size).toBe(longestFiles.length);
  });

  it('runs the unit project, then the stack project, each with its listed files first in the order listed', async () => {
    const cache = { getFileTestResults: () => undefined, getFileStats: () => undefined };
    const sequencer = new LongestFirstSequencer({ cache, config: { root: '/repo' } } as never);
    const files = [
      spec('stack', 'test/integration/whoami.test.ts'),
      spec('stack', 'test/integration/readme.test.ts'),
      spec('unit', 'test/unit/json.test.ts'),
      spec('stack', 'test/integration/docs-commands.test.ts'),
      spec('unit', 'test/local/dynamodb-local.test.ts'),
    ];
    const order = (await sequencer.sort(files)).map((file) => `${file.project.name} ${file.moduleId.slice('/repo/'.length)}`);
    expect(order).toEqual([
      'unit test/local/dynamodb-local.test.ts',
      'unit test/unit/json.test.ts',
      'stack test/integration/readme.test.ts',
      'stack test/integration/docs-commands.test.ts',
      'stack test/integration/whoami.test.ts',
    ]);
  });
});
