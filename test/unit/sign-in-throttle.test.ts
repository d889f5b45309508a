import { describe, expect, it } from 'vitest';
import { createSignInThrottle } from '../../infra/local/sign-in-throttle';

describe('sign-in throttle', () => {
  const setup = () => {
    let now = 1_000_000;
    const throttle = createSignInThrottle({ maxFailures: 3, windowSeconds: 60 }, () => now, 4);
    return { throttle, advance: (seconds: number) => (now += seconds * 1000) };
  };

  it('locks a key after maxFailures failures, each within the window of the one before, until a window after the last', () => {
    const { throttle, advance } = setup();
    throttle.fail(['a']);
    advance(50);
    throttle.fail(['a']);
    expect(throttle.retryAfter(['a'])).toBe(0);
    advance(50);
    throttle.fail(['a']);
    expect(throttle.retryAfter(['a', 'b'])).toBe(60);
    advance(59.5);
    expect(throttle.retryAfter(['a'])).toBe(1);
    advance(0.5);
    expect(throttle.retryAfter(['a'])).toBe(0);
    // The count started again: one more failure does not lock.
    throttle.fail(['a']);
    expect(throttle.retryAfter(['a'])).toBe(0);
  });

  it('forgets failures older than the window, and a forgotten key', () => {
    const { throttle, advance } = setup();
    throttle.fail(['a', 'b']);
    throttle.fail(['a', 'b']);
    advance(60);
    throttle.fail(['a', 'b']);
    expect(throttle.retryAfter(['a'])).toBe(0);
    throttle.fail(['a', 'b']);
    throttle.forget('a');
    throttle.fail(['a', 'b']);
    expect(throttle.retryAfter(['a'])).toBe(0);
    expect(throttle.retryAfter(['b'])).toBe(60);
  });

  it('holds at most maxKeys keys, dropping the oldest', () => {
    const { throttle } = setup();
    for (let round = 0; round < 3; round += 1) throttle.fail(['first']);
    for (const key of ['k1', 'k2', 'k3', 'k4']) throttle.fail([key]);
    expect(throttle.retryAfter(['first'])).toBe(0);
  });
});
