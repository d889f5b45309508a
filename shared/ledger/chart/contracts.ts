import type { OperationContract } from '../../api/operation';
import {
  AccountListQuerySchema,
  AccountParamsSchema,
  AccountQuerySchema,
  ChartCompanyParamsSchema,
  DimensionPageSchema,
  KeyListQuerySchema,
  LedgerAccountPageSchema,
  LedgerAccountSchema,
  SubLedgerPageSchema,
} from './schemas';

/** Request and response shapes of the chart reads, keyed by the route table's operationId. */
export const chartContracts = {
  listAccounts: {
    description: 'The chart of accounts of one year, in account-number order (as text). Without `year`: the current accounting year (the latest year with a chart).',
    params: ChartCompanyParamsSchema,
    query: AccountListQuerySchema,
    responses: {
      200: {
        description: 'The chart of accounts of the year, all of it in one page (next_cursor null), in account-number order',
        schema: LedgerAccountPageSchema,
      },
    },
  },
  getAccount: {
    description: 'One account of the chart of a year. Errors: **404** `not_found` when the year\'s chart does not hold it.',
    params: AccountParamsSchema,
    query: AccountQuerySchema,
    responses: { 200: { description: "The account in that year's chart", schema: LedgerAccountSchema } },
    problems: { 404: "not_found: the company is outside your reach, or the account is not in that year's chart" },
  },
  listDimensions: {
    description: 'The dimension values of the company (departments, projects, ...), with their parent where imported.',
    params: ChartCompanyParamsSchema,
    query: KeyListQuerySchema,
    responses: {
      200: { description: 'A page of the dimensions of the company, in key order; follow pagination.next_cursor for the next page', schema: DimensionPageSchema },
    },
  },
  listSubLedgers: {
    description: 'The customers and suppliers of the company.',
    params: ChartCompanyParamsSchema,
    query: KeyListQuerySchema,
    responses: {
      200: { description: 'A page of the sub-ledgers (customers and suppliers) of the company, in key order; follow pagination.next_cursor for the next page', schema: SubLedgerPageSchema },
    },
  },
} satisfies Record<string, OperationContract>;
