import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
/**
 * `npm run bench:scale` (tsx infra/tools/bench-scale.ts): the scale rows, against its own in-memory
 * local stack (free ports), every loop bounded:
 *  1. the trial balance and a GL page of 200 in a company-year of --lines lines (default 1,000,000)
 *     vs the same in one of 10,000 (goal <= 1.5 x; samples alternate, with each request's DynamoDB
 *     calls and read units). Both companies get their chart and 10,000 lines through the import
 *     (the real write path); the big one then gets the rest written directly: line items cloned
 *     from one the import wrote (same attributes, keys from shared/ledger/keys), BatchWriteItem 25
 *     a call, 32 in flight, and the same counter deltas the import applies (trial-balance cells, the
 *     year's line count). The seeding time is reported;
 *  2. a person's company list at 5,000 companies vs a system client's (goal <= 2 x): from
 *     `npm run bench:access` (run as a child; its first page of 50);
 *  3. --imports concurrent 10,000-line GL imports (default 20) into as many companies, the stack
 *     running --import-batches of them at once (default the stack's 5; 20 in one process starved its
 *     event loop into handler timeouts):
 *     aggregate lines/s (first POST -> last succeeded; DynamoDB calls by function and key kind, the
 *     CPU seconds of this process and of DynamoDB Local in the window) vs the raw
 *     floor measured the same way (as many
 *     concurrent writers of 10,000 line items, BatchWriteItem 25 a call, 8 in flight each, into the
 *     same DynamoDB Local) (goal >= 0.8 x);
 *  4. one change fanned out to --subscriptions webhook subscriptions (default 50), --events changes
 *     (default 10): p99 change -> delivery over every delivery (goal <= 2 s).
 * Prints the table; writes .local/bench/scale.json. Options: --lines N, --imports N,
 * --subscriptions N, --events N, --samples N (reads per measure, default 30), --skip a,b (rows:
 * ledger, companies, imports, webhooks).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { cpuWindow, median, percentile, round, runBench, writeBenchResults } from './bench-support';
import { readCli } from './cli-args';

process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
process.env.WEBHOOK_VERIFICATION_DELAY_SECONDS ??= '0';

const year = 2025;
const baseLines = 10_000;
const accountCodes = Array.from({ length: 50 }, (_, i) => String(i < 25 ? 1000 + i * 40 : 3000 + (i - 25) * 200));
const pad2 = (n: number) => String(n).padStart(2, '0');
const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
const started = performance.now();
const log = (message: string) => console.log(`[bench:scale ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${message}`);

/** Deterministic pseudo-random integer. */
const mix = (n: number) => {
  let x = (n ^ 0x9e3779b9) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
};

/** The DynamoDB Local (java) serving `port`, by its command line. */
const javaPidOf = (port: string): number | undefined => {
  try {
    const line = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
      .split('\n')
      .find((row) => / java\s|^\s*\d+\s+\S*java\s/.test(row) && row.includes(`-port ${port}`));
    return line ? Number(line.trim().split(/\s+/)[0]) : undefined;
  } catch {
    return undefined;
  }
};
/** CPU seconds over a phase: this process (the stack's handlers and the bench) and DynamoDB Local. */
const cpuPhase = (javaPid: number | undefined) => {
  const window = cpuWindow(javaPid);
  return () => {
    const { nodeCpuMs, javaCpuMs } = window();
    return { nodeCpuS: round(nodeCpuMs / 1000, 1), dynamoDbLocalCpuS: javaCpuMs === null ? null : round(javaCpuMs / 1000, 1) };
  };
};

