import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
/**
 * `npm run bench:capacity` (also part of `npm run bench`): DynamoDB capacity units per operation,
 * deterministic. Every call the service makes asks for `ReturnConsumedCapacity: 'INDEXES'`
 * (infra/tools/capacity-meter.ts, in the bench only; DynamoDB Local reports the units), and each
 * operation's calls are summed: read and write units, round trips on the critical path, next to
 * the minimum its data needs. Operations: a 10,000-line GL import (over 12 periods, and into one
 * period), GET company, a GL page of 200, the trial balance, a person's company list, a webhook
 * delivery, an MCP tool call. The import's write sequence is replayed against AWS's per-partition
 * write limit (the hot GSI1 period partition), as sent and as the worker's pacer sends it. Also
 * the duration of each function's work (the cost model's Lambda milliseconds). Writes .local/bench/capacity.json; `--json` prints it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import type { StackInfo } from '../local/stack';
import { printTable, runBench, writeBenchResults } from './bench-support';
import { installCapacityMeter, measuredPeaks, minimumReadUnits, pacedWrites, replayWrites, summarize, type CapacitySummary, type MeteredCall, type ReplayResult, type TimedWrite } from './capacity-meter';
import { readCli } from './cli-args';

const year = 2025;
const lines = 10_000;
const accounts = 50;
const pad2 = (n: number) => String(n).padStart(2, '0');
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)]!;
};
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Why a read is there, by the partition it reads (shown next to each call of an operation). */
const purposeOf = (call: MeteredCall): string => {
  const key = call.key;
  if (key.startsWith('RATE#')) return 'rate limit: the one conditional write per request';
  if (key.startsWith('CLIENT#')) return 'authorizer: the client (cached per token for 30 s)';
  if (key.startsWith('COMPANY#')) return 'the company (reach and the answer)';
  if (key.startsWith('GSI1 GLPERIOD#') || key.startsWith('GLPERIOD#')) return 'the page of lines';
  if (key.startsWith('BALANCE#')) return 'trial-balance cells';
  if (key.startsWith('CHART#')) return 'the chart (account names)';
  if (key.startsWith('USER#')) return "reach: the person's effective access";
  if (key.startsWith('EVENTFEED#')) return "the organization's feed position (the event's sequence number)";
  if (key.startsWith('EVENT#') && call.command === 'TransactWriteItems') return 'the event into the feed, with its sequence number';
  if (key.startsWith('EVENT#')) return 'the event (payload of the delivery)';
  if (key.startsWith('GSI1 WEBHOOKS#')) return "the organization's subscriptions";
  if (key.startsWith('DELIVERY#') && call.read) return 'the delivery';
  if (key.startsWith('DELIVERY#')) return 'the delivery record (created, attempt, outcome)';
  if (key.startsWith('WEBHOOK#')) return 'the subscription (URL, secret)';
  if (key.startsWith('WEBHOOKSLOT#')) return "the subscription's in-flight slot (taken, released)";
  return '';
};

export interface OperationCapacity {
  operation: string;
  summary: CapacitySummary;
  /** The least the answer's data needs (units), and what it is. */
  minimum: { units: number; what: string };
  ratio: number;
  calls: { caller: string; command: string; key: string; rcu: number; wcu: number; purpose: string }[];
  /** The Lambda functions the operation runs: median ms of each one's work, and its configured memory. */
  lambda: LambdaWork[];
}

export interface LambdaWork {
  function: string;
  ms: number;
  memoryMb: number;
}

/** Memory of the functions outside the route table, as infra/stacks/api-stack.ts configures them. */
const memoryMb = { authorizer: 512, queueWorker: 1024, relay: 512 } as const;

export interface ImportCapacity {
  layout: string;
  lines: number;
  /** Every call of the import worker (the line writes, counters, aggregates, summaries, the import record). */
  worker: CapacitySummary;
  /** Units of the line items with their two index entries (DynamoDB's report of those writes). */
  lineWriteUnits: number;
  ratio: number;
  perLine: number;
  /** The rest of the import: the API (POST, status polls) and the post-fetch engines. */
  api: CapacitySummary;
  postFetch: CapacitySummary;
  /** Mean estimated size of a line item (the base item; each index entry holds as much again). */
  lineItemBytes: number;
  lambda: LambdaWork[];
  /** The worker's writes replayed against 1,000 WCU/s per partition. */
  measuredPeaks: ReturnType<typeof measuredPeaks>;
  replay: { shards: number; result: ReplayResult }[];
  /** The same writes sent by the worker's pacer at the AWS budget (900 index entries per key a second). */
  paced: { indexUnitsPerSecond: number; waits: number; lastWriteMs: number; result: ReplayResult };
}

