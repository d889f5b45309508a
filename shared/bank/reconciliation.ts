import { v5 as uuidv5 } from 'uuid';
import { randomUUID } from 'node:crypto';
import { storedInteger } from '../db/attributes';
import { monthLabels } from '../ledger/general-ledger/schemas';
import { queryPage, type Page } from '../db/query-page';
import { decodeCursor, type CursorBinding } from '../platform/cursor';
import { currentAccountingYear } from '../ledger/chart/service';
import { Decimal, fromStoredNumber, toStoredNumber } from '../platform/money';
import { clip } from '../platform/text';
import { ProblemError, problems, type FieldError } from '../platform/problem';
import { formatAmount } from '../platform/json';
import { outboxEventWrite } from '../outbox/repository';
import { companyRepository } from '../companies/repository';
import { reconciliationIndexKeys } from './keys';
import { glLineRepository } from '../ledger/general-ledger/repository';
import { backoff } from '../db/retry';
import { ConditionsFailed, unitOfWork, type UnitOfWork } from '../db/unit-of-work';
import { bankRepository, type Item } from './repository';
import type {
  CreateReconciliation,
  ReconciliationEntry,
  ReconciliationGroup,
  ReconciliationListQuery,
  ReconciliationSummary,
} from './schemas';
import { textOrNull } from '../db/attributes';

/**
 * Reconciliation groups: bank transactions matched to GL lines of the bank account's mapped GL
 * account, in one period. A group is written in one DynamoDB transaction together with the
 * markers on its members, each conditioned on the member being unreconciled and unchanged since
 * it was read, so two creates racing for a member cannot both win. Groups are never edited.
 */

export type GroupSource = 'manual' | 'automatic';

interface TransactionSnapshot {
  id: string;
  amount: Decimal;
  bookingDate: string;
  valueDate: string | null;
  description: string | null;
}

interface LineSnapshot {
  lineId: string;
  sourceLineId: string;
  amount: Decimal;
  accountCode: string;
  period: number;
  transactionDate: string | null;
  description: string | null;
}


/** How much of a member's description its group keeps: 98 members stay far below DynamoDB's 400 KB item. */
const maxSnapshotDescription = 500;
const snapshotDescription = (value: unknown) => {
  const description = textOrNull(value);
  return description === null ? null : clip(description, maxSnapshotDescription);
};

const transactionSnapshot = (item: Item): TransactionSnapshot => ({
  id: String(item.id),
  amount: fromStoredNumber(item.amount),
  bookingDate: String(item.bookingDate),
  valueDate: textOrNull(item.valueDate),
  description: snapshotDescription(item.description),
});

const lineSnapshot = (item: Item): LineSnapshot => ({
  lineId: String(item.lineId),
  sourceLineId: String(item.sourceLineId),
  amount: fromStoredNumber(item.amount),
  accountCode: String(item.accountCode),
  period: storedInteger(item.period),
  transactionDate: textOrNull(item.transactionDate),
  description: snapshotDescription(item.description),
});

const storedTransaction = (snapshot: TransactionSnapshot): Item => ({ ...snapshot, amount: toStoredNumber(snapshot.amount) });
const storedLine = (snapshot: LineSnapshot): Item => ({ ...snapshot, amount: toStoredNumber(snapshot.amount) });

/** A transaction changed when a later statement amended its amount or dates. */
const transactionChanged = (was: TransactionSnapshot, now: TransactionSnapshot) =>
  !was.amount.equals(now.amount) || was.bookingDate !== now.bookingDate || was.valueDate !== now.valueDate;

/** A GL line changed when a re-import moved its amount, account, period or transaction date. */
const lineChanged = (was: LineSnapshot, now: LineSnapshot) =>
  !was.amount.equals(now.amount) || was.accountCode !== now.accountCode || was.period !== now.period || was.transactionDate !== now.transactionDate;

const sum = (amounts: Decimal[]) => amounts.reduce((total, amount) => total.plus(amount), new Decimal(0));

interface StoredGroup {
  id: string;
  companyId: string;
  bankAccountId: string;
  year: number;
  period: number;
  glAccountCode: string;
  source: GroupSource;
  note: string | null;
  total: Decimal;
  createdAt: string;
  createdBy: string;
  transactions: TransactionSnapshot[];
  lines: LineSnapshot[];
  deletedAt: string | null;
}

