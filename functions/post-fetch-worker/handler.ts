import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { postFetchEngines } from '../../shared/composition/post-fetch-engines';
import { createPostFetchWorker } from '../../shared/imports/post-fetch';
import { logger } from '../../shared/platform/logger';

/** SQS-triggered (reconciliation queue): runs the post-fetch engines of each fetch run. */
export const handler = middy(createPostFetchWorker(postFetchEngines)).use(injectLambdaContext(logger, { resetKeys: true }));
