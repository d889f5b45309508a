import type { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { completeFetch, EnginesNotQueued } from '../../shared/imports/fetch-completion';
import type { ImportItem } from '../../shared/imports/repository';
import { dynamo, sqs } from '../../shared/platform/aws';
import { logger } from '../../shared/platform/logger';

/**
 * The fetch completion's step when the post-fetch message cannot be sent after the run was
 * committed: it throws (the import's message is redelivered) instead of reporting the run as not
 * recorded, and the step run again commits the same run and sends the message. The SDK clients
 * are stubbed; the whole import over the local stack is in test/integration/import-redelivery.test.ts.
 */
const names = ['TABLE_NAME', 'RECONCILIATION_QUEUE_URL', 'AWS_REGION'] as const;
const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));

beforeEach(() => {
  Object.assign(process.env, { TABLE_NAME: 'ledger-test', RECONCILIATION_QUEUE_URL: 'http://127.0.0.1:1/queue/reconciliation', AWS_REGION: 'eu-north-1' });
  vi.spyOn(logger, 'error').mockImplementation(() => undefined);
});

afterEach(() => {
  vi.restoreAllMocks();
  for (const name of names) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

const item = { id: '7d1f0c86-5a2b-4f35-9c53-1f6a4f1e2b10', companyId: 'c1', kind: 'general_ledger_lines', year: 2025, createdAt: '2026-01-05T10:00:00.000Z' } as ImportItem;

describe('fetch completion', () => {
  it('a send that fails after the commit throws (retried); the step again puts the same run and sends the same message', async () => {
    const dynamoSend = vi.spyOn(dynamo(), 'send').mockResolvedValue({} as never);
    const sqsSend = vi.spyOn(sqs(), 'send').mockRejectedValueOnce(new Error('SQS unavailable')).mockResolvedValue({} as never);
    const transactions = () => dynamoSend.mock.calls.map(([command]) => (command as TransactWriteCommand).input);
    const messages = () => sqsSend.mock.calls.map(([command]) => (command as SendMessageCommand).input);

    const failed = await completeFetch(item, 2, ['auto-reconciliation']).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(EnginesNotQueued);
    expect(transactions()).toHaveLength(1);

    const completed = await completeFetch(item, 2, ['auto-reconciliation']);
    expect(completed).toMatchObject({ status: 'completed', fetchRunId: item.id });
    expect(transactions()).toHaveLength(2);
    const runs = transactions().map((input) => input.TransactItems!.flatMap((write) => (write.Put ? [write.Put.Item!] : [])));
    // One Put a transaction, the fetch run: same key, same id, engines queued; no event is written.
    for (const puts of runs) {
      expect(puts).toHaveLength(1);
      expect(puts[0]).toMatchObject({ entity: 'fetchRun', id: item.id, importId: item.id, engines: [{ name: 'auto-reconciliation', status: 'queued' }] });
    }
    expect([runs[1]![0]!.PK, runs[1]![0]!.SK]).toEqual([runs[0]![0]!.PK, runs[0]![0]!.SK]);
    expect(messages()).toHaveLength(2);
    expect(messages()[1]).toEqual(messages()[0]);
  });

  it('on the last delivery a send that fails records the engines failed and answers failed, without throwing (the import never fails because of it)', async () => {
    const dynamoSend = vi.spyOn(dynamo(), 'send').mockResolvedValue({} as never);
    vi.spyOn(sqs(), 'send').mockRejectedValue(new Error('SQS unavailable'));
    const completion = await completeFetch(item, 2, ['auto-reconciliation'], { lastDelivery: true });
    expect(completion).toMatchObject({ status: 'failed', failureType: 'post_fetch_engine_failed', fetchRunId: item.id });
    const engineUpdate = dynamoSend.mock.calls.map(([command]) => command.input as { UpdateExpression?: string; ExpressionAttributeValues?: Record<string, unknown> }).find((input) => input.UpdateExpression?.includes('engines'));
    expect(engineUpdate?.ExpressionAttributeValues?.[':engines']).toEqual([expect.objectContaining({ name: 'auto-reconciliation', status: 'failed', detail: expect.stringContaining('could not be queued') })]);
  });

  it('a transaction that fails reports the run not recorded (nothing was committed), without throwing', async () => {
    vi.spyOn(dynamo(), 'send').mockRejectedValue(new Error('throttled'));
    const send = vi.spyOn(sqs(), 'send');
    expect(await completeFetch(item, 2, ['auto-reconciliation'])).toMatchObject({ status: 'error', failureType: 'recording_failed', fetchRunId: null });
    expect(send).not.toHaveBeenCalled();
  });
});
