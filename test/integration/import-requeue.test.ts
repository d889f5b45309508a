import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/outbox-sweeper/handler';
import { withEnv } from '../support/env';
import { lambdaContext } from '../../infra/local/lambda-context';
import { companyRepository } from '../../shared/companies/repository';
import { importKinds } from '../../shared/composition/import-kinds';
import type { Principal } from '../../shared/identity/principal';
import { systemClientScopes } from '../../shared/identity/scopes';
import { submitImport as submitThroughPipeline } from '../../shared/imports/pipeline';
import { importRepository } from '../../shared/imports/repository';
import { queuedImportsToRequeue, requeueQueuedImports, type RequeueResult } from '../../shared/saft/requeue';
import { eventsOfCompany } from '../../shared/outbox/repository';
import { dynamo, sqs, tableName } from '../../shared/platform/aws';
import { queues } from '../../shared/queues';
import { saftLane, startSaftImport } from '../../shared/saft/service';
import { jobRepository, laneLockItem } from '../../shared/jobs/repository';
import { api } from '../support/api';
import { chartOf, newApiCompany, submitImport, waitForImport } from '../support/ledger';
import { eventually, queueWaitMs, sleep } from '../support/poll';
import { observingCalls } from '../support/sdk-calls';
import { testStack } from '../support/stack';

/**
 * Accepting an import commits the lane, the job, the import and import.requested, then sends the
 * queue message; a SAF-T start the same. A function cut off between the two (a timeout, a crash)
 * is made here by a SendMessage that never returns: nothing compensates, the import stays queued
 * with no message. The outbox sweeper sends its message again once it is old enough.
 */
const importsQueue = queues.find((queue) => queue.name === 'imports')!;
const as = 'a-system';

const principal = (): Principal => {
  const organization = testStack().organizations[0]!;
  return { clientId: 'requeue-test', mode: 'SYSTEM', organizationId: organization.id, organizationPath: organization.id, userId: null, organizationIds: [], scopes: [...systemClientScopes], plan: 'premium' };
};

beforeAll(() => {
  testStack();
});

/**
 * Runs `accept` (which commits, then sends to the imports queue) with that send cut off: it never
 * returns, as when the function is stopped there. Answers the message body it was about to send.
 */
const cutOffBeforeTheMessage = async (accept: () => Promise<unknown>): Promise<Record<string, string>> => {
  const url = process.env[importsQueue.urlEnv];
  let held!: (body: Record<string, string>) => void;
  const body = new Promise<Record<string, string>>((resolve) => (held = resolve));
  return observingCalls(
    sqs(),
    (commandName, input) => {
      if (commandName !== 'SendMessageCommand' || input.QueueUrl !== url) return;
      held(JSON.parse(input.MessageBody as string) as Record<string, string>);
      return new Promise(() => undefined); // the function stops here: no message, no compensation
    },
    async () => {
      void accept().catch(() => undefined);
      return body;
    },
  );
};

/** Accepts an accounts import whose message is never sent; answers its id. */
const stuckAccountsImport = async (companyId: string, codes: string[]): Promise<string> => {
  const company = (await companyRepository.get(companyId))!;
  const kind = importKinds.find((candidate) => candidate.name === 'accounts')!;
  const caller = principal();
  const { importId } = await cutOffBeforeTheMessage(() => submitThroughPipeline(caller, company, kind, chartOf(2025, codes)));
  return importId!;
};

/**
 * Runs the sweep with the imports queue open to the messages of `ids` only: other test files' imports
 * (some queued on purpose, on a queue of their own) are left alone, as if another sweep had taken
 * them (the sweep's conditional take of their index entry is refused), so they are neither sent,
 * counted nor failed. With `lose`, the messages of `ids` are lost on their way (sent for an import
 * that does not exist): the worker never sees them, as when every delivery dies before it moves
 * the import on.
 */
