import { httpHandler } from '../../shared/composition/http-handler';
import { ledgerOperations } from './operations';

export const handler = httpHandler('ledger', ledgerOperations);
