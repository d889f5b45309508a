import { bankRepository } from '../bank/repository';
import { listBankAccounts } from '../bank/service';
import { companyRepository } from '../companies/repository';
import type { Item } from '../db/attributes';
import { inParallel } from '../db/batch';
import { importRepository, toImportRecord, type ImportItem } from '../imports/repository';
import { chartRepository } from '../ledger/chart/repository';
import { currentAccountingYear, getAccount } from '../ledger/chart/service';
import { glLineRepository } from '../ledger/general-ledger/repository';
import { getTrialBalance, lineContent } from '../ledger/general-ledger/service';
import { openItemRepository } from '../ledger/open-items/repository';
import { subLedgerTypes } from '../ledger/open-items/schemas';
import { stringifyJson } from '../platform/json';
import { countMetric } from '../platform/metrics';
import { Decimal } from '../platform/money';
import { listVatTerms, vatAccountDirection } from '../vat/service';
import { norwegianDate } from '../platform/norway-time';
import { compareCodeUnits } from '../platform/text';
import { contextRepository, type StoredPicture } from './repository';
import { requestContextRefresh } from './refresh-queue';

/** How many movements and lines an account picture keeps, and imports a company picture. */
export const pictureSizes = { largestMovements: 5, lastLines: 5, recentImports: 5 } as const;

type Line = ReturnType<typeof lineContent>;
type TrialBalance = Awaited<ReturnType<typeof getTrialBalance>>;

const lineSummary = (line: Line) => ({
  lineId: line.lineId,
  period: line.period,
  transactionDate: line.transactionDate,
  transactionId: line.transactionId,
  description: line.description,
  amount: line.amount,
  taxCode: line.taxCode,
});

/** Unreconciled transactions (no reconciliation group) of a bank account: how many, and the oldest booking date. */
const unreconciledOf = async (companyId: string, bankAccountId: string) => {
  let count = 0;
  let oldest: string | null = null;
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await bankRepository.queryTransactions(companyId, bankAccountId, {}, {
      ScanIndexForward: true,
      ExclusiveStartKey: startKey,
      reconciled: false,
    });
    for (const item of result.Items ?? []) {
      count += 1;
      const date = String(item.bookingDate);
      if (oldest === null || date < oldest) oldest = date;
    }
    startKey = result.LastEvaluatedKey;
  } while (startKey);
  return { unreconciledCount: count, oldestUnreconciledDate: oldest };
};

/** Live open items of each sub-ledger type still to be settled: due (not yet past the due date) and overdue. */
const openItemsOf = async (companyId: string, today: string) =>
  Object.fromEntries(
    await Promise.all(
      subLedgerTypes.map(async (type) => {
        const open = (await openItemRepository.listAll(companyId, type)).filter((item) => item.status === 'live' && item.settlementStatus !== 'settled');
        const sum = (items: typeof open) => items.reduce((total, item) => total.plus(item.amountOpen), new Decimal(0));
        const overdue = open.filter((item) => item.dueDate < today);
        const due = open.filter((item) => item.dueDate >= today);
        return [type, { dueCount: due.length, dueAmount: sum(due), overdueCount: overdue.length, overdueAmount: sum(overdue) }] as const;
      }),
    ),
  );

/** Accounts whose lines a rebuild reads at a time. */
const accountsReadTogether = 4;

/**
 * How long a read's rebuild request stays pending: within it further reads queue nothing (they
 * wait for that rebuild); after it the next read queues one again (a lost message cannot block the
 * pictures). Longer than a rebuild of a large company takes, far shorter than the queue's
 * visibility timeout.
 */
export const refreshPendingSeconds = 60;

