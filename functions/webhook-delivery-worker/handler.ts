import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { deliveryWorker } from '../../shared/webhooks/delivery';
import { logger } from '../../shared/platform/logger';

/** SQS-triggered (webhooks queue): one attempt per message, retries, dead letters, handshakes. */
export const handler = middy(deliveryWorker).use(injectLambdaContext(logger, { resetKeys: true }));
