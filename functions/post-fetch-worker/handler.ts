import { reconciliationQueueWorker } from '../../shared/composition/reconciliation-queue-worker';
import { lambdaHandler } from '../../shared/platform/lambda-handler';

/** SQS-triggered (reconciliation queue): runs the post-fetch engines of each fetch run, and context refreshes. */
export const handler = lambdaHandler(reconciliationQueueWorker);
