import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMetricDocuments, type MetricDocument } from '../../infra/local/metrics-log';
import { metricCatalogue, metricNamespace, metricServiceName, type MetricDimensions, type MetricKey } from '../../shared/platform/metric-catalogue';
import { api, tokenFor, type ApiResponse } from '../support/api';
import { createTestClient } from '../support/clients';
import { chartOf } from '../support/ledger';
import { newFirm } from '../support/people';
import { eventually, queueWaitMs } from '../support/poll';
import { testStack } from '../support/stack';
import { startReceiver } from '../support/webhook-receiver';

const documentsSoFar: MetricDocument[] = [];
let bytesRead = 0;
/**
 * The functions' metrics as the local stack emitted them: EMF lines, diverted from its stdout to
 * the run's metrics file. Dimensions are shared by every test file of the run, so each check
 * finds this file's own documents by their metadata (the request id, import id, subscription id).
 * The file holds every invocation of the run: each call parses only the whole lines added since.
 */
const documents = (): MetricDocument[] => {
  const file = testStack().internal.metricsFile!;
  const size = statSync(file).size;
  if (size <= bytesRead) return documentsSoFar;
  const fd = openSync(file, 'r');
  try {
    const fresh = Buffer.alloc(size - bytesRead);
    const read = readSync(fd, fresh, 0, fresh.length, bytesRead);
    const whole = fresh.subarray(0, read).lastIndexOf(0x0a) + 1;
    documentsSoFar.push(...readMetricDocuments(fresh.subarray(0, whole).toString('utf8')));
    bytesRead += whole;
  } finally {
    closeSync(fd);
  }
  return documentsSoFar;
};

const total = (value: unknown): number => (Array.isArray(value) ? value.reduce((sum: number, one: number) => sum + one, 0) : (value as number));

/** The documents of `metadata` that carry metric `key`, each checked against the catalogue (namespace, unit, dimension names). */
const emitted = <K extends MetricKey>(key: K, metadata: Record<string, string>): MetricDocument[] => {
  const { name, unit, dimensions } = metricCatalogue[key];
  const found = documents().filter((document) => name in document && Object.entries(metadata).every(([member, value]) => document[member] === value));
  for (const document of found) {
    const directive = document._aws.CloudWatchMetrics[0]!;
    expect(directive.Namespace).toBe(metricNamespace);
    expect(directive.Dimensions).toEqual([['service', ...dimensions]]);
    expect(directive.Metrics).toContainEqual({ Name: name, Unit: unit });
    expect(document.service).toBe(metricServiceName);
  }
  return found;
};

/** The value of metric `key` with exactly these dimension values, summed over the documents of `metadata` (waits for the first). */
const metricValue = async <K extends MetricKey>(key: K, dimensions: MetricDimensions<K>, metadata: Record<string, string>): Promise<number> => {
  const { value } = await eventually(
    () => {
      const matching = emitted(key, metadata).filter((document) => Object.entries(dimensions).every(([dimension, value]) => document[dimension] === value));
      return matching.length > 0 && { value: matching.reduce((sum, document) => sum + total(document[metricCatalogue[key].name]), 0) };
    },
    queueWaitMs,
    `${key} ${JSON.stringify(dimensions)} of ${JSON.stringify(metadata)}`,
  );
  return value;
};

const requestIdOf = (response: ApiResponse): string => response.headers.get('x-request-id')!;

let firm: Awaited<ReturnType<typeof newFirm>>;
const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];

beforeAll(async () => {
  expect(testStack().internal.metricsFile, 'the test stack diverts metrics to a file').toBeTruthy();
  firm = await newFirm('Metrics');
});

afterAll(async () => {
  for (const receiver of receivers) await receiver.stop();
});

