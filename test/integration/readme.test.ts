import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStack } from '../support/stack';

/**
 * The README's walkthrough, run verbatim: every ```bash block after a `<!-- tested: walkthrough -->`
 * marker, in order, in one bash (set -euo pipefail), against the test run's local stack: the blocks
 * read only a stack file (LEDGER_STACK_FILE, `.local/stack.json` by default), so this test writes
 * the run's stack information to one of its own. The walkthrough creates the company it writes to;
 * what it reads of the seed (the a-system client, the accountant and her two companies) no other
 * test changes.
 */
export const walkthroughBlocks = (readme: string): string[] =>
  [...readme.matchAll(/<!-- tested: walkthrough -->\s*\n```bash\n([\s\S]*?)\n```/g)].map((match) => match[1]!);

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'readme-walkthrough-'));
  writeFileSync(join(dir, 'stack.json'), JSON.stringify(testStack(), null, 2));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('README walkthrough', () => {
  it('has the blocks of the first import: company, chart, opening balances, GL lines, readiness, trial balance, correction, typed client', () => {
    const script = walkthroughBlocks(readFileSync(resolve('README.md'), 'utf8')).join('\n');
    for (const step of ['/v1/companies', 'post_import accounts', 'post_import opening-balances', 'post_import general-ledger-lines', 'imports/readiness', 'trial-balance', 'general-ledger/lines', 'post_import general-ledger-lines/deletions', 'examples/first-trial-balance.ts']) {
      expect(script).toContain(step);
    }
  });

  it('runs verbatim against the local stack: every step succeeds and the output is pretty JSON ending with a newline', async () => {
    const blocks = walkthroughBlocks(readFileSync(resolve('README.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    const result = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolveRun) => {
      const child = spawn('bash', ['-c', `set -euo pipefail\n${blocks.join('\n')}`], {
        cwd: resolve('.'),
        env: { ...process.env, LEDGER_STACK_FILE: join(dir, 'stack.json') },
        timeout: 240_000,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('close', (status) => resolveRun({ status, stdout, stderr }));
    });
    expect(result.status, `${result.stderr}\n${result.stdout.slice(-3000)}`).toBe(0);
    const out = result.stdout;
    expect(out.endsWith('\n')).toBe(true);
    // Imports: four succeed, and the deletion names the unknown id.
    expect(out.match(/"status": "succeeded"/g)?.length).toBeGreaterThanOrEqual(4);
    expect(out).toContain('"unknown": [\n      "GL-404"\n    ]');
    // The trial balance totals zero (exactly "0.00": amounts keep their decimals) and names the accounts.
    expect(out).toMatch(/^0\.00$/m);
    expect(out).toContain('"description": "Bank deposits"');
    // After the correction account 1920 closes at 50,000.00 + 1,250.00.
    expect(out).toContain('"closingBalance": 51250.00');
    // The typed client's trial balance: amounts as their exact text ("0.00", not the JS number 0).
    expect(out).toMatch(/^total\s+0\.00$/m);
    // Last, the seeded accountant signed in interactively: her session and exactly her two companies.
    const session = out.slice(out.lastIndexOf('"mode": "INTERACTIVE"'));
    expect(session).toContain('"organizationId": null');
    expect([...session.matchAll(/"name": "([^"]+)"/g)].map((m) => m[1]).sort()).toEqual(['Bakeriet Solsiden AS', 'Havbris Fiskeri AS']);
    // Nothing on stderr but npm's own notes about the machine's npm configuration.
    expect(result.stderr.split('\n').filter((line) => line && !line.startsWith('npm warn'))).toEqual([]);
  }, 300_000);
});