const fromItem = (item: Item): StoredGroup => ({
  id: String(item.id),
  companyId: String(item.companyId),
  bankAccountId: String(item.bankAccountId),
  year: storedInteger(item.year),
  period: storedInteger(item.period),
  glAccountCode: String(item.glAccountCode),
  source: item.source as GroupSource,
  note: textOrNull(item.note),
  total: fromStoredNumber(item.total),
  createdAt: String(item.createdAt),
  createdBy: String(item.createdBy),
  transactions: (item.bankTransactions as Item[]).map((entry) => ({ ...transactionSnapshot(entry), id: String(entry.id) })),
  lines: (item.glLines as Item[]).map(lineSnapshot),
  deletedAt: textOrNull(item.deletedAt),
});

const toItem = (group: StoredGroup): Item => {
  const { transactions, lines, note, total, deletedAt: _deletedAt, ...fields } = group;
  return {
    ...bankRepository.groupKeys(group.companyId, group.id),
    ...reconciliationIndexKeys(group.companyId, group.bankAccountId, group.year, group.period, group.createdAt, group.id),
    entity: 'reconciliationGroup',
    ...fields,
    ...(note !== null && { note }),
    total: toStoredNumber(total),
    bankTransactions: transactions.map(storedTransaction),
    glLines: lines.map(storedLine),
  };
};

/** The outbox event of a change to a group, written in the same transaction (thin: receivers fetch the group). */
const reconciliationEvent = (type: 'reconciliation.created' | 'reconciliation.deleted', group: StoredGroup, at: string) =>
  outboxEventWrite(type, group.companyId, { reconciliationId: group.id, bankAccountId: group.bankAccountId, year: group.year, period: group.period, source: group.source }, at);

/** DynamoDB's limit of items in one TransactWriteItems. */
const maxTransactionItems = 100;

/** Is the approval outdated by a group created or dissolved in its period after it was given? */
const changedSinceApproved = (approval: Item) =>
  typeof approval.groupsChangedAt === 'string' && typeof approval.approvedAt === 'string' && approval.groupsChangedAt > approval.approvedAt;

/**
 * Outdates the approval of the group's period, if any is to outdate: the period is approved (the
 * approval item as read, absent when never set) and no change since was recorded yet, so only
 * the first change after an approval writes it (the engine's bursts of groups in one period
 * contend on no item). Added to the group's transaction; one that is already full (a group of 98
 * members) has it written just before, so a transaction cancelled after it leaves the approval
 * outdated, never a change unflagged.
 */
const outdateApproval = async (work: UnitOfWork, size: number, approval: Item | undefined, group: StoredGroup, at: string) => {
  if (!approval || approval.status !== 'approved' || typeof approval.approvedAt !== 'string' || changedSinceApproved(approval)) return;
  const write = bankRepository.periodChangedWrite(group.companyId, group.year, group.glAccountCode, group.period, approval.approvedAt, at);
  if (size < maxTransactionItems) work.add('approval', write);
  else await bankRepository.markPeriodChanged(write);
};

/** What the snapshots of members compare (bank transactions and GL lines). */
const snapshotAttributes = ['id', 'lineId', 'sourceLineId', 'amount', 'bookingDate', 'valueDate', 'description', 'accountCode', 'period', 'transactionDate', 'deleted', 'reconciliationGroupId'];

/** Which members of each group changed since the group was made (a missing member counts as changed). */
export const staleMembers = async (groups: StoredGroup[]): Promise<Map<string, Set<string>>> => {
  const transactionRef = (group: StoredGroup, id: string) => ({ companyId: group.companyId, bankAccountId: group.bankAccountId, id });
  const lineRef = (group: StoredGroup, lineId: string) => ({ companyId: group.companyId, year: group.year, lineId });
  const [currentTransaction, currentLine] = await Promise.all([
    bankRepository.transactions(groups.flatMap((group) => group.transactions.map((t) => transactionRef(group, t.id))), snapshotAttributes),
    glLineRepository.many(groups.flatMap((group) => group.lines.map((l) => lineRef(group, l.lineId))), snapshotAttributes),
  ]);
  const result = new Map<string, Set<string>>();
  for (const group of groups) {
    const stale = new Set<string>();
    for (const was of group.transactions) {
      const item = currentTransaction(transactionRef(group, was.id));
      if (!item || transactionChanged(was, transactionSnapshot(item))) stale.add(was.id);
    }
    for (const was of group.lines) {
      const item = currentLine(lineRef(group, was.lineId));
      if (!item || item.deleted === true || lineChanged(was, lineSnapshot(item))) stale.add(was.lineId);
    }
    result.set(group.id, stale);
  }
  return result;
};

