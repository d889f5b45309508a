import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { uploadWorker } from '../../shared/documents/worker';
import { logger } from '../../shared/platform/logger';

/** SQS-triggered (uploads queue, fed by S3 ObjectCreated notifications): completes document uploads on its own. */
export const handler = middy(uploadWorker).use(injectLambdaContext(logger, { resetKeys: true }));
