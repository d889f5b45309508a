/**
 * How long an idle local poller waits before its next poll: `minMs` after the first empty poll,
 * doubling after each further one up to `capMs`, and back to none as soon as a poll finds work.
 * A cap at or below the minimum keeps the wait constant (the test stack's setting).
 */
export interface IdleBackoff {
  /** The wait after one more empty poll. */
  next(): number;
  /** A poll found work: the next empty poll waits `minMs` again. */
  reset(): void;
}

export const idleBackoff = ({ minMs, capMs }: { minMs: number; capMs: number }): IdleBackoff => {
  if (!(minMs >= 0) || !(capMs >= 0)) throw new Error(`idle backoff: minMs and capMs must be >= 0, got ${minMs} and ${capMs}`);
  let emptyPolls = 0;
  return {
    next: () => {
      const wait = Math.min(capMs, minMs * 2 ** Math.min(emptyPolls, 30));
      emptyPolls++;
      return wait;
    },
    reset: () => {
      emptyPolls = 0;
    },
  };
};
