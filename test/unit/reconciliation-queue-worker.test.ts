import type { SQSRecord } from 'aws-lambda';
import { beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * The reconciliation queue's worker decides which messages of a batch fail: stubs stand in for
 * the post-fetch engines' run and the context rebuild (both shown over HTTP in the integration
 * tests); what is tested here is the batching around them.
 */
const calls: string[] = [];
const failingCompanies = new Set<string>();
const failingRuns = new Set<string>();

vi.mock('../../shared/context/service', () => ({
  refreshContext: vi.fn(async (companyId: string, options: { years?: number[]; requests?: string[] }) => {
    calls.push(`refresh ${companyId} years=${(options.years ?? []).join(',')} requests=${(options.requests ?? []).join(',')}`);
    await Promise.resolve();
    if (failingCompanies.has(companyId)) throw new Error(`rebuild of ${companyId} failed`);
    return 'rebuilt';
  }),
}));
vi.mock('../../shared/imports/post-fetch', () => ({
  createPostFetchRun: () => async (record: SQSRecord) => {
    const { importId } = JSON.parse(record.body) as { importId: string };
    calls.push(`run ${importId}`);
    await Promise.resolve();
    if (failingRuns.has(importId)) throw new Error(`engines of ${importId} failed`);
  },
}));
vi.mock('../../shared/composition/post-fetch-engines', () => ({ postFetchEngines: [] }));

const { reconciliationQueueWorker } = await import('../../shared/composition/reconciliation-queue-worker');
const { logger } = await import('../../shared/platform/logger');

const record = (messageId: string, body: unknown): SQSRecord => ({
  messageId,
  receiptHandle: messageId,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'test', ApproximateFirstReceiveTimestamp: '0' },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:eu-north-1:000000000000:reconciliation',
  awsRegion: 'eu-north-1',
});
const refresh = (companyId: string, extra: { years?: number[]; requestedAt?: string } = {}) => ({ kind: 'context-refresh', companyId, ...extra });
const run = (importId: string) => ({ companyId: 'c', fetchRunId: importId, importId, year: 2026 });

beforeEach(() => {
  calls.length = 0;
  failingCompanies.clear();
  failingRuns.clear();
  vi.spyOn(logger, 'error').mockImplementation(() => undefined);
});

describe('reconciliation queue worker', () => {
  it('runs the fetch runs first, then one rebuild per company with every year and request of its messages', async () => {
    const result = await reconciliationQueueWorker({
      Records: [
        record('r1', refresh('a', { years: [2024] })),
        record('f1', run('i1')),
        record('r2', refresh('b')),
        record('r3', refresh('a', { years: [2025], requestedAt: '2026-01-01T00:00:00.000Z' })),
        record('f2', run('i2')),
      ],
    });
    expect(result).toEqual({ batchItemFailures: [] });
    expect(calls).toEqual(['run i1', 'run i2', 'refresh a years=2024,2025 requests=2026-01-01T00:00:00.000Z', 'refresh b years= requests=']);
  });

  it('fails every message of a company whose rebuild failed, and only the failed runs', async () => {
    failingCompanies.add('a');
    failingRuns.add('i2');
    const result = await reconciliationQueueWorker({
      Records: [record('r1', refresh('a')), record('f1', run('i1')), record('r2', refresh('b')), record('r3', refresh('a')), record('f2', run('i2'))],
    });
    expect(result.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(['f2', 'r1', 'r3']);
    expect(calls.filter((call) => call.startsWith('refresh a'))).toHaveLength(1);
  });

  it('fails a message whose body is no JSON, and no other', async () => {
    const result = await reconciliationQueueWorker({ Records: [record('bad', 'not json'), record('f1', run('i1'))] });
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'bad' }] });
    expect(calls).toEqual(['run i1']);
  });
});
