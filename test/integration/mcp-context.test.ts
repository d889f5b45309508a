import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { reconciliationQueueWorker } from '../../shared/composition/reconciliation-queue-worker';
import { contextPartition } from '../../shared/context/keys';
import { contextRepository } from '../../shared/context/repository';
import { refreshContext } from '../../shared/context/service';
import { importKeys, ledgerStateKeys } from '../../shared/imports/keys';
import { administratorOf } from '../../shared/identity/principal';
import { allScopes } from '../../shared/identity/scopes';
import { dynamo, tableName } from '../../shared/platform/aws';
import { api } from '../support/api';
import { eventually, queueWaitMs } from '../support/poll';
import { waitForPostFetch } from '../support/bank';
import { chartOf, importAndWait, newApiCompany } from '../support/ledger';
import { observingCalls } from '../support/sdk-calls';
import { testStack } from '../support/stack';
import { contextTool } from '../support/context-tools';

/**
 * The context tools as the MCP server runs them, in-process with a principal holding context:read
 * (over HTTP only interactive sessions hold it: test/integration/mcp-sign-in.test.ts).
 */
const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const organization = (index: number) => {
  const { id } = testStack().organizations[index]!;
  return { id, path: id };
};
const principalOf = (index: number) => administratorOf(organization(index), 'context-test', [...allScopes]);

