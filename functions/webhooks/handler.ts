import { httpHandler } from '../../shared/composition/http-handler';
import { webhookOperations } from './operations';

export const handler = httpHandler('webhooks', webhookOperations);