export interface CapacityResults {
  at: string;
  operations: OperationCapacity[];
  imports: ImportCapacity[];
  rateLimit: { wcuPerRequest: number; requests: number };
}

const unitsOf = (call: MeteredCall) => round(call.consumed.reduce((sum, unit) => sum + unit.units, 0));

/** Runs the capacity measurements against a started local stack (its handlers in this process). */
export const runCapacityBench = async (info: StackInfo, log: (message: string) => void = console.log): Promise<CapacityResults> => {
  const { dynamo } = await import('../../shared/platform/aws');
  const { currentCaller } = await import('../local/iam');
  const { setStageSink } = await import('../../shared/platform/stage-timing');
  const { functionGroups } = await import('../../shared/routes');
  const meter = installCapacityMeter(dynamo(), () => currentCaller()?.name);

  const tokenOf = async (name: string) => {
    const client = info.clients.find((c) => c.name === name) ?? fail(`no seeded client ${name}`);
    const response = await fetch(info.authUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
    });
    if (response.status !== 200) throw new Error(`token for ${name}: ${response.status}`);
    return ((await response.json()) as { access_token: string }).access_token;
  };
  const systemToken = await tokenOf('a-system');
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the stack's own responses, read freely by the bench
  const call = async (method: string, path: string, body?: unknown, token = systemToken): Promise<Record<string, any>> => {
    for (let attempt = 0; attempt < 10; attempt++) {
      const response = await fetch(`${info.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(method !== 'GET' && { 'idempotency-key': crypto.randomUUID() }) },
        ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      const text = await response.text();
      if (response.status === 429) {
        await sleep(1000 * Number(response.headers.get('retry-after') ?? 1));
        continue;
      }
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
      return text ? JSON.parse(text) : {};
    }
    throw new Error(`${method} ${path}: rate limited 10 times`);
  };

  // Handler durations per request, from the gateway's stages (authorizer + handler).
  let stages: Map<string, number> | undefined;
  setStageSink((stage, ms) => stages?.set(stage, (stages.get(stage) ?? 0) + ms));
  const handlerMs = async (request: () => Promise<unknown>, group: keyof typeof functionGroups, samples = 15): Promise<LambdaWork[]> => {
    const handler: number[] = [];
    const authorizer: number[] = [];
    for (let i = 0; i < samples; i++) {
      stages = new Map();
      await request();
      handler.push(stages.get('gateway: handler') ?? 0);
      authorizer.push(stages.get('gateway: authorizer') ?? 0);
    }
    stages = undefined;
    return [
      { function: 'authorizer', ms: round(median(authorizer), 3), memoryMb: memoryMb.authorizer },
      { function: group, ms: round(median(handler), 3), memoryMb: functionGroups[group].memoryMb },
    ];
  };
  // The function's work, from its first DynamoDB call to its last (a lower bound of its Lambda duration).
  const span = (calls: MeteredCall[]) => round(calls.length ? Math.max(...calls.map((c) => c.endMs)) - Math.min(...calls.map((c) => c.startMs)) : 0);
  const metered = async (request: () => Promise<unknown>): Promise<MeteredCall[]> => {
    await request(); // warm: modules loaded, token decision cached, as a warm Lambda
    meter.begin();
    await request();
    return meter.end();
  };
  const operation = (name: string, calls: MeteredCall[], minimum: { units: number; what: string }, lambda: LambdaWork[]): OperationCapacity => {
    const summary = summarize(calls);
    return {
      operation: name,
      summary,
      minimum,
      ratio: round((summary.rcu + summary.wcu) / minimum.units),
      calls: calls.map((c) => ({ caller: c.caller, command: c.command, key: c.key.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>'), rcu: c.read ? unitsOf(c) : 0, wcu: c.read ? 0 : unitsOf(c), purpose: purposeOf(c) })),
      lambda,
    };
  };
  const answerBytes = (calls: MeteredCall[], match: (call: MeteredCall) => boolean) => calls.filter(match).reduce((sum, c) => sum + c.bytesRead, 0);

  // -- the imports ----------------------------------------------------------------------------
  const codes = [...Array.from({ length: accounts / 2 }, (_, i) => String(1000 + i * 40)), ...Array.from({ length: accounts / 2 }, (_, i) => String(3000 + i * 200))];
  const newCompany = async (name: string) => (await call('POST', '/v1/companies', { displayName: `${name} ${crypto.randomUUID().slice(0, 8)} AS`, accountingSystem: 'Api' })).id as string;
  const waitFor = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
    for (let i = 0; i < 2400; i++) {
      const value = await probe();
      if (value !== undefined) return value;
      await sleep(250);
    }
    throw new Error(`${what}: not done in 10 minutes`);
  };
  let postMs = 0;
  const runImport = async (companyId: string, path: string, body: unknown) => {
    const posted = performance.now();
    const accepted = await call('POST', `/v1/companies/${companyId}/imports/${path}`, body);
    postMs = performance.now() - posted;
    const id = String(accepted.id ?? accepted.importId);
    return waitFor(`import ${id}`, async () => {
      const record = await call('GET', `/v1/companies/${companyId}/imports/${id}`);
      if (record.status === 'failed') throw new Error(`import ${id} failed: ${JSON.stringify(record).slice(0, 300)}`);
      return record.status === 'succeeded' ? { id, record } : undefined;
    });
  };
  const postFetchDone = (companyId: string, importId: string) =>
    waitFor('post-fetch engines', async () => {
      const runs = await call('GET', `/v1/companies/${companyId}/fetch-runs?page_size=10`);
      return (runs.data as { id: string; postFetchCompletedAt?: string | null }[]).some((run) => run.id === importId && run.postFetchCompletedAt) ? true : undefined;
    });
  const chartOf = () => ({ year, accounts: codes.map((code) => ({ accountCode: code, accountDescription: `Account ${code}`, accountCategory: Number(code) < 3000 ? 'Balance' : 'Result' })) });
  const glOf = (prefix: string, onePeriod: boolean) => ({
    year,
    lines: Array.from({ length: lines }, (_, i) => {
      const period = onePeriod ? 1 : Math.floor((i * 12) / lines) + 1;
      const pair = Math.floor(i / 2);
      const cents = ((pair * 7919) % 5_000_000) + 1;
      const amount = `${i % 2 ? '-' : ''}${Math.floor(cents / 100)}.${pad2(cents % 100)}`;
      return { id: `${prefix}-${i}`, accountCode: codes[(i * 31 + pair) % accounts]!, amount, period, transactionId: `${prefix}-V${pair}`, description: `Bench line ${i} of ${prefix}`, transactionDate: `${year}-${pad2(period)}-${pad2((pair % 28) + 1)}` };
    }),
  });
  const imports: ImportCapacity[] = [];
  let readCompany = '';
  for (const onePeriod of [false, true]) {
    const layout = onePeriod ? 'all lines in one period' : 'lines over 12 periods, in period order';
    const companyId = await newCompany(`Capacity ${onePeriod ? 'one period' : 'twelve periods'}`);
    await runImport(companyId, 'accounts', chartOf());
    const body = JSON.stringify(glOf(onePeriod ? 'p' : 't', onePeriod));
    log(`capacity: a ${lines}-line import, ${layout}`);
    meter.begin();
    const { id, record } = await runImport(companyId, 'general-ledger-lines', body);
    await postFetchDone(companyId, id);
    const calls = meter.end();
    const worker = calls.filter((c) => c.caller === 'imports-worker');
    const lineWrites = worker.filter((c) => c.command === 'BatchWriteItem' && c.key.startsWith('GLLINE#'));
    const lineWriteUnits = round(lineWrites.reduce((sum, c) => sum + unitsOf(c), 0));
    const workerSummary = summarize(worker);
    const first = Math.min(...worker.map((c) => c.startMs));
    const timed: TimedWrite[] = lineWrites.flatMap((c) => {
      // One BatchWriteItem's items, each with its table and index partitions.
      const perItem: TimedWrite[] = [];
      for (const write of c.writes) {
        if (!write.partition.includes('/')) perItem.push({ atMs: c.endMs - first, partitions: [write] });
        else perItem.at(-1)?.partitions.push(write);
      }
      return perItem;
    });
    const workerMs = Date.parse(String(record.completedAt)) - Date.parse(String(record.createdAt));
    const lineItems = lineWrites.flatMap((c) => c.writes.filter((w) => !w.partition.includes('/')));
    // AWS: a Lambda worker with 8 BatchWriteItem of 25 in flight at ~20 ms a call sends ~10,000 items/s.
    const replay = [1, 4, 16].map((shards) => ({ shards, result: replayWrites(timed, { partitionLimit: 1000, clientItemsPerSecond: 10_000, window: 200, gsi1Shards: shards }) }));
    const indexUnitsPerSecond = 900; // as the import worker is configured on AWS (infra/stacks/api-stack.ts)
    const paced = await pacedWrites(timed, { indexUnitsPerSecond, clientItemsPerSecond: 10_000 });
    const pacedResult = replayWrites(paced.writes, { partitionLimit: 1000, clientItemsPerSecond: 10_000, window: 200, sendAtTimes: true });
    imports.push({
      layout,
      lines,
      worker: workerSummary,
      lineWriteUnits,
      ratio: round(workerSummary.wcu / lineWriteUnits, 3),
      perLine: round(workerSummary.wcu / lines, 3),
      api: summarize(calls.filter((c) => c.caller === 'imports')),
      postFetch: summarize(calls.filter((c) => c.caller === 'reconciliation-worker')),
      lineItemBytes: Math.round(lineItems.reduce((sum, w) => sum + (w.bytes ?? 0), 0) / Math.max(1, lineItems.length)),
      lambda: [
        { function: 'imports (POST)', ms: round(postMs), memoryMb: functionGroups.imports.memoryMb },
        { function: 'imports-worker', ms: workerMs, memoryMb: memoryMb.queueWorker },
        { function: 'reconciliation-worker', ms: span(calls.filter((c) => c.caller === 'reconciliation-worker')), memoryMb: memoryMb.queueWorker },
      ],
      measuredPeaks: measuredPeaks(timed),
      replay,
      paced: { indexUnitsPerSecond, waits: paced.waits, lastWriteMs: paced.writes.at(-1)?.atMs ?? 0, result: pacedResult },
    });
    log(`capacity: worker ${workerSummary.wcu} WCU (${round(workerSummary.wcu / lines, 3)} a line), line items with their index entries ${lineWriteUnits} WCU: ${round(workerSummary.wcu / lineWriteUnits, 3)} x`);
    if (!onePeriod) readCompany = companyId;
  }

  // -- reads ----------------------------------------------------------------------------------
  const operations: OperationCapacity[] = [];
  const companyPath = `/v1/companies/${readCompany}`;
  {
    const calls = await metered(() => call('GET', companyPath));
    operations.push(operation('GET company', calls, { units: minimumReadUnits(answerBytes(calls, (c) => c.key.startsWith('COMPANY#'))), what: 'one eventually consistent read of the company item' }, await handlerMs(() => call('GET', companyPath), 'companies')));
  }
  {
    const path = `${companyPath}/general-ledger/lines?page_size=200&period=1&year=${year}`;
    const calls = await metered(() => call('GET', path));
    const pageBytes = answerBytes(calls, (c) => c.key.includes('GLPERIOD#'));
    operations.push(operation('GL page of 200', calls, { units: minimumReadUnits(pageBytes), what: `one Query of the 200 line items (${Math.round(pageBytes / 1024)} KB)` }, await handlerMs(() => call('GET', path), 'ledger')));
  }
  {
    const path = `${companyPath}/trial-balance?year=${year}`;
    const calls = await metered(() => call('GET', path));
    const cellBytes = answerBytes(calls, (c) => c.key.startsWith('BALANCE#'));
    const chartBytes = answerBytes(calls, (c) => c.key.startsWith('CHART#'));
    operations.push(operation('trial balance', calls, { units: minimumReadUnits(cellBytes) + minimumReadUnits(chartBytes), what: `a Query of the year's cells (${Math.round(cellBytes / 1024)} KB) and of the chart for the names (${Math.round(chartBytes / 1024)} KB)` }, await handlerMs(() => call('GET', path), 'ledger')));
  }
  {
    const personToken = await tokenOf('a-accountant');
    const path = '/v1/companies?page_size=50';
    const calls = await metered(() => call('GET', path, undefined, personToken));
    const listed = calls.filter((c) => c.key.startsWith('COMPANY#'));
    const companyBytes = answerBytes(calls, (c) => c.key.startsWith('COMPANY#'));
    operations.push(
      operation("a person's company list (page of 50)", calls, { units: minimumReadUnits(companyBytes), what: `an eventually consistent read of the ${listed.reduce((n, c) => n + c.itemsRead, 0)} listed companies` }, await handlerMs(() => call('GET', path, undefined, personToken), 'companies')),
    );
  }
  {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const mcp = new Client({ name: 'bench-capacity', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${info.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${systemToken}` } } }));
    const tool = () => mcp.callTool({ name: 'get_company', arguments: { companyId: readCompany } });
    const calls = await metered(tool);
    operations.push(operation('MCP tool call (get_company)', calls, { units: minimumReadUnits(answerBytes(calls, (c) => c.key.startsWith('COMPANY#'))), what: 'one eventually consistent read of the company item' }, await handlerMs(tool, 'mcp')));
    await mcp.close();
  }

  // -- a webhook delivery ---------------------------------------------------------------------
  {
    const { Webhook } = await import('standardwebhooks');
    let secret = '';
    let arrived: (() => void) | undefined;
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString())).on('end', () => {
        let event: { type: string; data: { challenge?: string } };
        try {
          event = new Webhook(secret).verify(body, request.headers as Record<string, string>) as typeof event;
        } catch {
          response.writeHead(401).end(); // before the secret is known: the handshake is sent again
          return;
        }
        if (event.type === 'webhook.verification') {
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: event.data.challenge }));
          return;
        }
        response.writeHead(204).end();
        arrived?.();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const subscription = await call('POST', '/v1/webhooks/subscriptions', { url, eventTypes: ['company.updated'], companyIds: [readCompany] });
      secret = subscription.secret;
      await waitFor('handshake', async () => ((await call('GET', `/v1/webhooks/subscriptions/${subscription.id}`)).status === 'active' ? true : undefined));
      const delivered = async (n: number) => {
        const arrival = new Promise<void>((resolve) => (arrived = resolve));
        await call('PATCH', companyPath, { displayName: `Capacity delivery ${n} AS` });
        await arrival;
        // The worker records the attempt after the receiver answered: wait until the delivery says so.
        await waitFor('delivery recorded', async () => {
          const page = await call('GET', `/v1/webhooks/subscriptions/${subscription.id}/deliveries?page_size=5`);
          return (page.data as { status: string }[]).filter((d) => d.status === 'succeeded').length >= n ? true : undefined;
        });
      };
      await delivered(1);
      meter.begin();
      await delivered(2);
      const all = meter.end();
      const perEvent = all.filter((c) => c.caller === 'webhook-relay' || c.caller === 'webhook-fanout-worker');
      const perDelivery = all.filter((c) => c.caller === 'webhooks-worker');
      operations.push(
        // The event itself comes with the stream record, and the relay sends it on to the fan-out.
        operation('webhook event: relay and fan-out (once per event)', perEvent, { units: 0.5 + 2, what: 'the subscriptions read, one delivery record written' }, [
          { function: 'webhook-relay', ms: span(perEvent.filter((c) => c.caller === 'webhook-relay')), memoryMb: memoryMb.relay },
          { function: 'webhook-fanout-worker', ms: span(perEvent.filter((c) => c.caller === 'webhook-fanout-worker')), memoryMb: memoryMb.queueWorker },
        ]),
        operation('webhook delivery (per subscription)', perDelivery, { units: 0.5 + 0.5 + 2, what: 'the delivery and the subscription read, the outcome written once' }, [{ function: 'webhooks-worker', ms: span(perDelivery), memoryMb: memoryMb.queueWorker }]),
      );
    } finally {
      receiver.close();
    }
  }
  setStageSink(undefined);

  // -- the rate limiter's write per request ---------------------------------------------------
  const rateLimitCalls = operations.flatMap((op) => op.calls).filter((c) => c.key.startsWith('RATE#'));
  const requests = operations.filter((op) => op.calls.some((c) => c.key.startsWith('RATE#'))).length;
  return {
    at: new Date().toISOString(),
    operations,
    imports,
    rateLimit: { wcuPerRequest: round(rateLimitCalls.reduce((sum, c) => sum + c.wcu, 0) / Math.max(1, requests)), requests },
  };
};

function fail(message: string): never {
  throw new Error(message);
}

/** The tables `npm run bench` and `npm run bench:capacity` print. */
export const printCapacity = (results: CapacityResults): void => {
  console.log('\nDynamoDB capacity units per operation (ReturnConsumedCapacity INDEXES; one warm request each)\n');
  const rows = results.operations.map((op) => ({
    operation: op.operation,
    rcu: String(op.summary.rcu),
    wcu: String(op.summary.wcu),
    trips: `${op.summary.roundTrips} of ${op.summary.calls}`,
    minimum: `${op.minimum.units} (${op.minimum.what})`,
    ratio: `${op.ratio} x`,
    lambda: op.lambda.map((work) => `${work.function} ${work.ms} ms`).join(' + '),
  }));
  printTable({ operation: 'operation', rcu: 'RCU', wcu: 'WCU', trips: 'round trips (critical path of calls)', minimum: 'minimum units', ratio: 'ratio', lambda: 'Lambda work (median, local)' }, rows);
  for (const op of results.operations) {
    console.log(`\n  ${op.operation}: ${op.calls.map((c) => `${c.caller} ${c.command} ${c.key} ${c.rcu ? `${c.rcu} RCU` : `${c.wcu} WCU`}${c.purpose ? ` (${c.purpose})` : ''}`).join('; ')}`);
  }
  console.log('\n10,000-line GL imports: write units of the import worker against the line items with their two index entries\n');
  printTable(
    { layout: 'layout', wcu: 'worker WCU', perLine: 'WCU a line', minimum: 'minimum (lines + GSI entries)', ratio: 'ratio (goal <= 1.15)', reads: 'worker RCU', rest: 'API / post-fetch RCU+WCU' },
    results.imports.map((run) => ({
      layout: run.layout,
      wcu: String(run.worker.wcu),
      perLine: String(run.perLine),
      minimum: String(run.lineWriteUnits),
      ratio: `${run.ratio} x`,
      reads: String(run.worker.rcu),
      rest: `${round(run.api.rcu + run.api.wcu)} / ${round(run.postFetch.rcu + run.postFetch.wcu)}`,
    })),
  );
  console.log('\nHot partitions: the worker\'s line writes replayed at 1,000 WCU/s per partition key, a client sending 10,000 items/s, 200 in flight\n');
  printTable(
    { layout: 'layout', shards: 'GSI1 keys per period', seconds: 'seconds (unthrottled)', throttled: 'throttled attempts', hottest: 'hottest partition: units, peak/s' },
    results.imports.flatMap((run) =>
      [...run.replay.map(({ shards, result }) => ({ shards: String(shards), result })), { shards: `1, paced at ${run.paced.indexUnitsPerSecond}/s (last write at ${(run.paced.lastWriteMs / 1000).toFixed(2)} s)`, result: run.paced.result }].map(({ shards, result }) => ({
        layout: run.layout,
        shards,
        seconds: `${result.seconds} (${result.unthrottledSeconds})`,
        throttled: String(result.throttledAttempts),
        hottest: `${result.hottest[0]?.partition.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<company>')}: ${result.hottest[0]?.units}, ${result.hottest[0]?.peakUnitsPerSecond}/s`,
      })),
    ),
  );
  console.log(`\nRate limiter: ${results.rateLimit.wcuPerRequest} WCU per request (${results.rateLimit.requests} requests metered)`);
};


const isMain = process.argv[1]?.endsWith('bench-capacity.ts');
if (isMain) {
  const values = readCli({
    command: 'bench:capacity',
    summary: 'Capacity units and round trips per operation on its own in-memory local stack, against the minimum the data needs; writes .local/bench/capacity.json (npm run cost reads it).',
    options: { json: { type: 'boolean', description: 'print the results as JSON on stdout (progress goes to stderr)' } },
  });
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  process.env.WEBHOOK_VERIFICATION_DELAY_SECONDS ??= '0';
  runBench(async () => {
    const { startLocalStack } = await import('../local/stack');
    const dataDir = mkdtempSync(join(os.tmpdir(), 'ledger-bench-capacity-'));
    const log = values.json ? (message: string) => console.error(message) : console.log;
    const stack = await startLocalStack({ port: 0, authPort: 0, dataDir, onProgress: (message) => log(`stack: ${message}`) });
    try {
      const results = await runCapacityBench(stack.info, log);
      const file = writeBenchResults('capacity', results);
      if (values.json) console.log(JSON.stringify(results, null, 2));
      else {
        printCapacity(results);
        console.log(`\nResults: ${file}`);
      }
    } finally {
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}
