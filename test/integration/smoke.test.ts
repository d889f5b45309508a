import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support/api';
import { newFirm } from '../support/people';
import { queueWaitMs } from '../support/poll';
import { testStack } from '../support/stack';
import { runTool } from '../support/tools';

/** `npm run smoke` against the run's stack, as devops runs it against a deployment (explicit URLs and a client of their own). */
const smoke = (...args: string[]) => runTool('infra/tools/smoke.ts', ...args);

let firm: Awaited<ReturnType<typeof newFirm>>;
beforeAll(async () => {
  firm = await newFirm('Smoke');
});

const deployment = () => ['--base-url', testStack().baseUrl, '--token-url', testStack().authUrl, '--client-id', firm.system.client.clientId];

describe('npm run smoke', () => {
  it('passes every step against a working deployment and deletes the company it made (reading past a busy feed)', async () => {
    // More of the organization's feed before the smoke test's own events than one read of 20 a page goes through (10 queries).
    const busy = await firm.company();
    for (let round = 0; round < 21; round++) {
      await Promise.all(
        Array.from({ length: 10 }, async (_, i) =>
          expect((await api('PATCH', `/v1/companies/${busy}`, { token: firm.systemToken, body: { displayName: `Travel AS ${round}-${i}` } })).status).toBe(200),
        ),
      );
    }
    const run = await smoke(...deployment(), '--client-secret', firm.system.clientSecret, '--timeout', String(queueWaitMs / 1000));
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const steps = run.stdout.split('\n').filter((line) => line.startsWith('  '));
    expect(steps.map((line) => line.replace(/ \(\d+ ms\)$/, ''))).toEqual([
      '  ok    the OpenAPI document is served',
      '  ok    a token (client credentials)',
      '  ok    whoami: a system client',
      '  ok    a company of its own',
      '  ok    an import of a chart (queue and import worker)',
      '  ok    an import of GL lines',
      '  ok    the trial balance holds the lines and sums to zero',
      '  ok    the job of the import succeeded',
      '  ok    the event feed has the company’s events (outbox, relay)',
      '  ok    the company is deleted again',
    ]);
    expect(run.stdout).toMatch(/All steps passed in \d+\.\d s\./);
    // The company it made is gone from the firm's list.
    const companies = await api('GET', '/v1/companies', { token: firm.systemToken });
    expect(companies.body.data.filter((company: { name: string }) => company.name.startsWith('Smoke test'))).toEqual([]);
  });

  it('stops at the first failing step with exit 1 and names it', async () => {
    // A secret may start with a dash (base64url): it is taken as the value, and here refused.
    const run = await smoke(...deployment(), '--client-secret', '-not-the-secret');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('  ok    the OpenAPI document is served');
    expect(run.stdout).toMatch(/ {2}FAIL {2}a token \(client credentials\): Token request failed: 401/);
    expect(run.stdout).not.toContain('whoami');
  });

  it('refuses half a deployment and prints its usage on --help', async () => {
    const half = await smoke('--base-url', testStack().baseUrl);
    expect(half.code).toBe(1);
    expect(half.stderr).toContain('--base-url, --token-url, --client-id and --client-secret go together');
    const help = await smoke('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: npm run -s smoke -- [flags]');
  });
});
