import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { ProblemError } from '../../shared/platform/problem';
import { describe, expect, it } from 'vitest';
import { eventsOfCompany } from '../../shared/outbox/repository';
import { createPostFetchWorker } from '../../shared/imports/post-fetch';
import { importKeys, ledgerStateKeys } from '../../shared/imports/keys';
import { laneLockKeys } from '../../shared/jobs/keys';
import { jobRepository, laneLeaseMilliseconds } from '../../shared/jobs/repository';
import { companyRepository } from '../../shared/companies/repository';
import { importKind, importKinds } from '../../shared/composition/import-kinds';
import { postFetchEngineNames } from '../../shared/composition/post-fetch-engines';
import { acceptImport } from '../../shared/imports/pipeline';
import { processImport } from '../../shared/imports/worker';
import { parseLosslessJson } from '../../shared/platform/lossless-json';
import { lineIdOf, markLineReconciled, markOpeningBalanceReconciled } from '../../shared/ledger/general-ledger/repository';
import { dynamo, tableName } from '../../shared/platform/aws';
import { logger } from '../../shared/platform/logger';
import { api, expectProblem } from '../support/api';
import { chartOf, importAndWait, newApiCompany, submitImport } from '../support/ledger';
import { waitForPostFetch } from '../support/bank';
import { observingCalls } from '../support/sdk-calls';
import { testStack } from '../support/stack';
import { sqsEventOf } from '../support/sqs-event';

const glLines = (year: number, lines: { id: string; accountCode: string; amount: string | number; period: number }[]) => ({
  year,
  lines: lines.map((line) => ({ transactionId: `T-${line.id}`, description: `Line ${line.id}`, transactionDate: `${year}-${String(line.period).padStart(2, '0')}-15`, ...line })),
});

