import type { PostFetchEngine } from '../imports/post-fetch';
import { storedInteger } from '../db/attributes';
import { inParallel } from '../db/batch';
import { logger } from '../platform/logger';
import { fromStoredNumber } from '../platform/money';
import { automaticGroupId, createReconciliation } from './reconciliation';
import { glLineRepository } from '../ledger/general-ledger/repository';
import { bankRepository, type Item } from './repository';
import { ProblemError } from '../platform/problem';

/**
 * Auto-reconciliation: pairs unreconciled bank transactions with unreconciled GL lines on the
 * bank account's mapped GL account. Rule: same amount to the øre, and the line's transaction date
 * within `windowDays` of the transaction's booking or value date; only pairs that are each
 * other's single candidate are matched (an amount seen twice in the window is left to a person).
 * Candidates are counted across every bank account mapped to the same GL account, and across the
 * year's edges (the neighbouring year's lines near them count, and are matched by that year's run).
 * Each pair becomes an `automatic` group in the line's period, with an id derived from the pair,
 * so a redelivered run finds its own groups and never makes a second one.
 */
export const windowDays = 3;

export interface AutoReconciliationReport {
  year: number;
  bankAccounts: number;
  unreconciledTransactions: number;
  /** Open GL lines on the bank accounts' GL accounts that were read (only those of accounts with open transactions). */
  unreconciledLines: number;
  /** Bank accounts without open transactions in the year, nor any other on their GL account: their GL lines were not read. */
  linesNotRead: number;
  matched: number;
  ambiguous: number;
  /** Pairs whose automatic group a person dissolved before: left to the person (its id, derived from the pair, stays taken). */
  dissolvedLeft: number;
  durationMs: number;
}

const dayNumber = (isoDate: string) => Math.round(Date.parse(`${isoDate}T00:00:00Z`) / 86_400_000);
const shift = (isoDate: string, days: number) => new Date((dayNumber(isoDate) + days) * 86_400_000).toISOString().slice(0, 10);

const withinWindow = (transaction: Item, lineDate: number) =>
  [transaction.bookingDate, transaction.valueDate]
    .filter((date): date is string => typeof date === 'string')
    .some((date) => Math.abs(dayNumber(date) - lineDate) <= windowDays);

/** Exact text of an amount (decimal.js drops trailing zeros), so equal amounts share a key. */
const amountKey = (value: unknown) => fromStoredNumber(value).toString();

/**
 * The matching rule, pure: a transaction and a line pair up when the amounts are equal and the
 * line's date is within the window of the transaction's booking or value date, and each is the
 * other's only candidate. Lines without a date never match. `ambiguous` counts the transactions
 * that had candidates but no unambiguous one.
 */
export const matchPairs = <T extends Item, L extends Item>(transactions: T[], lines: L[]): { pairs: [T, L][]; ambiguous: number } => {
  const linesByAmount = new Map<string, L[]>();
  for (const line of lines) {
    if (typeof line.transactionDate !== 'string') continue; // no date: nothing to match on
    const key = amountKey(line.amount);
    linesByAmount.set(key, [...(linesByAmount.get(key) ?? []), line]);
  }
  const candidatesOfLine = new Map<L, T[]>();
  const candidatesOfTransaction = transactions.map((transaction) => {
    const candidates = (linesByAmount.get(amountKey(transaction.amount)) ?? []).filter((line) => withinWindow(transaction, dayNumber(String(line.transactionDate))));
    for (const line of candidates) candidatesOfLine.set(line, [...(candidatesOfLine.get(line) ?? []), transaction]);
    return candidates;
  });
  const pairs: [T, L][] = [];
  let ambiguous = 0;
  transactions.forEach((transaction, i) => {
    const candidates = candidatesOfTransaction[i]!;
    if (candidates.length === 0) return;
    const line = candidates[0]!;
    if (candidates.length > 1 || candidatesOfLine.get(line)!.length > 1) return void ambiguous++;
    pairs.push([transaction, line]);
  });
  return { pairs, ambiguous };
};

/** Does any of these transactions fall within the window of `edge` (the year's first or last day)? */
const nearEdge = (transactions: Item[], edge: string) =>
  transactions.some((transaction) =>
    [transaction.bookingDate, transaction.valueDate].some((date) => typeof date === 'string' && Math.abs(dayNumber(date) - dayNumber(edge)) <= windowDays),
  );

const openLinesOf = async (companyId: string, year: number, glAccountCode: string) =>
  (await glLineRepository.linesOfAccount(companyId, year, glAccountCode)).filter((item) => typeof item.reconciliationGroupId !== 'string' && item.deleted !== true);