const sweepingOnly = async <T>(ids: readonly string[], run: () => Promise<T>, options: { lose?: boolean } = {}): Promise<{ answer: T; sent: string[] }> => {
  const url = process.env[importsQueue.urlEnv];
  const sent: string[] = [];
  const answer = await observingCalls(
    dynamo(),
    (_commandName, input) => {
      const read = (input.ExpressionAttributeValues as Record<string, unknown> | undefined)?.[':read'];
      const sweepKey = typeof read === 'string' ? read : (read as { S?: string } | undefined)?.S; // plain, or marshalled
      if (!sweepKey || !String(input.ConditionExpression).includes('GSI2SK = :read')) return;
      if (!ids.some((id) => sweepKey.endsWith(`#${id}`))) throw Object.assign(new Error('Not this test’s import (taken elsewhere)'), { name: 'ConditionalCheckFailedException' });
    },
    () =>
      observingCalls(
        sqs(),
        (commandName, input) => {
          if (commandName !== 'SendMessageCommand' || input.QueueUrl !== url) return;
          const body = JSON.parse(input.MessageBody as string) as { importId?: string; saftImportId?: string };
          const id = body.importId ?? body.saftImportId ?? '';
          if (!ids.includes(id)) throw Object.assign(new Error('Not this test’s import (refused)'), { name: 'ServiceUnavailable' });
          sent.push(id);
          if (options.lose) input.MessageBody = JSON.stringify(body.importId ? { importId: randomUUID() } : { saftImportId: randomUUID() });
        },
        run,
      ),
  );
  return { answer, sent };
};

/** One sweep, at `now`: two sweeps given the same instant are in the same window, however long the first one took. */
const sweep = (olderThanSeconds: number, maxRequeues = 3, now = new Date()): Promise<RequeueResult> => requeueQueuedImports({ olderThanSeconds, limit: 1000, maxRequeues }, now);
const isQueuedWithoutMessage = async (id: string): Promise<boolean> => (await queuedImportsToRequeue({ olderThanSeconds: 0, limit: 100_000 })).some((item) => item.id === id);

const fixture = (name: string) => readFileSync(new URL(`../fixtures/saft/${name}`, import.meta.url));

