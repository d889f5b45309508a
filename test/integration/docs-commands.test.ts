import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStack } from '../support/stack';

/**
 * The documentation's commands, run as written: every ```bash block of docs/*.md and of the README
 * (the README's walkthrough blocks are test/integration/readme.test.ts's), in order, one bash per
 * file with `set -euo pipefail`, against this run's stack on its free ports (LEDGER_STACK_FILE
 * points `npm run -s stack:env` and the blocks at a copy of its stack file). A block that cannot
 * run here carries `<!-- not run: <reason> -->` on the line before it.
 */

interface Block {
  file: string;
  code: string;
  /** 'run', 'walkthrough' (readme.test.ts runs it) or the reason it is not run. */
  mark: { kind: 'run' } | { kind: 'walkthrough' } | { kind: 'not run'; reason: string };
}

const docFiles = ['README.md', ...readdirSync(resolve('docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];

export const bashBlocks = (file: string, markdown: string): Block[] =>
  [...markdown.matchAll(/(?:^|\n)(?:(<!--[^\n]*-->)[ \t]*\n)?```bash\n([\s\S]*?)\n```/g)].map((match) => {
    const comment = match[1];
    const notRun = comment?.match(/^<!--\s*not run:\s*(.*?)\s*-->$/);
    const mark: Block['mark'] = notRun ? { kind: 'not run', reason: notRun[1]! } : comment?.match(/^<!--\s*tested: walkthrough\s*-->$/) ? { kind: 'walkthrough' } : { kind: 'run' };
    return { file, code: match[2]!, mark };
  });

const blocksOf = (file: string) => bashBlocks(file, readFileSync(resolve(file), 'utf8'));
const runnable = (file: string) => blocksOf(file).filter((block) => block.mark.kind === 'run');

/** The blocks that do not run here, by file and first line: adding one is a decision this list records. */
const expectedNotRun: [string, string][] = [
  ['README.md', 'npm install'],
  ['README.md', 'npm test'],
  ['docs/api-reference.md', 'npm run client -- --check'],
  ['docs/deploying.md', 'npm run synth                    # offline; fails on any unacknowledged cdk-nag finding'],
  ['docs/deploying.md', 'npm run -s smoke -- --base-url <ApiUrl> --token-url <TokenUrl> --client-id <id> --client-secret <secret>'],
  ['docs/deploying.md', 'npm run -s admin -- dlq-redrive --queue imports --max 10   # back to the source queue, one at a time'],
  ['docs/mcp.md', 'npm run mcp:check -- --stack-file "$STACK"'],
  ['docs/operations.md', 'npm run deploy -- -c alarmEmail=ops@example.com -c alarmHttpsEndpoint=https://alerts.example.com/hook'],
  ['docs/operations.md', 'npm run -s admin -- dlq-list --resource-prefix ledger --region eu-north-1'],
  ['docs/performance.md', 'npm run bench -- --read-samples 50 --samples 10 --import-samples 1 --no-worker   # a shorter run'],
  ['docs/testing.md', 'npx vitest run test/integration/companies.test.ts'],
  ['docs/testing.md', 'npm run bench:suite'],
  ['docs/testing.md', 'npm run bench:suite -- --project stack --per-file --files-shown 40'],
  ['docs/webhooks.md', 'npm run webhooks:listen -- --events company.updated,import.requested'],
];

/** What each file's commands must print (besides exiting 0): the answers that show they did their job. */
const expectedOutput: Record<string, (out: string, stack: { baseUrl: string }) => void> = {
  'docs/integrators.md': (out) => {
    expect(out).toContain('"mode": "SYSTEM"');
    expect(out).toMatch(/^created (\S+), replayed \1$/m); // the same Idempotency-Key replays the company
    expect(out).toContain('"error": "not_found"');
    expect(out).toMatch(/^RateLimit-Limit: \d+/im);
    expect(out).toContain('"reconciliationStatus": "unreconciled"'); // the demo books' open transactions
    expect(out).toContain('"label": "February"');
    expect(out).toContain('"source": "manual"');
    expect(out).toContain('"total": -129.00');
  },
  'docs/imports-and-ledger.md': (out) => {
    expect(out.match(/^succeeded$/gm)?.length).toBe(4);
    expect(out).toMatch(/^2$/m); // rowsUpdated of the correction
    expect(out).toContain('"change": "updated"');
    expect(out).toContain('import:general_ledger_lines');
    expect(out).toMatch(/^595\.50$/m);
  },
  'docs/saft.md': (out) => {
    expect(out).toMatch(/^200$/m); // the PUT
    expect(out).toMatch(/^queued$/m);
    expect(out).toMatch(/^succeeded$/m);
    expect(out).toMatch(/^Selskapet AS$/m);
    expect(out).toContain('"lines": 5');
    expect(out).toMatch(/^true$/m); // the control totals match
    expect(out).toContain('"accountCode": "1925"');
  },
  'docs/deploying.md': (out) => {
    expect(out).toMatch(/^QUEUE\s+DEAD-LETTER QUEUE\s+VISIBLE\s+IN FLIGHT$/m);
    expect(out).toMatch(/^webhooks\s+\S+-webhooks-dlq\s+\d+\s+\d+$/m);
    expect(out).toMatch(/^\d+ messages? of \S+-imports-dlq/m);
    expect(out).toMatch(/^Would move \d+ messages? from \S+-imports-dlq to \S+-imports \(dry run: nothing changed\)$/m);
    expect(out).toMatch(/^Would delete \d+ messages? \(approximately\) of \S+-imports-dlq \(dry run: nothing changed\)$/m);
    expect(out).toContain('  ok    the trial balance holds the lines and sums to zero');
    expect(out).toMatch(/All steps passed in \d+\.\d s\./);
  },
  'docs/documents.md': (out) => {
    expect(out).toContain('"fileName": "kvittering-2026-03-14.txt"');
    expect(out).toContain('Kvittering 2026-03-14'); // the downloaded bytes
    expect(out).toContain('"deleted": true');
    expect(out).toMatch(/^available$/m);
  },
  'docs/webhooks.md': (out) => {
    expect(out).toContain('Usage: npm run webhooks:listen');
    expect(out).toContain('"type": "company.updated"');
    expect(out).toMatch(/^pending_verification$/m);
    expect(out).toContain('"deleted": true');
    expect(out).toMatch(/^company\.created$/m);
  },
  'docs/mcp.md': (out, stack) => {
    expect(out).toMatch(/^get_caller_identity$/m); // tools/list through the Inspector's CLI with the accountant's token
    expect(out).toContain('"name": "Havbris Fiskeri AS"');
    expect(out).toContain('"name": "Bakeriet Solsiden AS"');
    expect(out).toContain(`"url": "${stack.baseUrl}/mcp"`);
    expect(out).toContain(`resource_metadata="${stack.baseUrl}/.well-known/oauth-protected-resource/mcp"`);
    expect(out).toContain('"bearer_methods_supported"');
    expect(out).toContain('"name": "accounting-ledger"');
    expect(out).toMatch(/^0\.00$/m); // the demo bakery's trial balance closes at zero
  },
  'docs/operations.md': (out) => {
    expect(out).toMatch(/^QUEUE\s+DEAD-LETTER QUEUE\s+VISIBLE\s+IN FLIGHT$/m);
    expect(out).toMatch(/^\d+ messages? of \S+-uploads-dlq/m);
    expect(out).toMatch(/^\d+ outbox events? pending for more than 600 s \(dry run: nothing relayed\)$/m);
  },
  'docs/people-and-access.md': (out) => {
    expect(out).toMatch(/^USER$/m);
    expect(out).toContain('"decision": "deny"');
    expect(out).toContain('"reason": "no_matching_rule"');
    expect(out).toContain('"mode": "INTERACTIVE"');
    expect(out).toContain('"S256"');
  },
  'docs/api-reference.md': (out) => {
    expect(out).toContain('<title>not_found (404)');
    expect(out).toContain('openapi: 3.0.3');
  },
  'docs/testing.md': (out) => {
    expect(out).toContain('HTTP 200 OK');
    expect(out).toContain('HTTP 202');
    expect(out).toContain('"kind": "accounts"');
    expect(out).toContain('"type": "import:accounts"');
  },
};

const runBash = (script: string): Promise<{ status: number | null; stdout: string; stderr: string }> =>
  new Promise((resolveRun) => {
    const child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], {
      cwd: resolve('.'),
      env: { ...process.env, LEDGER_STACK_FILE: stackFile },
      timeout: 150_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('close', (status) => resolveRun({ status, stdout, stderr }));
  });

let dir: string;
let stackFile: string;
/** Each file's run, all started at once (each creates the companies it writes to). */
const runs = new Map<string, Promise<{ status: number | null; stdout: string; stderr: string }>>();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'docs-commands-'));
  stackFile = join(dir, 'stack.json');
  writeFileSync(stackFile, JSON.stringify(testStack(), null, 2));
  for (const file of Object.keys(expectedOutput)) runs.set(file, runBash(runnable(file).map((block) => block.code).join('\n')));
});