/** The year's open VAT term (or else the latest with activity), as the pictures show it. */
const vatTermOf = async (company: Parameters<typeof listVatTerms>[0], year: number) => {
  const terms = (await listVatTerms(company, year)).data;
  const term = terms.find((candidate) => candidate.status === 'open') ?? terms.filter((candidate) => candidate.status !== 'no_activity').at(-1) ?? null;
  return (
    term && {
      year: term.year,
      term: term.term,
      fromDate: term.fromDate,
      toDate: term.toDate,
      filingDueDate: term.filingDueDate,
      status: term.status,
      position: term.totals.position,
      netVat: term.totals.netVat,
    }
  );
};

type BankSummary = { bankAccountId: string; glAccountCode: string; unreconciledCount: number; oldestUnreconciledDate: string | null };

/**
 * The account pictures of one year: every account of the year's chart (an account without lines
 * has zero balances and no movements) and any other account the year's balances name.
 */
const accountPictures = async (
  companyId: string,
  year: number,
  context: { banks: BankSummary[]; openTermStatus: string | null; ledgerUpdatedAt: string | null; builtAt: string; trialBalance?: TrialBalance },
) => {
  const [trialBalance, chart] = await Promise.all([context.trialBalance ?? getTrialBalance(companyId, year), chartRepository.listAccounts(companyId, year)]);
  const rows = new Map(trialBalance.accounts.map((row) => [row.accountCode, row]));
  const zero = new Decimal(0);
  const codes = [...new Set([...chart.map((account) => account.accountNumber), ...rows.keys()])].sort();
  const descriptions = new Map(chart.map((account) => [account.accountNumber, account.description]));
  // A few accounts at a time: each reads all its lines of the year, and a rebuild after a large
  // import must not crowd out the API's own reads (on DynamoDB Local all 50 of a 10k-line import
  // at once held a GET for 0.6 s).
  return inParallel(codes, accountsReadTogether, async (accountCode) => {
    const row = rows.get(accountCode);
    const lines = row ? (await glLineRepository.linesOfAccount(companyId, year, accountCode)).map((item: Item) => lineContent(item)) : [];
    const largest = [...lines].sort((a, b) => b.amount.abs().comparedTo(a.amount.abs()) || compareCodeUnits(a.lineId, b.lineId)).slice(0, pictureSizes.largestMovements);
    const last = [...lines]
      .sort((a, b) => b.period - a.period || compareCodeUnits(b.transactionDate ?? '', a.transactionDate ?? '') || compareCodeUnits(b.lineId, a.lineId))
      .slice(0, pictureSizes.lastLines);
    const mapped = context.banks.filter((bank) => bank.glAccountCode === accountCode);
    const direction = vatAccountDirection(accountCode);
    const picture = {
      companyId,
      year,
      accountCode,
      description: row?.description ?? descriptions.get(accountCode) ?? null,
      openingBalance: row?.openingBalance ?? zero,
      periods: row
        ? row.movements.map((movement) => ({ period: movement.period, movement: movement.amount, closingBalance: movement.closingBalance }))
        : Array.from({ length: 12 }, (_, index) => ({ period: index + 1, movement: zero, closingBalance: zero })),
      closingBalance: row?.closingBalance ?? zero,
      lineCount: lines.length,
      largestMovements: largest.map(lineSummary),
      lastLines: last.map(lineSummary),
      reconciliation: mapped.length
        ? { bankAccounts: mapped.map((bank) => ({ bankAccountId: bank.bankAccountId, unreconciledCount: bank.unreconciledCount, oldestUnreconciledDate: bank.oldestUnreconciledDate })) }
        : null,
      vat: direction ? { direction, openTermStatus: context.openTermStatus } : null,
      ledgerLastUpdatedAt: context.ledgerUpdatedAt,
      builtAt: context.builtAt,
    };
    return { year, accountCode, stored: { picture: stringifyJson(picture), builtAt: context.builtAt, ledgerUpdatedAt: context.ledgerUpdatedAt } };
  });
};

