import { parse as parseLossless } from 'lossless-json';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startSqsPoller, type SqsPoller } from '../../infra/local/sqs-poller';
import { ensureQueue, localSqsClient } from '../../infra/local/sqs';
import { eventsOfCompany } from '../../shared/outbox/repository';
import type { ImportKind } from '../../shared/imports/kind';
import { companyRepository } from '../../shared/companies/repository';
import { importRepository } from '../../shared/imports/repository';
import { submitImport as submitThroughPipeline } from '../../shared/imports/pipeline';
import { importKinds } from '../../shared/composition/import-kinds';
import { postFetchEngineNames } from '../../shared/composition/post-fetch-engines';
import { createImportWorker } from '../../shared/imports/worker';
import type { Principal } from '../../shared/identity/principal';
import { systemClientScopes } from '../../shared/identity/scopes';
import { sqs } from '../../shared/platform/aws';
import { logger } from '../../shared/platform/logger';
import { Decimal } from '../../shared/platform/money';
import * as z from '../../shared/platform/zod';
import { queues } from '../../shared/queues';
import { api } from '../support/api';
import { chartOf, importAndWait, newApiCompany, submitImport, waitForImport } from '../support/ledger';
import { testStack } from '../support/stack';

/**
 * The worker as SQS runs it, with a crash injected: the import goes to a queue of this test,
 * a poller delivers it to a worker whose GL kind throws once right after a chunk's writes
 * (before the chunk is recorded), and SQS redelivers it after the visibility timeout.
 */
const importsQueue = queues.find((queue) => queue.name === 'imports')!;
const faults = new Map<string, number>();

const crashingOnce = (kind: ImportKind, chunkIndex: number): ImportKind => ({
  ...kind,
  chunkSize: 100,
  async applyChunk(context, rows, chunk) {
    const outcomes = await kind.applyChunk(context, rows, chunk);
    if (chunk.index === chunkIndex && !faults.has(context.importId)) {
      faults.set(context.importId, 1);
      throw new Error('injected crash after the chunk was written');
    }
    return outcomes;
  },
});

const alwaysFailing = (kind: ImportKind): ImportKind => ({
  ...kind,
  async applyChunk() {
    throw new Error('injected permanent failure');
  },
});

/**
 * A row the database refuses (an amount beyond DynamoDB's range, as validation let through before
 * amounts were bounded): the real kind applies it, so the real ValidationException comes back.
 */
const deliveries = new Map<string, number>();
const storingUnstorableAmount = (kind: ImportKind): ImportKind => ({
  ...kind,
  async applyChunk(context, rows, chunk) {
    deliveries.set(context.importId, (deliveries.get(context.importId) ?? 0) + 1);
    return kind.applyChunk(context, rows.map((row: { id: string }) => (row.id === 'poison' ? { ...row, amount: new Decimal('1e126') } : row)), chunk);
  },
});

let poller: SqsPoller;
let queueUrl: string;
let originalQueueUrl: string | undefined;
const principal = (): Principal => {
  const organization = testStack().organizations[0]!;
  return { clientId: 'redelivery-test', mode: 'SYSTEM', organizationId: organization.id, organizationPath: organization.id, userId: null, organizationIds: [], scopes: [...systemClientScopes], plan: 'premium' };
};

beforeAll(async () => {
  logger.setLogLevel('CRITICAL'); // the injected failures are logged as errors by design
  const stack = testStack();
  const client = localSqsClient(stack.internal.sqsEndpoint);
  const queue = await ensureQueue(client, { name: `redelivery-${randomUUID().slice(0, 8)}`, visibilityTimeoutSeconds: 2, maxReceiveCount: importsQueue.maxReceiveCount });
  queueUrl = queue.url;
  originalQueueUrl = process.env[importsQueue.urlEnv];
  const kinds = importKinds.map((kind) => {
    if (kind.name === 'general_ledger_lines') return crashingOnce(kind, 3);
    if (kind.name === 'dimensions') return alwaysFailing(kind);
    if (kind.name === 'opening_balances') return storingUnstorableAmount(kind);
    return kind;
  });
  poller = startSqsPoller({ client, queueUrl: queue.url, queueArn: queue.arn, handler: createImportWorker(kinds, postFetchEngineNames), functionName: 'import-worker-under-test', batchSize: 1, waitTimeSeconds: 1, onError: () => undefined });
});

afterAll(async () => {
  await poller?.stop();
  logger.setLogLevel('ERROR');
  if (originalQueueUrl) process.env[importsQueue.urlEnv] = originalQueueUrl;
});

/** Submits through the real pipeline, but onto this test's queue (or another queue URL; kind: the kind as it was then). */
const submitToTestQueue = async (companyId: string, kindName: string, bodyText: string, options: { url?: string; kind?: ImportKind } = {}) => {
  const url = options.url ?? queueUrl;
  const caller = principal(); // calls testStack(), which points the env at the stack's own queue
  process.env[importsQueue.urlEnv] = url;
  try {
    return await submitThroughPipeline(caller, (await companyRepository.get(companyId))!, options.kind ?? importKinds.find((k) => k.name === kindName)!, parseLossless(bodyText));
  } finally {
    process.env[importsQueue.urlEnv] = originalQueueUrl;
  }
};

