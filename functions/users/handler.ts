import { httpHandler } from '../../shared/composition/http-handler';
import { userOperations } from './operations';

export const handler = httpHandler('users', userOperations);
