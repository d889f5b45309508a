import { httpHandler } from '../../shared/composition/http-handler';
import { accessOperations } from './operations';

export const handler = httpHandler('access', accessOperations);
