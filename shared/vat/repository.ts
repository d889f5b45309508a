import { queryAll } from '../db/query-all';
import { balancePartition, vatCellPartition } from '../ledger/keys';
import { Decimal, fromStoredNumber } from '../platform/money';

/** DynamoDB access of the VAT terms: reads of aggregates the GL-line import keeps (no GL line is read). */

export interface VatCell {
  taxCode: string;
  period: number;
  basis: Decimal;
  taxAmount: Decimal;
  lineCount: number;
}

export interface AccountCell {
  accountCode: string;
  period: number;
  amount: Decimal;
  lineCount: number;
}

const integer = (value: unknown): number => Number(String(value ?? 0));

/** Every VAT aggregate of a year: one Query of O(tax codes x 12) items. */
export const vatCells = async (companyId: string, year: number): Promise<VatCell[]> =>
  (
    await queryAll({
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': vatCellPartition(companyId, year) },
    })
  ).map((item) => ({
    taxCode: String(item.taxCode),
    period: integer(item.period),
    basis: fromStoredNumber(item.basis),
    taxAmount: fromStoredNumber(item.taxAmount),
    lineCount: integer(item.lineCount),
  }));

/**
 * The trial-balance aggregates of the accounts whose code starts with 270 or 271 (the VAT
 * accounts; the caller classifies them): one Query of a key range of the year's balance
 * partition, O(VAT accounts x 13) items. Sort keys are `<code>#<pp>`, so the range '270' to '272'
 * holds exactly the codes starting with 270 or 271.
 */
export const vatAccountCells = async (companyId: string, year: number): Promise<AccountCell[]> =>
  (
    await queryAll({
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': balancePartition(companyId, year), ':from': '270', ':to': '272' },
    })
  ).map((item) => ({
    accountCode: String(item.accountCode),
    period: integer(item.period),
    amount: fromStoredNumber(item.amount),
    lineCount: integer(item.lineCount),
  }));
