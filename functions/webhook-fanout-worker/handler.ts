import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { fanoutWorker } from '../../shared/webhooks/fanout';
import { logger } from '../../shared/platform/logger';

/** SQS-triggered (webhook-fanout queue, fed by the relay): one delivery per matching subscription. */
export const handler = middy(fanoutWorker).use(injectLambdaContext(logger, { resetKeys: true }));