interface LineSpec {
  id: string;
  accountCode: string;
  /** Cents, signed. */
  cents: number;
  period: number;
  transactionId: string;
  description: string;
  transactionDate: string;
}
const amountOf = (cents: number) => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${pad2(Math.abs(cents) % 100)}`;

/** Line `i` of a set: balanced pairs (a voucher each), accounts spread over the chart, the pairs' periods 1..12 in turn. */
const lineSpec = (prefix: string, i: number): LineSpec => {
  const pair = Math.floor(i / 2);
  const period = (pair % 12) + 1;
  const cents = (mix(pair + prefix.length * 7919) % 5_000_000) + 1;
  return {
    id: `${prefix}-${i}`,
    accountCode: accountCodes[mix(i * 31 + prefix.charCodeAt(0)) % accountCodes.length]!,
    cents: i % 2 === 0 ? cents : -cents,
    period,
    transactionId: `${prefix}-V${pair}`,
    description: `Scale line ${i} of ${prefix}`,
    transactionDate: `${year}-${pad2(period)}-${pad2((pair % 28) + 1)}`,
  };
};
const glBody = (prefix: string, count: number) =>
  JSON.stringify({
    year,
    lines: Array.from({ length: count }, (_, i) => {
      const line = lineSpec(prefix, i);
      return { id: line.id, accountCode: line.accountCode, amount: amountOf(line.cents), period: line.period, transactionId: line.transactionId, description: line.description, transactionDate: line.transactionDate };
    }),
  });
const chartBody = () =>
  JSON.stringify({ year, accounts: accountCodes.map((code) => ({ accountCode: code, accountDescription: `Account ${code}`, accountCategory: Number(code) < 3000 ? 'Balance' : 'Result' })) });

const bounded = (text: string | undefined, name: string, min: number, max: number) => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`--${name} must be an integer ${min}..${max}`);
  return value;
};

export interface ScaleOptions {
  lines?: number;
  imports?: number;
  subscriptions?: number;
  events?: number;
  samples?: number;
  skip?: string[];
  /** Import batches the stack runs at once (default: the local stack's, five as Lambda's SQS event source starts). */
  importBatches?: number;
}

interface Row {
  measure: string;
  value: string;
  floor: string;
  ratio: string;
  goal: string;
  verdict: string;
}

/** Runs the scale rows; prints the table; answers the figures. */
export const scaleBench = async (options: ScaleOptions = {}): Promise<Record<string, unknown>> => {
  const lines = options.lines ?? 1_000_000;
  const importCount = options.imports ?? 20;
  const subscriptionCount = options.subscriptions ?? 50;
  const eventCount = options.events ?? 10;
  const samples = options.samples ?? 30;
  const skip = new Set(options.skip ?? []);
  const importBatches = options.importBatches;
  const rows: Row[] = [];
  const results: Record<string, unknown> = { options: { lines, importCount, importBatches, subscriptionCount, eventCount, samples, skip: [...skip] } };

  // -- 2. the company list, from bench:access (its own stack, run first so the two never overlap)
  if (!skip.has('companies')) {
    log('a person\'s company list at 5,000 companies: npm run bench:access (its own stack)');
    await promisify(execFile)(process.execPath, [...process.execArgv, resolve(import.meta.dirname, 'bench-access.ts'), '--companies', '5000', '--samples', String(Math.max(10, Math.min(samples, 30)))], {
      encoding: 'utf8',
      timeout: 20 * 60_000,
      maxBuffer: 8 << 20,
    });
    const access = JSON.parse(readFileSync(resolve('.local/bench/access.json'), 'utf8')) as { firstPageMs: number; systemFirstPageMs: number; companyCount: number };
    const ratio = access.firstPageMs / access.systemFirstPageMs;
    results.companies = access;
    rows.push({
      measure: `a person's company list, first page of 50, org grant over ${access.companyCount} (10 denied)`,
      value: `${round(access.firstPageMs, 1)} ms`,
      floor: `system client's list ${round(access.systemFirstPageMs, 1)} ms`,
      ratio: `${round(ratio, 2)} x`,
      goal: '<= 2 x',
      verdict: ratio <= 2 ? 'pass' : 'fail',
    });
  }

  const { startLocalStack } = await import('../local/stack');
  const dataDir = mkdtempSync(join(os.tmpdir(), 'ledger-bench-scale-'));
  log('starting the local stack (in memory, free ports)');
  const stack = await startLocalStack({ port: 0, authPort: 0, dataDir, ...(importBatches && { concurrentBatches: { imports: importBatches } }) });
  const receivers: ReturnType<typeof createServer>[] = [];
  try {
    const info = stack.info;
    const { dynamo, tableName } = await import('../../shared/platform/aws');
    const { BatchWriteCommand, GetCommand, NumberValue, QueryCommand, UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const keys = await import('../../shared/ledger/keys');
    const { rawGlLineItem } = await import('./bench-gl-items');
    const { default: Decimal } = await import('decimal.js');
    const client = info.clients.find((candidate) => candidate.name === 'a-system')!;
    const tokenResponse = await fetch(info.authUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
    });
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the stack's own responses, read freely by the bench
    const call = async (method: string, path: string, body?: string): Promise<{ status: number; body: any; ms: number }> => {
      for (let attempt = 0; attempt < 20; attempt++) {
        const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'idempotency-key': crypto.randomUUID() };
        if (body !== undefined) headers['content-type'] = 'application/json';
        const begun = performance.now();
        const response = await fetch(`${info.baseUrl}${path}`, { method, headers, ...(body !== undefined && { body }) });
        const text = await response.text();
        const ms = performance.now() - begun;
        if (response.status === 429) {
          await sleep(Math.min(5000, Number(response.headers.get('retry-after') ?? 1) * 1000));
          continue;
        }
        if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
        return { status: response.status, body: text ? JSON.parse(text) : null, ms };
      }
      throw new Error(`${method} ${path}: still rate limited after 20 attempts`);
    };
    const newCompany = async (name: string) => (await call('POST', '/v1/companies', JSON.stringify({ displayName: `${name} ${crypto.randomUUID().slice(0, 8)} AS`, accountingSystem: 'Api' }))).body.id as string;
    /** The import's own completedAt is what counts, so the poll interval only sets the polling's load. */
    const runImport = async (companyId: string, kind: string, body: string, pollMs = 250) => {
      const accepted = await call('POST', `/v1/companies/${companyId}/imports/${kind}`, body);
      for (let polls = 0; polls < 1_000_000 / pollMs; polls++) {
        await sleep(pollMs);
        const record = (await call('GET', `/v1/companies/${companyId}/imports/${accepted.body.id}`)).body;
        if (record.status === 'queued') continue;
        if (record.status !== 'succeeded' || record.rowsFailed !== 0) throw new Error(`import ${accepted.body.id} ended ${record.status}: ${JSON.stringify(record).slice(0, 500)}`);
        return { id: accepted.body.id as string, completedAt: Date.parse(record.completedAt) };
      }
      throw new Error(`import ${accepted.body.id} not done after 1000 s`);
    };
    /** Batches of 25 items, `inFlight` calls at a time, unprocessed items sent again (bounded). */
    const batchWrite = async (items: Record<string, unknown>[], inFlight: number) => {
      let next = 0;
      const writer = async () => {
        while (next < items.length) {
          const start = next;
          next += 25;
          let pending = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
          for (let attempt = 0; pending.length > 0; attempt++) {
            if (attempt >= 10) throw new Error(`BatchWriteItem: ${pending.length} items unprocessed after 10 attempts`);
            if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
            const result = await dynamo().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
            pending = (result.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
          }
        }
      };
      await Promise.all(Array.from({ length: inFlight }, writer));
    };

    // -- 1. trial balance and a GL page at `lines` vs 10,000 ----------------------------------
    if (!skip.has('ledger')) {
      const seeded = async (label: string) => {
        const id = await newCompany(`Scale ${label}`);
        await runImport(id, 'accounts', chartBody());
        await runImport(id, 'general-ledger-lines', glBody(label, baseLines));
        return id;
      };
      log(`ledger: two companies, each with its chart and ${baseLines} lines through the import`);
      const small = await seeded('small');
      const big = await seeded('big');
      const extra = Math.max(0, lines - baseLines);
      // One line the import wrote: every attribute the import gives a line, cloned below.
      const first = (
        await dynamo().send(new QueryCommand({ TableName: tableName(), IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': keys.glPeriodPartition(big, year, 1) }, Limit: 1 }))
      ).Items![0]!;
      const template = (await dynamo().send(new GetCommand({ TableName: tableName(), Key: { PK: first.PK, SK: first.SK } }))).Item!;
      log(`ledger: writing ${extra} more lines into the big company-year (line items as the import writes them, then its counter deltas)`);
      const seedStarted = performance.now();
      const cells = new Map<string, { accountCode: string; period: number; cents: bigint; count: number }>();
      const chunk = 20_000;
      // DynamoDB Local takes more calls at once than the raw floor's 8: 32 in flight seeded ~2,200 lines/s where 8 did ~450.
      const seedInFlight = 32;
      for (let offset = 0; offset < extra; offset += chunk) {
        const at = new Date().toISOString();
        const items = Array.from({ length: Math.min(chunk, extra - offset) }, (_, j) => {
          const line = lineSpec('seed', offset + j);
          const cell = `${line.accountCode}#${line.period}`;
          const sum = cells.get(cell) ?? { accountCode: line.accountCode, period: line.period, cents: 0n, count: 0 };
          sum.cents += BigInt(line.cents);
          sum.count++;
          cells.set(cell, sum);
          // The template's import and dataset, this line's keys and attributes.
          return { ...template, ...rawGlLineItem(big, year, { ...line, amount: amountOf(line.cents) }, at, offset + j, { datasetId: template.datasetId, importId: template.lastImportId }) };
        });
        await batchWrite(items, seedInFlight);
        if ((offset / chunk) % 5 === 4) log(`ledger: ${offset + items.length} of ${extra} lines written (${round((offset + items.length) / ((performance.now() - seedStarted) / 1000))} lines/s)`);
      }
      // The counters the import keeps: per (account, period) the amount and line count, and the year's line count.
      for (const cell of cells.values()) {
        await dynamo().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.balanceKeys(big, year, cell.accountCode, cell.period),
            UpdateExpression: 'ADD amount :amount, lineCount :count',
            ExpressionAttributeValues: { ':amount': NumberValue.from(new Decimal(cell.cents.toString()).dividedBy(100).toFixed()), ':count': cell.count },
          }),
        );
      }
      await dynamo().send(
        new UpdateCommand({ TableName: tableName(), Key: keys.ledgerYearKeys(big, year, 'general_ledger_lines'), UpdateExpression: 'ADD generalLedgerLines :count', ExpressionAttributeValues: { ':count': extra } }),
      );
      const seedMs = performance.now() - seedStarted;
      log(`ledger: ${extra} lines and ${cells.size} cells written in ${round(seedMs / 1000)} s (${round(extra / (seedMs / 1000))} lines/s)`);

      const trialBalance = (company: string, expectedLines: number) => async () => {
        const result = await call('GET', `/v1/companies/${company}/trial-balance?year=${year}`);
        const counted = result.body.accounts.reduce((sum: number, account: { lineCount?: number }) => sum + (account.lineCount ?? 0), 0);
        if (result.body.accounts.length === 0 || (counted !== 0 && counted !== expectedLines)) throw new Error(`trial balance of ${company}: ${result.body.accounts.length} accounts, ${counted} lines`);
        return result.ms;
      };
      const glPage = (company: string) => async () => {
        const result = await call('GET', `/v1/companies/${company}/general-ledger/lines?page_size=200&period=1&year=${year}`);
        if (result.body.data.length !== 200) throw new Error(`GL page of ${company}: ${result.body.data.length} lines`);
        return result.ms;
      };
      log(`ledger: trial balance and GL page, ${samples} of each per company, alternating`);
      // Small and big alternate (after warm-ups), so a shared machine's changing load meets both alike.
      const measures = [trialBalance(small, baseLines), trialBalance(big, lines), glPage(small), glPage(big)];
      const times = measures.map((): number[] => []);
      for (let i = -3; i < samples; i++) {
        for (const [m, measure] of measures.entries()) {
          const ms = await measure();
          if (i >= 0) times[m]!.push(ms);
        }
      }
      const [smallTb, bigTb, smallPage, bigPage] = times.map(median) as [number, number, number, number];
      // The deterministic side: DynamoDB calls and read units of one request each.
      const { installCapacityMeter, summarize } = await import('./capacity-meter');
      const { currentCaller } = await import('../local/iam');
      const meter = installCapacityMeter(dynamo(), () => currentCaller()?.name);
      const metered = async (measure: () => Promise<number>) => {
        meter.begin();
        await measure();
        const { calls, roundTrips, rcu } = summarize(meter.end());
        return { calls, roundTrips, rcu };
      };
      const [smallTbUnits, bigTbUnits, smallPageUnits, bigPageUnits] = [await metered(measures[0]!), await metered(measures[1]!), await metered(measures[2]!), await metered(measures[3]!)];
      const unitsText = (units: { calls: number; roundTrips: number; rcu: number }) => `${units.calls} calls, ${units.roundTrips} round trips, ${units.rcu} RCU`;
      results.ledger = {
        lines,
        seededExtraLines: extra,
        seedMs: round(seedMs),
        cells: cells.size,
        smallTrialBalanceMs: round(smallTb, 2),
        bigTrialBalanceMs: round(bigTb, 2),
        smallPageMs: round(smallPage, 2),
        bigPageMs: round(bigPage, 2),
        units: { smallTrialBalance: smallTbUnits, bigTrialBalance: bigTbUnits, smallPage: smallPageUnits, bigPage: bigPageUnits },
      };
      rows.push(
        {
          measure: `trial balance, company-year of ${lines.toLocaleString('en')} lines, median of ${samples}`,
          value: `${round(bigTb, 1)} ms (${unitsText(bigTbUnits)})`,
          floor: `same at ${baseLines.toLocaleString('en')} lines ${round(smallTb, 1)} ms (${unitsText(smallTbUnits)})`,
          ratio: `${round(bigTb / smallTb, 2)} x`,
          goal: '<= 1.5 x',
          verdict: bigTb / smallTb <= 1.5 ? 'pass' : 'fail',
        },
        {
          measure: `GL page of 200, company-year of ${lines.toLocaleString('en')} lines, median of ${samples}`,
          value: `${round(bigPage, 1)} ms (${unitsText(bigPageUnits)})`,
          floor: `same at ${baseLines.toLocaleString('en')} lines ${round(smallPage, 1)} ms (${unitsText(smallPageUnits)})`,
          ratio: `${round(bigPage / smallPage, 2)} x`,
          goal: '<= 1.5 x',
          verdict: bigPage / smallPage <= 1.5 ? 'pass' : 'fail',
        },
        { measure: `seeding ${extra.toLocaleString('en')} lines (BatchWriteItem, ${seedInFlight} in flight) and their counters`, value: `${round(seedMs / 1000)} s (${round(extra / (seedMs / 1000))} lines/s)`, floor: '-', ratio: '-', goal: '-', verdict: 'info' },
      );
    }

    // -- 3. concurrent imports vs concurrent raw writers ----------------------------------------
    if (!skip.has('imports')) {
      log(`imports: ${importCount} companies with their charts`);
      const companies: string[] = [];
      for (let i = 0; i < importCount; i++) {
        const id = await newCompany(`Scale import ${i}`);
        await runImport(id, 'accounts', chartBody());
        companies.push(id);
      }
      const bodies = companies.map((_, i) => glBody(`c${i}`, baseLines));
      log(`imports: ${importCount} concurrent ${baseLines}-line imports`);
      // Every DynamoDB call of the window, by the function it was made for: what the imports cost DynamoDB Local.
      const { installCapacityMeter, summarize } = await import('./capacity-meter');
      const { currentCaller } = await import('../local/iam');
      const meter = installCapacityMeter(dynamo(), () => currentCaller()?.name);
      const javaPid = javaPidOf(new URL(info.internal.dynamodbEndpoint).port);
      const importCpu = cpuPhase(javaPid);
      meter.begin();
      const importsStarted = Date.now();
      // Polled once a second each: 20 imports polled every 250 ms were 80 requests/s on the same 2 cores.
      const done = await Promise.all(companies.map((id, i) => runImport(id, 'general-ledger-lines', bodies[i]!, 1000)));
      const importMs = Math.max(...done.map((run) => run.completedAt)) - importsStarted;
      const importCalls = meter.end();
      const importCpuS = importCpu();
      const unitsByCaller = (windowCalls: typeof importCalls) => {
        const byCaller = new Map<string, typeof importCalls>();
        for (const metered of windowCalls) byCaller.set(metered.caller, [...(byCaller.get(metered.caller) ?? []), metered]);
        return Object.fromEntries(
          [...byCaller].map(([caller, calls]) => {
            const { calls: count, rcu, wcu } = summarize(calls);
            const byCommand: Record<string, { calls: number; meanMs: number }> = {};
            for (const call of calls) {
              const sums = (byCommand[call.command] ??= { calls: 0, meanMs: 0 });
              sums.meanMs = (sums.meanMs * sums.calls + (call.endMs - call.startMs)) / (sums.calls + 1);
              sums.calls++;
            }
            for (const sums of Object.values(byCommand)) sums.meanMs = round(sums.meanMs, 1);
            // What each call was for: its command and the kind of its (first) key, ids dropped (`Query GSI2 GLACCOUNT`).
            // `itemWrites`: the items (and index entries) it wrote, each counted as DynamoDB bills it
            // (1 KB units, x2 in a transaction); DynamoDB Local reports far less for a TransactWriteItems (2 WCU for 100 counter updates).
            const byKey: Record<string, { calls: number; rcu: number; wcu: number; itemWrites: number }> = {};
            for (const call of calls) {
              const sums = (byKey[`${call.command} ${call.key.split('#')[0]!}`] ??= { calls: 0, rcu: 0, wcu: 0, itemWrites: 0 });
              sums.calls++;
              const units = call.consumed.reduce((sum, { units }) => sum + units, 0);
              if (call.read) sums.rcu = round(sums.rcu + units, 1);
              else sums.wcu = round(sums.wcu + units, 1);
              sums.itemWrites += call.writes.reduce((sum, { units }) => sum + units, 0);
            }
            return [caller, { calls: count, rcu, wcu, byCommand, byKey }];
          }),
        );
      };
      const importUnits = unitsByCaller(importCalls);
      log(`imports: DynamoDB calls by function: ${JSON.stringify(importUnits)}`);
      log(`imports: CPU in the window: ${JSON.stringify(importCpuS)}`);
      const importRate = (importCount * baseLines) / (importMs / 1000);
      log(`imports: ${importCount * baseLines} lines in ${round(importMs / 1000)} s = ${round(importRate)} lines/s; waiting for their post-fetch engines`);
      // The floor is taken once the imports' post-fetch engines (the context rebuild reads every line) are done.
      const drainCpu = cpuPhase(javaPid);
      meter.begin();
      const drainStarted = performance.now();
      for (const id of companies) {
        for (let polls = 0; ; polls++) {
          const runs = (await call('GET', `/v1/companies/${id}/fetch-runs`)).body.data as { postFetchCompletedAt?: string | null }[];
          if (runs.length > 0 && runs.every((run) => run.postFetchCompletedAt)) break;
          if (polls >= 600) throw new Error(`company ${id}: post-fetch engines not done after 10 min`);
          await sleep(1000);
        }
      }
      const drainMs = performance.now() - drainStarted;
      // The post-fetch engines' calls after the window (with the polls of fetch-runs): the rest of what the imports cost.
      const drainUnits = unitsByCaller(meter.end());
      const drainCpuS = drainCpu();
      log(`imports: DynamoDB calls by function after the last import, until the post-fetch engines were done: ${JSON.stringify(drainUnits)}; CPU ${JSON.stringify(drainCpuS)}`);
      log(`imports: post-fetch engines done ${round(drainMs / 1000)} s after the last import; now the raw writers`);
      const rawItems = companies.map((_, c) => {
        const rawCompany = crypto.randomUUID();
        const at = new Date().toISOString();
        return Array.from({ length: baseLines }, (_, i) => {
          const line = lineSpec(`r${c}`, i);
          return rawGlLineItem(rawCompany, year, { ...line, amount: amountOf(line.cents) }, at, i, { datasetId: crypto.randomUUID(), importId: crypto.randomUUID() });
        });
      });
      const rawCpu = cpuPhase(javaPid);
      meter.begin();
      const rawStarted = performance.now();
      await Promise.all(rawItems.map((items) => batchWrite(items, 8)));
      const rawMs = performance.now() - rawStarted;
      const rawCalls = meter.end();
      const rawCpuS = rawCpu();
      log(`imports: CPU of the raw writers: ${JSON.stringify(rawCpuS)}`);
      const rawUnits = { ...summarize(rawCalls), meanMs: round(rawCalls.reduce((sum, call) => sum + (call.endMs - call.startMs), 0) / Math.max(1, rawCalls.length), 1) };
      log(`imports: the raw writers' DynamoDB calls: ${JSON.stringify(rawUnits)}`);
      const rawRate = (importCount * baseLines) / (rawMs / 1000);
      const ratio = importRate / rawRate;
      results.imports = { importCount, linesEach: baseLines, importMs, importUnits, importCpuS, postFetchDrainMs: round(drainMs), drainUnits, drainCpuS, rawUnits, rawCpuS, importLinesPerSecond: round(importRate), rawMs: round(rawMs), rawItemsPerSecond: round(rawRate), ratio: round(ratio, 3) };
      rows.push({
        measure: `${importCount} concurrent ${baseLines.toLocaleString('en')}-line imports into ${importCount} companies (${importBatches ?? 'the stack\'s 5'} import batches at once), first POST -> last succeeded`,
        value: `${round(importRate)} lines/s (${round(importMs / 1000)} s; DynamoDB Local ${importCpuS.dynamoDbLocalCpuS} CPU-s)`,
        floor: `${importCount} concurrent raw BatchWriteItem writers, 8 in flight each: ${round(rawRate)} items/s (DynamoDB Local ${rawCpuS.dynamoDbLocalCpuS} CPU-s)`,
        ratio: `${round(ratio, 2)}`,
        goal: '>= 0.8',
        verdict: ratio >= 0.8 ? 'pass' : 'fail',
      });
    }

    // -- 4. one change fanned out to many subscriptions -----------------------------------------
    if (!skip.has('webhooks')) {
      const secrets = new Map<string, string>(); // receiver path -> secret
      const arrivals: number[] = [];
      const startsByEvent = new Map<string, number>();
      const receiver = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString())).on('end', () => void answer(body));
        const answer = async (body: string) => {
          // The handshake can arrive before the POST that created the subscription answered with its secret.
          for (let i = 0; i < 100 && !secrets.has(request.url ?? ''); i++) await sleep(50);
          const secret = secrets.get(request.url ?? '');
          let event: { type: string; data: { challenge?: string } };
          try {
            event = new Webhook(secret ?? 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').verify(body, request.headers as Record<string, string>) as typeof event;
          } catch {
            response.writeHead(401).end();
            return;
          }
          if (event.type === 'webhook.verification') {
            response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: event.data.challenge }));
            return;
          }
          response.writeHead(204).end();
          const at = performance.now();
          const eventId = String(request.headers['webhook-id']);
          arrivals.push(at);
          startsByEvent.set(`${eventId} ${request.url}`, at);
        };
      });
      receivers.push(receiver);
      await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
      const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      const company = await newCompany('Scale webhooks');
      log(`webhooks: ${subscriptionCount} subscriptions to company.updated of one company, each verified`);
      const subscriptionIds: string[] = [];
      for (let i = 0; i < subscriptionCount; i++) {
        const path = `/hook/${i}`;
        const created = (await call('POST', '/v1/webhooks/subscriptions', JSON.stringify({ url: `${base}${path}`, eventTypes: ['company.updated'], companyIds: [company] }))).body;
        secrets.set(path, created.secret);
        subscriptionIds.push(created.id);
      }
      for (const id of subscriptionIds) {
        for (let i = 0; (await call('GET', `/v1/webhooks/subscriptions/${id}`)).body.status !== 'active'; i++) {
          if (i > 300) throw new Error(`subscription ${id} did not pass its handshake`);
          if (i === 100) await call('POST', `/v1/webhooks/subscriptions/${id}/verify`);
          await sleep(100);
        }
      }
      const delays: number[] = [];
      for (let n = 0; n < eventCount; n++) {
        const before = arrivals.length;
        const changeStarted = performance.now();
        await call('PATCH', `/v1/companies/${company}`, JSON.stringify({ displayName: `Scale webhooks ${n}` }));
        for (let waited = 0; arrivals.length < before + subscriptionCount; waited++) {
          if (waited > 1200) throw new Error(`event ${n}: ${arrivals.length - before} of ${subscriptionCount} deliveries after 120 s`);
          await sleep(100);
        }
        delays.push(...arrivals.slice(before, before + subscriptionCount).map((at) => at - changeStarted));
      }
      const p50 = percentile(delays, 50);
      const p99 = percentile(delays, 99);
      results.webhooks = { subscriptions: subscriptionCount, events: eventCount, deliveries: delays.length, p50Ms: round(p50), p99Ms: round(p99), maxMs: round(Math.max(...delays)) };
      rows.push({
        measure: `one change to ${subscriptionCount} subscriptions (${eventCount} changes, ${delays.length} deliveries): change -> delivery`,
        value: `p99 ${round(p99 / 1000, 2)} s (p50 ${round(p50 / 1000, 2)} s, max ${round(Math.max(...delays) / 1000, 2)} s)`,
        floor: '-',
        ratio: '-',
        goal: 'p99 <= 2 s',
        verdict: p99 <= 2000 ? 'pass' : 'fail',
      });
    }
  } finally {
    for (const receiver of receivers) receiver.close();
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const header: Row = { measure: 'scale row', value: 'this service', floor: 'against', ratio: 'ratio', goal: 'goal', verdict: 'pass/fail' };
  const keysOf = Object.keys(header) as (keyof Row)[];
  const width = (key: keyof Row) => Math.max(...[header, ...rows].map((row) => row[key].length));
  console.log(`\nScale rows (${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}; --lines ${lines})\n`);
  console.log(keysOf.map((key) => header[key].padEnd(width(key))).join(' | '));
  console.log(keysOf.map((key) => '-'.repeat(width(key))).join('-+-'));
  for (const row of rows) console.log(keysOf.map((key) => row[key].padEnd(width(key))).join(' | '));
  results.rows = rows;
  return results;
};