describe('MCP context tools and the context service', () => {
  it('answer service_unavailable until the context service caught up with the ledger, then the picture; not found outside the reach', async () => {
    const companyId = await newApiCompany();
    const principal = principalOf(0);
    const companyContext = () => contextTool('get_company_context').call({ companyId }, principal, 'test');
    const accountContext = (accountNumber: string) => contextTool('get_account_context').call({ companyId, accountNumber, year: 2026 }, principal, 'test');

    // Nothing built yet: retry, never not found.
    const before = await companyContext();
    expect(before.isError).toBe(true);
    expect(text(before)).toMatch(/^service_unavailable: .*Retry/);

    await importAndWait(companyId, 'accounts', chartOf(2026, ['1920', '2700', '3000']));
    const done = await importAndWait(companyId, 'general-ledger-lines', {
      year: 2026,
      lines: [
        { id: 'L1', accountCode: '1920', amount: '1250.00', period: 1, transactionId: 'V-1', transactionDate: '2026-01-15', description: 'Cash sale' },
        { id: 'L2', accountCode: '3000', amount: '-1000.00', period: 1, transactionId: 'V-1', transactionDate: '2026-01-15', taxCode: '3' },
        { id: 'L3', accountCode: '2700', amount: '-250.00', period: 1, transactionId: 'V-1', transactionDate: '2026-01-15' },
        { id: 'L4', accountCode: '1920', amount: '-99.50', period: 3, transactionId: 'V-2', transactionDate: '2026-03-02', description: 'Bank fee' },
        { id: 'L5', accountCode: '3000', amount: '99.50', period: 3, transactionId: 'V-2', transactionDate: '2026-03-02' },
      ],
    });
    const run = await waitForPostFetch(companyId, done.body.id);
    expect(run.engines.map((engine: { name: string; status: string }) => `${engine.name} ${engine.status}`)).toEqual(['auto_reconciliation completed', 'context completed']);

    const company = await companyContext();
    expect(company.isError, text(company)).toBeFalsy();
    expect(company.structuredContent).toMatchObject({
      companyId,
      currentYear: 2026,
      trialBalance: { accounts: 3, openingBalance: 0, closingBalance: 0 },
      bankAccounts: [],
      openItems: { customer: { dueCount: 0, overdueCount: 0 }, supplier: { dueCount: 0, overdueCount: 0 } },
    });
    expect((company.structuredContent as { recentImports: { kind: string; status: string }[] }).recentImports.map((i) => `${i.kind} ${i.status}`)).toEqual([
      'general_ledger_lines succeeded',
      'accounts succeeded',
    ]);

    const account = await accountContext('1920');
    expect(account.isError, text(account)).toBeFalsy();
    // Amounts as the REST API writes them: exact decimals in the text block.
    expect(text(account)).toContain('"closingBalance":1150.50');
    expect(account.structuredContent).toMatchObject({ accountCode: '1920', year: 2026, openingBalance: 0, closingBalance: 1150.5, lineCount: 2, vat: null, reconciliation: null });
    const { periods, largestMovements, lastLines } = account.structuredContent as { periods: { period: number; movement: number; closingBalance: number }[]; largestMovements: { lineId: string; amount: number }[]; lastLines: { amount: number; description: string }[] };
    expect(periods).toHaveLength(12);
    expect(periods[0]).toEqual({ period: 1, movement: 1250, closingBalance: 1250 });
    expect(periods[2]).toEqual({ period: 3, movement: -99.5, closingBalance: 1150.5 });
    expect(largestMovements.map((line) => line.amount)).toEqual([1250, -99.5]);
    expect(lastLines[0]).toMatchObject({ amount: -99.5, description: 'Bank fee' });
    expect((await accountContext('2700')).structuredContent).toMatchObject({ vat: { direction: 'output' } });

    // An account the chart does not have is not found, not unavailable.
    const missing = await accountContext('9999');
    expect(text(missing)).toMatch(/^not found: /);

    // The books move on (a fetch the context service has not seen): unavailable until it catches up.
    await dynamo().send(
      new UpdateCommand({ TableName: tableName(), Key: ledgerStateKeys(companyId), UpdateExpression: 'SET lastUpdatedAt = :at', ExpressionAttributeValues: { ':at': new Date(Date.now() + 1000).toISOString() } }),
    );
    expect(text(await companyContext())).toMatch(/^service_unavailable: /);
    expect(text(await accountContext('1920'))).toMatch(/^service_unavailable: /);
    // The rebuild those reads queued runs on the stack's queue: let it end first (it could save an older picture over ours, or run after the import below).
    await eventually(async () => (await contextRepository.refreshRequest(companyId)) === undefined, queueWaitMs, 'the queued rebuild');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await refreshContext(companyId);
    expect((await companyContext()).isError).toBeFalsy();

    // A change the ledger's fetch does not cover (here a chart import: an outbox event, no fetch run):
    // the read finds the picture behind the books, answers unavailable and queues a rebuild.
    await importAndWait(companyId, 'accounts', chartOf(2026, ['1920', '2700', '3000', '1500']));
    expect(text(await companyContext())).toMatch(/^service_unavailable: /);
    const caughtUp = await eventually(async () => {
      const answer = await companyContext();
      return !answer.isError && answer;
    }, queueWaitMs, 'the picture to catch up');
    expect(caughtUp.isError).toBeFalsy();

    // Outside the reach (organization B): not found, whatever the context service holds.
    const other = await contextTool('get_company_context').call({ companyId }, principalOf(2), 'test');
    expect(text(other)).toMatch(/^not found: /);
    // Invalid input: a tool error naming the field.
    expect(text(await contextTool('get_company_context').call({ companyId: 'x' }, principal, 'test'))).toMatch(/^validation_failed: companyId/);
    // The REST read of the same company still answers from the books.
    expect((await api('GET', `/v1/companies/${companyId}/trial-balance?year=2026`, { as: 'a-system' })).body.totals.closingBalance).toBe(0);
  });

  it('a picture built on an earlier day is behind: items fall due, VAT terms end and years turn with the date alone', async () => {
    const companyId = await newApiCompany();
    const principal = principalOf(0);
    const companyContext = () => contextTool('get_company_context').call({ companyId }, principal, 'test');
    await importAndWait(companyId, 'accounts', chartOf(2026, ['1920', '3000']));
    await eventually(async () => (await contextRepository.refreshRequest(companyId)) === undefined, queueWaitMs, 'queued rebuilds');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await refreshContext(companyId);
    expect((await companyContext()).isError).toBeFalsy();
    // The next day in Norway, nothing changed in the books: unavailable, and a rebuild is asked for.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 24 * 3600 * 1000);
      expect(text(await companyContext())).toMatch(/^service_unavailable: /);
    } finally {
      vi.useRealTimers();
    }
    expect(await contextRepository.refreshRequest(companyId)).toBeDefined();
    // The rebuild it queued runs on the stack's queue; today the picture answers again.
    await eventually(async () => (await contextRepository.refreshRequest(companyId)) === undefined, queueWaitMs, 'the queued rebuild');
    expect((await companyContext()).isError).toBeFalsy();
  });

  it("a post-fetch run waits for its import's end: the picture's recent imports never keep an import queued that succeeded", async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2026, ['1920', '3000']));
    const done = await importAndWait(companyId, 'general-ledger-lines', {
      year: 2026,
      lines: [
        { id: 'W1', accountCode: '1920', amount: '10.00', period: 1, transactionId: 'V-1' },
        { id: 'W2', accountCode: '3000', amount: '-10.00', period: 1, transactionId: 'V-1' },
      ],
    });
    const run = await waitForPostFetch(companyId, done.body.id);
    // The window the import's worker leaves: its post-fetch message is on the queue, its end not yet written.
    const setStatus = (status: string) =>
      dynamo().send(new UpdateCommand({ TableName: tableName(), Key: importKeys(done.body.id), UpdateExpression: 'SET #status = :status', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':status': status } }));
    await setStatus('queued');
    const message = { messageId: randomUUID(), body: JSON.stringify({ companyId, fetchRunId: run.id, importId: done.body.id, year: 2026, completedAt: run.completedAt }) };
    const ended = new Promise((resolve) => setTimeout(resolve, 300)).then(() => setStatus('succeeded'));
    expect(await reconciliationQueueWorker({ Records: [message] } as SQSEvent)).toEqual({ batchItemFailures: [] });
    await ended;
    const picture = (await contextRepository.company(companyId))!.picture;
    expect(JSON.parse(picture).recentImports.map((i: { kind: string; status: string }) => `${i.kind} ${i.status}`)).toEqual(['general_ledger_lines succeeded', 'accounts succeeded']);
  });

  it('a rebuild asked for only by changes the relay saw is skipped when the stored pictures were built after them', async () => {
    const companyId = await newApiCompany(); // no imports, no refreshing events: nothing else rebuilds it
    const relayedBefore = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await refreshContext(companyId)).toMatch(/built$/);
    const built = (await contextRepository.company(companyId))!.builtAt;
    expect(built > relayedBefore).toBe(true);

    // A change relayed before that rebuild began: its pictures show it already.
    expect(await refreshContext(companyId, { changedBy: relayedBefore })).toBe(`context built at ${built} already shows the changes relayed by ${relayedBefore}`);
    const message = (body: object) => ({ messageId: randomUUID(), body: JSON.stringify({ kind: 'context-refresh', companyId, ...body }) });
    expect(await reconciliationQueueWorker({ Records: [message({ changedBy: relayedBefore }), message({ changedBy: relayedBefore })] } as SQSEvent)).toEqual({ batchItemFailures: [] });
    expect((await contextRepository.company(companyId))!.builtAt).toBe(built);

    // Rebuilt: a change relayed after the rebuild began; beside a message without the instant; with a year asked for.
    const rebuiltBy = async (records: object[]) => {
      const before = (await contextRepository.company(companyId))!.builtAt;
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await reconciliationQueueWorker({ Records: records.map(message) } as SQSEvent)).toEqual({ batchItemFailures: [] });
      return (await contextRepository.company(companyId))!.builtAt > before;
    };
    expect(await rebuiltBy([{ changedBy: new Date(Date.parse(built) + 1).toISOString() }])).toBe(true);
    expect(await rebuiltBy([{ changedBy: relayedBefore }, {}])).toBe(true);
    expect(await refreshContext(companyId, { changedBy: relayedBefore, years: [2024] })).toMatch(/\(2024, \d{4}\) built$/);
  });

  it('a rebuild that started before another keeps out of its way: the later one\'s company picture stays, whichever saves first', async () => {
    const companyId = await newApiCompany();
    const done = await importAndWait(companyId, 'accounts', chartOf(2026, ['1920', '3000']));
    expect(done.body.status).toBe('succeeded');
    await refreshContext(companyId);
    const isCompanyPicture = (input: Record<string, unknown>) => JSON.stringify(input.Key ?? {}).includes(contextPartition(companyId)) && JSON.stringify(input.Key).includes('"COMPANY"');
    /** Runs a rebuild that meets another, started after it and saved in full, at its n-th call that `at` picks. */
    const overtaken = async (at: (commandName: string, input: Record<string, unknown>) => boolean, n: number) => {
      let seen = 0;
      let later: string | undefined;
      let inner = false;
      const outcome = await observingCalls(
        dynamo(),
        async (commandName, input) => {
          if (inner || !at(commandName, input) || ++seen !== n) return;
          inner = true;
          await new Promise((resolve) => setTimeout(resolve, 5)); // the later rebuild's builtAt is later
          await refreshContext(companyId);
          later = (await contextRepository.company(companyId))!.builtAt;
          inner = false;
        },
        () => refreshContext(companyId),
      );
      return { outcome, later: later!, stored: (await contextRepository.company(companyId))!.builtAt };
    };
    // The later one saved before the earlier one looked before saving: nothing saved.
    const beforeSaving = await overtaken((commandName, input) => commandName === 'GetItemCommand' && isCompanyPicture(input), 2);
    expect(beforeSaving.outcome).toMatch(/^context not saved: a rebuild started at .* saved newer pictures$/);
    expect(beforeSaving.stored).toBe(beforeSaving.later);
    // The later one saved while the earlier one saved its account pictures: its company picture stays.
    const whileSaving = await overtaken((commandName) => commandName === 'BatchWriteItemCommand', 1);
    expect(whileSaving.outcome).toMatch(/company picture of a rebuild that started later kept$/);
    expect(whileSaving.stored).toBe(whileSaving.later);
  });
});
