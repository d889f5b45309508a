import type { CompanyRecord } from '../companies/repository';
import { countDimensions, countSubLedgers, currentAccountingYear } from './chart/service';
import { ledgerYearCounts, ledgerYearSummaries } from './general-ledger/repository';
import { openItemRepository } from './open-items/repository';
import { subLedgerTypes } from './open-items/schemas';
import type { Readiness } from '../imports/schemas';

type YearTotals = Omit<Readiness['years'][number], 'current'>;

/**
 * What the books of a company hold per year and what to import next, in the recommended order
 * (rule 7): accounts, (dimensions and sub-ledgers), opening balances, GL lines, open items.
 * Read from the per-lane year summaries the import workers keep, so it costs a few small Queries.
 */
export const readiness = async (company: CompanyRecord): Promise<Readiness> => {
  const companyId = company.id;
  const [years, currentYear] = await Promise.all([yearTotals(companyId), currentAccountingYear(companyId)]);
  if (!years.some((year) => year.year === currentYear)) {
    years.push({ year: currentYear, accounts: 0, mappedAccounts: 0, openingBalances: 0, generalLedgerLines: 0, lastImportAt: null });
  }
  years.sort((a, b) => a.year - b.year);
  const current = years.find((year) => year.year === currentYear)!;
  const [dimensions, subLedgers, openItems] = await Promise.all([
    countDimensions(companyId),
    countSubLedgers(companyId),
    Promise.all(subLedgerTypes.map((type) => openItemRepository.countLive(companyId, type))).then((counts) => counts.reduce((a, b) => a + b, 0)),
  ]);
  const apiManaged = company.accountingSystem === 'Api';
  const blockers = current.accounts === 0 ? ['no_accounts'] : [];
  const warnings = years.some((year) => year.mappedAccounts < year.accounts) ? ['unmapped_accounts'] : [];
  const nextStep = !apiManaged
    ? 'company_not_api_managed'
    : current.accounts === 0
      ? 'import_accounts'
      : current.openingBalances === 0
        ? 'import_opening_balances'
        : current.generalLedgerLines === 0
          ? 'import_general_ledger_lines'
          : openItems === 0
            ? 'import_open_items'
            : 'up_to_date';
  return {
    apiManaged,
    accountingSystem: company.accountingSystem,
    currentYear,
    years: years.map((year) => ({ ...year, current: year.year === currentYear })),
    dimensions,
    subLedgers,
    blockers,
    warnings,
    nextStep,
  };
};

/** Sums the per-lane summary items (YEAR#<year>#<lane>) per year. */
const yearTotals = async (companyId: string): Promise<YearTotals[]> => {
  const byYear = new Map<number, YearTotals>();
  for (const summary of await ledgerYearSummaries(companyId)) {
    const totals = byYear.get(summary.year) ?? { year: summary.year, accounts: 0, mappedAccounts: 0, openingBalances: 0, generalLedgerLines: 0, lastImportAt: null };
    for (const field of ledgerYearCounts) totals[field] += summary.counts[field] ?? 0;
    const at = summary.lastImportAt;
    if (at && (!totals.lastImportAt || at > totals.lastImportAt)) totals.lastImportAt = at;
    byYear.set(summary.year, totals);
  }
  return [...byYear.values()];
};
