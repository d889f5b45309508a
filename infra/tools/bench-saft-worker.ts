/**
 * Part of `npm run bench:saft`: the import worker alone in its own process, as its Lambda runs it,
 * on one started SAF-T import whose message went to a queue nobody polls (bundled as CDK bundles
 * the worker). Prints one JSON line with the process's RSS before and at its peak (sampled every
 * 20 ms) and the time. Usage: node bench-saft-worker.mjs <stack file> <SAF-T import id>
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { SQSEvent } from 'aws-lambda';
import type { StackInfo } from '../local/stack';
import { applyStackEnv } from './stack-env';

const [stackFile, saftImportId] = process.argv.slice(2);
if (!stackFile || !saftImportId) throw new Error('usage: bench-saft-worker.ts <stack file> <SAF-T import id>');
process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
applyStackEnv(JSON.parse(readFileSync(stackFile, 'utf8')) as StackInfo);

const { handler } = await import('../../functions/import-worker/handler');
const { lambdaContext } = await import('../local/lambda-context');
const baselineRss = process.memoryUsage().rss;
let peakRss = baselineRss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 20);

const event: SQSEvent = {
  Records: [
    {
      messageId: randomUUID(),
      receiptHandle: 'bench',
      body: JSON.stringify({ saftImportId }),
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()), SenderId: 'bench', ApproximateFirstReceiveTimestamp: String(Date.now()) },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:eu-north-1:000000000000:bench-saft-parked',
      awsRegion: 'eu-north-1',
    },
  ],
};
const started = performance.now();
const result = await handler(event, lambdaContext('imports-worker', 900));
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);
process.stdout.write(`${JSON.stringify({ baselineRss, peakRss, ms: Math.round(performance.now() - started), result })}\n`);
