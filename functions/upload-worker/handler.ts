import { uploadWorker } from '../../shared/documents/worker';
import { lambdaHandler } from '../../shared/platform/lambda-handler';

/** SQS-triggered (uploads queue, fed by S3 ObjectCreated notifications): completes document uploads on its own. */
export const handler = lambdaHandler(uploadWorker);
