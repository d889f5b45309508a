import { bankRepository } from '../bank/repository';
import { listBankAccounts } from '../bank/service';
import { companyRepository } from '../companies/repository';
import type { Item } from '../db/attributes';
import { inParallel } from '../db/batch';
import { toImportRecord, type ImportItem } from '../imports/repository';
import { getAccount } from '../ledger/chart/service';
import { getTrialBalance, lineContent } from '../ledger/general-ledger/service';
import { openItemRepository } from '../ledger/open-items/repository';
import { subLedgerTypes } from '../ledger/open-items/schemas';
import { stringifyJson } from '../platform/json';
import { Decimal } from '../platform/money';
import { listVatTerms, norwegianToday, vatAccountDirection } from '../vat/service';
import { contextRepository, type StoredPicture } from './repository';
import { requestContextRefresh } from './refresh-queue';

/** How many movements and lines an account picture keeps, and imports a company picture. */
export const pictureSizes = { largestMovements: 5, lastLines: 5, recentImports: 5 } as const;

type Line = ReturnType<typeof lineContent>;

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
      FilterExpression: 'attribute_not_exists(#group)',
      names: { '#group': 'reconciliationGroupId' },
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
 * Rebuilds the pictures of one company: the company's (ledger last updated, current year,
 * trial-balance totals, bank accounts with unreconciled counts, the open VAT term, open items,
 * recent imports) and one per account of the year (balances per period, largest movements, last
 * lines, reconciliation and VAT status). Reads the books as the REST reads do; idempotent.
 * Answers what it did, for the fetch run's engine record.
 */
export const refreshContext = async (companyId: string, year?: number | null): Promise<string> => {
  const company = await companyRepository.get(companyId);
  if (!company || company.deletion) return 'company deleted: no context kept';
  // Read first: a fetch that lands while the pictures are built leaves them behind it (stale), never ahead.
  const ledgerUpdatedAt = await contextRepository.ledgerUpdatedAt(companyId);
  const builtAt = new Date().toISOString();
  const today = norwegianToday();
  const trialBalance = await getTrialBalance(companyId, year ?? undefined);
  const [bankAccounts, vatTerms, openItems, imports] = await Promise.all([
    listBankAccounts(companyId),
    listVatTerms(company, trialBalance.year),
    openItemsOf(companyId, today),
    contextRepository.recentImports(companyId, pictureSizes.recentImports),
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
  const terms = vatTerms.data;
  const vatTerm = terms.find((term) => term.status === 'open') ?? terms.filter((term) => term.status !== 'no_activity').at(-1) ?? null;
  const openVatTerm = vatTerm && {
    year: vatTerm.year,
    term: vatTerm.term,
    fromDate: vatTerm.fromDate,
    toDate: vatTerm.toDate,
    filingDueDate: vatTerm.filingDueDate,
    status: vatTerm.status,
    position: vatTerm.totals.position,
    netVat: vatTerm.totals.netVat,
  };
  const companyPicture = {
    companyId,
    name: company.name,
    ledgerLastUpdatedAt: ledgerUpdatedAt,
    currentYear: trialBalance.year,
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

  // A few accounts at a time: each reads all its lines of the year, and a rebuild after a large
  // import must not crowd out the API's own reads (on DynamoDB Local all 50 of a 10k-line import
  // at once held a GET for 0.6 s).
  const accounts = await inParallel(trialBalance.accounts, accountsReadTogether, async (row) => {
    const lines = (await bankRepository.glLinesOfAccount(companyId, trialBalance.year, row.accountCode)).map((item: Item) => lineContent(item));
    const largest = [...lines].sort((a, b) => b.amount.abs().comparedTo(a.amount.abs()) || a.lineId.localeCompare(b.lineId)).slice(0, pictureSizes.largestMovements);
    const last = [...lines]
      .sort((a, b) => b.period - a.period || (b.transactionDate ?? '').localeCompare(a.transactionDate ?? '') || b.lineId.localeCompare(a.lineId))
      .slice(0, pictureSizes.lastLines);
    const mapped = banks.filter((bank) => bank.glAccountCode === row.accountCode);
    const direction = vatAccountDirection(row.accountCode);
    const picture = {
      companyId,
      year: trialBalance.year,
      accountCode: row.accountCode,
      description: row.description,
      openingBalance: row.openingBalance,
      periods: row.movements.map((movement) => ({ period: movement.period, movement: movement.amount, closingBalance: movement.closingBalance })),
      closingBalance: row.closingBalance,
      lineCount: lines.length,
      largestMovements: largest.map(lineSummary),
      lastLines: last.map(lineSummary),
      reconciliation: mapped.length
        ? { bankAccounts: mapped.map((bank) => ({ bankAccountId: bank.bankAccountId, unreconciledCount: bank.unreconciledCount, oldestUnreconciledDate: bank.oldestUnreconciledDate })) }
        : null,
      vat: direction ? { direction, openTermStatus: openVatTerm?.status ?? null } : null,
      ledgerLastUpdatedAt: ledgerUpdatedAt,
      builtAt,
    };
    return { year: trialBalance.year, accountCode: row.accountCode, stored: { picture: stringifyJson(picture), builtAt, ledgerUpdatedAt } };
  });
  await contextRepository.save(companyId, { picture: stringifyJson(companyPicture), builtAt, ledgerUpdatedAt }, accounts);
  return `context of ${accounts.length} accounts (${trialBalance.year}) built`;
};

/** A picture the service has caught up with, or why not: none yet, or built before the books' last update. */
export type ContextAnswer = { status: 'ready'; picture: string } | { status: 'unavailable'; reason: 'not_built' | 'behind_books' };

/**
 * A picture is current when it was built after the books' latest change (a fetch, a reconciliation
 * group, a document, a statement). When it is not, a rebuild is queued on the reconciliation
 * queue (its worker runs refreshContext) and the caller is told to retry.
 */
const judge = async (companyId: string, stored: StoredPicture | undefined): Promise<ContextAnswer> => {
  const latestChangeAt = stored ? await contextRepository.latestChangeAt(companyId) : null;
  const answer: ContextAnswer = !stored
    ? { status: 'unavailable', reason: 'not_built' }
    : latestChangeAt && latestChangeAt >= stored.builtAt
      ? { status: 'unavailable', reason: 'behind_books' }
      : { status: 'ready', picture: stored.picture };
  if (answer.status === 'unavailable') await requestContextRefresh(companyId);
  return answer;
};

/** The company's picture (the company is within reach: the caller resolved it). */
export const readCompanyContext = async (companyId: string): Promise<ContextAnswer> => judge(companyId, await contextRepository.company(companyId));

/**
 * One account's picture. The account must exist in the year's chart (else 404 not_found, as the
 * account read answers); the year defaults to the company picture's current year.
 */
export const readAccountContext = async (companyId: string, accountCode: string, year: number | undefined): Promise<ContextAnswer> => {
  const account = await getAccount(companyId, accountCode, year);
  return judge(companyId, await contextRepository.account(companyId, account.year, account.accountNumber));
};
