import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { logger } from '../../shared/platform/logger';
import { queueWorker } from '../../shared/platform/queue-worker';
import { sqsRecordOf } from '../support/sqs-event';

const batch = (...bodies: string[]): SQSEvent => ({ Records: bodies.map((body, i) => sqsRecordOf(body, `m${i + 1}`)) });

/** Fails the messages whose body is "fail"; yields between steps so that concurrent work interleaves. */
const failing = async (message: SQSRecord): Promise<void> => {
  await Promise.resolve();
  if (message.body === 'fail') throw new Error(`failed ${message.messageId}`);
};

afterEach(() => vi.restoreAllMocks());

describe('queueWorker (SQS partial batch responses)', () => {
  it('reports exactly the messages whose handler threw, and logs each with its message id', async () => {
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const handled: string[] = [];
    const worker = queueWorker(
      async (message) => {
        handled.push(message.messageId);
        await failing(message);
      },
      { failureMessage: 'Test message failed' },
    );
    expect(await worker(batch('ok', 'fail', 'ok', 'fail'))).toEqual({ batchItemFailures: [{ itemIdentifier: 'm2' }, { itemIdentifier: 'm4' }] });
    expect(handled).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(errors.mock.calls.map(([message, extra]) => [message, (extra as { messageId: string }).messageId])).toEqual([
      ['Test message failed', 'm2'],
      ['Test message failed', 'm4'],
    ]);
  });

  it('reports a batch whose messages all failed, rather than throwing it whole', async () => {
    vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const worker = queueWorker(failing, { failureMessage: 'Test message failed' });
    expect(await worker(batch('fail', 'fail'))).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }] });
    expect(await worker({ Records: [] })).toEqual({ batchItemFailures: [] });
    expect(await worker(batch('ok'))).toEqual({ batchItemFailures: [] });
  });

  it('handles messages one after another by default, and all at once with inParallel', async () => {
    const concurrency = async (inParallel: boolean): Promise<number> => {
      let active = 0;
      let most = 0;
      const worker = queueWorker(
        async () => {
          most = Math.max(most, ++active);
          for (let step = 0; step < 3; step++) await Promise.resolve();
          active--;
        },
        { failureMessage: 'Test message failed', inParallel },
      );
      await worker(batch('a', 'b', 'c'));
      return most;
    };
    expect(await concurrency(false)).toBe(1);
    expect(await concurrency(true)).toBe(3);
  });

  it('keeps two batches that one worker handles at once apart', async () => {
    vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const worker = queueWorker(failing, { failureMessage: 'Test message failed', inParallel: true });
    const first: SQSEvent = { Records: [sqsRecordOf('fail', 'a1'), sqsRecordOf('ok', 'a2')] };
    const second: SQSEvent = { Records: [sqsRecordOf('ok', 'b1'), sqsRecordOf('fail', 'b2'), sqsRecordOf('fail', 'b3')] };
    const [a, b] = await Promise.all([worker(first), worker(second)]);
    expect(a).toEqual({ batchItemFailures: [{ itemIdentifier: 'a1' }] });
    expect(b).toEqual({ batchItemFailures: [{ itemIdentifier: 'b2' }, { itemIdentifier: 'b3' }] });
  });
});
