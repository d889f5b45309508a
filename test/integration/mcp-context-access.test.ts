import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { companyContextKeys } from '../../shared/context/keys';
import { contextRepository } from '../../shared/context/repository';
import { refreshPendingSeconds } from '../../shared/context/service';
import { ledgerStateKeys } from '../../shared/imports/keys';
import { administratorOf } from '../../shared/identity/principal';
import { allScopes } from '../../shared/identity/scopes';
import { dynamo, tableName } from '../../shared/platform/aws';
import { api } from '../support/api';
import { ingestOk, statementXml, validAccountNumber, waitForPostFetch } from '../support/bank';
import { chartOf, importAndWait, newApiCompany } from '../support/ledger';
import { createPerson, signIn } from '../support/sign-in';
import { testStack } from '../support/stack';
import { contextTool } from '../support/context-tools';
import { eventually, queueWaitMs } from '../support/poll';

/**
 * What the context tools show and to whom (each part of a picture needs the action of its source,
 * as REST decides it), the seeded accountant's demo, and how pictures catch up with the books.
 */
type Picture = Record<string, unknown> & { omitted: { part: string; needs: string[] }[] };
const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const pictureOf = (result: CallToolResult) => result.structuredContent as Picture;
const clients: Client[] = [];
afterAll(async () => {
  for (const client of clients) await client.close();
});

