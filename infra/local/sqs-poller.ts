import { createHash, randomUUID } from 'node:crypto';
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type Message,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { idleBackoff } from './idle-backoff';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttribute, SQSRecord } from 'aws-lambda';

/**
 * A local stand-in for Lambda's SQS event source mapping: long-polls a queue, hands each batch to
 * the handler as a real SQSEvent, then deletes the messages the handler did not report in
 * `batchItemFailures` (ReportBatchItemFailures semantics). Failed messages, and the whole batch when
 * the handler throws, stay on the queue and reappear after the visibility timeout, so the queue's
 * RedrivePolicy moves them to the DLQ after maxReceiveCount receives, exactly as on AWS.
 * Batches are processed one at a time (concurrency 1).
 */

export type SqsEventHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export type SqsPollerErrorPhase = 'receive' | 'handler' | 'delete';

export interface SqsPollerOptions {
  /** Must be configured with the queue's endpoint. */
  client: SQSClient;
  queueUrl: string;
  /** eventSourceARN of the records; region and account are taken from it. */
  queueArn: string;
  handler: SqsEventHandler;
  /** 1..10 (one ReceiveMessage). Default 10. */
  batchSize?: number;
  /**
   * Long-poll wait, 0..20 s. Default 20, as Lambda's event source polls: a message ends the wait at
   * once, and an idle queue costs one request per 20 s instead of one per second.
   */
  waitTimeSeconds?: number;
  /**
   * Pause after a long poll that received nothing: 250 ms doubling per empty poll up to this cap,
   * none again once a poll receives. Default 0: long polls back to back.
   */
  idleCapMs?: number;
  /** Overrides the queue's visibility timeout for received messages. */
  visibilityTimeoutSeconds?: number;
  functionName: string;
  /** Reported by `context.getRemainingTimeInMillis()` (not enforced). Default 900. */
  timeoutSeconds?: number;
  /** Default: console.error. Also called for handler errors (the batch is then left for retry). */
  onError?: (error: unknown, phase: SqsPollerErrorPhase) => void;
}

export interface SqsPoller {
  /**
   * Ends the loop (aborts the in-flight long poll) and waits for an in-flight handler. Idempotent.
   * As with real SQS, the server may still complete an aborted long poll: a message arriving in the
   * rest of that wait (fauxqs keeps the waiter until `waitTimeSeconds` ends) can be received into
   * the void and stay invisible for one visibility timeout.
   */
  stop(): Promise<void>;
}

const RECEIVE_ERROR_BACKOFF_MS = 1000;

function toLambdaAttribute(value: MessageAttributeValue): SQSMessageAttribute {
  const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
  const attribute: SQSMessageAttribute = {
    stringListValues: value.StringListValues ?? [],
    binaryListValues: (value.BinaryListValues ?? []).map(base64),
    dataType: value.DataType ?? 'String',
  };
  if (value.StringValue !== undefined) attribute.stringValue = value.StringValue;
  if (value.BinaryValue !== undefined) attribute.binaryValue = base64(value.BinaryValue);
  return attribute;
}

function toRecord(message: Message, eventSourceARN: string, awsRegion: string): SQSRecord {
  const body = message.Body ?? '';
  const attrs: Record<string, string> = { ...(message.Attributes ?? {}) };
  const now = String(Date.now());
  const record: SQSRecord = {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body,
    attributes: {
      ...attrs,
      ApproximateReceiveCount: attrs.ApproximateReceiveCount ?? '1',
      SentTimestamp: attrs.SentTimestamp ?? now,
      SenderId: attrs.SenderId ?? '000000000000',
      ApproximateFirstReceiveTimestamp: attrs.ApproximateFirstReceiveTimestamp ?? now,
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [name, toLambdaAttribute(value)]),
    ),
    md5OfBody: message.MD5OfBody ?? createHash('md5').update(body, 'utf8').digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN,
    awsRegion,
  };
  if (message.MD5OfMessageAttributes) record.md5OfMessageAttributes = message.MD5OfMessageAttributes;
  return record;
}

