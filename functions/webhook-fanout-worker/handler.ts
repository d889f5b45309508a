import { fanoutWorker } from '../../shared/webhooks/fanout';
import { lambdaHandler } from '../../shared/platform/lambda-handler';

/** SQS-triggered (webhook-fanout queue, fed by the relay): one delivery per matching subscription. */
export const handler = lambdaHandler(fanoutWorker);