const toGroupSummary = (group: StoredGroup, stale: Set<string>) => ({
  id: group.id,
  bankAccountId: group.bankAccountId,
  year: group.year,
  period: group.period,
  glAccountCode: group.glAccountCode,
  source: group.source,
  note: group.note,
  bankTransactionCount: group.transactions.length,
  glLineCount: group.lines.length,
  total: group.total,
  stale: stale.size > 0,
  createdAt: group.createdAt,
  createdBy: group.createdBy,
});

const toGroup = (group: StoredGroup, stale: Set<string>): ReconciliationGroup => ({
  ...toGroupSummary(group, stale),
  entries: [
    ...group.transactions.map(
      (t): ReconciliationEntry => ({ type: 'bank_transaction', bankTransactionId: t.id, bookingDate: t.bookingDate, description: t.description, amount: t.amount, stale: stale.has(t.id) }),
    ),
    ...group.lines.map(
      (l): ReconciliationEntry => ({
        type: 'gl_line',
        lineId: l.lineId,
        sourceLineId: l.sourceLineId,
        accountCode: l.accountCode,
        period: l.period,
        transactionDate: l.transactionDate,
        description: l.description,
        amount: l.amount,
        stale: stale.has(l.lineId),
      }),
    ),
  ],
});

export const requireBankAccount = async (companyId: string, bankAccountId: string): Promise<Item> => {
  const account = await bankRepository.getAccount(companyId, bankAccountId);
  if (!account) throw problems.notFound('bank account');
  return account;
};

const liveGroup = async (companyId: string, groupId: string): Promise<StoredGroup> => {
  const item = await bankRepository.getGroup(companyId, groupId);
  if (!item || item.deletedAt) throw problems.notFound('reconciliation group');
  return fromItem(item);
};

export const getReconciliation = async (companyId: string, groupId: string): Promise<ReconciliationGroup> => {
  const group = await liveGroup(companyId, groupId);
  return toGroup(group, (await staleMembers([group])).get(group.id)!);
};

/**
 * `period` without `year`: the period of the current accounting year. A later page goes on in the
 * year of its cursor (its start key begins with the year), so the pages of one listing never mix
 * years even if the current year moves in between.
 */
const listYear = async (companyId: string, cursor: string | undefined, binding: CursorBinding): Promise<number> => {
  if (cursor) {
    const startKey = await decodeCursor(cursor, binding);
    const year = Number(String(startKey.GSI1SK ?? '').split('#')[0]);
    if (Number.isInteger(year) && year > 0) return year;
    throw problems.invalidCursor('The cursor is malformed; restart from the first page without a cursor.');
  }
  return currentAccountingYear(companyId);
};

/**
 * Groups of a bank account, filtered by year, by year and period, or by period alone (in the
 * current accounting year); ordered by year, period, creation.
 */
export const listReconciliations = async (
  companyId: string,
  bankAccountId: string,
  query: ReconciliationListQuery,
  binding: Omit<CursorBinding, 'filters'>,
): Promise<Page<ReturnType<typeof toGroupSummary>>> => {
  await requireBankAccount(companyId, bankAccountId);
  const cursorBinding: CursorBinding = { ...binding, filters: { companyId, bankAccountId, year: query.year ?? null, period: query.period ?? null } };
  const year = query.year ?? (query.period === undefined ? undefined : await listYear(companyId, query.cursor, cursorBinding));
  const page = await queryPage(
    bankRepository.groupListQuery(companyId, bankAccountId, year, query.period),
    { pageSize: query.page_size, cursor: query.cursor, binding: cursorBinding },
    fromItem,
  );
  const stale = await staleMembers(page.data);
  return { ...page, data: page.data.map((group) => toGroupSummary(group, stale.get(group.id)!)) };
};

