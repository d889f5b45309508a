import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
/**
 * `npm run bench:access`: the cost of an access decision and of a person's company list at 5,000
 * companies, against its own in-memory local stack (free ports). Measures, median of --samples:
 *  1. the evaluator alone (in process, the person's effective access already read): µs per decision;
 *  2. the one read of an access decision (GetItem of the person's effective access, DynamoDB Local);
 *  3. GET /v1/companies/{id} over HTTP as a per-user client vs as a system client;
 *  4. a person's company list (GET /v1/companies) with an organization grant over 5,000 companies
 *     (10 denied): the first page of 50 (alternating with a system client's, after warm-ups) and
 *     every page of 200; and with 50 single-company grants; the DynamoDB calls, round trips and
 *     read units of one first page each (infra/tools/capacity-meter.ts);
 *  5. the evaluator's bundle size (esbuild, minified).
 * Prints one table and writes .local/bench/access.json. Not a test: figures, no pass/fail.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { build as esbuild } from 'esbuild';
import { runBench, writeBenchResults } from './bench-support';
import { readCli } from './cli-args';

process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
const args = readCli({
  command: 'bench:access',
  summary: 'The access benchmark on its own in-memory local stack: one access decision, company reads as a per-user vs a system client, and a person\'s company list; writes .local/bench/access.json.',
  options: {
    companies: { type: 'string', default: '5000', description: 'companies of the organization the person\'s list is read from' },
    samples: { type: 'string', default: '20', description: 'requests per measure' },
  },
});
const companyCount = Number(args.companies);
const samples = Number(args.samples);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const timed = async (fn: () => Promise<unknown>, n = samples): Promise<number> => {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return median(times);
};
const log = (message: string) => process.stderr.write(`[bench:access] ${message}\n`);

const main = async () => {
  const { startLocalStack } = await import('../local/stack');
  const { createApiClient, createOrganization } = await import('../../shared/administration/service');
  const { localCredentialIssuer } = await import('../../shared/identity/credential-issuers');
  const { createUser } = await import('../../shared/people/service');
  const { localPersonDirectory } = await import('../../shared/identity/person-directories');
  const { createAssignment, createPolicy } = await import('../../shared/access/service');
  const { accessRepository } = await import('../../shared/identity/access-repository');
  const { decide } = await import('../../shared/identity/access-evaluator');
  const { administratorOf } = await import('../../shared/identity/principal');
  const { userClientScopes } = await import('../../shared/identity/scopes');
  const { companyKeys, companyListKeys } = await import('../../shared/companies/keys');
  const { dynamo, tableName } = await import('../../shared/platform/aws');
  const { BatchWriteCommand } = await import('@aws-sdk/lib-dynamodb');

  const dataDir = mkdtempSync(join(os.tmpdir(), 'ledger-bench-access-'));
  log('starting the local stack (in memory)');
  const stack = await startLocalStack({ port: 0, authPort: 0, dataDir, onProgress: (message) => log(`stack: ${message}`) });
  try {
    const info = stack.info;
    const token = async (clientId: string, clientSecret: string) => {
      const response = await fetch(info.authUrl, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }) });
      return ((await response.json()) as { access_token: string }).access_token;
    };
    const get = async (path: string, bearer: string) => {
      const response = await fetch(`${info.baseUrl}${path}`, { headers: { authorization: `Bearer ${bearer}` } });
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return response.json() as Promise<{ data: { id: string }[]; pagination: { next_cursor: string | null } }>;
    };

    const firm = await createOrganization({ name: 'Bench Regnskap AS' });
    log(`writing ${companyCount} companies`);
    const now = new Date().toISOString();
    const ids: string[] = [];
    for (let start = 0; start < companyCount; start += 25) {
      const items = Array.from({ length: Math.min(25, companyCount - start) }, (_, i) => {
        const id = crypto.randomUUID();
        ids.push(id);
        return {
          ...companyKeys(id),
          ...companyListKeys(firm.rootId, firm.path, id),
          entity: 'company',
          id,
          name: `Klient ${start + i} AS`,
          status: 'active',
          organizationId: firm.id,
          organizationPath: firm.path,
          rootOrganizationId: firm.rootId,
          organizationNumber: null,
          accountingSystem: 'Api',
          vatFrequency: 'bimonthly',
          createdAt: now,
          updatedAt: now,
        };
      });
      await dynamo().send(new BatchWriteCommand({ RequestItems: { [tableName()]: items.map((Item) => ({ PutRequest: { Item } })) } }));
    }
    const admin = administratorOf(firm, 'bench', ['access:manage']);
    const wide = await createPolicy(admin, {
      name: 'Whole firm but ten',
      description: '',
      rules: [
        { effect: 'allow', actions: ['companies:*', 'ledger:*', 'bank:*'], resources: { organizations: [firm.id] } },
        { effect: 'deny', actions: ['companies:*'], resources: { companies: ids.slice(0, 10) } },
      ],
    });
    const narrow = await createPolicy(admin, { name: 'Fifty clients', description: '', rules: [{ effect: 'allow', actions: ['companies:read', 'ledger:read'], resources: { companies: ids.slice(100, 150) } }] });
    const person = async (policyId: string, label: string) => {
      const { person } = await createUser({ organizationId: firm.id, email: `${label}@bench.example`, name: label }, localPersonDirectory);
      await createAssignment(admin, { policyId, userId: person.userId });
      const { client, clientSecret } = await createApiClient({ name: label, organizationId: firm.id, userId: person.userId, scopes: userClientScopes, plan: 'premium' }, localCredentialIssuer);
      return { userId: person.userId, token: await token(client.clientId, clientSecret) };
    };
    const wideUser = await person(wide.id, 'wide');
    const narrowUser = await person(narrow.id, 'narrow');
    const system = await createApiClient({ name: 'bench-system', organizationId: firm.id, plan: 'premium' }, localCredentialIssuer);
    const systemToken = await token(system.client.clientId, system.clientSecret);

    const access = (await accessRepository.effectiveAccess(wideUser.userId))!;
    const targetId = ids[Math.min(4000, ids.length - 1)]!; // inside the allowed part of the firm, whatever --companies says
    const target = { organizationPath: firm.path, companyId: targetId };
    for (let i = 0; i < 10_000; i++) decide(access, target, 'ledger:read');
    const iterations = 200_000;
    const started = performance.now();
    for (let i = 0; i < iterations; i++) decide(access, { organizationPath: firm.path, companyId: ids[i % ids.length]! }, 'companies:read');
    const decisionUs = ((performance.now() - started) / iterations) * 1000;

    const readMs = await timed(() => accessRepository.effectiveAccess(wideUser.userId), samples * 5);
    const userGetMs = await timed(() => get(`/v1/companies/${targetId}`, wideUser.token));
    const systemGetMs = await timed(() => get(`/v1/companies/${targetId}`, systemToken));
    // The two lists alternate, after warm-ups, so both meet the same load (a shared machine's load moves).
    const userPages: number[] = [];
    const systemPages: number[] = [];
    for (let i = -3; i < samples; i++) {
      for (const [bearer, times] of [[wideUser.token, userPages], [systemToken, systemPages]] as const) {
        const begun = performance.now();
        await get('/v1/companies?page_size=50', bearer);
        if (i >= 0) times.push(performance.now() - begun);
      }
    }
    const firstPageMs = median(userPages);
    const systemFirstPageMs = median(systemPages);
    let listed = 0;
    const fullListMs = await timed(async () => {
      listed = 0;
      let cursor: string | null = null;
      do {
        const page = await get(`/v1/companies?page_size=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, wideUser.token);
        listed += page.data.length;
        cursor = page.pagination.next_cursor;
      } while (cursor);
    }, 3);
    const narrowListMs = await timed(() => get('/v1/companies?page_size=50', narrowUser.token));
    // The deterministic side of the two lists: DynamoDB calls, round trips and read units of one request each.
    const { installCapacityMeter, summarize } = await import('./capacity-meter');
    const { currentCaller } = await import('../local/iam');
    const meter = installCapacityMeter(dynamo(), () => currentCaller()?.name);
    const metered = async (bearer: string) => {
      meter.begin();
      await get('/v1/companies?page_size=50', bearer);
      const calls = meter.end();
      return { ...summarize(calls), trail: calls.map((call) => `${call.command} ${call.key.split('#')[0]} ${call.itemsRead} items`) };
    };
    const userCalls = await metered(wideUser.token);
    const systemCalls = await metered(systemToken);

    const bundle = await esbuild({ entryPoints: ['shared/identity/access-evaluator.ts'], bundle: true, minify: true, write: false, platform: 'node', format: 'esm' });
    const bundleBytes = bundle.outputFiles[0]!.contents.length;
    const itemBytes = JSON.stringify(access).length;

    const rows: [string, string][] = [
      ['evaluator: one decision (in process, access already read)', `${decisionUs.toFixed(2)} µs`],
      ['the one read of a decision: GetItem effective access', `${readMs.toFixed(2)} ms (item ${itemBytes} B)`],
      ['GET /v1/companies/{id}: per-user client (USER)', `${userGetMs.toFixed(1)} ms`],
      ['GET /v1/companies/{id}: system client (SYSTEM)', `${systemGetMs.toFixed(1)} ms`],
      [`GET /v1/companies first page of 50, USER, org grant over ${companyCount}`, `${firstPageMs.toFixed(1)} ms`],
      [`GET /v1/companies first page of 50, SYSTEM over ${companyCount}`, `${systemFirstPageMs.toFixed(1)} ms`],
      [`every page of 200 (${listed} companies), USER`, `${fullListMs.toFixed(0)} ms`],
      ['GET /v1/companies, USER with 50 single-company grants', `${narrowListMs.toFixed(1)} ms`],
      ['first page of 50, USER: DynamoDB calls / round trips / RCU', `${userCalls.calls} / ${userCalls.roundTrips} / ${userCalls.rcu} (${userCalls.trail.join(', ')})`],
      ['first page of 50, SYSTEM: DynamoDB calls / round trips / RCU', `${systemCalls.calls} / ${systemCalls.roundTrips} / ${systemCalls.rcu} (${systemCalls.trail.join(', ')})`],
      ['evaluator bundle (esbuild, minified)', `${(bundleBytes / 1024).toFixed(1)} KiB`],
    ];
    const width = Math.max(...rows.map(([name]) => name.length));
    console.log(rows.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join('\n'));
    writeBenchResults('access', { at: new Date().toISOString(), companyCount, samples, decisionUs, readMs, itemBytes, userGetMs, systemGetMs, firstPageMs, systemFirstPageMs, fullListMs, listed, narrowListMs, bundleBytes, userCalls, systemCalls });
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

runBench(main);