export interface RefreshOptions {
  /** Years whose account pictures to build beside the current year's (the fetched year, the years readers asked for). */
  years?: readonly (number | null | undefined)[];
  /** The pending read requests this rebuild serves (their `requestedAt`): ended once the pictures are saved. */
  requests?: readonly string[];
  /**
   * Asked for by changes only, relayed at this instant at the latest (the messages' `changedBy`):
   * when the stored pictures' rebuild started after it and no read waits for a rebuild, they
   * already show the changes and nothing is rebuilt.
   */
  changedBy?: string;
}

/**
 * Rebuilds the pictures of one company: the company's (ledger last updated, current year,
 * trial-balance totals, bank accounts with unreconciled counts, the open VAT term, open items,
 * recent imports) and one per account of the current year, of the years asked for and of the years
 * a pending read request names (balances per period, largest movements, last lines,
 * reconciliation and VAT status). Reads the books as the REST reads do; idempotent. Answers what
 * it did, for the fetch run's engine record.
 */
export const refreshContext = async (companyId: string, options: RefreshOptions = {}): Promise<string> => {
  const company = await companyRepository.get(companyId);
  if (!company || company.deletion) return 'company deleted: no context kept';
  const { pending, builtAt: storedBuiltAt } = await contextRepository.refreshState(companyId);
  if (options.changedBy && !pending && !options.years?.length && storedBuiltAt && storedBuiltAt > options.changedBy) {
    return `context built at ${storedBuiltAt} already shows the changes relayed by ${options.changedBy}`;
  }
  // Read first: a fetch that lands while the pictures are built leaves them behind it (stale), never ahead.
  const ledgerUpdatedAt = await importRepository.ledgerUpdatedAt(companyId);
  const builtAt = new Date().toISOString();
  const today = norwegianDate();
  const currentYear = await currentAccountingYear(companyId);
  const years = [...new Set([currentYear, ...(options.years ?? []), ...(pending?.years ?? [])].filter((year): year is number => typeof year === 'number'))].sort((a, b) => a - b);
  const [trialBalance, bankAccounts, openVatTerm, openItems, imports] = await Promise.all([
    getTrialBalance(companyId, currentYear),
    listBankAccounts(companyId),
    vatTermOf(company, currentYear),
    openItemsOf(companyId, today),
    importRepository.recentOfCompany(companyId, pictureSizes.recentImports),
  ]);
  const banks = await Promise.all(
    bankAccounts.data.map(async (account) => ({
      bankAccountId: account.id,
      accountNumber: account.accountNumber,
      name: account.name,
      glAccountCode: account.glAccountCode,
      lastStatementAt: account.lastStatementAt,
      ...(await unreconciledOf(companyId, account.id)),
    })),
  );
  const companyPicture = {
    companyId,
    name: company.name,
    ledgerLastUpdatedAt: ledgerUpdatedAt,
    currentYear,
    trialBalance: {
      accounts: trialBalance.accounts.length,
      openingBalance: trialBalance.totals.openingBalance,
      closingBalance: trialBalance.totals.closingBalance,
    },
    bankAccounts: banks,
    openVatTerm,
    openItems,
    recentImports: imports.map((item) => {
      const record = toImportRecord(item as unknown as ImportItem);
      return { importId: record.id, kind: record.kind, status: record.status, createdAt: record.createdAt, completedAt: record.completedAt, rowsFailed: record.rowsFailed };
    }),
    builtAt,
  };

  const accounts = [];
  for (const year of years) {
    const current = year === currentYear;
    const openTermStatus = current ? (openVatTerm?.status ?? null) : ((await vatTermOf(company, year))?.status ?? null);
    accounts.push(...(await accountPictures(companyId, year, { banks, openTermStatus, ledgerUpdatedAt, builtAt, ...(current && { trialBalance }) })));
  }
  // A rebuild that started later (it read newer books) may have saved already: this one leaves its pictures be.
  const saved = (await contextRepository.refreshState(companyId)).builtAt;
  if (saved && saved > builtAt) {
    await contextRepository.releaseRefresh(companyId, options.requests ?? []);
    return `context not saved: a rebuild started at ${saved} saved newer pictures`;
  }
  // The request ends only once every picture it asked for is saved.
  await contextRepository.saveAccounts(companyId, accounts);
  const kept = await contextRepository.saveCompany(companyId, { picture: stringifyJson(companyPicture), builtAt, ledgerUpdatedAt });
  await contextRepository.releaseRefresh(companyId, options.requests ?? []);
  if (!kept) return 'context of the accounts saved; the company picture of a rebuild that started later kept';
  countMetric('contextRebuilds', {}, 1, { companyId });
  // The lag: from the books' last change to pictures that include it.
  if (ledgerUpdatedAt) countMetric('contextRebuildLag', {}, Math.max(0, Date.now() - Date.parse(ledgerUpdatedAt)), { companyId });
  return `context of ${accounts.length} accounts (${years.join(', ')}) built`;
};

