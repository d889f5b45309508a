import { afterEach, describe, expect, it } from 'vitest';
import { completionRetrySeconds, deferralDelaySeconds } from '../../shared/documents/worker';

/** The delays of an automatic completion a GL-line deletion holds off (shared/documents/worker.ts). */
describe('upload completion deferral', () => {
  const now = Date.parse('2026-03-14T12:00:00.000Z');
  const inADay = new Date(now + 24 * 3600 * 1000).toISOString();

  afterEach(() => {
    delete process.env.DOCUMENT_COMPLETION_RETRY_SECONDS;
  });

  it('grows 1, 2, 5, then 15 minutes, and stays there', () => {
    expect([0, 1, 2, 3, 4, 50].map((deferrals) => deferralDelaySeconds(deferrals, inADay, now))).toEqual([60, 120, 300, 900, 900, 900]);
  });

  it('keeps trying up to the declaration: the last try lands shortly before completeBy, never later than SQS allows, never under a second', () => {
    expect(deferralDelaySeconds(10, new Date(now + 200_000).toISOString(), now)).toBe(195);
    expect(deferralDelaySeconds(10, new Date(now + 2_000).toISOString(), now)).toBe(1);
    process.env.DOCUMENT_COMPLETION_RETRY_SECONDS = '3600';
    expect(deferralDelaySeconds(0, inADay, now)).toBe(900);
  });

  it('reads its schedule from DOCUMENT_COMPLETION_RETRY_SECONDS (comma-separated seconds), ignoring what is not a positive number', () => {
    process.env.DOCUMENT_COMPLETION_RETRY_SECONDS = '1, 2,x,-3';
    expect(completionRetrySeconds()).toEqual([1, 2]);
    expect([0, 1, 2].map((deferrals) => deferralDelaySeconds(deferrals, inADay, now))).toEqual([1, 2, 2]);
    process.env.DOCUMENT_COMPLETION_RETRY_SECONDS = '';
    expect(completionRetrySeconds()).toEqual([60, 120, 300, 900]);
  });

  it('reaches a day-long declaration within the SQS limits: about 100 tries, none using a receive', () => {
    let elapsed = 0;
    let deferrals = 0;
    const completeBy = Date.parse(inADay);
    while (now + elapsed * 1000 < completeBy - 10_000) elapsed += deferralDelaySeconds(deferrals++, inADay, now + elapsed * 1000);
    expect(deferrals).toBeGreaterThan(90);
    expect(deferrals).toBeLessThan(100);
  });
});
