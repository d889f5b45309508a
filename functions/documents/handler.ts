import { httpHandler } from '../../shared/composition/http-handler';
import { documentOperations } from './operations';

export const handler = httpHandler('documents', documentOperations);
