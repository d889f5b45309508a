import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, listAll } from '../support/api';
import { newFirm } from '../support/people';
import { eventually } from '../support/poll';
import { testStack } from '../support/stack';
import { holdPort } from '../../infra/local/ports';
import { typescriptNodeArgs } from '../../infra/tools/typescript-node';

/**
 * `npm run webhooks:listen` as a person runs it: a receiver that subscribes itself, answers the
 * handshake, verifies and prints a real delivery, and removes its subscription on Ctrl-C.
 */
let dir: string;
let firm: Awaited<ReturnType<typeof newFirm>>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'webhooks-listen-'));
  writeFileSync(join(dir, 'stack.json'), JSON.stringify(testStack()));
  firm = await newFirm('Listen');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const listen = (...args: string[]) => {
  const child = spawn(process.execPath, [...typescriptNodeArgs, 'infra/tools/webhooks-listen.ts', '--stack-file', join(dir, 'stack.json'), ...args], {
    cwd: resolve('.'),
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return { child, output, exited };
};

const stop = async (run: { child: ChildProcess; exited: Promise<number | null> }) => {
  run.child.kill('SIGINT');
  return run.exited;
};

/**
 * A free port below Linux's ephemeral range (32768 and up): between the two runs of the fixed-port
 * test no outgoing connection of the suite can take it as its local port.
 */
const portBelowEphemeralRange = async (): Promise<number> => {
  for (let attempt = 0; attempt < 50; attempt++) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_000);
    const held = await holdPort(candidate).catch(() => undefined);
    if (!held) continue;
    await held.release();
    return candidate;
  }
  throw new Error('no free port from 20000 to 31999');
};

