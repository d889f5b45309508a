import { relayHandler } from '../../shared/webhooks/relay';
import { lambdaHandler } from '../../shared/platform/lambda-handler';

/** DynamoDB Streams-triggered (the outbox table's stream, INSERTs of events): sequences each event and queues it for fan-out. */
export const handler = lambdaHandler(relayHandler);