const main = async () => {
  const values = readCli({
    command: 'bench:scale',
    summary: 'The scale rows on their own in-memory local stack (tens of minutes at the defaults): reads at --lines lines vs 10,000, a person\'s company list, concurrent imports vs raw writers, webhook fan-out; writes .local/bench/scale.json.',
    options: {
      lines: { type: 'string', default: '1000000', description: 'lines of the big company-year' },
      imports: { type: 'string', default: '20', description: 'concurrent 10,000-line imports' },
      subscriptions: { type: 'string', default: '50', description: 'webhook subscriptions one change fans out to' },
      events: { type: 'string', default: '10', description: 'changes fanned out' },
      samples: { type: 'string', default: '30', description: 'reads per measure' },
      skip: { type: 'string', description: 'rows to skip, comma-separated: ledger, companies, imports, webhooks' },
      'import-batches': { type: 'string', description: 'import batches the stack runs at once (default the stack\'s 5)' },
    },
  });
  const results = await scaleBench({
    lines: bounded(values.lines, 'lines', baseLines, 5_000_000),
    imports: bounded(values.imports, 'imports', 1, 50),
    subscriptions: bounded(values.subscriptions, 'subscriptions', 1, 200),
    events: bounded(values.events, 'events', 1, 100),
    samples: bounded(values.samples, 'samples', 3, 500),
    skip: values.skip?.split(',').map((name) => name.trim()),
    ...(values['import-batches'] !== undefined && { importBatches: bounded(values['import-batches'], 'import-batches', 1, 50) }),
  });
  console.log(`\nResults: ${writeBenchResults('scale', { timestamp: new Date().toISOString(), ...results })}`);
};

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) runBench(main);