/** A new company with a SAF-T file declared and uploaded, not started: its id and the import's. */
const uploadedSaft = async (): Promise<{ companyId: string; id: string }> => {
  const created = await api('POST', '/v1/companies', { as, body: { displayName: `SAF-T ${randomUUID().slice(0, 8)} AS`, accountingSystem: 'Api', organizationNumber: '999999999' } });
  expect(created.status).toBe(201);
  const companyId = created.body.id as string;
  const bytes = fixture('example-1.10-999999999.xml');
  const declared = await api('POST', `/v1/companies/${companyId}/imports/saft`, { as, body: { fileName: 'saft.xml', sizeBytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') } });
  expect(declared.status).toBe(201);
  expect((await fetch(declared.body.upload.url, { method: 'PUT', headers: declared.body.upload.headers, body: bytes })).status).toBe(200);
  return { companyId, id: declared.body.id as string };
};

/**
 * A SAF-T import started with its message cut off, sent again once by the sweep (bound 1) and that
 * message lost too: the next window's sweep is past the bound.
 */
const saftSentOnceInVain = async () => {
  const { companyId, id } = await uploadedSaft();
  const company = (await companyRepository.get(companyId))!;
  await cutOffBeforeTheMessage(() => startSaftImport(company, id, {}));
  const jobId = (await api('GET', `/v1/companies/${companyId}/imports/saft/${id}`, { as })).body.jobId as string;
  expect((await jobRepository.laneHolder(companyId, saftLane))?.jobId).toBe(jobId);
  const lostSweep = (now?: Date) => sweepingOnly([id], () => sweep(1, 1, now), { lose: true });

  await sleep(1100);
  const window = new Date();
  expect((await lostSweep(window)).sent).toEqual([id]);
  expect((await lostSweep(window)).sent).toEqual([]);
  await sleep(1100);
  return { companyId, id, jobId, lostSweep };
};

describe('imports left queued without their message', () => {
  it('an import whose message was never sent is sent again by the sweep once old enough, and ends succeeded once: its job, one job.succeeded, the rows applied once', async () => {
    const companyId = await newApiCompany();
    const importId = await stuckAccountsImport(companyId, ['1920', '3000']);

    // Stuck as the defect left it: queued, its job queued, the lane held (409 naming its job).
    const stuck = (await api('GET', `/v1/companies/${companyId}/imports/${importId}`, { as })).body;
    expect(stuck.status).toBe('queued');
    expect((await api('GET', `/v1/jobs/${stuck.jobId}`, { as })).body.status).toBe('queued');
    const refused = await submitImport(companyId, 'accounts', chartOf(2025, ['1500']));
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ reason: 'job_in_flight', jobId: stuck.jobId });
    expect(await isQueuedWithoutMessage(importId)).toBe(true);

    // Younger than the bound: not sent.
    const early = await sweepingOnly([importId], () => sweep(600));
    expect(early.sent).toEqual([]);
    expect(await isQueuedWithoutMessage(importId)).toBe(true);

    await sleep(1100);
    const { answer, sent } = await sweepingOnly([importId], () => sweep(1));
    expect(sent).toEqual([importId]);
    expect(answer.requeued).toBeGreaterThanOrEqual(1);

    const done = (await waitForImport(companyId, importId)).body;
    expect(done).toMatchObject({ status: 'succeeded', rowsInserted: 2, rowsUpdated: 0, rowsFailed: 0 });
    expect((await api('GET', `/v1/jobs/${stuck.jobId}`, { as })).body.status).toBe('succeeded');
    const events = (await eventsOfCompany(companyId)).filter((event) => event.data.importId === importId);
    expect(events.map((event) => event.type)).toEqual(['import.requested', 'job.succeeded']);
    const accounts = await api('GET', `/v1/companies/${companyId}/accounts?year=2025`, { as });
    expect(accounts.status).toBe(200);
    expect((accounts.body.data as { accountNumber: string }[]).map((account) => account.accountNumber).sort()).toEqual(['1920', '3000']);

    // Moved on, it leaves the sweep index: a later sweep sends nothing, and the lane is free.
    expect(await isQueuedWithoutMessage(importId)).toBe(false);
    expect((await sweepingOnly([importId], () => sweep(0))).sent).toEqual([]);
    const next = await submitImport(companyId, 'accounts', chartOf(2025, ['1500']));
    expect(next.status).toBe(202);
  });

  it('an import whose re-sent messages never start it is sent again at most once per window, and past the bound the sweep fails it: internal_error, its job failed, one job.failed, the lane free', async () => {
    const companyId = await newApiCompany();
    const importId = await stuckAccountsImport(companyId, ['1920', '3000']);
    const jobId = (await api('GET', `/v1/companies/${companyId}/imports/${importId}`, { as })).body.jobId as string;
    const lostSweep = (now?: Date) => sweepingOnly([importId], () => sweep(1, 2, now), { lose: true });

    await sleep(1100);
    const firstWindow = new Date();
    const first = await lostSweep(firstWindow);
    expect(first.sent).toEqual([importId]);
    expect(first.answer).toMatchObject({ requeued: 1, failedNeverStarted: 0 });
    // The same window: sent once, not by every sweep.
    const again = await lostSweep(firstWindow);
    expect(again.sent).toEqual([]);
    expect(again.answer).toMatchObject({ requeued: 0, failedNeverStarted: 0 });
    expect(await isQueuedWithoutMessage(importId)).toBe(true);

    await sleep(1100);
    const secondWindow = new Date();
    expect((await lostSweep(secondWindow)).sent).toEqual([importId]);
    expect((await lostSweep(secondWindow)).sent).toEqual([]);
    expect((await api('GET', `/v1/companies/${companyId}/imports/${importId}`, { as })).body.status).toBe('queued');

    // A window after the second (last) re-send it has still not started: failed, then one message
    // more, for the worker to end what the failed import may still hold (a deletion's claims).
    await sleep(1100);
    const last = await lostSweep();
    expect(last.sent).toEqual([importId]);
    expect(last.answer).toMatchObject({ requeued: 0, failedNeverStarted: 1 });
    const failed = (await api('GET', `/v1/companies/${companyId}/imports/${importId}`, { as })).body;
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'internal_error', rowsInserted: 0 });
    const job = (await api('GET', `/v1/jobs/${jobId}`, { as })).body;
    expect(job.status).toBe('failed');
    expect(job.error).toMatchObject({ code: 'internal_error' });
    expect(job.error.message).toContain('its message was sent again 2 times and it never started');
    const events = (await eventsOfCompany(companyId)).filter((event) => event.data.importId === importId);
    expect(events.map((event) => event.type)).toEqual(['import.requested', 'job.failed']);

    // A delivery still applying it meanwhile records no chunk of a failed import (it stops there).
    const progress = { nextChunk: 1, rowsFailed: 0, rowsInserted: 2, rowsUpdated: 0, rowsDeletedFromRequest: 0, rowsRetired: null, sampleErrors: [], unknown: [] };
    expect(await importRepository.recordChunk(importId, 0, progress, new Date().toISOString())).toBe(false);
    expect((await importRepository.get(importId))?.status).toBe('failed');

    // Out of the sweep index: nothing more is sent or failed, and the lane is free.
    expect(await isQueuedWithoutMessage(importId)).toBe(false);
    await sleep(1100);
    const after = await lostSweep();
    expect(after.sent).toEqual([]);
    expect(after.answer.failedNeverStarted).toBe(0);
    const next = await submitImport(companyId, 'accounts', chartOf(2025, ['1500']));
    expect(next.status).toBe(202);
  });

  it('the scheduled sweeper sends them again with the bound of its environment (IMPORT_REQUEUE_AFTER_SECONDS) and answers what it did', async () => {
    const companyId = await newApiCompany();
    const importId = await stuckAccountsImport(companyId, ['1920']);
    await sleep(1100);
    // The handler sweeps the outbox too: bounds that find no event keep it off the events other test files leave pending on purpose.
    const environment = { IMPORT_REQUEUE_AFTER_SECONDS: '1', OUTBOX_SWEEP_LOOKBACK_DAYS: '0', OUTBOX_SWEEP_AFTER_SECONDS: String(2 * 86_400) };
    const { answer, sent } = await withEnv(environment, () => sweepingOnly([importId], () => handler({}, lambdaContext('outbox-sweeper', 300))));
    expect(sent).toEqual([importId]);
    expect(answer.imports.requeued).toBeGreaterThanOrEqual(1);
    expect(answer.found).toBe(0);
    expect((await waitForImport(companyId, importId)).body.status).toBe('succeeded');
  });
});