describe('imports: acceptance rules (synchronous part)', () => {
  it('a company bound to another system answers 409 company_not_api_managed', async () => {
    const companyId = await newApiCompany('a-system', 'Tripletex');
    const response = await submitImport(companyId, 'accounts', chartOf(2025, ['1920']));
    expectProblem(response, 409, 'conflict');
    expect(response.body.reason).toBe('company_not_api_managed');
  });

  it('more than 10,000 lines answer 413 payload_too_large', async () => {
    const companyId = await newApiCompany();
    const lines = Array.from({ length: 10_001 }, (_, i) => ({ id: `L${i}`, accountCode: '1920', amount: '1.00', period: 1 }));
    expectProblem(await submitImport(companyId, 'general-ledger-lines', { year: 2025, lines }), 413, 'payload_too_large');
  });

  it('structural problems answer 422 with errors indexed into the array, at most 100, and nothing is accepted', async () => {
    const companyId = await newApiCompany();
    const lines = [
      { id: 'ok', accountCode: '1920', amount: '10.00', period: 1 },
      { id: 'a:b', accountCode: '1920', amount: '10.00', period: 1 },
      { id: 'p', accountCode: '1920', amount: '10.00', period: 13 },
      { id: 'd', accountCode: '1920', amount: '1.23456', period: 2 },
    ];
    const response = await submitImport(companyId, 'general-ledger-lines', { year: 2025, lines });
    expectProblem(response, 422, 'validation_failed');
    const byIndex = new Map(response.body.errors.map((e: { index: number; field: string }) => [e.index, e.field]));
    expect(byIndex.get(1)).toBe('id');
    expect(byIndex.get(2)).toBe('period');
    expect(byIndex.get(3)).toBe('amount');
    const many = Array.from({ length: 300 }, (_, i) => ({ id: `x${i}`, accountCode: '1920', amount: 'x', period: 1 }));
    const capped = await submitImport(companyId, 'general-ledger-lines', { year: 2025, lines: many });
    expect(capped.body.errors).toHaveLength(100);
    const list = await api('GET', `/v1/companies/${companyId}/imports`, { as: 'a-system' });
    expect(list.body.data).toEqual([]);
  });

  it('amounts are judged on their source text: 0.1 and 12345678901234.5678 pass, 1e-5 has five decimals', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    const text = `{"year":2025,"lines":[{"id":"a","accountCode":"1920","amount":0.1,"period":1},{"id":"b","accountCode":"3000","amount":12345678901234.5678,"period":1},{"id":"c","accountCode":"3000","amount":1e-5,"period":1}]}`;
    const refused = await submitImport(companyId, 'general-ledger-lines', text);
    expectProblem(refused, 422, 'validation_failed');
    expect(refused.body.errors).toEqual([expect.objectContaining({ index: 2, field: 'amount' })]);
    const accepted = await importAndWait(companyId, 'general-ledger-lines', text.replace(',{"id":"c","accountCode":"3000","amount":1e-5,"period":1}', ''));
    expect(accepted.body.status).toBe('succeeded');
    const lines = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=2025`, { as: 'a-system' });
    expect(lines.text).toContain('"amount":0.10');
    expect(lines.text).toContain('"amount":12345678901234.5678');
  });

  it('codes missing from that year\'s chart answer 422 unknown_account_codes listing them', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920']));
    const response = await submitImport(companyId, 'general-ledger-lines', glLines(2025, [
      { id: '1', accountCode: '1920', amount: '5.00', period: 1 },
      { id: '2', accountCode: '7777', amount: '5.00', period: 1 },
      { id: '3', accountCode: '8888', amount: '5.00', period: 1 },
    ]));
    expectProblem(response, 422, 'validation_failed');
    expect(response.body.reason).toBe('unknown_account_codes');
    expect(response.body.accountCodes).toEqual(['7777', '8888']);
    // each year has its own chart
    const otherYear = await submitImport(companyId, 'general-ledger-lines', glLines(2024, [{ id: '1', accountCode: '1920', amount: '5.00', period: 1 }]));
    expect(otherYear.body.reason).toBe('unknown_account_codes');
  });

  it('an import of the same kind in flight answers 409 job_in_flight with its jobId', async () => {
    testStack();
    const companyId = await newApiCompany();
    const jobId = randomUUID();
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...laneLockKeys(companyId, 'accounts'), jobId, importId: randomUUID(), leaseExpiresAt: Date.now() + 60_000 },
      }),
    );
    const response = await submitImport(companyId, 'accounts', chartOf(2025, ['1920']));
    expectProblem(response, 409, 'conflict');
    expect(response.body).toMatchObject({ reason: 'job_in_flight', jobId });
    // another kind runs in its own lane
    expect((await submitImport(companyId, 'dimensions', { dimensions: [{ key: 'D1', value: 'Sales', type: 'department' }] })).status).toBe(202);
  });

  it('an import whose message waited past its lease, its lane taken meanwhile, fails lane_taken without writing; the newer holder keeps the lane', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    const company = (await companyRepository.get(companyId))!;
    const kind = importKind('general_ledger_lines');
    const body = glLines(2025, [{ id: 'late-a', accountCode: '1920', amount: '5.00', period: 1 }, { id: 'late-b', accountCode: '3000', amount: '-5.00', period: 1 }]);
    // Accepted and queued, but no worker has received its message yet.
    const late = await acceptImport(companyId, company, kind, kind.bodySchema.parse(parseLosslessJson(JSON.stringify(body))), body, { enqueue: false });
    // Its lease ran out and a newer import of the kind holds the lane (as the 409 test plants one).
    const newer = randomUUID();
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: { ...laneLockKeys(companyId, kind.lane), jobId: newer, importId: randomUUID(), leaseExpiresAt: Date.now() + 60_000 } }));

    await processImport(late.id, new Map(importKinds.map((k) => [k.name, k])), postFetchEngineNames);
    const record = await api('GET', `/v1/companies/${companyId}/imports/${late.id}`, { as: 'a-system' });
    expect(record.body).toMatchObject({ status: 'failed', failureReason: 'lane_taken', rowsInserted: 0 });
    const job = await api('GET', `/v1/jobs/${late.jobId}`, { as: 'a-system' });
    expect(job.body).toMatchObject({ status: 'failed', error: { code: 'lane_taken', message: expect.stringContaining('nothing was applied') } });
    expect((await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=2025`, { as: 'a-system' })).body.data).toEqual([]);
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: laneLockKeys(companyId, kind.lane), ConsistentRead: true }));
    expect(Item?.jobId).toBe(newer);
  });

  it('of two submissions racing for a lane, the one whose transaction conflicted answers 409 job_in_flight naming the winner, not 500', async () => {
    const companyId = await newApiCompany();
    const company = (await companyRepository.get(companyId))!;
    const kind = importKind('accounts');
    const body = chartOf(2025, ['1920']);
    const winner = randomUUID();
    // DynamoDB cancels the loser with TransactionConflict on the lane lock while the winner commits (DynamoDB Local serializes them).
    const onLane = (write: object) => JSON.stringify(write).includes(`LANE#${companyId}`);
    const refused = await observingCalls(
      dynamo(),
      async (commandName, input) => {
        const writes = (input.TransactItems as object[] | undefined) ?? [];
        if (commandName !== 'TransactWriteItemsCommand' || !writes.some(onLane)) return;
        await dynamo().send(new PutCommand({ TableName: tableName(), Item: { ...laneLockKeys(companyId, kind.lane), jobId: winner, importId: randomUUID(), leaseExpiresAt: Date.now() + 60_000 } }));
        throw new TransactionCanceledException({
          message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]',
          $metadata: {},
          CancellationReasons: writes.map((write) => ({ Code: onLane(write) ? 'TransactionConflict' : 'None' })),
        });
      },
      () => acceptImport(companyId, company, kind, kind.bodySchema.parse(parseLosslessJson(JSON.stringify(body))), body, { enqueue: false }).then(() => undefined, (error: unknown) => error),
    );
    expect(refused).toBeInstanceOf(ProblemError);
    expect((refused as ProblemError).problem).toMatchObject({ status: 409, error: 'conflict', reason: 'job_in_flight', jobId: winner });
  });

  it('a lane held at the commit but free again at the look after it (its import ended meanwhile) is taken: the submission is accepted, not a 409 without jobId', async () => {
    const companyId = await newApiCompany();
    const company = (await companyRepository.get(companyId))!;
    const kind = importKind('accounts');
    const body = chartOf(2025, ['1920']);
    const onLane = (write: object) => JSON.stringify(write).includes(`LANE#${companyId}`);
    let refusals = 0;
    const accepted = await observingCalls(
      dynamo(),
      (commandName, input) => {
        const writes = (input.TransactItems as object[] | undefined) ?? [];
        if (commandName !== 'TransactWriteItemsCommand' || !writes.some(onLane) || refusals > 0) return;
        refusals++;
        // The lane was held when the transaction ran; its holder releases it before this submission looks.
        throw new TransactionCanceledException({
          message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]',
          $metadata: {},
          CancellationReasons: writes.map((write) => ({ Code: onLane(write) ? 'ConditionalCheckFailed' : 'None' })),
        });
      },
      () => acceptImport(companyId, company, kind, kind.bodySchema.parse(parseLosslessJson(JSON.stringify(body))), body, { enqueue: false }),
    );
    expect(refusals).toBe(1);
    expect(accepted).toMatchObject({ status: 'queued' });
    expect((await jobRepository.laneHolder(companyId, kind.lane))?.jobId).toBe(accepted.jobId);
  });

  it('a delivery holds its lane for a lease longer than all deliveries of its message; another live holder refuses it', async () => {
    const companyId = randomUUID();
    const [jobId, other] = [randomUUID(), randomUUID()];
    const now = Date.now();
    expect(laneLeaseMilliseconds).toBeGreaterThan(900 * 5 * 1000);
    expect(await jobRepository.holdLane(companyId, 'accounts', jobId, randomUUID(), now)).toBe(true);
    expect(await jobRepository.holdLane(companyId, 'accounts', jobId, randomUUID(), now + 60_000)).toBe(true); // its own: renewed
    expect((await jobRepository.laneHolder(companyId, 'accounts'))?.leaseExpiresAt).toBe(now + 60_000 + laneLeaseMilliseconds);
    expect(await jobRepository.holdLane(companyId, 'accounts', other, randomUUID(), now + 120_000)).toBe(false);
    expect(await jobRepository.holdLane(companyId, 'accounts', other, randomUUID(), now + 60_000 + laneLeaseMilliseconds + 1)).toBe(true); // expired: taken
  });

  it('the same Idempotency-Key returns the same import and never creates a second', async () => {
    const companyId = await newApiCompany();
    const key = randomUUID();
    const first = await submitImport(companyId, 'accounts', chartOf(2025, ['1920']), { idempotencyKey: key });
    const second = await submitImport(companyId, 'accounts', chartOf(2025, ['1920']), { idempotencyKey: key });
    expect(first.status).toBe(202);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotency-replayed')).toBe('true');
    const list = await api('GET', `/v1/companies/${companyId}/imports?kind=accounts`, { as: 'a-system' });
    expect(list.body.data).toHaveLength(1);
  });

  it('needs imports:write and a company within reach', async () => {
    const companyId = await newApiCompany();
    expectProblem(await submitImport(companyId, 'accounts', chartOf(2025, ['1920']), { as: 'a-readonly' }), 403, 'insufficient_scope');
    expectProblem(await submitImport(companyId, 'accounts', chartOf(2025, ['1920']), { as: 'b-system' }), 404, 'not_found');
  });
});

