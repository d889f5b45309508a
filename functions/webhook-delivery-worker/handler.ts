import { deliveryWorker } from '../../shared/webhooks/delivery';
import { lambdaHandler } from '../../shared/platform/lambda-handler';

/** SQS-triggered (webhooks queue): one attempt per message, retries, dead letters, handshakes. */
export const handler = lambdaHandler(deliveryWorker);