describe('SAF-T imports left queued without their message', () => {

  it('a start whose message was never sent is sent again by the sweep, and the SAF-T import ends succeeded with one job.succeeded', async () => {
    const { companyId, id } = await uploadedSaft();

    const company = (await companyRepository.get(companyId))!;
    const { saftImportId } = await cutOffBeforeTheMessage(() => startSaftImport(company, id, {}));
    expect(saftImportId).toBe(id);
    const stuck = (await api('GET', `/v1/companies/${companyId}/imports/saft/${id}`, { as })).body;
    expect(stuck.status).toBe('queued');
    expect((await api('GET', `/v1/jobs/${stuck.jobId}`, { as })).body.status).toBe('queued');
    expect(await isQueuedWithoutMessage(id)).toBe(true);
    expect((await sweepingOnly([id], () => sweep(600))).sent).toEqual([]);

    await sleep(1100);
    expect((await sweepingOnly([id], () => sweep(1))).sent).toEqual([id]);
    const done = await eventually(async () => {
      const response = await api('GET', `/v1/companies/${companyId}/imports/saft/${id}`, { as });
      return (response.body.status === 'succeeded' || response.body.status === 'failed') && response.body;
    }, queueWaitMs * 3, `SAF-T import ${id}`);
    expect(done.status, JSON.stringify(done)).toBe('succeeded');
    expect((await api('GET', `/v1/jobs/${stuck.jobId}`, { as })).body.status).toBe('succeeded');
    const ended = (await eventsOfCompany(companyId)).filter((event) => event.data.jobId === stuck.jobId).map((event) => event.type);
    expect(ended).toEqual(['job.succeeded']);
    expect(await isQueuedWithoutMessage(id)).toBe(false);
  });

  /** The sweep past the bound fails the SAF-T import: failed with internal_error, its job failed, one job.failed, out of the sweep index. */
  const expectFailedBySweep = async ({ companyId, id, jobId, lostSweep }: Awaited<ReturnType<typeof saftSentOnceInVain>>) => {
    const last = await lostSweep();
    expect(last.sent).toEqual([]);
    expect(last.answer.failedNeverStarted).toBe(1);

    const failed = (await api('GET', `/v1/companies/${companyId}/imports/saft/${id}`, { as })).body;
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'internal_error' });
    const job = (await api('GET', `/v1/jobs/${jobId}`, { as })).body;
    expect(job.status).toBe('failed');
    expect(job.error).toMatchObject({ code: 'internal_error' });
    expect(job.error.message).toContain('its message was sent again 1 time and it never started');
    const ended = (await eventsOfCompany(companyId)).filter((event) => event.data.jobId === jobId).map((event) => event.type);
    expect(ended).toEqual(['job.failed']);
    expect(await isQueuedWithoutMessage(id)).toBe(false);
  };

  it('a SAF-T import whose re-sent message never starts it is failed by the sweep past the bound: internal_error, its job failed, one job.failed, the SAF-T lane free', async () => {
    const saft = await saftSentOnceInVain();
    await expectFailedBySweep(saft);
    expect(await jobRepository.laneHolder(saft.companyId, saftLane)).toBeUndefined();
  });

  it('a SAF-T import past the bound whose lane another import took after its lease ran out is failed all the same; the other keeps the lane', async () => {
    const saft = await saftSentOnceInVain();
    // Its lease ran out and another import took the lane.
    const other = randomUUID();
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: laneLockItem(saft.companyId, saftLane, other, randomUUID(), Date.now()) }));
    await expectFailedBySweep(saft);
    expect((await jobRepository.laneHolder(saft.companyId, saftLane))?.jobId).toBe(other);
  });
});
