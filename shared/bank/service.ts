import type { Page } from '../db/query-page';
import { storedInteger } from '../db/attributes';
import { decodeCursor, encodeCursor, type CursorBinding } from '../platform/cursor';
import { fromStoredNumber } from '../platform/money';
import { compareCodeUnits } from '../platform/text';
import { groupFromItem, requireBankAccount, staleMembers } from './reconciliation';
import { bankRepository, type Item } from './repository';
import type { BankAccount, BankTransaction, BankTransactionQuery, ReconciliationStatus } from './schemas';
import { textOrNull } from '../db/attributes';

/** Bank reads: accounts, and transactions with their reconciliation status computed on every read. */


const toBankAccount = (item: Item): BankAccount => ({
  id: String(item.id),
  name: String(item.name),
  accountNumber: String(item.accountNumber),
  iban: textOrNull(item.iban),
  bic: textOrNull(item.bic),
  currency: String(item.currency),
  glAccountCode: String(item.glAccountCode),
  lastStatementAt: textOrNull(item.lastStatementAt),
  createdAt: String(item.createdAt),
  updatedAt: String(item.updatedAt),
});

/** A small bounded list (a company has a handful of bank accounts): one page, by account number. */
export const listBankAccounts = async (companyId: string): Promise<Page<BankAccount>> => {
  const items = await bankRepository.listAccounts(companyId);
  const accounts = items.map(toBankAccount).sort((a, b) => compareCodeUnits(a.accountNumber, b.accountNumber));
  return { data: accounts, pagination: { next_cursor: null, has_more: false } };
};

const toTransaction = (item: Item, status: ReconciliationStatus): BankTransaction => ({
  id: String(item.id),
  bankAccountId: String(item.bankAccountId),
  bookingDate: String(item.bookingDate),
  valueDate: textOrNull(item.valueDate),
  amount: fromStoredNumber(item.amount),
  currency: String(item.currency),
  description: textOrNull(item.description),
  reference: textOrNull(item.reference),
  counterpartyName: textOrNull(item.counterpartyName),
  counterpartyAccount: textOrNull(item.counterpartyAccount),
  bankTransactionCode: textOrNull(item.bankTransactionCode),
  bankReference: textOrNull(item.bankReference),
  statementId: String(item.statementId),
  reconciliationStatus: status,
  reconciliationId: textOrNull(item.reconciliationGroupId),
  version: storedInteger(item.version),
  createdAt: String(item.createdAt),
  updatedAt: String(item.updatedAt),
});

/**
 * Status of each transaction: unreconciled without a group; stale when its group has a member
 * that changed since the group was made; reconciled otherwise.
 */
const statusesOf = async (companyId: string, items: Item[]): Promise<Map<string, ReconciliationStatus>> => {
  const groupIds = [...new Set(items.map((item) => textOrNull(item.reconciliationGroupId)).filter((id): id is string => id !== null))];
  const groups = (await bankRepository.groups(companyId, groupIds))
    .filter((item) => !item.deletedAt)
    .map(groupFromItem);
  const stale = await staleMembers(groups);
  return new Map(
    items.map((item) => {
      const groupId = textOrNull(item.reconciliationGroupId);
      const status: ReconciliationStatus = !groupId || !stale.has(groupId) ? 'unreconciled' : stale.get(groupId)!.size > 0 ? 'stale' : 'reconciled';
      return [String(item.id), status];
    }),
  );
};

/** Query pages read while filling one page by a computed status, before answering a shorter page with a cursor. */
const maxQueriesPerPage = 20;

/**
 * Transactions newest first (booking date, then id, descending). `from`/`to` are a key condition;
 * reconciliation_status narrows first with a filter on the group marker (unreconciled: none;
 * reconciled/stale: one), then by the computed status; the page is filled across Query pages,
 * and the cursor is the last transaction answered.
 */
export const listBankTransactions = async (
  companyId: string,
  bankAccountId: string,
  query: BankTransactionQuery,
  binding: Omit<CursorBinding, 'filters'>,
): Promise<Page<BankTransaction>> => {
  await requireBankAccount(companyId, bankAccountId);
  const cursorBinding: CursorBinding = {
    ...binding,
    filters: { companyId, bankAccountId, from: query.from ?? null, to: query.to ?? null, reconciliation_status: query.reconciliation_status ?? null },
  };
  let startKey = query.cursor ? await decodeCursor(query.cursor, cursorBinding) : undefined;
  const wanted = query.reconciliation_status;
  const filter = wanted ? { reconciled: wanted !== 'unreconciled' } : {};
  const page: { item: Item; status: ReconciliationStatus }[] = [];
  let exhausted = false;
  let lastRead: Record<string, unknown> | undefined;
  for (let queries = 0; page.length <= query.page_size && queries < maxQueriesPerPage; queries++) {
    const result = await bankRepository.queryTransactions(companyId, bankAccountId, query, {
      ScanIndexForward: false,
      Limit: query.page_size + 1 - page.length,
      ExclusiveStartKey: startKey,
      ...filter,
    });
    const items = result.Items ?? [];
    const statuses = await statusesOf(companyId, items);
    for (const item of items) {
      const status = statuses.get(String(item.id))!;
      if (!wanted || status === wanted) page.push({ item, status });
    }
    lastRead = result.LastEvaluatedKey;
    startKey = result.LastEvaluatedKey;
    if (!startKey) {
      exhausted = true;
      break;
    }
  }
  const answered = page.slice(0, query.page_size);
  let nextKey: Record<string, unknown> | undefined;
  if (page.length > query.page_size) nextKey = indexKeyOf(answered.at(-1)!.item);
  else if (!exhausted) nextKey = lastRead; // the query budget ran out before the page was full
  return {
    data: answered.map(({ item, status }) => toTransaction(item, status)),
    pagination: { next_cursor: nextKey ? await encodeCursor(nextKey, cursorBinding) : null, has_more: nextKey !== undefined },
  };
};

const indexKeyOf = (item: Item) => ({ PK: item.PK, SK: item.SK, GSI1PK: item.GSI1PK, GSI1SK: item.GSI1SK });
