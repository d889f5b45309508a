import { describe, expect, it } from 'vitest';
import { idleBackoff } from '../../infra/local/idle-backoff';

describe('idle backoff of the local pollers', () => {
  it('doubles the wait per empty poll up to the cap, and starts over when a poll finds work', () => {
    const backoff = idleBackoff({ minMs: 100, capMs: 2000 });
    const waits = () => Array.from({ length: 7 }, () => backoff.next());
    expect(waits()).toEqual([100, 200, 400, 800, 1600, 2000, 2000]);
    backoff.reset();
    expect(waits()).toEqual([100, 200, 400, 800, 1600, 2000, 2000]);
  });

  it('keeps a constant wait when the cap is the minimum (the test stack), and none with a cap of 0', () => {
    const constant = idleBackoff({ minMs: 100, capMs: 100 });
    expect(Array.from({ length: 4 }, () => constant.next())).toEqual([100, 100, 100, 100]);
    const none = idleBackoff({ minMs: 0, capMs: 0 });
    expect(Array.from({ length: 3 }, () => none.next())).toEqual([0, 0, 0]);
  });

  it('stays at the cap after many empty polls (no overflow)', () => {
    const backoff = idleBackoff({ minMs: 250, capMs: 2000 });
    for (let i = 0; i < 1000; i++) backoff.next();
    expect(backoff.next()).toBe(2000);
  });

  it('refuses a negative bound', () => {
    expect(() => idleBackoff({ minMs: -1, capMs: 10 })).toThrow(/>= 0/);
  });
});
