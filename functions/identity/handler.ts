import { httpHandler } from '../../shared/composition/http-handler';
import { identityOperations } from './operations';

export const handler = httpHandler('identity', identityOperations);
