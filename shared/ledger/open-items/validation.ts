import { Decimal } from '../../platform/money';
import type { LiveOpenItemRow, OpenItemRow } from './schemas';

/** A row-level problem: the 0-based index of the item in the request and what is wrong with it. */
export interface RowProblem {
  index: number;
  message: string;
}

/**
 * Row-level checks of an open-items request that need no stored data (beyond the structure the
 * body schema checks). One entry per invalid item, its problems joined with "; ".
 *
 * - itemKey unique within the request (items are merged by it).
 * - every item of the same subLedgerType (the body schema already ties each to the request's).
 * - amountOpen: 0 or of the sign of amount, and not larger than amount in absolute value.
 * - settlementStatus agrees with the amounts: settled = amountOpen 0; open = amountOpen equals
 *   amount; partial = amountOpen neither 0 nor amount.
 * - dueDate not before documentDate.
 * - matches: matchKey unique within the item; their sum not beyond the amount (absolute values).
 * Items sent with sourceDeleted are checked for the first two only.
 */
export const checkOpenItemRows = (rows: readonly OpenItemRow[]): RowProblem[] => {
  const firstIndex = new Map<string, number>();
  const expectedType = rows[0]?.subLedgerType;
  const problems: RowProblem[] = [];
  rows.forEach((row, index) => {
    const messages: string[] = [];
    const first = firstIndex.get(row.itemKey);
    if (first === undefined) firstIndex.set(row.itemKey, index);
    else messages.push(`itemKey ${row.itemKey} is sent more than once (first at index ${first})`);
    if (row.subLedgerType !== expectedType) messages.push(`subLedgerType must be ${expectedType} like the rest of the import`);
    if (!row.sourceDeleted) messages.push(...checkLiveItem(row));
    if (messages.length > 0) problems.push({ index, message: messages.join('; ') });
  });
  return problems;
};

const checkLiveItem = (row: LiveOpenItemRow): string[] => {
  const messages: string[] = [];
  const { amount, amountOpen } = row;
  if (!amountOpen.isZero() && (amount.isZero() || amountOpen.isNegative() !== amount.isNegative())) {
    messages.push('amountOpen must be 0 or have the sign of amount');
  } else if (amountOpen.abs().greaterThan(amount.abs())) {
    messages.push('amountOpen must not be larger than amount in absolute value');
  } else {
    // judged only on amounts that make sense together
    const expected = expectedStatus(amount, amountOpen);
    if (!expected.includes(row.settlementStatus)) {
      messages.push(`settlementStatus ${row.settlementStatus} does not fit amountOpen ${amountOpen.toString()} of amount ${amount.toString()} (expected ${expected.join(' or ')})`);
    }
  }
  if (row.dueDate < row.documentDate) messages.push('dueDate must not be before documentDate');
  const matchKeys = new Set<string>();
  for (const match of row.matches) {
    if (matchKeys.has(match.matchKey)) messages.push(`matchKey ${match.matchKey} is sent more than once in the item`);
    matchKeys.add(match.matchKey);
  }
  const matched = row.matches.reduce((sum, match) => sum.plus(match.amount), new Decimal(0));
  if (matched.abs().greaterThan(amount.abs())) {
    messages.push(`matches sum to ${matched.toString()}, beyond the amount ${amount.toString()}`);
  }
  return messages;
};

const expectedStatus = (amount: Decimal, amountOpen: Decimal): string[] => {
  const statuses: string[] = [];
  if (amountOpen.isZero()) statuses.push('settled');
  if (amountOpen.equals(amount)) statuses.push('open');
  if (statuses.length === 0) statuses.push('partial');
  return statuses;
};