const mcpClient = async (accessToken: string) => {
  const client = new Client({ name: 'context-access-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${testStack().baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${accessToken}` } } }));
  // Listing the tools makes the SDK's client check every structuredContent against the tool's output schema.
  await client.listTools();
  return async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
};

/** Calls until the answer is not service_unavailable (the rebuild runs on the stack's shared queue: bounded by queueWaitMs). */
const untilReady = async (call: () => Promise<CallToolResult>): Promise<CallToolResult> => {
  const result = await eventually(async () => {
    const answer = await call();
    return !(answer.isError && text(answer).startsWith('service_unavailable')) && answer;
  }, queueWaitMs, 'a picture that is not service_unavailable');
  expect(result.isError, text(result)).toBeFalsy();
  return result;
};

const personScopes = ['companies:read', 'ledger:read', 'bank:read', 'vat:read', 'reconciliation:read', 'context:read'];

/** A company with a 2026 chart, GL lines on 1920 (with VAT on 2700) and a bank account on 1920, its pictures built. */
const booksWithBank = async () => {
  const companyId = await newApiCompany();
  await importAndWait(companyId, 'accounts', chartOf(2026, ['1920', '2700', '3000']));
  const done = await importAndWait(companyId, 'general-ledger-lines', {
    year: 2026,
    lines: [
      { id: 'S1', accountCode: '1920', amount: '7777.25', period: 2, transactionId: 'V-1', transactionDate: '2026-02-03', description: 'Secret sale' },
      { id: 'S2', accountCode: '3000', amount: '-6221.80', period: 2, transactionId: 'V-1', transactionDate: '2026-02-03', taxCode: '3' },
      { id: 'S3', accountCode: '2700', amount: '-1555.45', period: 2, transactionId: 'V-1', transactionDate: '2026-02-03', taxCode: '3' },
    ],
  });
  await waitForPostFetch(companyId, done.body.id);
  const accountNumber = validAccountNumber('1508' + String(Math.floor(Math.random() * 1e6)).padStart(6, '0'));
  await ingestOk(companyId, statementXml(accountNumber, `ST-ACC-${randomUUID().slice(0, 13)}`, [{ reference: 'ACC-1', bookingDate: '2026-02-10', amount: '100.00', description: 'Deposit' }]), '--gl-account', '1920');
  return { companyId, accountNumber };
};

describe('MCP context tools: what each part needs', () => {
  it('a person allowed companies:read and context:read but denied ledger, bank and VAT reads sees none of those figures, as REST and the twin tools; explain gives the same decisions', async () => {
    const denied = await booksWithBank();
    const partly = await booksWithBank();
    const organizationId = testStack().organizations[0]!.id;
    const person = await createPerson(organizationId, 'Context Denied');
    const policy = await api('POST', '/v1/access/policies', {
      as: 'a-system',
      body: {
        name: `Context with denies ${denied.companyId.slice(0, 8)}`,
        rules: [
          { effect: 'allow', actions: ['companies:read', 'ledger:*', 'bank:*', 'vat:*', 'reconciliation:*', 'context:read'], resources: { companies: [denied.companyId, partly.companyId] } },
          { effect: 'deny', actions: ['ledger:read', 'bank:read', 'vat:read'], resources: { companies: [denied.companyId] } },
          { effect: 'deny', actions: ['bank:read'], resources: { companies: [partly.companyId] } },
        ],
      },
    });
    expect(policy.status).toBe(201);
    expect((await api('POST', '/v1/access/assignments', { as: 'a-system', body: { policyId: policy.body.id, userId: person.userId } })).status).toBe(201);

    const mcpTokens = await signIn(person, { scopes: personScopes, resource: `${testStack().baseUrl}/mcp` });
    const call = await mcpClient(mcpTokens.access_token);
    const restToken = (await signIn(person, { scopes: personScopes })).access_token;

    // REST and the twin tools: the denied reads are not found.
    for (const path of ['trial-balance?year=2026', 'bank/accounts', 'vat/terms?year=2026']) {
      expect((await api('GET', `/v1/companies/${denied.companyId}/${path}`, { token: restToken })).status).toBe(404);
    }
    expect((await api('GET', `/v1/companies/${denied.companyId}`, { token: restToken })).status).toBe(200);
    for (const [name, args] of [['get_trial_balance', { year: 2026 }], ['list_bank_accounts', {}], ['list_vat_terms', { year: 2026 }]] as const) {
      expect(text(await call(name, { companyId: denied.companyId, ...args }))).toMatch(/^not found: /);
    }

    // The company picture: the name, and every figure left out with the action it needs.
    const company = await call('get_company_context', { companyId: denied.companyId });
    expect(company.isError, text(company)).toBeFalsy();
    const picture = pictureOf(company);
    expect(Object.keys(picture).sort()).toEqual(['companyId', 'name', 'omitted']);
    expect(picture.omitted).toEqual([
      { part: 'ledgerLastUpdatedAt', needs: ['ledger:read'] },
      { part: 'currentYear', needs: ['ledger:read'] },
      { part: 'trialBalance', needs: ['ledger:read'] },
      { part: 'bankAccounts', needs: ['bank:read'] },
      { part: 'openVatTerm', needs: ['vat:read'] },
      { part: 'openItems', needs: ['ledger:read'] },
      { part: 'recentImports', needs: ['imports:write'] },
    ]);
    expect(text(company)).not.toContain(denied.accountNumber);
    // The account picture is a ledger read: not found, as get_account.
    expect(text(await call('get_account_context', { companyId: denied.companyId, accountNumber: '1920', year: 2026 }))).toMatch(/^not found: /);
    expect(text(await call('get_account', { companyId: denied.companyId, accountNumber: '1920', year: 2026 }))).toMatch(/^not found: /);

    // Only bank:read denied: the ledger and VAT parts show, the bank parts do not.
    const partCompany = pictureOf(await untilReady(() => call('get_company_context', { companyId: partly.companyId })));
    expect(partCompany).toMatchObject({ companyId: partly.companyId, currentYear: 2026, trialBalance: { accounts: 3 } });
    expect(partCompany).toHaveProperty('openVatTerm');
    expect(partCompany).not.toHaveProperty('bankAccounts');
    expect(partCompany.omitted).toEqual([
      { part: 'bankAccounts', needs: ['bank:read'] },
      { part: 'recentImports', needs: ['imports:write'] },
    ]);
    const partAccount = await untilReady(() => call('get_account_context', { companyId: partly.companyId, accountNumber: '1920', year: 2026 }));
    expect(pictureOf(partAccount)).toMatchObject({ accountCode: '1920', closingBalance: 7777.25, lineCount: 1 });
    expect(pictureOf(partAccount)).not.toHaveProperty('reconciliation');
    expect(pictureOf(partAccount).omitted).toEqual([{ part: 'reconciliation', needs: ['bank:read'] }]);
    expect(text(partAccount)).not.toContain(partly.accountNumber);
    expect((await api('GET', `/v1/companies/${partly.companyId}/bank/accounts`, { token: restToken })).status).toBe(404);
    const vatAccount = await untilReady(() => call('get_account_context', { companyId: partly.companyId, accountNumber: '2700', year: 2026 }));
    expect(pictureOf(vatAccount)).toMatchObject({ vat: { direction: 'output' } });
    expect(pictureOf(vatAccount)).not.toHaveProperty('reconciliation');

    // The explain endpoint decides as the tools did.
    const explain = async (companyId: string, action: string) =>
      (await api('GET', `/v1/users/${person.userId}/access/explain?company_id=${companyId}&action=${action}`, { as: 'a-system' })).body as { decision: string; reason: string };
    expect(await explain(denied.companyId, 'context:read')).toMatchObject({ decision: 'allow' });
    expect(await explain(denied.companyId, 'companies:read')).toMatchObject({ decision: 'allow' });
    for (const action of ['ledger:read', 'bank:read', 'vat:read']) expect(await explain(denied.companyId, action)).toMatchObject({ decision: 'deny', reason: 'deny_rule' });
    expect(await explain(partly.companyId, 'bank:read')).toMatchObject({ decision: 'deny', reason: 'deny_rule' });
    expect(await explain(partly.companyId, 'ledger:read')).toMatchObject({ decision: 'allow' });
  }, 180_000);

  it('the token\'s scopes count as for REST: a session without bank:read sees no bank part, whatever the policy allows', async () => {
    const books = await booksWithBank();
    const person = await createPerson(testStack().organizations[0]!.id, 'Context Narrow Session');
    const policy = await api('POST', '/v1/access/policies', {
      as: 'a-system',
      body: { name: `Context full ${books.companyId.slice(0, 8)}`, rules: [{ effect: 'allow', actions: ['companies:*', 'ledger:*', 'bank:*', 'vat:*', 'context:read'], resources: { companies: [books.companyId] } }] },
    });
    expect((await api('POST', '/v1/access/assignments', { as: 'a-system', body: { policyId: policy.body.id, userId: person.userId } })).status).toBe(201);
    const call = await mcpClient((await signIn(person, { scopes: ['companies:read', 'ledger:read', 'context:read'], resource: `${testStack().baseUrl}/mcp` })).access_token);
    const picture = pictureOf(await untilReady(() => call('get_company_context', { companyId: books.companyId })));
    expect(picture).toHaveProperty('trialBalance');
    expect(picture).not.toHaveProperty('bankAccounts');
    expect(picture).not.toHaveProperty('openVatTerm');
    expect(picture.omitted.map((entry) => entry.part)).toEqual(['bankAccounts', 'openVatTerm', 'recentImports']);
  }, 120_000);

  it('the seeded accountant (Kari Nordmann) reads both context tools on her bakery through the MCP SDK client', async () => {
    const kari = testStack().people.find((person) => person.name === 'Kari Nordmann')!;
    const bakery = testStack().companies.find((company) => company.name === 'Bakeriet Solsiden AS')!;
    const explain = await api('GET', `/v1/users/${kari.userId}/access/explain?company_id=${bakery.id}&action=context:read`, { as: 'a-system' });
    expect(explain.body).toMatchObject({ decision: 'allow', reason: 'allow_rule' });

    const call = await mcpClient((await signIn(kari, { scopes: personScopes, resource: `${testStack().baseUrl}/mcp` })).access_token);
    const company = pictureOf(await untilReady(() => call('get_company_context', { companyId: bakery.id })));
    expect(company).toMatchObject({ companyId: bakery.id, name: 'Bakeriet Solsiden AS', currentYear: 2026 });
    expect((company.bankAccounts as unknown[]).length).toBeGreaterThan(0);
    // Imports are read by system clients only (the import list); everything else shows.
    expect(company.omitted).toEqual([{ part: 'recentImports', needs: ['imports:write'] }]);
    const account = pictureOf(await untilReady(() => call('get_account_context', { companyId: bakery.id, accountNumber: '1920', year: 2026 })));
    expect(account).toMatchObject({ accountCode: '1920', year: 2026, omitted: [] });
    expect((account.periods as unknown[]).length).toBe(12);
    expect((account.reconciliation as { bankAccounts: unknown[] }).bankAccounts.length).toBeGreaterThan(0);
  }, 120_000);
});

describe('MCP context tools: catching up with the books', () => {
  const principal = () => {
    const { id } = testStack().organizations[0]!;
    return administratorOf({ id, path: id }, 'context-freshness-test', [...allScopes]);
  };
  const accountContext = (companyId: string, accountNumber: string, year: number) => contextTool('get_account_context').call({ companyId, accountNumber, year }, principal(), 'test');
  const companyContext = (companyId: string) => contextTool('get_company_context').call({ companyId }, principal(), 'test');
  const setMarker = (companyId: string, requestedAt: string) =>
    dynamo().send(new UpdateCommand({ TableName: tableName(), Key: companyContextKeys(companyId), UpdateExpression: 'SET refreshRequestedAt = :at', ExpressionAttributeValues: { ':at': requestedAt } }));
  const setLedgerUpdatedAt = (companyId: string, at: string) =>
    dynamo().send(new UpdateCommand({ TableName: tableName(), Key: ledgerStateKeys(companyId), UpdateExpression: 'SET lastUpdatedAt = :at', ExpressionAttributeValues: { ':at': at } }));

  it('a chart account without activity and any year with a chart get a picture; one rebuild is queued per company while one is pending, again once the request is older than the bound', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    await importAndWait(companyId, 'accounts', chartOf(2026, ['1500', '1920', '3000']));
    const done = await importAndWait(companyId, 'general-ledger-lines', {
      year: 2026,
      lines: [
        { id: 'F1', accountCode: '1920', amount: '300.00', period: 4, transactionId: 'V-1', transactionDate: '2026-04-02' },
        { id: 'F2', accountCode: '3000', amount: '-300.00', period: 4, transactionId: 'V-1', transactionDate: '2026-04-02' },
      ],
    });
    await waitForPostFetch(companyId, done.body.id);

    // An account of the chart with no line and no opening balance: zero balances, no movements.
    const idle = pictureOf(await untilReady(() => accountContext(companyId, '1500', 2026)));
    expect(idle).toMatchObject({ accountCode: '1500', year: 2026, openingBalance: 0, closingBalance: 0, lineCount: 0, largestMovements: [], lastLines: [] });
    expect((idle.periods as { movement: number }[]).map((period) => period.movement)).toEqual(Array(12).fill(0));

    // Another year with a chart: built on request, one rebuild for all the reads that wait for it.
    await eventually(async () => (await contextRepository.refreshRequest(companyId)) === undefined, queueWaitMs, 'no rebuild pending');
    const queuedBefore = await contextRepository.refreshesQueued(companyId);
    const first = await accountContext(companyId, '1920', 2025);
    expect(text(first)).toMatch(/^service_unavailable: /);
    const past = pictureOf(await untilReady(() => accountContext(companyId, '1920', 2025)));
    expect(past).toMatchObject({ accountCode: '1920', year: 2025, closingBalance: 0, lineCount: 0 });
    expect(await contextRepository.refreshesQueued(companyId)).toBe(queuedBefore + 1);
    // A year without a chart is not found.
    expect(text(await accountContext(companyId, '1920', 2024))).toMatch(/^not found: /);

    // A request is pending (its message lost, say) and the books stay ahead of any rebuild: reads queue nothing more.
    await setLedgerUpdatedAt(companyId, new Date(Date.now() + 3_600_000).toISOString());
    await setMarker(companyId, new Date().toISOString());
    const pendingBefore = await contextRepository.refreshesQueued(companyId);
    const waiting = await Promise.all(Array.from({ length: 8 }, () => companyContext(companyId)));
    expect(waiting.map((result) => text(result).split(':')[0])).toEqual(Array(8).fill('service_unavailable'));
    expect(await contextRepository.refreshesQueued(companyId)).toBe(pendingBefore);

    // Older than the bound: the next read queues it again, once.
    await setMarker(companyId, new Date(Date.now() - (refreshPendingSeconds + 1) * 1000).toISOString());
    expect(text(await companyContext(companyId))).toMatch(/^service_unavailable: /);
    expect(await contextRepository.refreshesQueued(companyId)).toBe(pendingBefore + 1);

    // Once the books are behind the pictures again, the rebuild it queued answers, and the request is ended.
    await setLedgerUpdatedAt(companyId, new Date(Date.now() - 60_000).toISOString());
    await untilReady(() => companyContext(companyId));
    await eventually(async () => (await contextRepository.refreshRequest(companyId)) === undefined, queueWaitMs, 'the request ended by its rebuild');
  }, 180_000);

  it('a burst of reads of a picture behind the books queues at most one rebuild, and they answer once it has run', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2026, ['1920', '3000']));
    const done = await importAndWait(companyId, 'general-ledger-lines', {
      year: 2026,
      lines: [
        { id: 'B1', accountCode: '1920', amount: '10.00', period: 1, transactionId: 'V-1', transactionDate: '2026-01-02' },
        { id: 'B2', accountCode: '3000', amount: '-10.00', period: 1, transactionId: 'V-1', transactionDate: '2026-01-02' },
      ],
    });
    await waitForPostFetch(companyId, done.body.id);
    await untilReady(() => companyContext(companyId));
    // A change the fetch does not cover (a chart import: an outbox event): the pictures are behind it.
    await importAndWait(companyId, 'accounts', chartOf(2026, ['1920', '3000', '1500']));
    const before = await contextRepository.refreshesQueued(companyId);
    const burst = await Promise.all(Array.from({ length: 10 }, () => companyContext(companyId)));
    expect(burst.every((result) => !result.isError || text(result).startsWith('service_unavailable'))).toBe(true);
    // Each read that found no request pending queued one; a rebuild the worker finished within the
    // burst may have let a later read queue another, so the exact count is the next test's.
    expect(await contextRepository.refreshesQueued(companyId)).toBeGreaterThan(before);
    expect(pictureOf(await untilReady(() => accountContext(companyId, '1500', 2026)))).toMatchObject({ lineCount: 0 });
  });

  it('of reads requesting a rebuild side by side, exactly one queues it; the others join its years', async () => {
    testStack();
    // A company no worker touches: nothing can end the request while the reads race.
    const companyId = randomUUID();
    const now = new Date().toISOString();
    const expiredBefore = new Date(Date.now() - refreshPendingSeconds * 1000).toISOString();
    const claims = await Promise.all([2024, 2025, 2026, 2026, 2025, 2024, 2023, 2026].map((year) => contextRepository.claimRefresh(companyId, year, now, expiredBefore)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await contextRepository.refreshesQueued(companyId)).toBe(1);
    expect(await contextRepository.refreshRequest(companyId)).toEqual({ requestedAt: now, years: [2023, 2024, 2025, 2026] });
  });
});
