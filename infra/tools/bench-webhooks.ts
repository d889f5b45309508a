import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
/**
 * `npm run bench:webhooks` (tsx infra/tools/bench-webhooks.ts): the end-to-end delay of webhooks on
 * the local stack, from a change to its delivery at a receiver. It starts its own in-memory local
 * stack (free ports), a receiver on 127.0.0.1 that verifies every delivery with the
 * `standardwebhooks` package, subscribes it to `company.updated` of one company, then makes N
 * changes (PATCH of the company, one after the other, default 200) and waits for every event.
 * The delay of an event is its arrival at the receiver minus the start of the PATCH that caused it
 * (the whole path: API, transaction with the outbox event, the outbox table's stream, relay, fan-out queue, delivery
 * queue, signed POST). Prints p50, p90, p99 and max; writes .local/bench/webhooks.json.
 * Options: --events N.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { runBench, writeBenchResults } from './bench-support';
import { readCli } from './cli-args';

process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
process.env.WEBHOOK_VERIFICATION_DELAY_SECONDS ??= '0';

const values = readCli({
  command: 'bench:webhooks',
  summary: 'End-to-end webhook delay on its own in-memory local stack: company changes to a loopback receiver verifying signatures; prints p50/p99 of change -> delivery.',
  options: { events: { type: 'string', default: '200', description: 'company changes to send' } },
});
const events = Number(values.events);
if (!Number.isInteger(events) || events < 1) throw new Error('--events must be a positive integer');

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const main = async () => {
  const { startLocalStack } = await import('../local/stack');
  const dataDir = mkdtempSync(join(os.tmpdir(), 'ledger-bench-webhooks-'));
  const stack = await startLocalStack({ port: 0, authPort: 0, dataDir });
  let secret = '';
  const arrivals = new Map<string, number>(); // displayName -> arrival time
  let verification = 0;
  let resolveAll: () => void = () => undefined;
  const allArrived = new Promise<void>((resolve) => (resolveAll = resolve));
  const receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString())).on('end', () => {
      let event: { type: string; data: { challenge?: string; ids?: Record<string, string> } };
      try {
        event = new Webhook(secret).verify(body, request.headers as Record<string, string>) as typeof event;
      } catch {
        response.writeHead(401).end();
        return;
      }
      if (event.type === 'webhook.verification') {
        verification++;
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: event.data.challenge }));
        return;
      }
      response.writeHead(204).end();
      arrivals.set(String(request.headers['webhook-id']), performance.now());
      if (arrivals.size >= events) resolveAll();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    const client = stack.info.clients.find((c) => c.name === 'a-system')!;
    const token = (await (await fetch(stack.info.authUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }) })).json()) as { access_token: string };
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${stack.info.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the stack's own responses, read freely by the bench
      return response.json() as Promise<Record<string, any>>;
    };
    const company = await call('POST', '/v1/companies', { displayName: 'Bench Webhooks AS', accountingSystem: 'Api' });
    const subscription = await call('POST', '/v1/webhooks/subscriptions', { url, eventTypes: ['company.updated'], companyIds: [company.id] });
    secret = subscription.secret;
    for (let i = 0; (await call('GET', `/v1/webhooks/subscriptions/${subscription.id}`)).status !== 'active'; i++) {
      if (i > 100) throw new Error('The handshake did not pass');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const started = new Map<string, number>(); // event id -> PATCH start, from the feed afterwards
    const starts: number[] = [];
    for (let i = 0; i < events; i++) {
      starts.push(performance.now());
      await call('PATCH', `/v1/companies/${company.id}`, { displayName: `Bench Webhooks ${i}` });
    }
    await Promise.race([allArrived, new Promise((_, reject) => setTimeout(() => reject(new Error(`Only ${arrivals.size} of ${events} events arrived in 120 s`)), 120_000))]);
    // The feed gives the events in order: the i-th company.updated is the i-th PATCH.
    let after = 0;
    let cursor: string | null = null;
    const ids: string[] = [];
    while (ids.length < events) {
      const page = await call('GET', `/v1/events?type=company.updated&company_id=${company.id}&page_size=200&${cursor ? `cursor=${encodeURIComponent(cursor)}` : `after=${after}`}`);
      ids.push(...page.data.map((event: { id: string }) => event.id));
      after = (page.data.at(-1) as { sequence: number } | undefined)?.sequence ?? after;
      cursor = page.pagination.next_cursor as string | null;
      if (!cursor && page.data.length === 0) break;
    }
    ids.forEach((id, i) => started.set(id, starts[i]!));
    const delays = ids.map((id) => arrivals.get(id)! - started.get(id)!).sort((a, b) => a - b);
    const result = {
      events,
      p50Ms: Math.round(percentile(delays, 50)),
      p90Ms: Math.round(percentile(delays, 90)),
      p99Ms: Math.round(percentile(delays, 99)),
      maxMs: Math.round(delays.at(-1)!),
      handshakeRequests: verification,
      machine: `${os.cpus().length} cores, ${os.loadavg()[0]!.toFixed(1)} load`,
    };
    console.log(`webhooks end to end (change -> delivery), ${events} events: p50 ${result.p50Ms} ms, p90 ${result.p90Ms} ms, p99 ${result.p99Ms} ms, max ${result.maxMs} ms`);
    writeBenchResults('webhooks', result);
  } finally {
    receiver.close();
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

runBench(main);
