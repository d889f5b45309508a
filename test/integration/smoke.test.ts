import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** A port nothing listens on (one just let go of): connections to it are refused. */
const closedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  await new Promise((closed) => server.close(closed));
  return port;
};

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
    // The company's line names it, so that one left behind can be found.
    expect(steps[3]).toMatch(/^ {2}ok {4}a company of its own \([0-9a-f-]{36}\) \(\d+ ms\)$/);
    expect(steps.map((line) => line.replace(/ \(\d+ ms\)$/, '').replace(/ \([0-9a-f-]{36}\)$/, ''))).toEqual([
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

  it('takes the client secret from LEDGER_CLIENT_SECRET when --client-secret is not given', async () => {
    // The child inherits the environment as it is when it is spawned (runTool spawns at once).
    process.env.LEDGER_CLIENT_SECRET = '-not-the-secret';
    const running = smoke(...deployment());
    delete process.env.LEDGER_CLIENT_SECRET;
    const run = await running;
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/ {2}FAIL {2}a token \(client credentials\): Token request failed: 401/);
  });

  it('refuses half a deployment and a bad --timeout as usage errors (exit 2) and prints its usage on --help and -h', async () => {
    const half = await smoke('--base-url', testStack().baseUrl);
    expect(half.code).toBe(2);
    expect(half.stderr).toContain('--base-url, --token-url, --client-id and --client-secret go together');
    expect(half.stderr).toContain('Usage: npm run -s smoke -- [flags]');
    const timeout = await smoke('--timeout', 'abc');
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toContain('--timeout takes seconds from 1 to 900');
    for (const flag of ['--help', '-h']) {
      const help = await smoke(flag);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toContain('Usage: npm run -s smoke -- [flags]');
    }
  });

  it('says the local stack may have stopped when its stack file names a closed port', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'smoke-'));
    try {
      const closed = `http://127.0.0.1:${await closedPort()}`;
      writeFileSync(join(dir, 'stack.json'), JSON.stringify({ ...testStack(), baseUrl: closed, authUrl: `${closed}/oauth2/token` }));
      const run = await smoke('--stack-file', join(dir, 'stack.json'));
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(run.stdout).toContain(`  FAIL  the OpenAPI document is served: cannot reach ${closed}`);
      expect(run.stdout).toContain('is the local stack still running? Start it with npm start.');
      expect(run.stdout).not.toContain('fetch failed');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails (exit 1) when every step passes but the company cannot be deleted, and names the company', async () => {
    // A deployment whose every step answers as it should but the final DELETE.
    const answers: Record<string, [number, unknown]> = {
      'GET /v1/openapi.json': [200, { openapi: '3.1.0' }],
      'POST /token': [200, { access_token: 'a-token' }],
      'GET /v1/whoami': [200, { mode: 'SYSTEM' }],
      'POST /v1/companies': [201, { id: 'company-left' }],
      'POST /v1/companies/company-left/imports/accounts': [202, { id: 'import-1', jobId: 'job-1' }],
      'POST /v1/companies/company-left/imports/general-ledger-lines': [202, { id: 'import-1', jobId: 'job-1' }],
      'GET /v1/companies/company-left/imports/import-1': [200, { id: 'import-1', jobId: 'job-1', status: 'succeeded', rowsFailed: 0 }],
      'GET /v1/companies/company-left/trial-balance': [200, { accounts: [{ accountCode: '1920' }, { accountCode: '3000' }], totals: { closingBalance: '0.00' } }],
      'GET /v1/jobs/job-1': [200, { id: 'job-1', status: 'succeeded' }],
      'GET /v1/events': [200, { data: [{ type: 'job.succeeded', sequence: 1 }], pagination: { next_cursor: null } }],
      'DELETE /v1/companies/company-left': [500, { title: 'Internal Server Error', detail: 'the deletion failed' }],
    };
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const [status, body] = answers[`${request.method} ${request.url!.split('?')[0]}`] ?? [404, { title: 'Not Found' }];
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const run = await smoke('--base-url', base, '--token-url', `${base}/token`, '--client-id', 'a-client', '--client-secret', 'a-secret', '--timeout', '5');
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(run.stdout).toMatch(/ {2}ok {4}a company of its own \(company-left\)/);
      expect(run.stdout).toContain('  ok    the event feed has the company’s events (outbox, relay)');
      expect(run.stdout).toMatch(/ {2}FAIL {2}the company is deleted again: .*answered 500.*company company-left is left behind: delete it with DELETE \/v1\/companies\/company-left/);
      expect(run.stdout).not.toContain('All steps passed');
    } finally {
      await new Promise((closed) => server.close(closed));
    }
  });
});
