import { setTimeout as sleepFor } from 'node:timers/promises';
import type { Item } from './attributes';

/**
 * Paces writes per partition key: at most `unitsPerSecond` units into one key in any one second
 * (a sliding window, so however AWS's own second falls, it never sees more). AWS takes at most
 * 1,000 write units a second per partition key of a table or index; an import into one period
 * puts every line's GSI1 entry under one key and would be refused above that.
 *
 * Not a refilling token bucket: a full bucket plus its refill lets a key take twice its budget in
 * the first second. A request waits until the last second of its keys leaves room; while a key
 * stays under budget nothing waits. Reservations are taken synchronously in call order, so
 * concurrent callers (the batch writer's requests in flight) share the budget correctly.
 */
export interface PacerClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: PacerClock = { now: () => performance.now(), sleep: (ms) => sleepFor(ms) };

const windowMs = 1000;

export class PartitionPacer {
  /** Per key, the grants of the last second, oldest first (`at` nondecreasing per key). */
  private readonly grants = new Map<string, { at: number; units: number }[]>();
  /** Requests that had to wait, and their total wait in ms (for the worker's log and tests). */
  waits = 0;
  waitedMs = 0;

  readonly unitsPerSecond: number;
  private readonly clock: PacerClock;

  constructor(unitsPerSecond: number, clock: PacerClock = realClock) {
    if (!(unitsPerSecond > 0)) throw new Error('unitsPerSecond must be above 0');
    this.unitsPerSecond = unitsPerSecond;
    this.clock = clock;
  }

  /** When `units` more fit into the key at or after `from` (a request above the budget needs an empty second). */
  private fitsAt(key: string, units: number, from: number): number {
    const list = this.grants.get(key) ?? [];
    let at = Math.max(from, list.at(-1)?.at ?? from);
    let used = list.reduce((sum, grant) => sum + grant.units, 0);
    for (const grant of list) {
      if (grant.at > at - windowMs && used + units <= this.unitsPerSecond) break;
      if (grant.at > at - windowMs) at = grant.at + windowMs; // wait until this grant leaves the window
      used -= grant.units;
    }
    return at;
  }

  /** Reserves `units` per key now; answers the ms to wait before writing (0 while under budget). */
  reserve(units: ReadonlyMap<string, number>): number {
    const now = this.clock.now();
    let at = now;
    for (const [key, n] of units) if (n > 0) at = Math.max(at, this.fitsAt(key, n, at));
    for (const [key, n] of units) {
      if (n <= 0) continue;
      const list = (this.grants.get(key) ?? []).filter((grant) => grant.at > at - windowMs);
      list.push({ at, units: n });
      this.grants.set(key, list);
    }
    return at - now;
  }

  /** Reserves and waits until the write may go. */
  async take(units: ReadonlyMap<string, number>): Promise<void> {
    const wait = this.reserve(units);
    if (wait <= 0) return;
    this.waits++;
    this.waitedMs += wait;
    await this.clock.sleep(wait);
  }
}

/** The index partition keys a table's items carry (GSI1, GSI2). */
const indexKeyAttributes = ['GSI1PK', 'GSI2PK'] as const;

/**
 * Index write units of a set of item writes, per index partition key: each item (for an update,
 * the item before and the values set) writes once into each index key it carries, and an index
 * key that changes is written in both (the entry leaves one and joins the other). One unit per
 * entry: index entries of the ledger's items are under 1 KB.
 */
export const indexWriteUnits = (writes: readonly (readonly (Item | undefined)[])[]): Map<string, number> => {
  const units = new Map<string, number>();
  for (const versions of writes) {
    const keys = new Set<string>();
    for (const item of versions) for (const attribute of indexKeyAttributes) if (typeof item?.[attribute] === 'string') keys.add(`${attribute} ${item[attribute]}`);
    for (const key of keys) units.set(key, (units.get(key) ?? 0) + 1);
  }
  return units;
};