describe('metrics (EMF) of the API', () => {
  it('a 200: Requests by operation and status class; the authorizer counts its cache miss for a new token', async () => {
    const response = await api('GET', '/v1/whoami', { token: firm.systemToken });
    expect(response.status).toBe(200);
    const requestId = requestIdOf(response);
    expect(await metricValue('requests', { operation: 'whoami', statusClass: '2xx' }, { requestId })).toBe(1);
    expect(await metricValue('groupRequests', { group: 'identity', statusClass: '2xx' }, { requestId })).toBe(1);
    expect(await metricValue('authorizerCacheMisses', {}, { requestId })).toBe(1);
    expect(emitted('authorizerCacheHits', { requestId })).toEqual([]);
    expect(emitted('problems', { requestId }), 'no problem counted for a 200').toEqual([]);
  });

  it('the authorizer counts each decision once, as a hit or a miss', async () => {
    const { client, clientSecret } = await createTestClient({ name: 'metrics-cache', organizationId: firm.root.id });
    const token = await tokenFor(client.clientId, clientSecret);
    const [first, second] = [await api('GET', '/v1/whoami', { token }), await api('GET', '/v1/whoami', { token })];
    expect(await metricValue('authorizerCacheMisses', {}, { requestId: requestIdOf(first) })).toBe(1);
    const secondId = requestIdOf(second);
    // Within the cache's lifetime a hit, after it a miss (a loaded machine): exactly one of them.
    await eventually(() => emitted('authorizerCacheHits', { requestId: secondId }).length + emitted('authorizerCacheMisses', { requestId: secondId }).length > 0);
    expect([...emitted('authorizerCacheHits', { requestId: secondId }), ...emitted('authorizerCacheMisses', { requestId: secondId })]).toHaveLength(1);
  });

  it('a 404 and a 400: Problems by code and Requests with 4xx', async () => {
    const missing = await api('GET', '/v1/companies/00000000-0000-4000-8000-000000000000', { token: firm.systemToken });
    expect(missing.status).toBe(404);
    expect(await metricValue('problems', { code: missing.body.error as string }, { requestId: requestIdOf(missing) })).toBe(1);
    expect(await metricValue('requests', { operation: 'getCompany', statusClass: '4xx' }, { requestId: requestIdOf(missing) })).toBe(1);
    expect(await metricValue('groupRequests', { group: 'companies', statusClass: '4xx' }, { requestId: requestIdOf(missing) })).toBe(1);

    const invalid = await api('POST', '/v1/companies', { token: firm.systemToken, body: { displayName: '', accountingSystem: 'Api' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toBe('validation_failed');
    expect(await metricValue('problems', { code: 'validation_failed' }, { requestId: requestIdOf(invalid) })).toBe(1);
    expect(await metricValue('requests', { operation: 'createCompany', statusClass: '4xx' }, { requestId: requestIdOf(invalid) })).toBe(1);
  });

  it('an unknown path: the fallback route counts as operation $default, group fallback', async () => {
    const response = await api('GET', '/v1/no-such-resource', { token: firm.systemToken });
    expect(response.status).toBe(404);
    const requestId = requestIdOf(response);
    expect(await metricValue('requests', { operation: '$default', statusClass: '4xx' }, { requestId })).toBe(1);
    expect(await metricValue('groupRequests', { group: 'fallback', statusClass: '4xx' }, { requestId })).toBe(1);
    expect(await metricValue('problems', { code: response.body.error as string }, { requestId })).toBe(1);
  });

  it('a 429: RateLimitRefusals, Problems rate_limited and Requests 4xx', async () => {
    const { client, clientSecret } = await createTestClient({ name: 'metrics-limited', organizationId: firm.root.id, rateLimit: { perMinute: 1, burst: 3 } });
    const token = await tokenFor(client.clientId, clientSecret);
    let refused: ApiResponse | undefined;
    for (let i = 0; i < 4 && !refused; i++) {
      const response = await api('GET', '/v1/whoami', { token });
      if (response.status === 429) refused = response;
    }
    expect(refused?.status).toBe(429);
    const requestId = requestIdOf(refused!);
    expect(await metricValue('rateLimitRefusals', {}, { requestId })).toBe(1);
    expect(await metricValue('problems', { code: 'rate_limited' }, { requestId })).toBe(1);
    expect(await metricValue('requests', { operation: 'whoami', statusClass: '4xx' }, { requestId })).toBe(1);
  });
});

describe('metrics (EMF) of the workers', () => {
  it('an import: rows applied and failed and its duration, by kind', async () => {
    const companyId = await firm.company();
    const accepted = await api('POST', `/v1/companies/${companyId}/imports/accounts`, { token: firm.systemToken, body: chartOf(2025, ['1920', '3000', '4000']) });
    expect(accepted.status).toBe(202);
    const importId = accepted.body.id as string;
    const done = await eventually(
      async () => {
        const response = await api('GET', `/v1/companies/${companyId}/imports/${importId}`, { token: firm.systemToken });
        return response.body.status !== 'queued' && response;
      },
      queueWaitMs,
      'the import',
    );
    expect(done.body.status).toBe('succeeded');
    const kind = done.body.kind as string;
    expect(await metricValue('importRowsApplied', { kind }, { importId })).toBe(3);
    expect(await metricValue('importRowsFailed', { kind }, { importId })).toBe(0);
    expect(await metricValue('importDuration', { kind }, { importId })).toBeGreaterThanOrEqual(0);
    expect(emitted('importDuration', { importId })[0]!._aws.CloudWatchMetrics[0]!.Metrics).toContainEqual({ Name: 'ImportDuration', Unit: 'Milliseconds' });
  });

  it('a webhook delivery: WebhookDeliveries by outcome and attempt, and WebhookDeliveryOutcomes by outcome', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    // One company, one event type: exactly one delivery reaches this subscription.
    const companyId = await firm.company();
    const created = await api('POST', '/v1/webhooks/subscriptions', { token: firm.systemToken, body: { url: receiver.url, eventTypes: ['company.updated'], companyIds: [companyId] } });
    expect(created.status).toBe(201);
    receiver.state.secrets = [created.body.secret as string];
    const subscriptionId = created.body.id as string;
    await eventually(async () => (await api('GET', `/v1/webhooks/subscriptions/${subscriptionId}`, { token: firm.systemToken })).body.status === 'active', queueWaitMs, 'the handshake');

    expect((await api('PATCH', `/v1/companies/${companyId}`, { token: firm.systemToken, body: { displayName: 'Metrics Hook AS' } })).status).toBe(200);
    await eventually(() => receiver.state.received.some((received) => received.event.companyId === companyId), queueWaitMs, 'the delivery');
    expect(await metricValue('webhookDeliveries', { outcome: 'delivered', attempt: '1' }, { subscriptionId })).toBe(1);
    expect(await metricValue('webhookDeliveryOutcomes', { outcome: 'delivered' }, { subscriptionId })).toBe(1);
  });
});