const linesBody = (count: number, amountOf: (i: number) => string) =>
  JSON.stringify({
    year: 2025,
    lines: Array.from({ length: count }, (_, i) => ({ id: `L${String(i).padStart(4, '0')}`, accountCode: i % 2 ? '3000' : '1920', amount: amountOf(i), period: (i % 12) + 1 })),
  });

const allLines = async (companyId: string) => {
  const lines: { sourceLineId: string; amount: number; version: number }[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const query: string = `year=2025&page_size=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?${query}`, { as: 'a-system' });
    lines.push(...response.body.data);
    cursor = response.body.pagination.next_cursor;
    if (!cursor) break;
  }
  return lines;
};

describe('import worker under crash and redelivery', () => {
  it('a crash after a chunk was written is redelivered and ends with no line lost or duplicated and the same counters', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));

    const first = await submitToTestQueue(companyId, 'general_ledger_lines', linesBody(650, (i) => `${i}.25`));
    const done = (await waitForImport(companyId, first.id)).body;
    expect(faults.has(first.id), 'the crash was injected').toBe(true);
    expect(done).toMatchObject({ status: 'succeeded', rowsDiscovered: 650, rowsValid: 650, rowsInserted: 650, rowsUpdated: 0, rowsFailed: 0 });
    const lines = await allLines(companyId);
    expect(lines).toHaveLength(650);
    expect(new Set(lines.map((line) => line.sourceLineId)).size).toBe(650);

    // a re-import crashing the same way: every line updated once, one history version each
    const second = await submitToTestQueue(companyId, 'general_ledger_lines', linesBody(650, (i) => `${i}.75`));
    const redone = (await waitForImport(companyId, second.id)).body;
    expect(faults.has(second.id)).toBe(true);
    expect(redone).toMatchObject({ status: 'succeeded', rowsInserted: 0, rowsUpdated: 650, rowsFailed: 0 });
    const updated = await allLines(companyId);
    expect(updated).toHaveLength(650);
    expect(updated.every((line) => line.version === 2)).toBe(true);

    // the trial balance equals the sum of the lines, to the øre
    const balance = await api('GET', `/v1/companies/${companyId}/trial-balance?year=2025`, { as: 'a-system' });
    const expected = (parity: number) => Array.from({ length: 650 }, (_, i) => i).filter((i) => i % 2 === parity).reduce((sum, i) => sum + i * 100 + 75, 0);
    const closing = Object.fromEntries(balance.body.accounts.map((a: { accountCode: string }) => [a.accountCode, a]));
    expect(Math.round(Number(closing['1920'].closingBalance) * 100)).toBe(expected(0));
    expect(Math.round(Number(closing['3000'].closingBalance) * 100)).toBe(expected(1));
  });

  it('a permanent failure fails the import on the last delivery: job.failed, and the lane is free again', async () => {
    const companyId = await newApiCompany();
    const failing = await submitToTestQueue(companyId, 'dimensions', JSON.stringify({ dimensions: [{ key: 'D1', value: 'Sales', type: 'department' }] }));
    const done = (await waitForImport(companyId, failing.id)).body;
    expect(done).toMatchObject({ status: 'failed', failureReason: 'internal_error' });
    const job = await api('GET', `/v1/jobs/${done.jobId}`, { as: 'a-system' });
    expect(job.body).toMatchObject({ status: 'failed', error: { code: 'internal_error' } });
    const events = await eventsOfCompany(companyId);
    expect(events.map((event) => event.type)).toEqual(['company.created', 'import.requested', 'job.failed']);
    // the lane was released: the next import of the kind is accepted and runs on the real worker
    const next = await importAndWait(companyId, 'dimensions', { dimensions: [{ key: 'D1', value: 'Sales', type: 'department' }] });
    expect(next.body.status).toBe('succeeded');
  });

  it('an import that cannot be queued fails at once: the job says why, and the lane is free again', async () => {
    const companyId = await newApiCompany();
    const body = JSON.stringify({ dimensions: [{ key: 'D1', value: 'Sales', type: 'department' }] });
    await expect(submitToTestQueue(companyId, 'dimensions', body, { url: `${queueUrl}-absent` })).rejects.toThrow();

    const list = await api('GET', `/v1/companies/${companyId}/imports`, { as: 'a-system' });
    expect(list.body.data).toHaveLength(1);
    const failed = list.body.data[0];
    expect(failed).toMatchObject({ kind: 'dimensions', status: 'failed', failureReason: 'internal_error', sampleErrors: [] });
    const job = await api('GET', `/v1/jobs/${failed.jobId}`, { as: 'a-system' });
    expect(job.body).toMatchObject({ status: 'failed', error: { code: 'internal_error', message: 'The import could not be queued; submit it again.' } });
    const events = await eventsOfCompany(companyId);
    expect(events.map((event) => event.type)).toEqual(['company.created', 'import.requested', 'job.failed']);
    const next = await importAndWait(companyId, 'dimensions', { dimensions: [{ key: 'D1', value: 'Sales', type: 'department' }] });
    expect(next.body.status).toBe('succeeded');
  });

  it('a row the database refuses fails the import on its first delivery: rejected_by_database, job.failed, the lane free at once', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '2050']));
    const body = JSON.stringify({ year: 2025, lines: [{ id: 'fine', accountCode: '1920', amount: '10.00' }, { id: 'poison', accountCode: '2050', amount: '-10.00' }] });
    const poisoned = await submitToTestQueue(companyId, 'opening_balances', body);
    const done = (await waitForImport(companyId, poisoned.id)).body;
    expect(done).toMatchObject({ status: 'failed', failureReason: 'rejected_by_database' });
    expect(deliveries.get(poisoned.id), 'not retried: one delivery, not five').toBe(1);
    const job = await api('GET', `/v1/jobs/${done.jobId}`, { as: 'a-system' });
    expect(job.body).toMatchObject({ status: 'failed', error: { code: 'rejected_by_database' } });
    expect(job.body.error.message).toMatch(/^The database refused to store a row of the import \(.+\); the same write would fail again, so it was not retried\. \(rows 1 to 2; rows before them are applied\)$/);
    const events = await eventsOfCompany(companyId);
    expect(events.filter((event) => (event.data as { importId?: string }).importId === poisoned.id).map((event) => event.type)).toEqual(['import.requested', 'job.failed']);
    // the lane is free: the corrected import is accepted and runs on the real worker
    const next = await importAndWait(companyId, 'opening-balances', JSON.parse(body.replace('"poison"', '"corrected"')));
    expect(next.body).toMatchObject({ status: 'succeeded', rowsInserted: 2 });
  });

  it('a stored payload that no longer validates (accepted before amounts were bounded) fails at once: invalid_payload', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920']));
    const real = importKinds.find((k) => k.name === 'general_ledger_lines')!;
    // the kind as it was: amounts of any size passed
    const unbounded: ImportKind = { ...real, bodySchema: z.looseObject({ lines: z.array(z.unknown()) }) as never, year: () => 2025, precheck: undefined };
    const stuck = await submitToTestQueue(companyId, 'general_ledger_lines', '{"year":2025,"lines":[{"id":"big","accountCode":"1920","amount":1e126,"period":1}]}', { kind: unbounded });
    const done = (await waitForImport(companyId, stuck.id)).body;
    expect(done).toMatchObject({ status: 'failed', failureReason: 'invalid_payload', rowsInserted: 0 });
    expect(faults.has(stuck.id), 'no chunk ran').toBe(false);
    const job = await api('GET', `/v1/jobs/${done.jobId}`, { as: 'a-system' });
    expect(job.body).toMatchObject({ status: 'failed', error: { code: 'invalid_payload' } });
    const accepted = await submitImport(companyId, 'general-ledger-lines', { year: 2025, lines: [{ id: 'ok', accountCode: '1920', amount: '1.00', period: 1 }] });
    expect(accepted.status, 'the lane is free').toBe(202);
  });

  it('the post-fetch message that cannot be sent after the fetch run was recorded is retried: the import ends succeeded, fetch completed, one run, one job.succeeded', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    const reconciliationUrl = process.env[queues.find((queue) => queue.name === 'reconciliation')!.urlEnv];
    const client = sqs();
    const send = client.send.bind(client);
    const refused: string[] = [];
    // The first post-fetch message of the import fails (SQS unavailable), after its run was committed.
    vi.spyOn(client, 'send').mockImplementation(((command: { input: { QueueUrl?: string; MessageBody?: string } }) => {
      const body = command.input.MessageBody ?? '';
      if (command.input.QueueUrl === reconciliationUrl && body.includes(companyId) && refused.length === 0) {
        refused.push(body);
        return Promise.reject(new Error('SQS unavailable'));
      }
      return send(command as never);
    }) as never);
    try {
      const accepted = await submitToTestQueue(companyId, 'general_ledger_lines', linesBody(2, (i) => (i ? '-5.00' : '5.00')));
      const done = (await waitForImport(companyId, accepted.id)).body;
      expect(refused).toHaveLength(1);
      expect(done).toMatchObject({ status: 'succeeded', rowsInserted: 2, fetchCompletion: { status: 'completed', fetchRunId: accepted.id } });
      const runs = await api('GET', `/v1/companies/${companyId}/fetch-runs`, { as: 'a-system' });
      expect(runs.body.data.map((run: { id: string }) => run.id)).toEqual([accepted.id]);
      expect(await importRepository.findFetchRun(companyId, accepted.id)).toMatchObject({ id: accepted.id });
      const events = await eventsOfCompany(companyId);
      expect(events.filter((event) => (event.data as { importId?: string }).importId === accepted.id).map((event) => event.type)).toEqual(['import.requested', 'job.succeeded']);
    } finally {
      vi.restoreAllMocks();
    }
  });
});
