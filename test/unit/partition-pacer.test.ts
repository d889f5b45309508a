import { afterEach, describe, expect, it } from 'vitest';
import { indexWriteUnits, PartitionPacer, type PacerClock } from '../../shared/db/partition-pacer';
import { importIndexWritesPerPartitionPerSecond } from '../../shared/platform/config';

/** A clock that only moves when something sleeps (or the test advances it). */
const fakeClock = () => {
  let now = 0;
  const sleeps: number[] = [];
  const clock: PacerClock & { advance(ms: number): void; sleeps: number[]; at(): number } = {
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    advance: (ms) => {
      now += ms;
    },
    sleeps,
    at: () => now,
  };
  return clock;
};

const units = (entries: Record<string, number>) => new Map(Object.entries(entries));

/** Takes `requests` requests of `size` units on `key` one after the other; answers the clock time each one was granted. */
const takeAll = async (pacer: PartitionPacer, clock: ReturnType<typeof fakeClock>, key: string, requests: number, size: number) => {
  const grantedAt: number[] = [];
  for (let i = 0; i < requests; i++) {
    await pacer.take(units({ [key]: size }));
    grantedAt.push(clock.at());
  }
  return grantedAt;
};

/** The most units granted in any window [t, t + 1000) over the grant times. */
const peakPerSecond = (grantedAt: number[], size: number) =>
  Math.max(...grantedAt.map((start) => grantedAt.filter((at) => at >= start && at < start + 1000).length * size));

describe('PartitionPacer', () => {
  it('never waits while a key stays under its budget', async () => {
    const clock = fakeClock();
    const pacer = new PartitionPacer(900, clock);
    await takeAll(pacer, clock, 'GSI1PK GLPERIOD#c#2025#01', 36, 25); // 900 units at once
    expect(clock.sleeps).toEqual([]);
    expect(pacer.waits).toBe(0);
    clock.advance(1000);
    await takeAll(pacer, clock, 'GSI1PK GLPERIOD#c#2025#01', 36, 25); // the next second's 900
    expect(clock.sleeps).toEqual([]);
  });

  it('holds a key to its budget in every one-second window, and keeps the average at the budget', async () => {
    const clock = fakeClock();
    const pacer = new PartitionPacer(900, clock);
    const grantedAt = await takeAll(pacer, clock, 'GSI1PK GLPERIOD#c#2025#01', 400, 25); // 10,000 units
    expect(peakPerSecond(grantedAt, 25)).toBe(900);
    // 900 in each of the first 11 seconds, the last 100 at 11 s.
    expect(grantedAt.at(-1)).toBe(11_000);
    expect(pacer.waits).toBeGreaterThan(0);
    expect(pacer.waitedMs).toBe(clock.sleeps.reduce((a, b) => a + b, 0));
  });

  it('shares the budget between callers that reserve at the same time', () => {
    const clock = fakeClock();
    const pacer = new PartitionPacer(50, clock);
    const waits = Array.from({ length: 5 }, () => pacer.reserve(units({ k: 25 })));
    expect(waits).toEqual([0, 0, 1000, 1000, 2000]);
  });

  it('keeps keys independent: a full key does not hold up another', async () => {
    const clock = fakeClock();
    const pacer = new PartitionPacer(100, clock);
    await takeAll(pacer, clock, 'GSI1PK p1', 4, 25);
    expect(pacer.reserve(units({ 'GSI1PK p2': 25 }))).toBe(0);
    expect(pacer.reserve(units({ 'GSI1PK p1': 25 }))).toBe(1000);
    expect(pacer.reserve(units({ 'GSI2PK a1': 25 }))).toBe(0);
  });

  it('waits for the fullest key of a request that writes into several', () => {
    const clock = fakeClock();
    const pacer = new PartitionPacer(100, clock);
    pacer.reserve(units({ a: 100 }));
    clock.advance(300);
    pacer.reserve(units({ b: 100 }));
    clock.advance(100);
    expect(pacer.reserve(units({ a: 10, b: 10 }))).toBe(900); // b's second ends at 1,300
  });

  it('lets a request above the budget through only into an empty second', () => {
    const clock = fakeClock();
    const pacer = new PartitionPacer(10, clock);
    expect(pacer.reserve(units({ k: 25 }))).toBe(0);
    expect(pacer.reserve(units({ k: 1 }))).toBe(1000);
  });

  it('is off at 0 (the worker creates no pacer) and refuses to be built so', () => {
    expect(() => new PartitionPacer(0)).toThrow();
  });
});

describe('indexWriteUnits', () => {
  it('counts one unit per index key an item carries, and both keys of an entry that moves', () => {
    const line = (period: string, account: string) => ({ PK: 'x', SK: 'CURRENT', GSI1PK: `GLPERIOD#c#2025#${period}`, GSI2PK: `GLACCOUNT#c#2025#${account}` });
    const result = indexWriteUnits([[line('01', '3000')], [line('01', '3000')], [line('01', '3000'), line('02', '3000')], [{ PK: 'y', SK: 'VERSION#000001' }]]);
    expect(Object.fromEntries(result)).toEqual({
      'GSI1PK GLPERIOD#c#2025#01': 3,
      'GSI1PK GLPERIOD#c#2025#02': 1,
      'GSI2PK GLACCOUNT#c#2025#3000': 3,
    });
  });
});

describe('IMPORT_INDEX_WRITES_PER_PARTITION_PER_SECOND', () => {
  const name = 'IMPORT_INDEX_WRITES_PER_PARTITION_PER_SECOND';
  const saved = process.env[name];
  afterEach(() => {
    if (saved === undefined) delete process.env[name];
    else process.env[name] = saved;
  });

  it('is 900 unset (AWS), 0 = off, else the number given; read per import', () => {
    delete process.env[name];
    expect(importIndexWritesPerPartitionPerSecond()).toBe(900);
    process.env[name] = '0';
    expect(importIndexWritesPerPartitionPerSecond()).toBe(0);
    process.env[name] = '250';
    expect(importIndexWritesPerPartitionPerSecond()).toBe(250);
    process.env[name] = 'fast';
    expect(importIndexWritesPerPartitionPerSecond()).toBe(900);
  });
});
