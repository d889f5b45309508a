import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { reconciliationQueueWorker } from '../../shared/composition/reconciliation-queue-worker';
import { logger } from '../../shared/platform/logger';

/** SQS-triggered (reconciliation queue): runs the post-fetch engines of each fetch run, and context refreshes. */
export const handler = middy(reconciliationQueueWorker).use(injectLambdaContext(logger, { resetKeys: true }));
