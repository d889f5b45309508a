import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readMetricDocuments } from '../../infra/local/metrics-log';
import { countMetric, withInvocationMetrics } from '../../shared/platform/metrics';

/** The EMF lines Powertools writes to stdout while `run` runs (the suite disables metrics elsewhere). */
const written: string[] = [];
beforeEach(() => {
  written.length = 0;
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});
const documents = () => readMetricDocuments(written.join(''));

describe('countMetric', () => {
  it('publishes nothing before the invocation ends, then one document per dimension set', async () => {
    await withInvocationMetrics({ requestId: 'r-1' }, async () => {
      countMetric('requests', { operation: 'whoami', statusClass: '2xx' });
      countMetric('requests', { operation: 'whoami', statusClass: '2xx' });
      countMetric('problems', { code: 'not_found' });
      countMetric('rateLimitRefusals', {});
      expect(written).toEqual([]);
    });
    const [requests, problems, refusals] = documents();
    expect(documents()).toHaveLength(3);
    expect(requests).toMatchObject({ requestId: 'r-1', service: 'ledger-api', operation: 'whoami', statusClass: '2xx', Requests: [1, 1] });
    expect(requests!._aws.CloudWatchMetrics).toEqual([{ Namespace: 'LedgerService', Dimensions: [['service', 'operation', 'statusClass']], Metrics: [{ Name: 'Requests', Unit: 'Count' }] }]);
    expect(problems).toMatchObject({ code: 'not_found', Problems: 1 });
    expect(problems!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'code']]);
    expect(refusals!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service']]);
  });

  it('publishes when the invocation throws too', async () => {
    await expect(
      withInvocationMetrics({}, async () => {
        countMetric('problems', { code: 'internal_error' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(documents()).toMatchObject([{ code: 'internal_error', Problems: 1 }]);
  });

  it('keeps concurrent invocations apart (the local stack runs many in one process)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = withInvocationMetrics({ requestId: 'a' }, async () => {
      countMetric('authorizerCacheHits', {});
      await gate;
    });
    await withInvocationMetrics({ requestId: 'b' }, async () => countMetric('authorizerCacheMisses', {}));
    expect(documents()).toMatchObject([{ requestId: 'b', AuthorizerCacheMisses: 1 }]);
    release();
    await first;
    expect(documents()).toMatchObject([{ requestId: 'b' }, { requestId: 'a', AuthorizerCacheHits: 1 }]);
    expect(documents()[1]).not.toHaveProperty('AuthorizerCacheMisses');
  });

  it('outside an invocation publishes at once; metadata of the site joins the invocation\'s', async () => {
    countMetric('subscriptionsAutoDisabled', {}, 1, { subscriptionId: 's-1' });
    expect(documents()).toMatchObject([{ subscriptionId: 's-1', SubscriptionsAutoDisabled: 1 }]);
    await withInvocationMetrics({ requestId: 'r-2' }, async () => countMetric('importDuration', { kind: 'accounts' }, 1234, { importId: 'i-1' }));
    expect(documents()[1]).toMatchObject({ requestId: 'r-2', importId: 'i-1', kind: 'accounts', ImportDuration: 1234 });
    expect(documents()[1]!._aws.CloudWatchMetrics[0]!.Metrics).toEqual([{ Name: 'ImportDuration', Unit: 'Milliseconds' }]);
  });

  it('POWERTOOLS_METRICS_DISABLED=true writes nothing', async () => {
    process.env.POWERTOOLS_METRICS_DISABLED = 'true';
    await withInvocationMetrics({}, async () => countMetric('contextRebuilds', {}));
    countMetric('contextRebuilds', {});
    expect(written).toEqual([]);
  });
});
