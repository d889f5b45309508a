import { SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqs } from '../platform/aws';
import { queueUrl, type QueueDefinition } from '../queues';

/** SQS allows at most 15 minutes of delay per message; longer waits are chained (the worker re-sends early arrivals). */
export const maxMessageDelaySeconds = 900;

export type WebhookQueue = 'webhook-fanout' | 'webhooks';

const urlOf = (name: QueueDefinition['name'], deadLetter = false): string => queueUrl(name, { deadLetter });

export const sendMessage = async (name: WebhookQueue, body: object, delaySeconds = 0): Promise<void> => {
  await sqs().send(
    new SendMessageCommand({ QueueUrl: urlOf(name), MessageBody: JSON.stringify(body), DelaySeconds: Math.min(maxMessageDelaySeconds, Math.max(0, Math.ceil(delaySeconds))) }),
  );
};

export const sendMessages = async (name: WebhookQueue, bodies: readonly object[]): Promise<void> => {
  for (let i = 0; i < bodies.length; i += 10) {
    const chunk = bodies.slice(i, i + 10);
    const result = await sqs().send(new SendMessageBatchCommand({ QueueUrl: urlOf(name), Entries: chunk.map((body, n) => ({ Id: String(n), MessageBody: JSON.stringify(body) })) }));
    if (result.Failed?.length) throw new Error(`SendMessageBatch to ${name} failed for ${result.Failed.length} message(s)`);
  }
};

/** A delivery out of attempts goes to the deliveries' DLQ (where an operator sees and can replay it). */
export const sendToDeadLetterQueue = async (body: object): Promise<void> => {
  await sqs().send(new SendMessageCommand({ QueueUrl: urlOf('webhooks', true), MessageBody: JSON.stringify(body) }));
};
