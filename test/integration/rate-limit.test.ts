import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../shared/administration/service';
import { localCredentialIssuer } from '../../shared/identity/credential-issuers';
import { api, expectProblem, tokenFor } from '../support/api';
import { seededClient, testStack } from '../support/stack';

describe('rate limits per client', () => {
  it('sends RateLimit headers on every authenticated response', async () => {
    const response = await api('GET', '/v1/whoami', { as: 'b-system' });
    expect(response.headers.get('ratelimit-limit')).toBe('60'); // b-system is on plan standard (burst 60)
    expect(Number(response.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
    expect(response.headers.get('ratelimit-policy')).toContain('300;w=60');
  });

  it('a standard client past its burst gets 429 rate_limited with Retry-After; other clients are unaffected', async () => {
    testStack();
    const { client, clientSecret } = await createApiClient(
      { name: 'burst-test', organizationId: seededClient('b-system').organizationId, plan: 'standard' },
      localCredentialIssuer,
    );
    const token = await tokenFor(client.clientId, clientSecret);
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof api>> | undefined;
    // Burst 60 refilled at 5/s: sending in parallel waves reaches the limit well within 300 requests.
    for (let wave = 0; wave < 15 && !limited; wave++) {
      const responses = await Promise.all(Array.from({ length: 20 }, () => api('GET', '/v1/whoami', { token })));
      statuses.push(...responses.map((r) => r.status));
      limited = responses.find((r) => r.status === 429);
    }
    expect(limited, 'a 429 within 300 requests').toBeDefined();
    expectProblem(limited!, 429, 'rate_limited');
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited!.headers.get('ratelimit-remaining')).toBe('0');
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(60);
    expect((await api('GET', '/v1/whoami', { as: 'b-system' })).status).toBe(200);
  });
});

describe('GCRA writes', () => {
  it('a client mid-burst costs one conditional write per request; the decisions match either order', async () => {
    testStack();
    const { randomUUID } = await import('node:crypto');
    const { consumeRateLimit } = await import('../../shared/platform/rate-limit');
    const { dynamo } = await import('../../shared/platform/aws');
    const client = dynamo();
    const original = client.send.bind(client);
    let writes = 0;
    client.send = ((command: never, ...rest: never[]) => {
      writes++;
      return original(command, ...rest);
    }) as typeof client.send;
    try {
      const clientId = `gcra-${randomUUID()}`;
      let now = 1_000_000;
      const clock = () => now;
      const remaining: string[] = [];
      for (let i = 0; i < 5; i++) remaining.push((await consumeRateLimit(clientId, 'standard', clock))['RateLimit-Remaining']!);
      expect(remaining).toEqual(['59', '58', '57', '56', '55']);
      // the first request starts a burst (one write); each later one adds an interval (one write)
      expect(writes).toBe(5);
      // idle long enough for the bucket to refill: the hint's tat is past, so a new burst starts in one write
      now += 60_000;
      writes = 0;
      expect((await consumeRateLimit(clientId, 'standard', clock))['RateLimit-Remaining']).toBe('59');
      expect(writes).toBe(1);
      // another instance's requests moved the bucket on meanwhile: the hint is wrong once (two writes)
      now += 60_000;
      const other = `gcra-other-${randomUUID()}`;
      await consumeRateLimit(other, 'standard', clock); // fresh hint for another client: unaffected
      const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
      const { rateLimitKeys } = await import('../../shared/platform/keys');
      const { controlTableName } = await import('../../shared/platform/aws');
      await original(new UpdateCommand({ TableName: controlTableName(), Key: rateLimitKeys(clientId), UpdateExpression: 'SET tat = :tat', ExpressionAttributeValues: { ':tat': now + 400 } }) as never);
      writes = 0;
      expect((await consumeRateLimit(clientId, 'standard', clock))['RateLimit-Remaining']).toBe('57'); // two intervals pending, plus this one
      expect(writes).toBe(2);
    } finally {
      client.send = original;
    }
  });
});
