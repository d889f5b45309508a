/** How many failed sign-ins a key (an account, an address) may make, each within `windowSeconds` of the one before. */
export interface SignInThrottleLimits {
  maxFailures: number;
  windowSeconds: number;
}

/** As Cognito begins its lockout: after 5 failures; the lockout lasts until 15 minutes after the last one. */
export const defaultSignInThrottle: SignInThrottleLimits = { maxFailures: 5, windowSeconds: 15 * 60 };

export interface SignInThrottle {
  /** Seconds until every one of the keys may try again; 0 when none is locked. */
  retryAfter(keys: readonly string[]): number;
  /** Counts a failure against each key. */
  fail(keys: readonly string[]): void;
  /** Forgets the key's failures (a successful sign-in of the account). */
  forget(key: string): void;
}

/**
 * Failed sign-ins of the local identity provider, in its memory (a restart forgets them): a key
 * that has failed `maxFailures` times, each failure within the window of the previous one, is
 * locked until a window after its last failure. Attempts while locked are refused unchecked and
 * not counted. Bounded: past `maxKeys`, stale keys go first, then the oldest.
 */
export const createSignInThrottle = (limits: SignInThrottleLimits, clock: () => number = Date.now, maxKeys = 10_000): SignInThrottle => {
  const windowMs = limits.windowSeconds * 1000;
  const failures = new Map<string, { count: number; last: number }>();
  const live = (key: string) => {
    const entry = failures.get(key);
    if (entry && clock() - entry.last >= windowMs) failures.delete(key);
    return failures.get(key);
  };
  const makeRoom = () => {
    if (failures.size < maxKeys) return;
    for (const key of failures.keys()) live(key);
    while (failures.size >= maxKeys) failures.delete(failures.keys().next().value!);
  };
  return {
    retryAfter: (keys) =>
      Math.max(0, ...keys.map((key) => {
        const entry = live(key);
        return entry && entry.count >= limits.maxFailures ? Math.ceil((entry.last + windowMs - clock()) / 1000) : 0;
      })),
    fail: (keys) => {
      for (const key of keys) {
        const entry = live(key);
        if (!entry) makeRoom();
        failures.delete(key); // re-inserted: the Map's order is the order of last failure
        failures.set(key, { count: (entry?.count ?? 0) + 1, last: clock() });
      }
    },
    forget: (key) => {
      failures.delete(key);
    },
  };
};
