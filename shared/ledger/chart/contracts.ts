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
    params: AccountParamsSchema,
    query: AccountQuerySchema,
    responses: { 200: { description: "The account in that year's chart", schema: LedgerAccountSchema } },
    problems: { 404: "not_found: the company is outside your reach, or the account is not in that year's chart" },
  },
  listDimensions: {
    params: ChartCompanyParamsSchema,
    query: KeyListQuerySchema,
    responses: {
      200: { description: 'A page of the dimensions of the company, in key order; follow pagination.next_cursor for the next page', schema: DimensionPageSchema },
    },
  },
  listSubLedgers: {
    params: ChartCompanyParamsSchema,
    query: KeyListQuerySchema,
    responses: {
      200: { description: 'A page of the sub-ledgers (customers and suppliers) of the company, in key order; follow pagination.next_cursor for the next page', schema: SubLedgerPageSchema },
    },
  },
} satisfies Record<string, OperationContract>;
