import { CompanyParamsSchema } from '../../companies/schemas';
import type { OperationContract } from '../../api/operation';
import { GeneralLedgerLinePageSchema, GeneralLedgerLineQuerySchema, TrialBalanceQuerySchema, TrialBalanceSchema } from './schemas';

/** Request and response shapes of the general-ledger reads, keyed by operationId. */
export const generalLedgerContracts = {
  listGeneralLedgerLines: {
    params: CompanyParamsSchema,
    query: GeneralLedgerLineQuerySchema,
    responses: { 200: { description: 'A page of GL lines, ordered by period then line id (deleted lines excluded)', schema: GeneralLedgerLinePageSchema } },
  },
  getTrialBalance: {
    params: CompanyParamsSchema,
    query: TrialBalanceQuerySchema,
    responses: { 200: { description: 'The trial balance of the year', schema: TrialBalanceSchema } },
  },
} satisfies Record<string, OperationContract>;
