/**
 * The authorizer's decisions per (resource, token), kept `ttlMs` from when they were made, never
 * past `notAfter` (the token's expiry); a hit never extends an entry. Bounded, so a flood of
 * distinct tokens cannot grow it without limit.
 */
export interface AuthorizerCache<V> {
  get(identity: string): V | undefined;
  set(identity: string, value: V, notAfter?: number): void;
}

export const createAuthorizerCache = <V>(ttlMs: number, clock: () => number = Date.now, maxEntries = 10_000): AuthorizerCache<V> => {
  const entries = new Map<string, { value: V; expiresAt: number }>();
  return {
    get: (identity) => {
      const entry = entries.get(identity);
      if (!entry) return undefined;
      if (clock() >= entry.expiresAt) {
        entries.delete(identity);
        return undefined;
      }
      return entry.value;
    },
    set: (identity, value, notAfter = Infinity) => {
      const expiresAt = Math.min(clock() + ttlMs, notAfter);
      if (expiresAt <= clock()) return;
      if (entries.size >= maxEntries) {
        // Drop the oldest entry (Map keeps insertion order).
        entries.delete(entries.keys().next().value!);
      }
      entries.delete(identity);
      entries.set(identity, { value, expiresAt });
    },
  };
};
