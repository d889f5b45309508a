import { httpHandler } from '../../shared/composition/http-handler';
import { companyOperations } from './operations';

export const handler = httpHandler('companies', companyOperations);
