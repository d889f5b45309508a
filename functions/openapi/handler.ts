import { httpHandler } from '../../shared/composition/http-handler';
import { openApiOperations } from './operations';

export const handler = httpHandler('openapi', openApiOperations);
