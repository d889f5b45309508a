import { httpHandler } from '../../shared/platform/http';
import { chartOperations } from './chart';
import { generalLedgerOperations } from './general-ledger';

/** General ledger reads: chart of accounts, dimensions, sub-ledgers (chart.ts); GL lines, trial balance (general-ledger.ts). */
export const handler = httpHandler('ledger', { ...chartOperations, ...generalLedgerOperations });