/** A picture the service has caught up with, or why not: none yet, or built before the books' last update. */
export type ContextAnswer = { status: 'ready'; picture: string } | { status: 'unavailable'; reason: 'not_built' | 'behind_books' | 'built_before_today' };

/**
 * Asks for a rebuild that builds the year: queued (a `context-refresh` message) only when no read's
 * request is pending for the company, or the pending one is older than `refreshPendingSeconds`; so
 * any number of reads of a stale company queue one rebuild at a time. Answers whether it queued.
 */
export const requestRefresh = async (companyId: string, year: number | undefined, now = new Date()): Promise<boolean> => {
  const requestedAt = now.toISOString();
  const expiredBefore = new Date(now.getTime() - refreshPendingSeconds * 1000).toISOString();
  if (!(await contextRepository.claimRefresh(companyId, year, requestedAt, expiredBefore))) return false;
  try {
    await requestContextRefresh(companyId, { years: year === undefined ? [] : [year], requestedAt });
  } catch (error) {
    // Not queued: end the request, so the next read tries again.
    await contextRepository.releaseRefresh(companyId, [requestedAt]);
    throw error;
  }
  return true;
};

/**
 * A picture is current when it was built after the books' latest change (a fetch, a reconciliation
 * group, a document, a statement) and on today's date in Norway: parts follow the date too (items
 * that fell due, a VAT term that ended, the current year). When it is not, a rebuild of its year is
 * asked for and the caller is told to retry.
 */
const judge = async (companyId: string, year: number | undefined, stored: StoredPicture | undefined): Promise<ContextAnswer> => {
  const latestChangeAt = stored ? await contextRepository.latestChangeAt(companyId) : null;
  const answer: ContextAnswer = !stored
    ? { status: 'unavailable', reason: 'not_built' }
    : latestChangeAt && latestChangeAt >= stored.builtAt
      ? { status: 'unavailable', reason: 'behind_books' }
      : norwegianDate(new Date(stored.builtAt)) !== norwegianDate()
        ? { status: 'unavailable', reason: 'built_before_today' }
        : { status: 'ready', picture: stored.picture };
  if (answer.status === 'unavailable') await requestRefresh(companyId, year);
  return answer;
};

/** The company's picture (the company is within reach: the caller resolved it). */
export const readCompanyContext = async (companyId: string): Promise<ContextAnswer> => judge(companyId, undefined, await contextRepository.company(companyId));

/**
 * One account's picture. The account must exist in the year's chart (else 404 not_found, as the
 * account read answers); the year defaults to the current accounting year. Any year with a chart
 * is answered: a year not built yet is built on request.
 */
export const readAccountContext = async (companyId: string, accountCode: string, year: number | undefined): Promise<ContextAnswer> => {
  const account = await getAccount(companyId, accountCode, year);
  return judge(companyId, account.year, await contextRepository.account(companyId, account.year, account.accountNumber));
};
