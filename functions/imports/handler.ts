import { httpHandler } from '../../shared/composition/http-handler';
import { importOperations } from './operations';

export const handler = httpHandler('imports', importOperations);