const unbalanced = (transactions: Decimal, lines: Decimal) =>
  new ProblemError({
    status: 422,
    error: 'validation_failed',
    reason: 'unbalanced',
    title: 'Unbalanced reconciliation group',
    detail: `The bank transactions sum to ${formatAmount(transactions)} and the GL lines to ${formatAmount(lines)}; a group must balance exactly (difference ${formatAmount(transactions.minus(lines))}).`,
  });

const invalidMembers = (errors: FieldError[]) =>
  new ProblemError({
    status: 422,
    error: 'validation_failed',
    reason: 'invalid_members',
    title: 'Invalid reconciliation members',
    detail: `${errors.length} of the named members cannot be reconciled in this group; see errors.`,
    errors: errors.slice(0, 100),
  });

const alreadyReconciled = (inUse: { id: string; type: string; reconciliationId: string }[]) =>
  problems.conflict(
    `${inUse.length} of the named members ${inUse.length === 1 ? 'is' : 'are'} already reconciled in another group; delete that group first.`,
    { error: 'already_reconciled', inUse },
  );

export interface CreateOptions {
  source: GroupSource;
  createdBy: string;
  /** A fixed group id (the auto-reconciliation engine derives it, so a redelivery finds its own group). */
  groupId?: string;
}

/**
 * Creates a group. Checks, in order: bank account (404), members exist and fit (422
 * invalid_members), members unreconciled (409 already_reconciled), balance (422 unbalanced).
 * The write is one transaction conditioned on every member being unreconciled and at the version
 * read; when it is cancelled, the checks run again on fresh data, so a lost race answers 409.
 */
export const createReconciliation = async (companyId: string, body: CreateReconciliation, options: CreateOptions): Promise<ReconciliationGroup> => {
  const account = await requireBankAccount(companyId, body.bankAccountId);
  const glAccountCode = String(account.glAccountCode);
  const groupId = options.groupId ?? randomUUID();
  for (let attempt = 1; ; attempt++) {
    const transactionRefs = body.bankTransactionIds.map((id) => ({ companyId, bankAccountId: body.bankAccountId, id }));
    const lineRefs = body.lineIds.map((lineId) => ({ companyId, year: body.year, lineId }));
    const [currentTransaction, currentLine, approval] = await Promise.all([
      bankRepository.transactions(transactionRefs),
      glLineRepository.many(lineRefs),
      bankRepository.getApproval(companyId, body.year, glAccountCode, body.period),
    ]);
    const errors: FieldError[] = [];
    const inUse: { id: string; type: string; reconciliationId: string }[] = [];
    const transactions: Item[] = [];
    const lines: Item[] = [];
    body.bankTransactionIds.forEach((id, index) => {
      const item = currentTransaction(transactionRefs[index]!);
      if (!item) return void errors.push({ index, field: 'bankTransactionIds', message: `bank transaction ${id} is not a transaction of bank account ${body.bankAccountId}` });
      if (typeof item.reconciliationGroupId === 'string' && item.reconciliationGroupId !== groupId) inUse.push({ id, type: 'bank_transaction', reconciliationId: item.reconciliationGroupId });
      transactions.push(item);
    });
    body.lineIds.forEach((lineId, index) => {
      const item = currentLine(lineRefs[index]!);
      if (!item || item.deleted === true) return void errors.push({ index, field: 'lineIds', message: `GL line ${lineId} does not exist in ${body.year}` });
      if (String(item.accountCode) !== glAccountCode) {
        return void errors.push({ index, field: 'lineIds', message: `GL line ${lineId} is on account ${String(item.accountCode)}, not on the bank account's GL account ${glAccountCode}` });
      }
      if (storedInteger(item.period) !== body.period) return void errors.push({ index, field: 'lineIds', message: `GL line ${lineId} is in period ${storedInteger(item.period)}, not ${body.period}` });
      if (typeof item.reconciliationGroupId === 'string' && item.reconciliationGroupId !== groupId) inUse.push({ id: lineId, type: 'gl_line', reconciliationId: item.reconciliationGroupId });
      lines.push(item);
    });
    if (errors.length) throw invalidMembers(errors);
    if (inUse.length) throw alreadyReconciled(inUse);
    if ([...transactions, ...lines].every((item) => item.reconciliationGroupId === groupId) && options.groupId) {
      const existing = await bankRepository.getGroup(companyId, groupId);
      if (existing && !existing.deletedAt) return getReconciliation(companyId, groupId); // a redelivery of the same create
    }
    const transactionTotal = sum(transactions.map((item) => fromStoredNumber(item.amount)));
    const lineTotal = sum(lines.map((item) => fromStoredNumber(item.amount)));
    if (!transactionTotal.equals(lineTotal)) throw unbalanced(transactionTotal, lineTotal);

    const createdAt = new Date().toISOString();
    const group: StoredGroup = {
      id: groupId,
      companyId,
      bankAccountId: body.bankAccountId,
      year: body.year,
      period: body.period,
      glAccountCode,
      source: options.source,
      note: body.note ?? null,
      total: transactionTotal,
      createdAt,
      createdBy: options.createdBy,
      transactions: transactions.map(transactionSnapshot),
      lines: lines.map(lineSnapshot),
      deletedAt: null,
    };
    const work = unitOfWork()
      .add('group', bankRepository.createGroupWrite(toItem(group)))
      .add('event', reconciliationEvent('reconciliation.created', group, createdAt));
    for (const item of transactions) work.add('member', bankRepository.markMemberWrite({ companyId, bankAccountId: body.bankAccountId, id: String(item.id) }, groupId, item.version));
    for (const item of lines) work.add('member', glLineRepository.markReconciledWrite({ companyId, year: body.year, lineId: String(item.lineId) }, groupId, item.version));
    // The engine's groups (two members) check that the company is not deleted: it runs after a fetch,
    // outside a request. A manual group may fill all 100 items of a transaction (then the approval's
    // write goes just before it, see outdateApproval).
    if (options.source === 'automatic') work.add('company', companyRepository.liveCheck(companyId));
    await outdateApproval(work, 2 + transactions.length + lines.length + (options.source === 'automatic' ? 1 : 0), approval, group, createdAt);
    try {
      await work.commit();
      return toGroup(group, new Set());
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      if (error.names.includes('company')) throw new Error(`Company ${companyId} was deleted; no automatic group is made for it`);
      if (error.names.includes('group') && options.groupId) return getReconciliation(companyId, groupId);
    }
    if (attempt >= 3) throw problems.conflict('The members changed while the group was being made; retry.', { error: 'members_changed' });
    // Cancelled: a member was reconciled or changed meanwhile; the next pass answers which.
    await backoff(attempt);
  }
};

