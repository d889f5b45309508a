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
    description:
      'GL lines of a year, ordered by period then line id, filtered by `account` and `period`. Amounts are JSON numbers with at least two decimals (up to four, as imported): debit positive, credit negative; parse them losslessly. Each line carries the integrator\'s id (`sourceLineId`) and its `version` (a re-sent id updates the line in place).',
    params: CompanyParamsSchema,
    query: GeneralLedgerLineQuerySchema,
    responses: { 200: { description: 'A page of GL lines, ordered by period then line id (deleted lines excluded)', schema: GeneralLedgerLinePageSchema } },
  },
  getTrialBalance: {
    description:
      'The trial balance of a year in one read: per account with an opening balance or a line, its chart description, the opening balance, the twelve movements with the closing balance after each, and the closing balance; `totals` sums them. Debit positive, credit negative; a complete trial balance totals zero.',
    params: CompanyParamsSchema,
    query: TrialBalanceQuerySchema,
    responses: { 200: { description: 'The trial balance of the year', schema: TrialBalanceSchema } },
  },
  listGeneralLedgerLineVersions: {
    description:
      'Every version of one GL line, oldest first: its content in that version, `change` (`created`, `updated`, `deleted`), when it was recorded and superseded, and the dataset and import that wrote it. A deleted line ends with its deletion. **404** for an unknown `lineId` or a company outside the reach.',
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
    description:
      'Every version of one opening balance (the integrator\'s id) of a year (`year`, default the current accounting year), oldest first, as for GL lines. **404** for an unknown id.',
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
