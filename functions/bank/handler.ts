import { httpHandler } from '../../shared/composition/http-handler';
import { bankOperations } from './operations';

export const handler = httpHandler('bank', bankOperations);
