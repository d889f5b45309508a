import { build, type Metafile } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * `npm run admin` starts without the domain services: --help and the dlq-* commands load only the
 * CLI and the queue tools; infra/tools/admin-records.ts (and the services, repositories and
 * DynamoDB client behind it) is imported only when a command on records runs. Checked on the
 * static import graph, as esbuild reads it: what admin.ts loads before any dynamic import.
 */
const staticInputs = (metafile: Metafile, entry: string): Set<string> => {
  const seen = new Set<string>();
  const inputs = new Set<string>();
  const visit = (output: string) => {
    if (seen.has(output)) return;
    seen.add(output);
    const file = metafile.outputs[output]!;
    for (const input of Object.keys(file.inputs)) inputs.add(input);
    for (const imported of file.imports) if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
  };
  visit(Object.keys(metafile.outputs).find((output) => metafile.outputs[output]!.entryPoint === entry)!);
  return inputs;
};

describe('npm run admin', () => {
  it('loads the domain services only for the commands on records', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'admin-startup-'));
    try {
      const { metafile } = await build({
        entryPoints: [resolve('infra/tools/admin.ts')],
        outdir: dir,
        bundle: true,
        splitting: true,
        format: 'esm',
        platform: 'node',
        packages: 'external',
        metafile: true,
        write: false,
        logLevel: 'error',
      });
      const atStart = [...staticInputs(metafile, 'infra/tools/admin.ts')];
      const later = Object.values(metafile.inputs).length;
      expect(atStart).toContain('infra/tools/admin.ts');
      expect(atStart).toContain('infra/tools/dead-letter-queues.ts');
      expect(atStart.filter((input) => /^infra\/tools\/admin-records\.ts$|^shared\/[^/]+\/(service|repository|relay)\.ts$|schemas\.ts$/.test(input))).toEqual([]);
      expect(later).toBeGreaterThan(atStart.length + 50);
      // What is left out is loaded with the first command on records.
      expect(Object.keys(metafile.inputs)).toContain('infra/tools/admin-records.ts');
      expect(Object.keys(metafile.inputs)).toContain('shared/companies/service.ts');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
