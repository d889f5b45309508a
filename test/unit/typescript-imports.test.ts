import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typescriptNodeArgs } from '../../infra/tools/typescript-node';

/** How the npm scripts run a tool: Node.js strips the types, the hook resolves extensionless imports. */
const run = (dir: string, entry: string) =>
  promisify(execFile)(process.execPath, [...typescriptNodeArgs, join(dir, entry)], { cwd: dir, encoding: 'utf8' }).then(
    ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'typescript-imports-'));
  mkdirSync(join(dir, 'folder'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  writeFileSync(join(dir, 'sibling.ts'), 'export const sibling = (n: number): string => `sibling ${n}`;\n');
  writeFileSync(join(dir, 'folder', 'index.ts'), "export const folder: string = 'folder index';\n");
  writeFileSync(join(dir, 'data.json'), '{"answer":42}');
  writeFileSync(
    join(dir, 'entry.ts'),
    [
      "import type { Dirent } from 'node:fs';",
      "import { sibling } from './sibling';",
      "import { folder } from './folder';",
      "import { createRequire } from 'node:module';",
      'const names: Dirent[] = [];',
      "const data = createRequire(import.meta.url)('./data.json') as { answer: number };",
      'console.log(sibling(names.length), folder, data.answer);',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'missing.ts'), "import { nothing } from './nowhere';\nconsole.log(nothing);\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tools run on Node.js with typescript-imports.mjs', () => {
  it('resolves an extensionless import to the .ts file or the folder index.ts, and leaves other specifiers to Node.js', async () => {
    const result = await run(dir, 'entry.ts');
    expect(result).toEqual({ code: 0, stdout: 'sibling 0 folder index 42\n', stderr: '' });
  });

  it('an import of nothing fails as Node.js fails it, naming the specifier', async () => {
    const result = await run(dir, 'missing.ts');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ERR_MODULE_NOT_FOUND[\s\S]*nowhere|nowhere[\s\S]*ERR_MODULE_NOT_FOUND/);
  });
});
