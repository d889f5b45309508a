import { createHash } from 'node:crypto';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord, Context } from 'aws-lambda';
import { queues } from '../../shared/queues';
import { localAwsCredentials, localAwsRegion } from '../../infra/local/aws-env';
import { freePort } from '../../infra/local/ports';
import { ensureQueue, ensureQueues, localSqsClient, startSqs, type LocalSqs } from '../../infra/local/sqs';
import { startSqsPoller, type SqsPoller, type SqsPollerErrorPhase } from '../../infra/local/sqs-poller';

/** Polls `condition` every 50 ms until it holds; fails after `timeoutMs`. */
async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('SQS (fauxqs) and the SQS poller', { timeout: 60_000 }, () => {
  let sqs: LocalSqs;
  let client: SQSClient;
  const pollers: SqsPoller[] = [];

  const counts = async (url: string) => {
    const { Attributes = {} } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
    );
    return { visible: Number(Attributes.ApproximateNumberOfMessages), inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible) };
  };
  const isEmpty = async (url: string) => {
    const c = await counts(url);
    return c.visible === 0 && c.inFlight === 0;
  };

  beforeAll(async () => {
    const port = await freePort();
    const t0 = performance.now();
    sqs = await startSqs({ port });
    console.log(`[timing] fauxqs start: ${Math.round(performance.now() - t0)} ms`);
    client = localSqsClient(sqs.endpoint);
  });

  afterAll(async () => {
    await Promise.all(pollers.map((p) => p.stop()));
    client?.destroy();
    await sqs?.stop();
  });

  it('ensureQueues creates every queue of the table with its DLQ, visibility timeout and redrive policy', async () => {
    const created = await ensureQueues({ endpoint: sqs.endpoint, prefix: 'test' });
    expect(Object.keys(created).sort()).toEqual(queues.map((q) => q.name).sort());
    for (const def of queues) {
      const q = created[def.name];
      expect(q.url).toBe(`${sqs.endpoint}/000000000000/test-${def.name}`);
      expect(q.dlqUrl).toBe(`${sqs.endpoint}/000000000000/test-${def.name}-dlq`);
      expect(q.arn).toBe(`arn:aws:sqs:${localAwsRegion()}:000000000000:test-${def.name}`);
      const { Attributes = {} } = await client.send(new GetQueueAttributesCommand({ QueueUrl: q.url, AttributeNames: ['All'] }));
      expect(Attributes.VisibilityTimeout).toBe(String(def.visibilityTimeoutSeconds));
      expect(JSON.parse(Attributes.RedrivePolicy ?? '{}')).toEqual({ deadLetterTargetArn: q.dlqArn, maxReceiveCount: def.maxReceiveCount });
    }
    // Idempotent.
    expect(await ensureQueues({ endpoint: sqs.endpoint, prefix: 'test' })).toEqual(created);
  });

  it('returns queue URLs usable with the explicit endpoint and routable without one', async () => {
    const { imports } = await ensureQueues({ endpoint: sqs.endpoint, prefix: 'test' });
    await client.send(new SendMessageCommand({ QueueUrl: imports.url, MessageBody: 'via endpoint' }));
    // A client without `endpoint` routes by the queue URL (as with AWS_ENDPOINT_URL_SQS); it must reach fauxqs.
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    const byUrl = new SQSClient({ region: localAwsRegion(), credentials: localAwsCredentials, logger: quiet });
    try {
      await byUrl.send(new SendMessageCommand({ QueueUrl: imports.url, MessageBody: 'via queue url' }));
      const bodies: string[] = [];
      await waitFor(async () => {
        const r = await client.send(new ReceiveMessageCommand({ QueueUrl: imports.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
        bodies.push(...(r.Messages ?? []).map((m) => m.Body ?? ''));
        return bodies.length >= 2;
      }, 10_000, 'both messages');
      expect(bodies.sort()).toEqual(['via endpoint', 'via queue url']);
    } finally {
      byUrl.destroy();
    }
  });

  it('delivers a batch as a Lambda SQSEvent and deletes it after success', async () => {
    const queue = await ensureQueue(client, { name: 'poller-batch', visibilityTimeoutSeconds: 30, maxReceiveCount: 3 });
    const bodies = ['one', 'two', 'three', 'four', 'five'];
    const sentBefore = Date.now();
    await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: bodies.map((body, i) => ({
          Id: String(i),
          MessageBody: body,
          MessageAttributes: {
            kind: { DataType: 'String', StringValue: `k${i}` },
            n: { DataType: 'Number', StringValue: String(i) },
            raw: { DataType: 'Binary', BinaryValue: Buffer.from([i, 255]) },
          },
        })),
      }),
    );

    const records: SQSRecord[] = [];
    const contexts: Context[] = [];
    pollers.push(
      startSqsPoller({
        client,
        queueUrl: queue.url,
        queueArn: queue.arn,
        functionName: 'batch-worker',
        handler: async (event: SQSEvent, context: Context) => {
          records.push(...event.Records);
          contexts.push(context);
        },
      }),
    );
    await waitFor(() => records.length >= bodies.length, 20_000, 'all messages delivered');
    await waitFor(() => isEmpty(queue.url), 20_000, 'the messages to be deleted');

    expect(records.map((r) => r.body).sort()).toEqual([...bodies].sort());
    for (const r of records) {
      const i = bodies.indexOf(r.body);
      expect(r.messageId).toMatch(/\S/);
      expect(r.receiptHandle).toMatch(/\S/);
      expect(r.eventSource).toBe('aws:sqs');
      expect(r.eventSourceARN).toBe(queue.arn);
      expect(r.awsRegion).toBe(localAwsRegion());
      expect(r.md5OfBody).toBe(createHash('md5').update(r.body).digest('hex'));
      expect(r.attributes.ApproximateReceiveCount).toBe('1');
      expect(r.attributes.SenderId).toMatch(/\S/);
      expect(Number(r.attributes.SentTimestamp)).toBeGreaterThanOrEqual(sentBefore);
      expect(Number(r.attributes.ApproximateFirstReceiveTimestamp)).toBeGreaterThanOrEqual(Number(r.attributes.SentTimestamp));
      expect(r.messageAttributes).toEqual({
        kind: { stringValue: `k${i}`, stringListValues: [], binaryListValues: [], dataType: 'String' },
        n: { stringValue: String(i), stringListValues: [], binaryListValues: [], dataType: 'Number' },
        raw: { binaryValue: Buffer.from([i, 255]).toString('base64'), stringListValues: [], binaryListValues: [], dataType: 'Binary' },
      });
    }
    const context = contexts[0]!;
    expect(context.functionName).toBe('batch-worker');
    expect(context.awsRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(context.invokedFunctionArn).toBe(`arn:aws:lambda:${localAwsRegion()}:000000000000:function:batch-worker`);
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(0);
  });

  it('retries only the batchItemFailures, then moves them to the DLQ after maxReceiveCount', async () => {
    const maxReceiveCount = 2;
    const queue = await ensureQueue(client, { name: 'poller-partial', visibilityTimeoutSeconds: 2, maxReceiveCount });
    await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: ['ok-1', 'poison', 'ok-2'].map((body, i) => ({ Id: String(i), MessageBody: body })),
      }),
    );
    const deliveries: { body: string; receiveCount: number }[] = [];
    pollers.push(
      startSqsPoller({
        client,
        queueUrl: queue.url,
        queueArn: queue.arn,
        functionName: 'partial-worker',
        handler: async (event) => {
          deliveries.push(...event.Records.map((r) => ({ body: r.body, receiveCount: Number(r.attributes.ApproximateReceiveCount) })));
          return { batchItemFailures: event.Records.filter((r) => r.body === 'poison').map((r) => ({ itemIdentifier: r.messageId })) };
        },
      }),
    );
    await waitFor(async () => (await counts(queue.dlqUrl)).visible === 1, 30_000, 'the poison message in the DLQ');
    await waitFor(() => isEmpty(queue.url), 10_000, 'the main queue to drain');

    const poison = deliveries.filter((d) => d.body === 'poison').map((d) => d.receiveCount);
    expect(poison).toEqual([1, 2]); // received maxReceiveCount times, with a growing count, then dead-lettered
    expect(deliveries.filter((d) => d.body === 'ok-1')).toEqual([{ body: 'ok-1', receiveCount: 1 }]);
    expect(deliveries.filter((d) => d.body === 'ok-2')).toEqual([{ body: 'ok-2', receiveCount: 1 }]);
    const dead = await client.send(new ReceiveMessageCommand({ QueueUrl: queue.dlqUrl, MaxNumberOfMessages: 10 }));
    expect(dead.Messages?.map((m) => m.Body)).toEqual(['poison']);
  });

  it('leaves the whole batch on the queue when the handler throws', async () => {
    const queue = await ensureQueue(client, { name: 'poller-throw', visibilityTimeoutSeconds: 1, maxReceiveCount: 5 });
    await client.send(
      new SendMessageBatchCommand({ QueueUrl: queue.url, Entries: ['a', 'b'].map((body, i) => ({ Id: String(i), MessageBody: body })) }),
    );
    const calls: { body: string; receiveCount: number }[][] = [];
    const errors: { error: unknown; phase: SqsPollerErrorPhase }[] = [];
    pollers.push(
      startSqsPoller({
        client,
        queueUrl: queue.url,
        queueArn: queue.arn,
        functionName: 'throwing-worker',
        onError: (error, phase) => errors.push({ error, phase }),
        handler: async (event) => {
          calls.push(event.Records.map((r) => ({ body: r.body, receiveCount: Number(r.attributes.ApproximateReceiveCount) })));
          if (calls.length === 1) throw new Error('boom');
        },
      }),
    );
    await waitFor(() => calls.flat().filter((c) => c.receiveCount >= 2).length >= 2, 30_000, 'both messages redelivered');
    await waitFor(() => isEmpty(queue.url), 10_000, 'the queue to drain');

    expect(calls[0]!.map((c) => c.body).sort()).toEqual(['a', 'b']);
    expect(calls[0]!.every((c) => c.receiveCount === 1)).toBe(true);
    const retried = calls.slice(1).flat();
    expect([...new Set(retried.map((c) => c.body))].sort()).toEqual(['a', 'b']);
    expect(retried.every((c) => c.receiveCount >= 2)).toBe(true);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.phase).toBe('handler');
    expect((errors[0]!.error as Error).message).toBe('boom');
    expect(await counts(queue.dlqUrl)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('treats an unknown itemIdentifier as a failure of the whole batch', async () => {
    const queue = await ensureQueue(client, { name: 'poller-bad-id', visibilityTimeoutSeconds: 1, maxReceiveCount: 5 });
    await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'x' }));
    const receiveCounts: number[] = [];
    const errors: SqsPollerErrorPhase[] = [];
    pollers.push(
      startSqsPoller({
        client,
        queueUrl: queue.url,
        queueArn: queue.arn,
        functionName: 'bad-id-worker',
        onError: (_e, phase) => errors.push(phase),
        handler: async (event) => {
          receiveCounts.push(...event.Records.map((r) => Number(r.attributes.ApproximateReceiveCount)));
          return receiveCounts.length === 1 ? { batchItemFailures: [{ itemIdentifier: 'not-in-this-batch' }] } : undefined;
        },
      }),
    );
    await waitFor(() => receiveCounts.length >= 2, 30_000, 'the redelivery');
    await waitFor(() => isEmpty(queue.url), 10_000, 'the queue to drain');
    expect(receiveCounts.slice(0, 2)).toEqual([1, 2]);
    expect(errors[0]).toBe('handler');
  });

  it('an idle poller pauses between empty polls (idleCapMs) and still takes the next message', async () => {
    const queue = await ensureQueue(client, { name: 'poller-idle', visibilityTimeoutSeconds: 30, maxReceiveCount: 3 });
    const counting = localSqsClient(sqs.endpoint);
    let receives = 0;
    counting.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'ReceiveMessageCommand') receives++;
        return next(args);
      },
      { step: 'initialize', name: 'countReceives' },
    );
    const bodies: string[] = [];
    const idle = startSqsPoller({
      client: counting,
      queueUrl: queue.url,
      queueArn: queue.arn,
      functionName: 'idle-backoff',
      waitTimeSeconds: 0, // short polls: the pauses are the poller's own
      idleCapMs: 400,
      handler: async (event) => {
        bodies.push(...event.Records.map((r) => r.body));
      },
    });
    try {
      await waitFor(() => receives >= 3, 20_000, 'three empty polls');
      await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'after idling' }));
      await waitFor(() => bodies.length === 1, 20_000, 'the message after the idle polls');
      expect(bodies).toEqual(['after idling']);
      await waitFor(() => isEmpty(queue.url), 10_000, 'the message to be deleted');
    } finally {
      await idle.stop();
      counting.destroy();
    }
  });

  it('stop() aborts the long poll promptly and waits for an in-flight handler', async () => {
    const queue = await ensureQueue(client, { name: 'poller-stop', visibilityTimeoutSeconds: 30, maxReceiveCount: 3 });

    // Idle poller in a 20 s long poll: stop() must not wait for the poll to end.
    const idle = startSqsPoller({ client, queueUrl: queue.url, queueArn: queue.arn, functionName: 'idle', waitTimeSeconds: 20, handler: async () => {} });
    await new Promise((r) => setTimeout(r, 200)); // let the ReceiveMessage get under way
    const t0 = performance.now();
    await idle.stop();
    const stopMs = performance.now() - t0;
    console.log(`[timing] poller stop during a 20 s long poll: ${Math.round(stopMs)} ms`);
    expect(stopMs).toBeLessThan(10_000); // generous: only proves the 20 s poll was aborted

    // Busy poller: stop() resolves only after the handler finishes, and the batch is still deleted.
    // A separate queue: fauxqs keeps the aborted long poll's waiter until its 20 s end, and that
    // waiter would take (and hide) the next message sent to the first queue.
    const busyQueue = await ensureQueue(client, { name: 'poller-stop-busy', visibilityTimeoutSeconds: 30, maxReceiveCount: 3 });
    await client.send(new SendMessageCommand({ QueueUrl: busyQueue.url, MessageBody: 'slow' }));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let started = false;
    let finished = false;
    const busy = startSqsPoller({
      client,
      queueUrl: busyQueue.url,
      queueArn: busyQueue.arn,
      functionName: 'busy',
      handler: async () => {
        started = true;
        await released;
        finished = true;
      },
    });
    await waitFor(() => started, 20_000, 'the handler to start');
    let stopped = false;
    const stopping = busy.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(finished).toBe(true);
    expect(await isEmpty(busyQueue.url)).toBe(true);
  });
});