describe('imports: the asynchronous part', () => {
  it('accounts -> GL lines: 202 queued, then succeeded with counters that add up, a job, events and a fetch run', async () => {
    const companyId = await newApiCompany();
    const accounts = await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    expect(accounts.body).toMatchObject({ kind: 'accounts', status: 'succeeded', rowsInserted: 2, rowsFailed: 0, rowsDeleted: null });

    const accepted = await submitImport(companyId, 'general-ledger-lines', glLines(2025, [
      { id: 'g1', accountCode: '1920', amount: '1000.00', period: 1 },
      { id: 'g2', accountCode: '3000', amount: '-1000.00', period: 1 },
      { id: 'g1', accountCode: '1920', amount: '1.00', period: 2 },
    ]));
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ status: 'queued', kind: 'general_ledger_lines', year: 2025, mode: 'merge', lineCount: 3 });
    expect(accepted.headers.get('location')).toBe(`/v1/companies/${companyId}/imports/${accepted.body.id}`);
    const { waitForImport } = await import('../support/ledger');
    const done = (await waitForImport(companyId, accepted.body.id)).body;
    expect(done).toMatchObject({ status: 'succeeded', rowsDiscovered: 3, rowsValid: 2, rowsFailed: 1, rowsInserted: 2, rowsUpdated: 0 });
    expect(done.rowsValid + done.rowsFailed).toBe(done.rowsDiscovered);
    expect(done.sampleErrors).toEqual([expect.stringMatching(/^line 3: /)]);
    expect(done.fetchCompletion).toMatchObject({ status: 'completed', fetchRunId: done.id });

    const job = await api('GET', `/v1/jobs/${done.jobId}`, { as: 'a-system' });
    expect(job.body).toMatchObject({ id: done.jobId, status: 'succeeded', type: 'import:general_ledger_lines', scope: { companyId, lane: 'general_ledger_lines' } });
    expectProblem(await api('GET', `/v1/jobs/${done.jobId}`, { as: 'b-system' }), 404, 'not_found');

    // the fetch run is listed, and the post-fetch worker (reconciliation queue) completes it
    const run: Record<string, unknown> = await waitForPostFetch(companyId, done.id);
    expect(run).toMatchObject({
      importId: done.id,
      kind: 'general_ledger_lines',
      year: 2025,
      engines: [
        expect.objectContaining({ name: 'auto_reconciliation', status: 'completed', detail: expect.stringMatching(/^matched 0 of 0 unreconciled bank transactions in 2025 \(0 bank accounts/) }),
        expect.objectContaining({ name: 'context', status: 'completed' }),
      ],
    });
    expect(run.postFetchCompletedAt).toEqual(expect.any(String));

    testStack();
    const events = await eventsOfCompany(companyId);
    const types = events.map((event) => `${event.type}:${event.data.importId}`);
    expect(types).toEqual(expect.arrayContaining([`import.requested:${done.id}`, `job.succeeded:${done.id}`, `job.succeeded:${accounts.body.id}`]));

    const { Item: ledger } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: ledgerStateKeys(companyId) }));
    expect(ledger).toMatchObject({ lastFetchRunId: done.id, lastUpdatedAt: expect.any(String) });

    const readiness = await api('GET', `/v1/companies/${companyId}/imports/readiness`, { as: 'a-system' });
    expect(readiness.body).toMatchObject({ apiManaged: true, accountingSystem: 'Api', currentYear: 2025, blockers: [], warnings: ['unmapped_accounts'], nextStep: 'import_opening_balances' });
    expect(readiness.body.years).toEqual([expect.objectContaining({ year: 2025, current: true, accounts: 2, mappedAccounts: 0, generalLedgerLines: 2 })]);
  });

  it('readiness of an empty company: blocker no_accounts, next step import_accounts', async () => {
    const companyId = await newApiCompany();
    const response = await api('GET', `/v1/companies/${companyId}/imports/readiness`, { as: 'a-system' });
    expect(response.body).toMatchObject({ apiManaged: true, blockers: ['no_accounts'], nextStep: 'import_accounts', dimensions: 0, subLedgers: 0 });
  });

  it('GL-line deletions report ids the ledger does not have under result.unknown', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920']));
    await importAndWait(companyId, 'general-ledger-lines', glLines(2025, [{ id: 'keep', accountCode: '1920', amount: '5.00', period: 3 }, { id: 'gone', accountCode: '1920', amount: '7.00', period: 3 }]));
    const deletion = await importAndWait(companyId, 'general-ledger-lines/deletions', { year: 2025, ids: ['gone', 'never'] });
    expect(deletion.body).toMatchObject({ kind: 'general_ledger_line_deletions', status: 'succeeded', rowsDeleted: 1, result: { unknown: ['never'] } });
    const lines = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=2025`, { as: 'a-system' });
    expect(lines.body.data.map((line: { sourceLineId: string }) => line.sourceLineId)).toEqual(['keep']);
    testStack();
    const events = await eventsOfCompany(companyId);
    expect(events.filter((event) => event.type === 'correction.requested').map((event) => event.data.importId)).toEqual([deletion.body.id]);
  });

  it('of more than 1,000 unknown ids, result.unknown lists the first 1,000 and result.unknownCount counts them all (2,200 ids of 200 characters would not fit in one item)', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920']));
    await importAndWait(companyId, 'general-ledger-lines', glLines(2025, [{ id: 'gone', accountCode: '1920', amount: '7.00', period: 3 }]));
    const never = Array.from({ length: 2200 }, (_, i) => `never-${String(i).padStart(4, '0')}-${'x'.repeat(189)}`);
    const deletion = await importAndWait(companyId, 'general-ledger-lines/deletions', { year: 2025, ids: [...never.slice(0, 500), 'gone', ...never.slice(500)] });
    expect(deletion.body).toMatchObject({ status: 'succeeded', rowsDiscovered: 2201, rowsValid: 2201, rowsFailed: 0, rowsDeleted: 1, result: { unknownCount: 2200 } });
    expect(deletion.body.result.unknown).toEqual(never.slice(0, 1000));
  });

  it('GL-line deletions naming a reconciled line answer 409 lines_in_use with inUse, and delete nothing', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920']));
    await importAndWait(companyId, 'general-ledger-lines', glLines(2025, [{ id: 'r1', accountCode: '1920', amount: '5.00', period: 3 }, { id: 'free', accountCode: '1920', amount: '7.00', period: 3 }]));
    testStack();
    const groupId = randomUUID();
    expect(await markLineReconciled(companyId, 2025, lineIdOf(companyId, 2025, 'r1'), groupId)).toBe(true);
    const refused = await submitImport(companyId, 'general-ledger-lines/deletions', { year: 2025, ids: ['free', 'r1'] });
    expectProblem(refused, 409, 'conflict');
    expect(refused.body).toMatchObject({ reason: 'lines_in_use', inUse: [expect.objectContaining({ id: 'r1', reconciliationGroupId: groupId })] });
    const lines = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=2025`, { as: 'a-system' });
    expect(lines.body.data).toHaveLength(2);
  });

  it('a GL-line deletion whose line is reconciled after it was accepted fails whole when applied: lines_in_use, nothing deleted', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920']));
    const imported = await importAndWait(companyId, 'general-ledger-lines', glLines(2025, [{ id: 'k1', accountCode: '1920', amount: '5.00', period: 3 }, { id: 'k2', accountCode: '1920', amount: '7.00', period: 3 }]));
    await waitForPostFetch(companyId, imported.body.id);
    const kind = importKind('general_ledger_line_deletions');
    const body = { year: 2025, ids: ['k1', 'k2'] };
    // Accepted (its check passed), then k2 is reconciled before the worker applies it; the worker runs here.
    const accepted = await acceptImport(companyId, (await companyRepository.get(companyId))!, kind, kind.bodySchema.parse(parseLosslessJson(JSON.stringify(body))), body, { enqueue: false });
    const groupId = randomUUID();
    expect(await markLineReconciled(companyId, 2025, lineIdOf(companyId, 2025, 'k2'), groupId)).toBe(true);
    await processImport(accepted.id, new Map(importKinds.map((k) => [k.name, k])), postFetchEngineNames);
    const record = await api('GET', `/v1/companies/${companyId}/imports/${accepted.id}`, { as: 'a-system' });
    expect(record.body).toMatchObject({ status: 'failed', failureReason: 'lines_in_use', rowsFailed: 1, rowsDeleted: 0 });
    expect(record.body.sampleErrors).toEqual([`line 2: line k2 is in reconciliation group ${groupId}: nothing was deleted`]);
    const lines = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=2025`, { as: 'a-system' });
    expect(lines.body.data.map((line: { sourceLineId: string }) => line.sourceLineId).sort()).toEqual(['k1', 'k2']);
  });

  it('opening-balance deletions naming a reconciled balance answer 409 opening_balances_in_use; the others are deleted', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '2050']));
    await importAndWait(companyId, 'opening-balances', { year: 2025, lines: [{ id: 'ob-bank', accountCode: '1920', amount: '100.00' }, { id: 'ob-equity', accountCode: '2050', amount: '-100.00' }] });
    testStack();
    expect(await markOpeningBalanceReconciled(companyId, 2025, 'ob-bank', randomUUID())).toBe(true);
    const refused = await submitImport(companyId, 'opening-balances/deletions', { year: 2025, ids: ['ob-bank', 'ob-equity'] });
    expectProblem(refused, 409, 'conflict');
    expect(refused.body).toMatchObject({ reason: 'opening_balances_in_use', inUse: [expect.objectContaining({ id: 'ob-bank' })] });
    const deleted = await importAndWait(companyId, 'opening-balances/deletions', { year: 2025, ids: ['ob-equity', 'nope'] });
    expect(deleted.body).toMatchObject({ kind: 'opening_balance_deletions', status: 'succeeded', rowsDeleted: 1, result: { unknown: ['nope'] } });
    const balance = await api('GET', `/v1/companies/${companyId}/trial-balance?year=2025`, { as: 'a-system' });
    expect(balance.body.accounts.map((a: { accountCode: string; openingBalance: number }) => [a.accountCode, a.openingBalance])).toEqual([['1920', 100]]);
  });

  it('DELETE of an account with lines answers 409 account_in_use; an unused one is deleted (202 and poll)', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '2400']));
    await importAndWait(companyId, 'general-ledger-lines', glLines(2025, [{ id: 'x', accountCode: '1920', amount: '5.00', period: 1 }]));
    const refused = await api('DELETE', `/v1/companies/${companyId}/accounts/1920?year=2025`, { as: 'a-system' });
    expectProblem(refused, 409, 'conflict');
    expect(refused.body.reason).toBe('account_in_use');
    expect(refused.body.inUse[0]).toMatchObject({ id: '1920' });
    const accepted = await api('DELETE', `/v1/companies/${companyId}/accounts/2400?year=2025`, { as: 'a-system' });
    expect(accepted.status).toBe(202);
    const { waitForImport } = await import('../support/ledger');
    const done = await waitForImport(companyId, accepted.body.id);
    expect(done.body).toMatchObject({ kind: 'account_deletion', status: 'succeeded', rowsDeleted: 1 });
    expectProblem(await api('GET', `/v1/companies/${companyId}/accounts/2400?year=2025`, { as: 'a-system' }), 404, 'not_found');
  });

  it('DELETE of an account while an import of GL lines is in flight answers 409 job_in_flight with that job', async () => {
    const { laneLockItem } = await import('../../shared/jobs/repository');
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '2400']));
    testStack();
    const jobId = randomUUID();
    // as a GL import accepted and not yet finished holds its lane
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: laneLockItem(companyId, 'general_ledger_lines', jobId, randomUUID(), Date.now()) }));
    const refused = await api('DELETE', `/v1/companies/${companyId}/accounts/2400?year=2025`, { as: 'a-system' });
    expectProblem(refused, 409, 'conflict');
    expect(refused.body).toMatchObject({ reason: 'job_in_flight', jobId });
    const { DeleteCommand } = await import('@aws-sdk/lib-dynamodb');
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: laneLockKeys(companyId, 'general_ledger_lines') }));
    expect((await api('DELETE', `/v1/companies/${companyId}/accounts/2400?year=2025`, { as: 'a-system' })).status).toBe(202);
  });

  it('lists imports newest first with kind, status and year filters and cursor pagination', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2024, ['1920']));
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920']));
    await importAndWait(companyId, 'dimensions', { dimensions: [{ key: 'D1', value: 'Sales', type: 'department' }] });
    const all = await api('GET', `/v1/companies/${companyId}/imports`, { as: 'a-system' });
    expect(all.body.data.map((i: { kind: string }) => i.kind)).toEqual(['dimensions', 'accounts', 'accounts']);
    const year = await api('GET', `/v1/companies/${companyId}/imports?kind=accounts&year=2024`, { as: 'a-system' });
    expect(year.body.data.map((i: { year: number }) => i.year)).toEqual([2024]);
    const first = await api('GET', `/v1/companies/${companyId}/imports?page_size=1`, { as: 'a-system' });
    expect(first.body.pagination.has_more).toBe(true);
    const second = await api('GET', `/v1/companies/${companyId}/imports?page_size=1&cursor=${encodeURIComponent(first.body.pagination.next_cursor)}`, { as: 'a-system' });
    expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
    expectProblem(await api('GET', `/v1/companies/${companyId}/imports?page_size=1&kind=accounts&cursor=${encodeURIComponent(first.body.pagination.next_cursor)}`, { as: 'a-system' }), 400, 'invalid_cursor');
    expectProblem(await api('GET', `/v1/companies/${companyId}/imports/${randomUUID()}`, { as: 'a-system' }), 404, 'not_found');
  });
});

describe('fetch completion', () => {

  it('is ignored when the import changed nothing (every row failed)', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', { year: 2025, accounts: [{ accountCode: '1920', accountDescription: 'Bank', accountCategory: 'Balance', hidden: true }] });
    const done = await importAndWait(companyId, 'general-ledger-lines', glLines(2025, [{ id: 'h', accountCode: '1920', amount: '5.00', period: 1 }]));
    expect(done.body).toMatchObject({ status: 'succeeded', rowsFailed: 1, fetchCompletion: { status: 'ignored', fetchRunId: null } });
  });

  it("keeps what the post-fetch engines recorded when the import's own end lands after them (its worker finishes the import after it queued them)", async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920']));
    const done = await importAndWait(companyId, 'general-ledger-lines', glLines(2025, [{ id: 'f', accountCode: '1920', amount: '5.00', period: 1 }]));
    const run = await waitForPostFetch(companyId, done.body.id);
    const failing = createPostFetchWorker([{ name: 'auto_reconciliation', run: async () => Promise.reject(new Error('bank feed unavailable')) }]);
    logger.setLogLevel('CRITICAL'); // the engine failure is logged as an error by design
    await failing(sqsEventOf({ companyId, fetchRunId: run.id, importId: done.body.id, year: 2025, completedAt: run.completedAt })).finally(() => logger.setLogLevel('ERROR'));
    // The import's end, late: what its worker's fetch completion said before the engines ran.
    await dynamo().send(
      new UpdateCommand({ TableName: tableName(), Key: importKeys(done.body.id), UpdateExpression: 'SET fetchCompletion = :early', ExpressionAttributeValues: { ':early': { status: 'completed', fetchRunId: run.id, recordedAt: run.recordedAt } } }),
    );
    const read = await api('GET', `/v1/companies/${companyId}/imports/${done.body.id}`, { as: 'a-system' });
    expect(read.body.fetchCompletion).toMatchObject({ status: 'failed', failureType: 'post_fetch_engine_failed', fetchRunId: run.id });
  });

  it('reads failed (post_fetch_engine_failed) when a post-fetch engine fails, and completed once it succeeds', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920']));
    const done = await importAndWait(companyId, 'general-ledger-lines', glLines(2025, [{ id: 'e', accountCode: '1920', amount: '5.00', period: 1 }]));
    // as messages were sent before they carried the run's completedAt: the run is found through its import
    const message = { companyId, fetchRunId: done.body.id, importId: done.body.id, year: 2025 };
    // let the stack's own post-fetch worker finish this run first, so it cannot overwrite what follows
    await waitForPostFetch(companyId, done.body.id);
    testStack();
    const failing = createPostFetchWorker([{ name: 'auto_reconciliation', run: async () => Promise.reject(new Error('bank feed unavailable')) }]);
    logger.setLogLevel('CRITICAL'); // the engine failure is logged as an error by design
    const result = await failing(sqsEventOf(message)).finally(() => logger.setLogLevel('ERROR'));
    expect(result.batchItemFailures).toHaveLength(1);
    const afterFailure = await api('GET', `/v1/companies/${companyId}/imports/${done.body.id}`, { as: 'a-system' });
    expect(afterFailure.body).toMatchObject({ status: 'succeeded', fetchCompletion: { status: 'failed', failureType: 'post_fetch_engine_failed', fetchRunId: done.body.id } });
    const runs = await api('GET', `/v1/companies/${companyId}/fetch-runs`, { as: 'a-system' });
    expect(runs.body.data[0].engines).toEqual([expect.objectContaining({ name: 'auto_reconciliation', status: 'failed', detail: 'bank feed unavailable' })]);

    const succeeding = createPostFetchWorker([{ name: 'auto_reconciliation', run: async () => 'matched 0 of 0' }]);
    expect((await succeeding(sqsEventOf({ ...message, completedAt: runs.body.data[0].completedAt }))).batchItemFailures).toEqual([]);
    // a message naming an import that has no run changes nothing
    expect((await succeeding(sqsEventOf({ ...message, importId: randomUUID() }))).batchItemFailures).toEqual([]);
    expect((await succeeding(sqsEventOf({ ...message, completedAt: '2020-01-01T00:00:00.000Z' }))).batchItemFailures).toEqual([]);
    const afterRetry = await api('GET', `/v1/companies/${companyId}/imports/${done.body.id}`, { as: 'a-system' });
    expect(afterRetry.body.fetchCompletion).toMatchObject({ status: 'completed', fetchRunId: done.body.id });
    expect((await api('GET', `/v1/companies/${companyId}/fetch-runs`, { as: 'a-system' })).body.data[0].engines).toEqual([
      expect.objectContaining({ name: 'auto_reconciliation', status: 'completed', detail: 'matched 0 of 0' }),
    ]);
  });
});
