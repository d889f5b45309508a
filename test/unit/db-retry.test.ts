import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * The table's one retry policy (shared/db/retry.ts) over a stubbed DynamoDB client: each call of
 * `send` answers the next scripted answer (the last one repeats); `sent` records the commands.
 */
let script: (() => unknown)[] = [];
let sent: { input: Record<string, unknown> }[] = [];
const send = async (command: { input: Record<string, unknown> }) => {
  sent.push(command);
  const answer = script.length > 1 ? script.shift()! : script[0]!;
  return answer();
};
vi.mock('../../shared/platform/aws', () => ({ dynamo: () => ({ send }), tableName: () => 'books' }));

const { backoffMilliseconds, commitWithRetry } = await import('../../shared/db/retry');
const { ConditionsFailed, unitOfWork } = await import('../../shared/db/unit-of-work');
const { batchGet } = await import('../../shared/db/batch');

const cancelled = (...codes: string[]) => () => {
  throw new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: codes.map((Code) => ({ Code })) });
};
const answer = (value: unknown) => () => value;

const write = { Put: { TableName: 'books', Item: { PK: 'a', SK: 'b' } } };
const work = async () => unitOfWork().add('policy', write).add('access', write);

beforeEach(() => {
  script = [];
  sent = [];
});

describe('backoff', () => {
  it('doubles from 25 to 50 ms up to at most one second, with jitter between half and all of it', () => {
    expect(backoffMilliseconds(1, () => 0)).toBe(25);
    expect(backoffMilliseconds(1, () => 1)).toBe(50);
    expect(backoffMilliseconds(3, () => 1)).toBe(200);
    expect(backoffMilliseconds(12, () => 0)).toBe(500);
    expect(backoffMilliseconds(12, () => 1)).toBe(1000);
  });
});

describe('commitWithRetry', () => {
  it('builds the unit of work again from fresh reads after a conflicting transaction, and commits', async () => {
    script = [cancelled('None', 'TransactionConflict'), cancelled('TransactionConflict', 'None'), answer({})];
    let builds = 0;
    await commitWithRetry(() => (builds++, work()), () => undefined);
    expect(builds).toBe(3);
    expect(sent).toHaveLength(3);
  });

  it('answers the use case error at once when a failed condition is not one a retry mends', async () => {
    script = [cancelled('ConditionalCheckFailed', 'None')];
    const refused = new Error('policy not found');
    const outcome = await commitWithRetry(work, (failed) => (failed.includes('policy') ? refused : undefined)).catch((error: unknown) => error);
    expect(outcome).toBe(refused);
    expect(sent).toHaveLength(1);
  });

  it('gives up after the attempts with the failed conditions', async () => {
    script = [cancelled('None', 'ConditionalCheckFailed')];
    const outcome = await commitWithRetry(work, () => undefined, 3).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(ConditionsFailed);
    expect((outcome as InstanceType<typeof ConditionsFailed>).names).toEqual(['access']);
    expect(sent).toHaveLength(3);
  });

  it('does not retry other errors', async () => {
    const refused = new Error('ValidationException');
    script = [
      () => {
        throw refused;
      },
    ];
    const outcome = await commitWithRetry(work, () => undefined).catch((error: unknown) => error);
    expect(outcome).toBe(refused);
    expect(sent).toHaveLength(1);
  });
});

describe('batchGet', () => {
  it('sends unprocessed keys again until none is left', async () => {
    const keys = [{ PK: 'p', SK: '1' }, { PK: 'p', SK: '2' }];
    script = [
      answer({ Responses: { books: [{ ...keys[0], id: 1 }] }, UnprocessedKeys: { books: { Keys: [keys[1]] } } }),
      answer({ Responses: { books: [{ ...keys[1], id: 2 }] } }),
    ];
    const found = await batchGet(keys);
    expect([...found.values()].map((item) => item.id).sort()).toEqual([1, 2]);
    expect(sent).toHaveLength(2);
    expect((sent[1]!.input.RequestItems as Record<string, { Keys: unknown }>).books!.Keys).toEqual([keys[1]]);
  });
});
