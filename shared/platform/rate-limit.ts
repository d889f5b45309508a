import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { rateLimitKeys } from './keys';
import { controlTableName, dynamo } from './aws';
import { countMetric } from './metrics';
import { problems } from './problem';

export type RatePlan = 'standard' | 'premium';

/** A sustained rate per minute and a burst. */
export interface RateLimit {
  perMinute: number;
  burst: number;
}

/** Plans of the specification (Limits). */
export const ratePlans: Record<RatePlan, RateLimit> = {
  standard: { perMinute: 300, burst: 60 },
  premium: { perMinute: 1200, burst: 240 },
};

/** Bounds of a client's custom limit (set by an operator in place of its plan's). */
export const customRateLimitBounds = { perMinute: { min: 1, max: 1_000_000 }, burst: { min: 1, max: 100_000 } } as const;

/** The limits a client runs under: its custom limit when an operator set one, else its plan's. */
export const rateLimitOf = (caller: { plan: RatePlan; rateLimit?: RateLimit | undefined }): RateLimit => caller.rateLimit ?? ratePlans[caller.plan];

export interface RateDecision {
  allowed: boolean;
  /** The new theoretical arrival time (ms) to store when allowed. */
  nextTat: number;
  headers: Record<string, string>;
  retryAfterSeconds: number;
}

/**
 * GCRA (generic cell rate algorithm), the token bucket as one timestamp per client: each request
 * moves the theoretical arrival time (tat) on by one emission interval; a request is allowed while
 * tat stays within burst intervals of now. Pure, so the arithmetic is unit-tested with a fixed clock.
 */
export const decide = (limit: RateLimit, storedTat: number | undefined, now: number): RateDecision => {
  const { perMinute, burst } = limit;
  const interval = 60_000 / perMinute;
  const tolerance = burst * interval;
  const tat = Math.max(storedTat ?? now, now);
  const nextTat = tat + interval;
  const allowed = nextTat - now <= tolerance;
  const backlog = (allowed ? nextTat : tat) - now;
  const remaining = Math.max(0, Math.floor((tolerance - backlog) / interval));
  const retryAfterSeconds = allowed ? 0 : Math.max(1, Math.ceil((nextTat - now - tolerance) / 1000));
  return {
    allowed,
    nextTat,
    retryAfterSeconds,
    headers: {
      'RateLimit-Limit': String(burst),
      'RateLimit-Remaining': String(remaining),
      'RateLimit-Reset': String(Math.ceil(backlog / 1000)),
      'RateLimit-Policy': `${burst};w=${Math.max(1, Math.round(tolerance / 1000))}, ${perMinute};w=60`,
    },
  };
};

const maxAttempts = 4;

/**
 * Consumes one request of the client's quota, shared across Lambda instances through one
 * DynamoDB item per client. Both writes are single atomic conditional updates (no read first):
 * "start a burst" when the bucket is full, else "add one interval" while within the burst, so
 * concurrent requests never lose an update. Returns the RateLimit headers; throws 429 with
 * Retry-After when the quota is used up.
 */
export const consumeRateLimit = async (clientId: string, limit: RateLimit, clock = Date.now): Promise<Record<string, string>> => {
  const { perMinute, burst } = limit;
  const interval = 60_000 / perMinute;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const now = clock();
    const latestTat = now + burst * interval - interval;
    const startBurst = async () => {
      const idle = await conditionalTatUpdate(clientId, 'SET tat = :next, expiresAt = :expires', 'attribute_not_exists(tat) OR tat <= :now', {
        ':next': now + interval,
        ':now': now,
        ':expires': expiry(now + interval),
      });
      if (!idle.updated) return undefined;
      lastKnownTat.remember(clientId, now + interval);
      return decide(limit, now, now).headers;
    };
    const addInterval = async () => {
      const busy = await conditionalTatUpdate(clientId, 'SET tat = tat + :interval, expiresAt = :expires', 'tat > :now AND tat <= :limit', {
        ':interval': interval,
        ':now': now,
        ':limit': latestTat,
        ':expires': expiry(latestTat + interval),
      });
      if (busy.tat !== undefined) lastKnownTat.remember(clientId, busy.tat);
      if (busy.updated && busy.tat !== undefined) return decide(limit, busy.tat - interval, now).headers;
      if (busy.tat !== undefined && busy.tat > latestTat) {
        const decision = decide(limit, busy.tat, now);
        countMetric('rateLimitRefusals', {});
        throw withHeaders(problems.rateLimited(decision.retryAfterSeconds), decision.headers);
      }
      return undefined;
    };
    // Try first the update this instance last saw succeed: a client sending steadily is mid-burst,
    // so its requests take one write, not two. Either order gives the same decision.
    const midBurst = (lastKnownTat.get(clientId) ?? 0) > now;
    const headers = midBurst ? ((await addInterval()) ?? (await startBurst())) : ((await startBurst()) ?? (await addInterval()));
    if (headers) return headers;
    // The bucket refilled (or filled) between the two updates: start again.
  }
  countMetric('rateLimitRefusals', {});
  throw withHeaders(problems.rateLimited(1), {});
};

/** Per Lambda instance, the last tat seen per client: only a hint of which update to try first. */
const lastKnownTat = (() => {
  const tats = new Map<string, number>();
  return {
    get: (clientId: string) => tats.get(clientId),
    remember: (clientId: string, tat: number) => {
      if (tats.size >= 10_000 && !tats.has(clientId)) tats.clear();
      tats.set(clientId, tat);
    },
  };
})();

const expiry = (tat: number) => Math.ceil(tat / 1000) + 3600;

const conditionalTatUpdate = async (
  clientId: string,
  update: string,
  condition: string,
  values: Record<string, number>,
): Promise<{ updated: boolean; tat?: number }> => {
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: controlTableName(),
        Key: rateLimitKeys(clientId),
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeValues: values,
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { updated: true, tat: Number(Attributes?.tat) };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const old = error.Item?.tat?.N;
    return { updated: false, ...(old !== undefined && { tat: Number(old) }) };
  }
};

const withHeaders = <E extends { headers: Record<string, string> }>(error: E, headers: Record<string, string>): E => {
  Object.assign(error.headers, headers);
  return error;
};
