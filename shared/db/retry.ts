import { setTimeout as sleep } from 'node:timers/promises';
import { ConditionsFailed, type UnitOfWork } from './unit-of-work';

/**
 * The one backoff of the table's retries (unprocessed batch items, transaction conflicts): the
 * delay before retry `attempt` (1, 2, ...) doubles from 50 ms up to 1 s, with jitter (half to all
 * of it) so that concurrent writers do not retry in step.
 */
export const backoffMilliseconds = (attempt: number, random: () => number = Math.random): number =>
  Math.min(1000, 25 * 2 ** attempt) * (0.5 + random() / 2);

export const backoff = (attempt: number): Promise<void> => sleep(backoffMilliseconds(attempt));

/**
 * Commits a unit of work built from fresh reads; a cancelled transaction (a concurrent change) is
 * built again from new reads and tried again after a backoff, at most `attempts` times. `explain`
 * turns failed conditions that a retry cannot mend into the use case's error (undefined: retry).
 */
export const commitWithRetry = async (build: () => Promise<UnitOfWork>, explain: (failed: readonly string[]) => Error | undefined, attempts = 5): Promise<void> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await (await build()).commit();
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      const problem = explain(error.names);
      if (problem) throw problem;
      if (attempt >= attempts) throw error;
      await backoff(attempt);
    }
  }
};
