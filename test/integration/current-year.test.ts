import { describe, expect, it } from 'vitest';
import { api } from '../support/api';
import { chartOf, importAndWait, newApiCompany } from '../support/ledger';
import { inThisNorwegianYear } from '../support/norwegian-year';

/**
 * The current accounting year (what an omitted `year` means): the year containing today when it
 * has a chart; else the latest year before today with one; else this calendar year. Years are
 * relative to today, so the test holds in any year.
 */
const yearsAround = (thisYear: number) => ({ thisYear, pastYear: thisYear - 1, futureYear: thisYear + 10 });

const lines = (year: number, amount: string) => ({
  year,
  lines: [
    { id: `a-${year}`, accountCode: '1920', amount, period: 1, taxCode: '3', taxAmount: '1.00' },
    { id: `b-${year}`, accountCode: '3000', amount: `-${amount}`, period: 1 },
  ],
});

const as = 'a-system';

/** Every read that defaults its year, as the caller sees it. */
const defaultYears = async (companyId: string) => {
  const base = `/v1/companies/${companyId}`;
  const [accounts, account, glLines, trialBalance, readiness, vat] = await Promise.all([
    api('GET', `${base}/accounts`, { as }),
    api('GET', `${base}/accounts/1920`, { as }),
    api('GET', `${base}/general-ledger/lines`, { as }),
    api('GET', `${base}/trial-balance`, { as }),
    api('GET', `${base}/imports/readiness`, { as }),
    api('GET', `${base}/vat/terms`, { as }),
  ]);
  for (const response of [accounts, glLines, trialBalance, readiness, vat]) expect(response.status).toBe(200);
  return {
    accounts: [...new Set(accounts.body.data.map((a: { year: number }) => a.year))],
    account: account.status === 200 ? account.body.year : account.status,
    glLines: [...new Set(glLines.body.data.map((l: { year: number }) => l.year))],
    trialBalance: trialBalance.body.year,
    readiness: readiness.body.currentYear,
    readinessCurrent: readiness.body.years.filter((y: { current: boolean }) => y.current).map((y: { year: number }) => y.year),
    vat: Number(String(vat.body.data[0].fromDate).slice(0, 4)),
  };
};

const everywhere = (year: number, account: number = year) => ({
  accounts: [year],
  account,
  glLines: [year],
  trialBalance: year,
  readiness: year,
  readinessCurrent: [year],
  vat: year,
});

describe('current accounting year', () => {
  it('a chart pushed for a future year does not become current; the latest year before today stays current until this year has a chart', () =>
    inThisNorwegianYear(async (year) => {
      const { thisYear, pastYear, futureYear } = yearsAround(year);
      const companyId = await newApiCompany();
      await importAndWait(companyId, 'accounts', chartOf(pastYear, ['1920', '3000', '7790']));
      await importAndWait(companyId, 'general-ledger-lines', lines(pastYear, '100.00'));
      await importAndWait(companyId, 'accounts', chartOf(futureYear, ['1920', '3000', '7790']));
      await importAndWait(companyId, 'general-ledger-lines', lines(futureYear, '900.00'));

      expect(await defaultYears(companyId)).toEqual(everywhere(pastYear));

      // DELETE of an account without year acts on the current year's chart, not on the future one.
      const deletion = await api('DELETE', `/v1/companies/${companyId}/accounts/7790`, { as });
      expect(deletion.status).toBe(202);
      expect(deletion.body.year).toBe(pastYear);
      const { waitForImport } = await import('../support/ledger');
      expect((await waitForImport(companyId, deletion.body.id)).body).toMatchObject({ status: 'succeeded', rowsDeleted: 1 });
      const codes = async (year: number) =>
        (await api('GET', `/v1/companies/${companyId}/accounts?year=${year}`, { as })).body.data.map((a: { accountNumber: string }) => a.accountNumber);
      expect(await codes(pastYear)).toEqual(['1920', '3000']);
      expect(await codes(futureYear)).toEqual(['1920', '3000', '7790']);

      // Once this year has a chart, it is the current year everywhere.
      await importAndWait(companyId, 'accounts', chartOf(thisYear, ['1920', '3000']));
      await importAndWait(companyId, 'general-ledger-lines', lines(thisYear, '50.00'));
      expect(await defaultYears(companyId)).toEqual(everywhere(thisYear));
      const trialBalance = await api('GET', `/v1/companies/${companyId}/trial-balance`, { as });
      expect(trialBalance.body.accounts.find((a: { accountCode: string }) => a.accountCode === '1920').closingBalance).toBe(50);
    }));

  it('when only future years have charts, the current year is this calendar year (empty books)', () =>
    inThisNorwegianYear(async (year) => {
      const { thisYear, futureYear } = yearsAround(year);
      const companyId = await newApiCompany();
      await importAndWait(companyId, 'accounts', chartOf(futureYear, ['1920', '3000']));
      await importAndWait(companyId, 'general-ledger-lines', lines(futureYear, '900.00'));

      const base = `/v1/companies/${companyId}`;
      expect((await api('GET', `${base}/accounts`, { as })).body.data).toEqual([]);
      expect((await api('GET', `${base}/accounts/1920`, { as })).status).toBe(404);
      expect((await api('GET', `${base}/general-ledger/lines`, { as })).body.data).toEqual([]);
      expect((await api('GET', `${base}/trial-balance`, { as })).body).toMatchObject({ year: thisYear, accounts: [] });
      expect((await api('GET', `${base}/vat/terms`, { as })).body.data[0].fromDate).toBe(`${thisYear}-01-01`);
      const readiness = await api('GET', `${base}/imports/readiness`, { as });
      expect(readiness.body).toMatchObject({ currentYear: thisYear, blockers: ['no_accounts'], nextStep: 'import_accounts' });
      expect(readiness.body.years.map((y: { year: number; current: boolean }) => [y.year, y.current])).toEqual([
        [thisYear, true],
        [futureYear, false],
      ]);
      // The future year stays readable with its year.
      expect((await api('GET', `${base}/accounts?year=${futureYear}`, { as })).body.data).toHaveLength(2);
    }));

  it('with charts only before this year, the latest of them is current', () =>
    inThisNorwegianYear(async (year) => {
      const { pastYear } = yearsAround(year);
      const companyId = await newApiCompany();
      await importAndWait(companyId, 'accounts', chartOf(pastYear - 2, ['1920', '3000']));
      await importAndWait(companyId, 'accounts', chartOf(pastYear, ['1920', '3000']));
      await importAndWait(companyId, 'general-ledger-lines', lines(pastYear, '100.00'));
      expect(await defaultYears(companyId)).toEqual(everywhere(pastYear));
    }));
});
