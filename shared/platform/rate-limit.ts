import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { rateLimitKeys } from '../db/keys';
import type { RatePlan } from '../identity/principal';
import { dynamo, tableName } from './aws';
import { problems } from './problem';

/** Plans of the specification (Limits): a sustained rate per minute and a burst. */
export const ratePlans: Record<RatePlan, { perMinute: number; burst: number }> = {
  standard: { perMinute: 300, burst: 60 },
  premium: { perMinute: 1200, burst: 240 },
};

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
export const decide = (plan: RatePlan, storedTat: number | undefined, now: number): RateDecision => {
  const { perMinute, burst } = ratePlans[plan];
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
      'RateLimit-Policy': `${burst};w=${Math.round(tolerance / 1000)}, ${perMinute};w=60`,
    },
  };
};

const maxAttempts = 5;

/**
 * Consumes one request of the client's quota, shared across Lambda instances through one
 * DynamoDB item per client updated with optimistic concurrency. Returns the RateLimit headers;
 * throws 429 with Retry-After when the quota is used up.
 */
export const consumeRateLimit = async (clientId: string, plan: RatePlan, now = Date.now): Promise<Record<string, string>> => {
  let storedTat: number | undefined;
  let known = false;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const current = now();
    if (!known) {
      storedTat = await readTat(clientId);
      known = true;
    }
    const decision = decide(plan, storedTat, current);
    if (!decision.allowed) throw withHeaders(problems.rateLimited(decision.retryAfterSeconds), decision.headers);
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: rateLimitKeys(clientId),
          UpdateExpression: 'SET tat = :next, expiresAt = :expires',
          ConditionExpression: storedTat === undefined ? 'attribute_not_exists(tat)' : 'tat = :seen',
          ExpressionAttributeValues: {
            ':next': decision.nextTat,
            ':expires': Math.ceil(decision.nextTat / 1000) + 3600,
            ...(storedTat !== undefined && { ':seen': storedTat }),
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return decision.headers;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // Another instance moved the clock first: retry from the value it wrote.
      storedTat = error.Item?.tat?.N !== undefined ? Number(error.Item.tat.N) : undefined;
    }
  }
  throw withHeaders(problems.rateLimited(1), {});
};

const readTat = async (clientId: string): Promise<number | undefined> => {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: rateLimitKeys(clientId), ConsistentRead: true }));
  return typeof Item?.tat === 'number' ? Item.tat : undefined;
};

const withHeaders = <E extends { headers: Record<string, string> }>(error: E, headers: Record<string, string>): E => {
  Object.assign(error.headers, headers);
  return error;
};
