import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';

/** The table's one retry policy (shared/db/retry.ts) over a stubbed DynamoDB client. */
const send = vi.fn();
vi.mock('../../shared/platform/aws', () => ({ dynamo: () => ({ send }), tableName: () => 'books' }));

const { backoffMilliseconds, commitWithRetry } = await import('../../shared/db/retry');
const { ConditionsFailed, unitOfWork } = await import('../../shared/db/unit-of-work');
const { batchGet } = await import('../../shared/db/batch');

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: codes.map((Code) => ({ Code })) });

const write = { Put: { TableName: 'books', Item: { PK: 'a', SK: 'b' } } };
const work = () => Promise.resolve(unitOfWork().add('policy', write).add('access', write));

beforeEach(() => send.mockReset());

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
    send.mockRejectedValueOnce(cancelled('None', 'TransactionConflict')).mockRejectedValueOnce(cancelled('TransactionConflict', 'None')).mockResolvedValueOnce({});
    const build = vi.fn(work);
    await commitWithRetry(build, () => undefined);
    expect(build).toHaveBeenCalledTimes(3);
    expect(send).toHaveBeenCalledTimes(3);
  });

  it('answers the use case error at once when a failed condition is not one a retry mends', async () => {
    send.mockRejectedValue(cancelled('ConditionalCheckFailed', 'None'));
    const build = vi.fn(work);
    const refused = new Error('policy not found');
    await expect(commitWithRetry(build, (failed) => (failed.includes('policy') ? refused : undefined))).rejects.toBe(refused);
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('gives up after the attempts with the failed conditions', async () => {
    send.mockRejectedValue(cancelled('None', 'ConditionalCheckFailed'));
    const attempt = commitWithRetry(work, () => undefined, 3);
    await expect(attempt).rejects.toBeInstanceOf(ConditionsFailed);
    await expect(attempt).rejects.toMatchObject({ names: ['access'] });
    expect(send).toHaveBeenCalledTimes(3);
  });

  it('does not retry other errors', async () => {
    send.mockRejectedValue(new Error('ValidationException'));
    await expect(commitWithRetry(work, () => undefined)).rejects.toThrow('ValidationException');
    expect(send).toHaveBeenCalledTimes(1);
  });
});

describe('batchGet', () => {
  it('sends unprocessed keys again until none is left', async () => {
    const keys = [{ PK: 'p', SK: '1' }, { PK: 'p', SK: '2' }];
    send
      .mockResolvedValueOnce({ Responses: { books: [{ ...keys[0], id: 1 }] }, UnprocessedKeys: { books: { Keys: [keys[1]] } } })
      .mockResolvedValueOnce({ Responses: { books: [{ ...keys[1], id: 2 }] } });
    const found = await batchGet(keys);
    expect([...found.values()].map((item) => item.id).sort()).toEqual([1, 2]);
    expect(send).toHaveBeenCalledTimes(2);
    expect(send.mock.calls[1]![0].input.RequestItems.books.Keys).toEqual([keys[1]]);
  });
});
