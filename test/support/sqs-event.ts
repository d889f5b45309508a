import { randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';

/** One SQS message with this body, first delivery. */
export const sqsRecordOf = (body: string, messageId: string = randomUUID()): SQSRecord => ({
  messageId,
  receiptHandle: `receipt-${messageId}`,
  body,
  attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'test', ApproximateFirstReceiveTimestamp: '0' },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:eu-north-1:000000000000:test',
  awsRegion: 'eu-north-1',
});

/** An SQS event of one message with this JSON body, first delivery: what a queue worker receives. */
export const sqsEventOf = (message: Record<string, unknown>): SQSEvent => ({ Records: [sqsRecordOf(JSON.stringify(message))] });