/** The currency of GL line amounts. */
const ledgerCurrency = 'NOK';

export const autoReconcile = async (companyId: string, year: number): Promise<AutoReconciliationReport> => {
  const started = Date.now();
  const report: AutoReconciliationReport = { year, bankAccounts: 0, unreconciledTransactions: 0, unreconciledLines: 0, linesNotRead: 0, matched: 0, ambiguous: 0, dissolvedLeft: 0, durationMs: 0 };
  const byGlAccount = new Map<string, Item[]>();
  for (const account of await bankRepository.listAccounts(companyId)) {
    report.bankAccounts++;
    // GL amounts are in the ledger's currency (NOK): an account in another currency has no amount to match on.
    if ((account.currency ?? ledgerCurrency) !== ledgerCurrency) continue;
    byGlAccount.set(String(account.glAccountCode), [...(byGlAccount.get(String(account.glAccountCode)) ?? []), account]);
  }
  for (const [glAccountCode, accounts] of byGlAccount) {
    const openTransactions: (Item & { bankAccountId: string })[] = [];
    for (const account of accounts) {
      const bankAccountId = String(account.id);
      const transactions = await bankRepository.transactionsBetween(companyId, bankAccountId, shift(`${year}-01-01`, -windowDays), shift(`${year}-12-31`, windowDays));
      const open = transactions.filter((item) => typeof item.reconciliationGroupId !== 'string');
      report.unreconciledTransactions += open.length;
      openTransactions.push(...open.map((item) => ({ ...item, bankAccountId })));
    }
    // Nothing open on the bank side: nothing can match, so the GL account's lines are not read.
    if (openTransactions.length === 0) {
      report.linesNotRead += accounts.length;
      continue;
    }
    const openLines = await openLinesOf(companyId, year, glAccountCode);
    report.unreconciledLines += openLines.length;
    // The neighbouring years' lines near the edges are candidates too: they can make a pair ambiguous.
    const neighbours = [
      ...(nearEdge(openTransactions, `${year}-01-01`) ? await openLinesOf(companyId, year - 1, glAccountCode) : []),
      ...(nearEdge(openTransactions, `${year}-12-31`) ? await openLinesOf(companyId, year + 1, glAccountCode) : []),
    ];

    const { pairs, ambiguous } = matchPairs(openTransactions, [...openLines, ...neighbours]);
    report.ambiguous += ambiguous;
    const ofThisYear = new Set(openLines);

    // The pairs share no member, so their groups are made side by side.
    await inParallel(
      pairs.filter(([, line]) => ofThisYear.has(line)), // a neighbouring year's pair is that year's run's to make
      8,
      async ([transaction, line]) => {
        try {
          await createReconciliation(
            companyId,
            { bankAccountId: transaction.bankAccountId, year, period: storedInteger(line.period), bankTransactionIds: [String(transaction.id)], lineIds: [String(line.lineId)] },
            { source: 'automatic', createdBy: 'auto-reconciliation', groupId: automaticGroupId(String(transaction.id), String(line.lineId)) },
          );
          report.matched++;
        } catch (error) {
          // A person reconciled one of the pair meanwhile, or it changed: leave it.
          if (!(error instanceof ProblemError) || error.problem.status >= 500) throw error;
          // 404: the pair's group exists as a tombstone (a person dissolved it): theirs to decide, not made again.
          if (error.problem.status === 404) report.dissolvedLeft++;
          logger.info('Auto-reconciliation skipped a pair', { transactionId: transaction.id, lineId: line.lineId, error: error.problem.error });
        }
      },
    );
  }
  report.durationMs = Date.now() - started;
  return report;
};

export const describeReport = (report: AutoReconciliationReport): string =>
  `matched ${report.matched} of ${report.unreconciledTransactions} unreconciled bank transactions in ${report.year} ` +
  `(${report.bankAccounts} bank account${report.bankAccounts === 1 ? '' : 's'}, ${report.unreconciledLines} open GL lines, ${report.ambiguous} ambiguous left` +
  `${report.dissolvedLeft ? `; ${report.dissolvedLeft} pair${report.dissolvedLeft === 1 ? '' : 's'} a person had dissolved left alone` : ''}` +
  `${report.linesNotRead ? `; ${report.linesNotRead} without open transactions, their GL lines not read` : ''}) in ${report.durationMs} ms`;

/** The post-fetch engine: runs after every GL-line or opening-balance fetch of a company's year. */
export const autoReconciliationEngine: PostFetchEngine = {
  name: 'auto_reconciliation',
  async run(message) {
    if (message.year === null) return 'no accounting year in the fetch; nothing to match';
    return describeReport(await autoReconcile(message.companyId, message.year));
  },
};
