/**
 * Part of `npm run bench` and `npm run bench:saft`: the import worker alone in its own process, as
 * its Lambda runs it, on one import (or SAF-T import) that was accepted onto a queue nobody polls. The bench bundles this file with
 * esbuild as CDK bundles the worker (one minified ESM file) and runs it with plain node. Prints
 * one JSON line with the process's RSS before and at its peak (sampled every 20 ms) and the time.
 * Usage: node bench-worker.mjs <stack file> <import id | {"saftImportId": "..."}>
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { SQSEvent } from 'aws-lambda';
import type { StackInfo } from '../local/stack';
import { applyStackEnv } from './stack-env';

const [stackFile, importOrMessage] = process.argv.slice(2);
if (!stackFile || !importOrMessage) throw new Error('usage: bench-worker.ts <stack file> <import id | {"saftImportId": "..."}>');
// The queue message the worker is handed: an import's ({importId}) or a SAF-T import's, given as JSON.
const messageBody = importOrMessage.startsWith('{') ? importOrMessage : JSON.stringify({ importId: importOrMessage });
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
      body: messageBody,
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()), SenderId: 'bench', ApproximateFirstReceiveTimestamp: String(Date.now()) },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:eu-north-1:000000000000:bench-parked',
      awsRegion: 'eu-north-1',
    },
  ],
};
const started = performance.now();
const result = await handler(event, lambdaContext('imports-worker', 900));
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);
process.stdout.write(`${JSON.stringify({ baselineRss, peakRss, ms: Math.round(performance.now() - started), result })}\n`);