export interface ReconciliationDeletion {
  id: string;
  deleted: true;
  deletedAt: string;
  released: { bankTransactionIds: string[]; lineIds: string[] };
}

const deletionOf = (group: StoredGroup, deletedAt: string): ReconciliationDeletion => ({
  id: group.id,
  deleted: true,
  deletedAt,
  released: { bankTransactionIds: group.transactions.map((t) => t.id), lineIds: group.lines.map((l) => l.lineId) },
});

/**
 * Dissolves a group: its members are unreconciled again, in one transaction with the group's
 * tombstone (it leaves the lists and answers 404 on reads). Deleting it again answers the same.
 */
export const deleteReconciliation = async (companyId: string, groupId: string): Promise<ReconciliationDeletion> => {
  // As create: a transaction cancelled by a concurrent one (or a member changed meanwhile) is made again from a fresh read.
  for (let attempt = 1; ; attempt++) {
    const item = await bankRepository.getGroup(companyId, groupId);
    if (!item) throw problems.notFound('reconciliation group');
    const group = fromItem(item);
    if (group.deletedAt) return deletionOf(group, group.deletedAt); // deleted before, or by a concurrent delete
    const deletedAt = new Date().toISOString();
    const transactionRefs = group.transactions.map((t) => ({ companyId, bankAccountId: group.bankAccountId, id: t.id }));
    const lineRefs = group.lines.map((l) => ({ companyId, year: group.year, lineId: l.lineId }));
    const [transactionHolder, lineHolder, approval] = await Promise.all([
      bankRepository.transactions(transactionRefs, ['reconciliationGroupId']),
      glLineRepository.many(lineRefs, ['reconciliationGroupId']),
      bankRepository.getApproval(companyId, group.year, group.glAccountCode, group.period),
    ]);
    const work = unitOfWork()
      .add('group', bankRepository.dissolveGroupWrite(companyId, groupId, deletedAt))
      .add('event', reconciliationEvent('reconciliation.deleted', group, deletedAt));
    const releases = [
      ...transactionRefs.filter((ref) => transactionHolder(ref)?.reconciliationGroupId === groupId).map((ref) => bankRepository.releaseMemberWrite(ref, groupId)),
      ...lineRefs.filter((ref) => lineHolder(ref)?.reconciliationGroupId === groupId).map((ref) => glLineRepository.releaseReconciledWrite(ref, groupId)),
    ];
    for (const write of releases) work.add('member', write);
    await outdateApproval(work, 2 + releases.length, approval, group, deletedAt);
    try {
      await work.commit();
      return deletionOf(group, deletedAt);
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
    }
    if (attempt >= 3) throw problems.conflict('The group changed while it was being dissolved; retry.', { error: 'members_changed' });
    await backoff(attempt);
  }
};

