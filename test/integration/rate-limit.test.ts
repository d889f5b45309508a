import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../shared/identity/administration';
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
