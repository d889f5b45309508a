import { describe, expect, it } from 'vitest';
import { decide, rateLimitOf, ratePlans } from '../../shared/platform/rate-limit';

/** Replays a sequence of requests through the pure GCRA decision with a fixed clock. */
const run = (plan: 'standard' | 'premium', times: number[]) => {
  let tat: number | undefined;
  return times.map((now) => {
    const decision = decide(ratePlans[plan], tat, now);
    if (decision.allowed) tat = decision.nextTat;
    return decision;
  });
};

describe('GCRA rate decision', () => {
  it.each(['standard', 'premium'] as const)('%s allows exactly the burst at once, then refuses', (plan) => {
    const { burst } = ratePlans[plan];
    const decisions = run(plan, Array.from({ length: burst + 5 }, () => 1_000_000));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(burst);
    expect(decisions[burst]!.allowed).toBe(false);
    expect(decisions[burst - 1]!.headers['RateLimit-Remaining']).toBe('0');
    expect(decisions[0]!.headers['RateLimit-Remaining']).toBe(String(burst - 1));
  });

  it('sustains 300 per minute on standard: one request every 200 ms is always allowed', () => {
    const decisions = run('standard', Array.from({ length: 1000 }, (_, i) => 5_000_000 + i * 200));
    expect(decisions.every((d) => d.allowed)).toBe(true);
  });

  it('refuses beyond the sustained rate once the burst is spent, with Retry-After until the next slot', () => {
    const start = 9_000_000;
    const decisions = run('standard', [...Array.from({ length: 60 }, () => start), start + 100, start + 200]);
    expect(decisions[60]!.allowed).toBe(false);
    expect(decisions[60]!.retryAfterSeconds).toBe(1);
    expect(decisions[61]!.allowed).toBe(true); // one 200 ms interval later a slot is free
  });

  it('refills completely after the burst window', () => {
    const start = 20_000_000;
    run('premium', Array.from({ length: 240 }, () => start));
    const later = run('premium', [...Array.from({ length: 240 }, () => start), ...Array.from({ length: 240 }, () => start + 12_000)]);
    expect(later.slice(240).every((d) => d.allowed)).toBe(true);
  });

  it('publishes the policy of the plan', () => {
    expect(decide(ratePlans.standard, undefined, 0).headers['RateLimit-Policy']).toBe('60;w=12, 300;w=60');
    expect(decide(ratePlans.premium, undefined, 0).headers['RateLimit-Policy']).toBe('240;w=12, 1200;w=60');
  });

  it('a custom limit set for a client replaces its plan\'s, in the decision and the headers', () => {
    expect(rateLimitOf({ plan: 'standard' })).toEqual({ perMinute: 300, burst: 60 });
    const custom = rateLimitOf({ plan: 'standard', rateLimit: { perMinute: 600, burst: 3 } });
    expect(custom).toEqual({ perMinute: 600, burst: 3 });
    let tat: number | undefined;
    const decisions = Array.from({ length: 4 }, () => {
      const decision = decide(custom, tat, 1_000_000);
      if (decision.allowed) tat = decision.nextTat;
      return decision;
    });
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions[0]!.headers['RateLimit-Policy']).toBe('3;w=1, 600;w=60');
  });
});
