import { httpHandler } from '../../shared/composition/http-handler';
import { vatOperations } from './operations';

export const handler = httpHandler('vat', vatOperations);
