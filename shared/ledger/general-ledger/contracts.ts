import { CompanyParamsSchema } from '../../companies/schemas';
import type { OperationContract } from '../../api/operation';
import {
  GeneralLedgerLinePageSchema,
  GeneralLedgerLineQuerySchema,
  GeneralLedgerLineVersionPageSchema,
  LineVersionParamsSchema,
  LineVersionQuerySchema,
  OpeningBalanceVersionPageSchema,
  OpeningBalanceVersionParamsSchema,
  OpeningBalanceVersionQuerySchema,
  TrialBalanceQuerySchema,
  TrialBalanceSchema,
} from './schemas';

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
  listGeneralLedgerLineVersions: {
    params: LineVersionParamsSchema,
    query: LineVersionQuerySchema,
    responses: {
      200: {
        description:
          'Every version of the line, oldest first (version 1 first); a deleted line ends with its deletion (change deleted). A page; follow pagination.next_cursor',
        schema: GeneralLedgerLineVersionPageSchema,
      },
    },
    problems: { 404: 'not_found: the company is outside your reach, or it has no GL line with this lineId (in any year)' },
  },
  listOpeningBalanceVersions: {
    params: OpeningBalanceVersionParamsSchema,
    query: OpeningBalanceVersionQuerySchema,
    responses: {
      200: {
        description: 'Every version of the opening balance, oldest first; a deleted one ends with its deletion (change deleted). A page; follow pagination.next_cursor',
        schema: OpeningBalanceVersionPageSchema,
      },
    },
    problems: { 404: 'not_found: the company is outside your reach, or that year has no opening balance with this id' },
  },
} satisfies Record<string, OperationContract>;
