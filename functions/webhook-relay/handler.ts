import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { relayHandler } from '../../shared/webhooks/relay';
import { logger } from '../../shared/platform/logger';

/** DynamoDB Streams-triggered (the outbox table's stream, INSERTs of events): sequences each event and queues it for fan-out. */
export const handler = middy(relayHandler).use(injectLambdaContext(logger, { resetKeys: true }));
