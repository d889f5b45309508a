import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../shared/administration/service';
import { localCredentialIssuer } from '../../shared/identity/credential-issuers';
import { api, expectProblem, tokenFor } from '../support/api';
import { seededClient, testStack } from '../support/stack';

// The clients here are created with the plans' limits (the suite's other clients have a custom one).
const clientOn = async (input: { name: string; plan: 'standard' | 'premium'; rateLimit?: { perMinute: number; burst: number } }) => {
  testStack();
  const { client, clientSecret } = await createApiClient({ ...input, organizationId: seededClient('b-system').organizationId }, localCredentialIssuer);
  return { client, token: await tokenFor(client.clientId, clientSecret) };
};

describe('rate limits per client', () => {
  it.each([
    ['standard', '60', '60;w=12, 300;w=60'],
    ['premium', '240', '240;w=12, 1200;w=60'],
  ] as const)('sends the RateLimit headers of plan %s on every authenticated response', async (plan, limit, policy) => {
    const { token } = await clientOn({ name: `headers-${plan}`, plan });
    for (const response of [await api('GET', '/v1/whoami', { token }), await api('GET', '/v1/companies', { token })]) {
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-limit')).toBe(limit);
      expect(Number(response.headers.get('ratelimit-remaining'))).toBeLessThan(Number(limit));
      expect(response.headers.get('ratelimit-policy')).toBe(policy);
    }
  });

  it('a custom limit an operator set replaces the plan: its burst is the limit, and one past it is 429', async () => {
    // One request a minute refills the bucket: however slow the machine, four requests are one too many.
    const { client, token } = await clientOn({ name: 'custom-limit', plan: 'premium', rateLimit: { perMinute: 1, burst: 3 } });
    expect(client.rateLimit).toEqual({ perMinute: 1, burst: 3 });
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof api>> | undefined;
    for (let i = 0; i < 4; i++) {
      last = await api('GET', '/v1/whoami', { token });
      statuses.push(last.status);
      if (i === 0) expect(last.headers.get('ratelimit-policy')).toBe('3;w=180, 1;w=60');
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expectProblem(last!, 429, 'rate_limited');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(1);
  });

  it('the admin service refuses a custom limit outside its bounds', async () => {
    testStack();
    const organizationId = seededClient('b-system').organizationId;
    for (const rateLimit of [{ perMinute: 0, burst: 5 }, { perMinute: 10, burst: 100_001 }, { perMinute: 1.5, burst: 5 }]) {
      await expect(createApiClient({ name: 'bad-limit', organizationId, rateLimit }, localCredentialIssuer)).rejects.toThrow(/custom rate limit/);
    }
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
    // Burst 60 refilled at 5/s: waves of 20 in parallel reach the limit unless the machine serves fewer
    // than 5 a second (a fast one: the fourth wave; up to 60 waves while that keeps true on a slow one).
    for (let wave = 0; wave < 60 && !limited; wave++) {
      const responses = await Promise.all(Array.from({ length: 20 }, () => api('GET', '/v1/whoami', { token })));
      statuses.push(...responses.map((r) => r.status));
      limited = responses.find((r) => r.status === 429);
    }
    expect(limited, 'a 429 within 1,200 requests').toBeDefined();
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
    const { consumeRateLimit, ratePlans } = await import('../../shared/platform/rate-limit');
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
      for (let i = 0; i < 5; i++) remaining.push((await consumeRateLimit(clientId, ratePlans.standard, clock))['RateLimit-Remaining']!);
      expect(remaining).toEqual(['59', '58', '57', '56', '55']);
      // the first request starts a burst (one write); each later one adds an interval (one write)
      expect(writes).toBe(5);
      // idle long enough for the bucket to refill: the hint's tat is past, so a new burst starts in one write
      now += 60_000;
      writes = 0;
      expect((await consumeRateLimit(clientId, ratePlans.standard, clock))['RateLimit-Remaining']).toBe('59');
      expect(writes).toBe(1);
      // another instance's requests moved the bucket on meanwhile: the hint is wrong once (two writes)
      now += 60_000;
      const other = `gcra-other-${randomUUID()}`;
      await consumeRateLimit(other, ratePlans.standard, clock); // fresh hint for another client: unaffected
      const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
      const { rateLimitKeys } = await import('../../shared/platform/keys');
      const { controlTableName } = await import('../../shared/platform/aws');
      await original(new UpdateCommand({ TableName: controlTableName(), Key: rateLimitKeys(clientId), UpdateExpression: 'SET tat = :tat', ExpressionAttributeValues: { ':tat': now + 400 } }) as never);
      writes = 0;
      expect((await consumeRateLimit(clientId, ratePlans.standard, clock))['RateLimit-Remaining']).toBe('57'); // two intervals pending, plus this one
      expect(writes).toBe(2);
    } finally {
      client.send = original;
    }
  });
});
