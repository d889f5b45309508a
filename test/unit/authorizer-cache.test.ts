import { describe, expect, it } from 'vitest';
import { createAuthorizerCache } from '../../shared/identity/token-decision-cache';

/** The local gateway's copy of API Gateway's authorizer cache, on a fixed clock. */
describe('authorizer cache (local gateway)', () => {
  const clockAt = (start: number) => {
    const clock = { now: start, read: () => clock.now };
    return clock;
  };

  it('answers the stored decision for the same Authorization header until the TTL has passed, then asks again', () => {
    const clock = clockAt(1_000);
    const cache = createAuthorizerCache<string>(30_000, clock.read);
    cache.set('Bearer a', 'client a');
    clock.now += 29_999;
    expect(cache.get('Bearer a')).toBe('client a');
    clock.now += 1; // exactly one TTL after the authorizer answered: never served again
    expect(cache.get('Bearer a')).toBeUndefined();
  });

  it("never answers past the token's expiry, and keeps nothing for a token already expired", () => {
    const clock = clockAt(0);
    const cache = createAuthorizerCache<string>(30_000, clock.read);
    cache.set('Bearer soon', 'client a', 5_000);
    clock.now = 4_999;
    expect(cache.get('Bearer soon')).toBe('client a');
    clock.now = 5_000;
    expect(cache.get('Bearer soon')).toBeUndefined();
    cache.set('Bearer gone', 'client b', 5_000);
    expect(cache.get('Bearer gone')).toBeUndefined();
  });

  it('is keyed by the exact header value, and a hit does not extend an entry', () => {
    const clock = clockAt(0);
    const cache = createAuthorizerCache<string>(10_000, clock.read);
    cache.set('Bearer a', 'client a');
    expect(cache.get('Bearer b')).toBeUndefined();
    expect(cache.get('bearer a')).toBeUndefined();
    clock.now = 9_000;
    expect(cache.get('Bearer a')).toBe('client a');
    clock.now = 10_000;
    expect(cache.get('Bearer a')).toBeUndefined();
  });

  it('caches nothing with a TTL of 0 and stays within its bound, dropping the oldest entry', () => {
    const off = createAuthorizerCache<string>(0, () => 0);
    off.set('Bearer a', 'client a');
    expect(off.get('Bearer a')).toBeUndefined();
    const small = createAuthorizerCache<string>(60_000, () => 0, 2);
    small.set('1', 'one');
    small.set('2', 'two');
    small.set('3', 'three');
    expect([small.get('1'), small.get('2'), small.get('3')]).toEqual([undefined, 'two', 'three']);
  });
});
