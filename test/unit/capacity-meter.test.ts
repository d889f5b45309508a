import { describe, expect, it } from 'vitest';
import { consumedUnits, criticalPath, minimumReadUnits, pacedWrites, partitionWrites, replayWrites, type TimedWrite } from '../../infra/tools/capacity-meter';

describe("the bench's capacity meter", () => {
  it('reads units per table and index from ConsumedCapacity (one object or one per table)', () => {
    expect(consumedUnits({ TableName: 't', CapacityUnits: 3, Table: { CapacityUnits: 1 }, GlobalSecondaryIndexes: { GSI1: { CapacityUnits: 1 }, GSI2: { CapacityUnits: 1 } } })).toEqual([
      { target: 't', units: 1 },
      { target: 't/GSI1', units: 1 },
      { target: 't/GSI2', units: 1 },
    ]);
    expect(consumedUnits([{ TableName: 'a', CapacityUnits: 2 }, { TableName: 'b', CapacityUnits: 0.5 }])).toEqual([
      { target: 'a', units: 2 },
      { target: 'b', units: 0.5 },
    ]);
    expect(consumedUnits(undefined)).toEqual([]);
  });

  it('names the partitions a put writes: the item and each index entry it carries', () => {
    const writes = partitionWrites('BatchWriteItem', { RequestItems: { t: [{ PutRequest: { Item: { PK: 'L#1', SK: 'CURRENT', GSI1PK: 'P#01', GSI2PK: 'A#1000' } } }, { DeleteRequest: { Key: { PK: 'L#2', SK: 'CURRENT' } } }] } });
    expect(writes.map((w) => `${w.partition} ${w.units}`)).toEqual(['t L#1 1', 't/GSI1 P#01 1', 't/GSI2 A#1000 1', 't L#2 1']);
    expect(partitionWrites('TransactWriteItems', { TransactItems: [{ Update: { TableName: 't', Key: { PK: 'B#1' } } }] })).toEqual([{ partition: 't B#1', units: 2 }]);
  });

  it('counts the round trips on the critical path: overlapping calls once, calls in sequence each', () => {
    expect(criticalPath([{ startMs: 0, endMs: 5 }, { startMs: 1, endMs: 4 }, { startMs: 6, endMs: 9 }, { startMs: 10, endMs: 12 }])).toBe(3);
    expect(criticalPath([])).toBe(0);
  });

  it('needs half a unit per started 4 KB for an eventually consistent read', () => {
    expect(minimumReadUnits(100)).toBe(0.5);
    expect(minimumReadUnits(4096 * 10 + 1)).toBe(5.5);
  });

  describe('replay against the per-partition write limit', () => {
    const onePeriod = (items: number): TimedWrite[] =>
      Array.from({ length: items }, (_, n) => ({
        atMs: n,
        partitions: [
          { partition: `t L#${n}`, units: 1 },
          { partition: 't/GSI1 P#01', units: 1 },
          { partition: `t/GSI2 A#${n % 50}`, units: 1 },
        ],
      }));
    const options = { partitionLimit: 1000, clientItemsPerSecond: 10_000, window: 200 };

    it('takes a second per 1,000 items into one index partition, refusing the rest of the window meanwhile', () => {
      const result = replayWrites(onePeriod(3000), options);
      expect(result.seconds).toBe(3);
      expect(result.unthrottledSeconds).toBe(1);
      expect(result.hottest[0]).toEqual({ partition: 't/GSI1 P#01', units: 3000, peakUnitsPerSecond: 1000 });
      expect(result.throttledAttempts).toBe(2 * 200);
    });

    it('spreads the period over shards: 4 keys take the same writes in one second', () => {
      const result = replayWrites(onePeriod(3000), { ...options, gsi1Shards: 4 });
      expect(result.seconds).toBe(1);
      expect(result.throttledAttempts).toBe(0);
      expect(result.hottest[0]!.peakUnitsPerSecond).toBeLessThanOrEqual(1000);
    });

    const pacing = { indexUnitsPerSecond: 900, clientItemsPerSecond: 10_000 };

    it('paced at 900 a second per index key: nothing refused, 900 a second into the period key', async () => {
      const paced = await pacedWrites(onePeriod(3000), pacing);
      expect(paced.writes.map((write) => write.partitions)).toEqual(onePeriod(3000).map((write) => write.partitions));
      expect(paced.waits).toBeGreaterThan(0);
      const result = replayWrites(paced.writes, { ...options, sendAtTimes: true });
      expect(result.throttledAttempts).toBe(0);
      expect(result.hottest[0]).toEqual({ partition: 't/GSI1 P#01', units: 3000, peakUnitsPerSecond: 900 });
      expect(result.seconds).toBe(4); // 900, 900, 900, 300
    });

    it('paced: lines spread over 12 periods in period order are not slowed', async () => {
      const twelvePeriods: TimedWrite[] = Array.from({ length: 9996 }, (_, n) => ({
        atMs: 0,
        partitions: [
          { partition: `t L#${n}`, units: 1 },
          { partition: `t/GSI1 P#${Math.floor(n / 833)}`, units: 1 },
          { partition: `t/GSI2 A#${n % 50}`, units: 1 },
        ],
      }));
      const paced = await pacedWrites(twelvePeriods, pacing);
      expect(paced.waits).toBe(0);
      const result = replayWrites(paced.writes, { ...options, sendAtTimes: true });
      expect(result).toMatchObject({ seconds: 1, throttledAttempts: 0 });
    });
  });
});
