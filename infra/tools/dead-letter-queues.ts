import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import { queues, type QueueDefinition } from '../../shared/queues';
import { ToolError } from './stack-env';

/**
 * The dead-letter queues of shared/queues.ts for the admin CLI: counts, a look at the messages
 * that leaves them in place, redrive to the source queue and purge. The local SQS emulator has no
 * StartMessageMoveTask, so redrive is a receive / send / delete loop, which works on AWS too.
 */
export type QueueName = QueueDefinition['name'];

export const queueNames = queues.map((queue) => queue.name);

/** Where a queue pair lives: URLs known up front (a local stack file) or looked up by name (AWS). */
export interface QueueLocator {
  client: SQSClient;
  /** The source queue's and its DLQ's URLs. */
  urls(name: QueueName): Promise<{ url: string; dlqUrl: string }>;
  /** The queue names as shown to the user (`<prefix>-<name>`). */
  label(name: QueueName): string;
}

export const queueName = (value: string): QueueName => {
  const found = queues.find((queue) => queue.name === value);
  if (!found) throw new ToolError(`Unknown queue ${value}; queues: ${queueNames.join(', ')}`);
  return found.name;
};

/** The local stack's queues, from its stack file. */
export const localQueues = (endpoint: string, region: string, known: Partial<Record<QueueName, { url: string; dlqUrl: string }>> | undefined): QueueLocator => ({
  client: new SQSClient({ endpoint, region }),
  urls: (name) => {
    const pair = known?.[name];
    if (!pair) return Promise.reject(new ToolError(`The stack file lists no ${name} queue: restart the local stack (npm start)`));
    return Promise.resolve({ url: pair.url, dlqUrl: pair.dlqUrl });
  },
  label: (name) => (known?.[name]?.url ?? name).split('/').pop()!,
});

/** The deployed queues `<prefix>-<name>` and `<prefix>-<name>-dlq`, found with GetQueueUrl. */
export const awsQueues = (resourcePrefix: string, region: string): QueueLocator => {
  const client = new SQSClient({ region });
  const urlOf = async (queueName: string): Promise<string> => {
    try {
      const { QueueUrl } = await client.send(new GetQueueUrlCommand({ QueueName: queueName }));
      if (QueueUrl) return QueueUrl;
    } catch (error) {
      if ((error as Error).name !== 'QueueDoesNotExist' && (error as Error).name !== 'AWS.SimpleQueueService.NonExistentQueue') throw error;
    }
    throw new ToolError(`No queue ${queueName} in ${region}: check --resource-prefix and --region`);
  };
  return {
    client,
    // One after the other, so a wrong prefix always names the source queue.
    urls: async (name) => ({ url: await urlOf(`${resourcePrefix}-${name}`), dlqUrl: await urlOf(`${resourcePrefix}-${name}-dlq`) }),
    label: (name) => `${resourcePrefix}-${name}`,
  };
};

export interface QueueCounts {
  /** Messages ready to be received. */
  visible: number;
  /** Received and not yet deleted or released. */
  inFlight: number;
}

export const countsOf = async (client: SQSClient, url: string): Promise<QueueCounts> => {
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return { visible: Number(Attributes?.ApproximateNumberOfMessages ?? 0), inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0) };
};

export interface DeadLetter {
  messageId: string;
  /** ISO time the message was first sent (to the source queue). */
  sentAt: string | undefined;
  /** Receives so far, this look included. */
  receiveCount: number;
  body: string;
}

const deadLetterOf = (message: Message): DeadLetter => {
  const sent = Number(message.Attributes?.SentTimestamp);
  return {
    messageId: message.MessageId ?? '',
    sentAt: Number.isFinite(sent) && sent > 0 ? new Date(sent).toISOString() : undefined,
    receiveCount: Number(message.Attributes?.ApproximateReceiveCount ?? 0),
    body: message.Body ?? '',
  };
};

/**
 * Receives up to `max` messages, each once, holding each for `holdSeconds`; stops at the first
 * receive with nothing new. `received` gets every message received, repeats included.
 */
const receiveUpTo = async function* (client: SQSClient, url: string, max: number, holdSeconds: number, received?: (messages: Message[]) => void): AsyncGenerator<Message[]> {
  const seen = new Set<string>();
  while (seen.size < max) {
    const { Messages = [] } = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: Math.min(10, max - seen.size),
        // Long polling asks every SQS server, so an empty answer means the queue is drained.
        WaitTimeSeconds: 1,
        VisibilityTimeout: holdSeconds,
        MessageSystemAttributeNames: ['SentTimestamp', 'ApproximateReceiveCount'],
        MessageAttributeNames: ['All'],
      }),
    );
    received?.(Messages);
    const fresh = Messages.filter((message) => message.MessageId && !seen.has(message.MessageId));
    if (!fresh.length) return;
    for (const message of fresh) seen.add(message.MessageId!);
    yield fresh;
  }
};

/** Makes received messages visible again at once (ChangeMessageVisibility 0), ten per call. */
const release = async (client: SQSClient, url: string, messages: Message[]): Promise<void> => {
  for (let start = 0; start < messages.length; start += 10) {
    const batch = messages.slice(start, start + 10);
    await client.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: url,
        Entries: batch.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle!, VisibilityTimeout: 0 })),
      }),
    );
  }
};

/** Seconds a peek holds the messages it has seen (all are released when it ends, or when this runs out). */
const peekHoldSeconds = 30;

/** Up to `max` messages of a queue, left in it: received with a short visibility timeout, then released. */
export const peek = async (client: SQSClient, url: string, max: number): Promise<DeadLetter[]> => {
  const shown: Message[] = [];
  const held: Message[] = [];
  try {
    for await (const batch of receiveUpTo(client, url, max, peekHoldSeconds, (messages) => held.push(...messages))) shown.push(...batch);
  } finally {
    await release(client, url, held);
  }
  return shown.map(deadLetterOf);
};

export interface Moved {
  messageId: string;
  /** The message's id in the source queue. */
  newMessageId: string;
}

/**
 * Moves up to `max` messages from the DLQ to the source queue, one at a time: sent to the source
 * (body and attributes) before it is deleted from the DLQ, so a failure leaves it in one of them
 * (at worst in both), never in neither.
 */
export const redrive = async (client: SQSClient, from: string, to: string, max: number, onMoved: (moved: Moved) => void): Promise<Moved[]> => {
  const moved: Moved[] = [];
  for await (const batch of receiveUpTo(client, from, max, 120)) {
    for (const message of batch) {
      const sent = await client.send(
        new SendMessageCommand({
          QueueUrl: to,
          MessageBody: message.Body ?? '',
          ...(message.MessageAttributes && Object.keys(message.MessageAttributes).length && { MessageAttributes: message.MessageAttributes }),
        }),
      );
      await client.send(new DeleteMessageCommand({ QueueUrl: from, ReceiptHandle: message.ReceiptHandle! }));
      const entry = { messageId: message.MessageId!, newMessageId: sent.MessageId ?? '' };
      moved.push(entry);
      onMoved(entry);
    }
  }
  return moved;
};

export const purge = async (client: SQSClient, url: string): Promise<void> => {
  await client.send(new PurgeQueueCommand({ QueueUrl: url }));
};

/** A body for reading: JSON pretty-printed, cut after `limit` characters. */
export const readableBody = (body: string, limit = 2_000): string => {
  let text = body;
  try {
    text = JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    // not JSON: shown as it is
  }
  return text.length > limit ? `${text.slice(0, limit)}\n… (${text.length - limit} more characters)` : text;
};