/** The automatic engine's group id: derived from its members, so a redelivery finds the same group. */
export const automaticGroupId = (bankTransactionId: string, lineId: string) => uuidv5(`auto:${bankTransactionId}:${lineId}`, '9b0f2c3e-6d41-4a8e-8f57-2b7c1d9e0a64');

/* Summary. */

/**
 * The period's approval as served: outdated when a group of the period was created or dissolved
 * after it, or while a group of the period is stale (its members changed since it was made).
 */
const approvalOf = (item: Item | undefined, staleGroups: number) =>
  item && item.status === 'approved'
    ? { status: 'approved' as const, approvedAt: textOrNull(item.approvedAt), approvedBy: textOrNull(item.approvedBy), outdated: staleGroups > 0 || changedSinceApproved(item) }
    : { status: 'not_approved' as const, approvedAt: null, approvedBy: null, outdated: false };

export const getReconciliationSummary = async (companyId: string, bankAccountId: string, year: number): Promise<ReconciliationSummary> => {
  const account = await requireBankAccount(companyId, bankAccountId);
  const glAccountCode = String(account.glAccountCode);
  const [groupItems, approvals, transactions] = await Promise.all([
    bankRepository.groupsOf(companyId, bankAccountId, year),
    bankRepository.approvalsOf(companyId, year, glAccountCode),
    bankRepository.transactionsBetween(companyId, bankAccountId, `${year}-01-01`, `${year}-12-31`),
  ]);
  const groups = groupItems.map(fromItem);
  const stale = await staleMembers(groups);
  const approvalByPeriod = new Map(approvals.map((item) => [storedInteger(item.period), item]));
  return {
    bankAccountId,
    glAccountCode,
    year,
    periods: monthLabels.map((label, i) => {
      const period = i + 1;
      const ofPeriod = groups.filter((group) => group.period === period);
      const staleGroups = ofPeriod.filter((group) => stale.get(group.id)!.size > 0).length;
      return {
        period,
        label,
        groupCount: ofPeriod.length,
        automaticGroupCount: ofPeriod.filter((group) => group.source === 'automatic').length,
        entryCount: ofPeriod.reduce((count, group) => count + group.transactions.length + group.lines.length, 0),
        staleGroupCount: staleGroups,
        stale: staleGroups > 0,
        unreconciledTransactionCount: transactions.filter(
          (item) => Number(String(item.bookingDate).slice(5, 7)) === period && typeof item.reconciliationGroupId !== 'string',
        ).length,
        approval: approvalOf(approvalByPeriod.get(period), staleGroups),
      };
    }),
  };
};

/** The firm's decision in the application (set here through the admin CLI). */
export const setPeriodApproval = async (
  companyId: string,
  input: { glAccountCode: string; year: number; period: number; status: 'approved' | 'not_approved'; by: string },
): Promise<void> => {
  await bankRepository.putApproval(companyId, input.year, input.glAccountCode, input.period, {
    status: input.status,
    ...(input.status === 'approved' && { approvedAt: new Date().toISOString(), approvedBy: input.by }),
    updatedAt: new Date().toISOString(),
    updatedBy: input.by,
  });
};

export { fromItem as groupFromItem };