function makeContext(functionName: string, region: string, account: string, timeoutSeconds: number): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const unsupported = (name: string) => () => {
    throw new Error(`context.${name}() is not supported by the local SQS poller; return a promise`);
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${account}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/[$LATEST]${randomUUID().replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported('done'),
    fail: unsupported('fail'),
    succeed: unsupported('succeed'),
  };
}

export function startSqsPoller(options: SqsPollerOptions): SqsPoller {
  const {
    client,
    queueUrl,
    queueArn,
    handler,
    batchSize = 10,
    waitTimeSeconds = 20,
    idleCapMs = 0,
    visibilityTimeoutSeconds,
    functionName,
    timeoutSeconds = 900,
    onError = (error: unknown, phase: SqsPollerErrorPhase) =>
      console.error(`[sqs-poller ${functionName}] ${phase} failed:`, error),
  } = options;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10) {
    throw new Error(`batchSize must be an integer 1..10, got ${batchSize}`);
  }
  // arn:aws:sqs:<region>:<account>:<name>
  const [, , , region = 'eu-north-1', account = '000000000000'] = queueArn.split(':');

  const abort = new AbortController();
  let stopped = false;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        abort.signal.removeEventListener('abort', done);
        resolve();
      }
      abort.signal.addEventListener('abort', done, { once: true });
    });

  const deleteMessages = async (records: SQSRecord[]) => {
    for (let i = 0; i < records.length; i += 10) {
      const chunk = records.slice(i, i + 10);
      try {
        // No abort signal: the batch was processed, its deletion should complete even during stop().
        const result = await client.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: chunk.map((r, n) => ({ Id: String(n), ReceiptHandle: r.receiptHandle })),
          }),
        );
        if (result.Failed?.length) {
          onError(new Error(`DeleteMessageBatch failed for ${result.Failed.length} message(s): ${JSON.stringify(result.Failed)}`), 'delete');
        }
      } catch (err) {
        onError(err, 'delete');
      }
    }
  };

  const processBatch = async (messages: Message[]) => {
    const event: SQSEvent = { Records: messages.map((m) => toRecord(m, queueArn, region)) };
    const context = makeContext(functionName, region, account, timeoutSeconds);
    let response: SQSBatchResponse | void;
    try {
      response = await handler(event, context);
    } catch (err) {
      onError(err, 'handler'); // whole batch stays; it reappears after the visibility timeout
      return;
    }
    const failures = response?.batchItemFailures ?? [];
    const ids = new Set(event.Records.map((r) => r.messageId));
    // Like Lambda: an empty or unknown itemIdentifier fails the whole batch.
    const invalid = failures.filter((f) => !f?.itemIdentifier || !ids.has(f.itemIdentifier));
    if (invalid.length > 0) {
      onError(new Error(`batchItemFailures has invalid itemIdentifier(s) ${JSON.stringify(invalid)}; whole batch left for retry`), 'handler');
      return;
    }
    const failed = new Set(failures.map((f) => f.itemIdentifier));
    await deleteMessages(event.Records.filter((r) => !failed.has(r.messageId)));
  };

  const idle = idleBackoff({ minMs: Math.min(250, idleCapMs), capMs: idleCapMs });
  const loop = async () => {
    while (!stopped) {
      let messages: Message[];
      try {
        const result = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: batchSize,
            WaitTimeSeconds: waitTimeSeconds,
            ...(visibilityTimeoutSeconds === undefined ? {} : { VisibilityTimeout: visibilityTimeoutSeconds }),
            AttributeNames: ['All'],
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: abort.signal },
        );
        messages = result.Messages ?? [];
      } catch (err) {
        if (stopped) break;
        onError(err, 'receive');
        await pause(RECEIVE_ERROR_BACKOFF_MS);
        continue;
      }
      // Messages already received are processed even if stop() was called meanwhile: dropping
      // them would only hide them until their visibility timeout.
      if (messages.length > 0) {
        idle.reset();
        await processBatch(messages);
      } else {
        const wait = idle.next();
        if (wait > 0 && !stopped) await pause(wait);
      }
    }
  };

  const running = loop().catch((err: unknown) => onError(err, 'receive'));

  let stopping: Promise<void> | undefined;
  return {
    stop: () => {
      stopping ??= (async () => {
        stopped = true;
        abort.abort();
        await running;
      })();
      return stopping;
    },
  };
}