describe('npm run webhooks:listen', () => {
  it('--help and -h print the usage; a bad --port is a usage error (exit 2)', async () => {
    for (const flag of ['--help', '-h']) {
      const run = listen(flag);
      expect(await run.exited, run.output.stderr).toBe(0);
      expect(run.output.stdout).toContain('Usage: npm run webhooks:listen -- [flags]');
    }
    const port = listen('--port', 'abc');
    expect(await port.exited).toBe(2);
    expect(port.output.stderr).toContain('--port takes a port number from 0 to 65535');
  });

  it('says the local stack may have stopped when its stack file names a closed port', async () => {
    // A port nothing listens on (one just let go of): connections to it are refused.
    const closed = `http://127.0.0.1:${await portBelowEphemeralRange()}`;
    writeFileSync(join(dir, 'stale.json'), JSON.stringify({ ...testStack(), baseUrl: closed, authUrl: `${closed}/oauth2/token` }));
    const run = listen('--stack-file', join(dir, 'stale.json'));
    try {
      expect(await run.exited, run.output.stderr).toBe(1);
      expect(run.output.stderr).toContain('is the local stack still running? Start it with npm start.');
      expect(run.output.stderr).not.toContain('fetch failed');
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('Ctrl-C while it subscribes still deletes the subscription it makes', async () => {
    const run = listen('--client-id', firm.system.client.clientId, '--client-secret', firm.system.clientSecret);
    try {
      // Its signal handlers are in place before it subscribes: the subscription is made, then deleted.
      await eventually(() => run.output.stderr.includes('receiving at'), undefined, 'receiving at');
      expect(await stop(run), run.output.stderr).toBe(0);
      expect(run.output.stderr).toContain('SIGINT: deleted subscription');
      expect(await listAll('/v1/webhooks/subscriptions', { token: firm.systemToken })).toEqual([]);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('exits 1 on Ctrl-C when it cannot delete its subscription and prints the call that deletes it', async () => {
    const run = listen('--client-id', firm.system.client.clientId, '--client-secret', firm.system.clientSecret);
    try {
      await eventually(() => run.output.stderr.includes('subscription active'), undefined, 'subscription active');
      const [subscription] = await listAll('/v1/webhooks/subscriptions', { token: firm.systemToken });
      // Deleted behind its back: its own DELETE then fails.
      expect((await api('DELETE', `/v1/webhooks/subscriptions/${subscription.id}`, { token: firm.systemToken })).status).toBeLessThan(300);
      expect(await stop(run), run.output.stderr).toBe(1);
      expect(run.output.stderr).toContain(`SIGINT: could not delete subscription ${subscription.id}`);
      expect(run.output.stderr).toContain(`DELETE /v1/webhooks/subscriptions/${subscription.id}`);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('subscribes itself, passes the handshake, prints a verified delivery and deletes its subscription on Ctrl-C', async () => {
    const companyId = await firm.company();
    const run = listen('--events', 'company.updated', '--client-id', firm.system.client.clientId, '--client-secret', firm.system.clientSecret);
    try {
      await eventually(() => run.output.stderr.includes('subscription active: waiting for events'), undefined, 'subscription active: waiting for events');
      const [subscription] = await listAll('/v1/webhooks/subscriptions', { token: firm.systemToken });
      expect(subscription).toMatchObject({ status: 'active', eventTypes: ['company.updated'], description: 'npm run webhooks:listen' });
      expect(subscription.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);

      const changed = await api('PATCH', `/v1/companies/${companyId}`, { token: firm.systemToken, body: { displayName: 'Lyttet AS' } });
      expect(changed.status).toBe(200);
      await eventually(() => run.output.stdout.includes(`company ${companyId}`), undefined, `company ${companyId}`);
      const line = run.output.stdout.split('\n').find((candidate) => candidate.includes(companyId))!;
      expect(line).toMatch(/^\S+Z {2}company\.updated +[0-9a-f-]{36} {2}company [0-9a-f-]{36} {2}\/v1\/companies\/[0-9a-f-]{36}$/);
      // The API records the delivery as answered by the listener (after the listener answered and printed it).
      await eventually(async () => {
        const deliveries = await listAll(`/v1/webhooks/subscriptions/${subscription.id}/deliveries`, { token: firm.systemToken });
        return deliveries.some((delivery) => delivery.status === 'succeeded' && delivery.eventType === 'company.updated');
      }, undefined, 'the delivery recorded as succeeded');

      expect(await stop(run)).toBe(0);
      expect(run.output.stderr).toContain(`SIGINT: deleted subscription ${subscription.id}`);
      expect(await listAll('/v1/webhooks/subscriptions', { token: firm.systemToken })).toEqual([]);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('with --keep and a fixed port, a second run reuses the subscription with a new secret', async () => {
    const port = String(await portBelowEphemeralRange());
    const holder = listen('--port', port, '--client-id', firm.system.client.clientId, '--client-secret', firm.system.clientSecret, '--keep');
    try {
      await eventually(() => holder.output.stderr.includes('subscription active'), undefined, 'subscription active');
      expect(holder.output.stderr).toContain(`receiving at http://127.0.0.1:${port}/webhooks`);
    } finally {
      expect(await stop(holder)).toBe(0);
    }
    const [kept] = await listAll('/v1/webhooks/subscriptions', { token: firm.systemToken });
    expect(kept.url).toBe(`http://127.0.0.1:${port}/webhooks`);

    const again = listen('--port', port, '--events', 'company.updated', '--client-id', firm.system.client.clientId, '--client-secret', firm.system.clientSecret);
    try {
      await eventually(() => again.output.stderr.includes(`reusing subscription ${kept.id}`), undefined, `reusing subscription ${kept.id}`);
      await eventually(() => again.output.stderr.includes('subscription active'), undefined, 'subscription active');
      const test = await api('POST', `/v1/webhooks/subscriptions/${kept.id}/test`, { token: firm.systemToken, body: {} });
      expect(test.status).toBeLessThan(300);
      const reused = await api('GET', `/v1/webhooks/subscriptions/${kept.id}`, { token: firm.systemToken });
      expect(reused.body).toMatchObject({ eventTypes: ['company.updated'] });
      expect(reused.body.previousSecretExpiresAt).not.toBeNull();
      await eventually(() => again.output.stdout.includes('webhook.test'), undefined, 'webhook.test');
      expect(await stop(again)).toBe(0);
      expect(await listAll('/v1/webhooks/subscriptions', { token: firm.systemToken })).toEqual([]);
    } finally {
      again.child.kill('SIGKILL');
    }
  });
});