afterAll(async () => {
  await Promise.allSettled(runs.values());
  rmSync(dir, { recursive: true, force: true });
});

describe('the commands of the README and docs/', () => {
  it('marks every block that does not run here with a reason, and no others', () => {
    const notRun = docFiles.flatMap(blocksOf).filter((block) => block.mark.kind === 'not run');
    for (const block of notRun) expect((block.mark as { reason: string }).reason.length, `${block.file}: ${block.code}`).toBeGreaterThanOrEqual(10);
    expect(notRun.map((block) => [block.file, block.code.split('\n')[0]])).toEqual(expectedNotRun);
  });

  it('hard-codes no port: every command reads the stack file', () => {
    for (const block of docFiles.flatMap(blocksOf)) expect(block.code, block.file).not.toMatch(/(127\.0\.0\.1|localhost):300[01]\b/);
  });

  it('has expectations for exactly the files with commands to run, and the README points at every doc', () => {
    expect(docFiles.filter((file) => runnable(file).length > 0).sort()).toEqual(Object.keys(expectedOutput).sort());
    const readme = readFileSync(resolve('README.md'), 'utf8');
    for (const file of docFiles.filter((name) => name.startsWith('docs/'))) expect(readme).toContain(`](${file})`);
  });

  it.each(Object.keys(expectedOutput))('%s: every block runs as written', async (file) => {
    const result = await runs.get(file)!;
    expect(result.status, `${result.stderr.slice(-3000)}\n${result.stdout.slice(-3000)}`).toBe(0);
    expectedOutput[file]!(result.stdout, testStack());
  }, 180_000);
});
