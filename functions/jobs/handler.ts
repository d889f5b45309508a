import { httpHandler } from '../../shared/composition/http-handler';
import { jobOperations } from './operations';

export const handler = httpHandler('jobs', jobOperations);
