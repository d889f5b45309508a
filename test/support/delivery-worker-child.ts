/**
 * Runs the real delivery worker (functions/webhook-delivery-worker/handler.ts) in a process of its
 * own on one SQS batch naming the delivery ids given as arguments, as Lambda would invoke it; the
 * crash test kills this process with SIGKILL in the middle of the batch.
 */
import { randomUUID } from 'node:crypto';
import type { Context, SQSEvent } from 'aws-lambda';
import { handler } from '../../functions/webhook-delivery-worker/handler';
import { lambdaContext } from '../../infra/local/lambda-context';

const event: SQSEvent = {
  Records: process.argv.slice(2).map((deliveryId) => ({
    messageId: randomUUID(),
    receiptHandle: randomUUID(),
    body: JSON.stringify({ deliveryId }),
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()), SenderId: 'local', ApproximateFirstReceiveTimestamp: String(Date.now()) },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-north-1:000000000000:ledger-local-webhooks',
    awsRegion: 'eu-north-1',
  })),
};
console.log('invoking');
await (handler as unknown as (event: SQSEvent, context: Context) => Promise<unknown>)(event, lambdaContext('webhooks-worker', 120));
console.log('finished');
