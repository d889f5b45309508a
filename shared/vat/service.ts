import type { Page } from '../db/query-page';
import type { VatFrequency } from '../companies/schemas';
import { currentAccountingYear } from '../ledger/chart/service';
import { Decimal } from '../platform/money';
import { vatAccountCells, vatCells, type AccountCell, type VatCell } from '../ledger/general-ledger/repository';
import type { VatTerm, VatTermStatus, VatTermTaxCode } from './schemas';
import { compareTaxCodes, standardTaxCode, type StandardTaxCode } from './tax-codes';
import { norwegianDate } from '../platform/norway-time';

/**
 * VAT terms of a year, computed from the VAT aggregates (per tax code and period) and the
 * trial-balance aggregates of the VAT accounts: O(tax codes x periods + VAT accounts x periods),
 * whatever the number of GL lines. Rules and sign conventions: shared/vat/README.md.
 */

export interface TermDefinition {
  term: number;
  periods: number[];
  fromDate: string;
  toDate: string;
  filingDueDate: string;
}

const pad2 = (n: number) => String(n).padStart(2, '0');
const isoDate = (year: number, month: number, day: number) => `${year}-${pad2(month)}-${pad2(day)}`;
const lastDayOf = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * The terms of a year (periods are calendar months). Bimonthly: six terms of two months, each due
 * the 10th of the second month after it ends, except term 3 (May-June), due 31 August. Annual:
 * one term, due 10 March of the next year.
 */
export const termsOf = (year: number, frequency: VatFrequency): TermDefinition[] => {
  if (frequency === 'annual') {
    return [{ term: 1, periods: range(1, 12), fromDate: isoDate(year, 1, 1), toDate: isoDate(year, 12, 31), filingDueDate: isoDate(year + 1, 3, 10) }];
  }
  return range(1, 6).map((term) => {
    const first = term * 2 - 1;
    const last = term * 2;
    const dueMonth = last + 2; // the second month after the term
    const filingDueDate = term === 3 ? isoDate(year, 8, 31) : dueMonth > 12 ? isoDate(year + 1, dueMonth - 12, 10) : isoDate(year, dueMonth, 10);
    return { term, periods: [first, last], fromDate: isoDate(year, first, 1), toDate: isoDate(year, last, lastDayOf(year, last)), filingDueDate };
  });
};

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** NS 4102: 2700-2709 output VAT, 2710-2719 input VAT; 2740 (settlement) and the rest are not VAT accounts. */
export const vatAccountDirection = (accountCode: string): 'output' | 'input' | undefined =>
  /^270\d/.test(accountCode) ? 'output' : /^271\d/.test(accountCode) ? 'input' : undefined;

const zero = () => new Decimal(0);

/** A code's contribution in return terms: basis and VAT turned positive for normal activity on its side. */
const contribution = (taxCode: string, basis: Decimal, taxAmount: Decimal) => {
  const code: StandardTaxCode | undefined = standardTaxCode(taxCode);
  if (!code) return { code, basis, outputVat: zero(), inputVat: zero() };
  // Sales are booked as credits (negative), purchases as debits (positive); the tax amount has the sign of its line.
  const sign = code.side === 'sale' ? -1 : 1;
  // VAT paid on import (14, 15): the line is the VAT itself, with or without its taxAmount; its basis is under 21/22.
  if (code.direction === 'input' && !code.vatBasis) return { code, basis: zero(), outputVat: zero(), inputVat: basis.times(sign) };
  const vat = taxAmount.times(sign);
  const outputVat = code.direction === 'output' ? vat : zero();
  const inputVat = code.direction === 'input' || (code.reverseCharge && code.deductible) ? vat : zero();
  return { code, basis: basis.times(sign), outputVat, inputVat };
};

const taxCodesOf = (cells: VatCell[]): VatTermTaxCode[] => {
  const byCode = new Map<string, { basis: Decimal; taxAmount: Decimal; lineCount: number }>();
  for (const cell of cells) {
    const sum = byCode.get(cell.taxCode) ?? { basis: zero(), taxAmount: zero(), lineCount: 0 };
    byCode.set(cell.taxCode, { basis: sum.basis.plus(cell.basis), taxAmount: sum.taxAmount.plus(cell.taxAmount), lineCount: sum.lineCount + cell.lineCount });
  }
  return [...byCode.entries()]
    .filter(([, sum]) => sum.lineCount > 0)
    .sort(([a], [b]) => compareTaxCodes(a, b))
    .map(([taxCode, sum]) => {
      const { code, basis, outputVat, inputVat } = contribution(taxCode, sum.basis, sum.taxAmount);
      return {
        taxCode,
        standard: code !== undefined,
        description: code?.descriptionEn ?? null,
        descriptionNorwegian: code?.descriptionNb ?? null,
        direction: code?.direction ?? 'none',
        reverseCharge: code?.reverseCharge ?? false,
        rate: code?.rate ?? null,
        lineCount: sum.lineCount,
        basis,
        outputVat,
        inputVat,
      };
    });
};

const sum = (values: Decimal[]) => values.reduce((total, value) => total.plus(value), zero());

const termOf = (
  year: number,
  frequency: VatFrequency,
  definition: TermDefinition,
  cells: VatCell[],
  accounts: AccountCell[],
  today: string,
): VatTerm => {
  const inTerm = <T extends { period: number }>(items: T[]) => items.filter((item) => definition.periods.includes(item.period));
  const taxCodes = taxCodesOf(inTerm(cells));
  const outputVat = sum(taxCodes.map((code) => code.outputVat));
  const inputVat = sum(taxCodes.map((code) => code.inputVat));
  const netVat = outputVat.minus(inputVat);

  const movements = new Map<string, { direction: 'output' | 'input'; movement: Decimal; lineCount: number }>();
  for (const cell of inTerm(accounts)) {
    const direction = vatAccountDirection(cell.accountCode);
    if (!direction) continue;
    const account = movements.get(cell.accountCode) ?? { direction, movement: zero(), lineCount: 0 };
    movements.set(cell.accountCode, { direction, movement: account.movement.plus(cell.amount), lineCount: account.lineCount + cell.lineCount });
  }
  const bookedAccounts = [...movements.entries()]
    .filter(([, account]) => account.lineCount > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([accountCode, account]) => ({ accountCode, direction: account.direction, movement: account.movement }));
  // Output VAT is booked as a credit on 270x, input VAT as a debit on 271x.
  const bookedOutputVat = sum(bookedAccounts.filter((a) => a.direction === 'output').map((a) => a.movement)).negated();
  const bookedInputVat = sum(bookedAccounts.filter((a) => a.direction === 'input').map((a) => a.movement));
  const outputVatDifference = outputVat.minus(bookedOutputVat);
  const inputVatDifference = inputVat.minus(bookedInputVat);

  const status: VatTermStatus =
    today <= definition.toDate
      ? 'open'
      : taxCodes.length === 0 && bookedAccounts.length === 0
        ? 'no_activity'
        : outputVatDifference.isZero() && inputVatDifference.isZero()
          ? 'reconciled'
          : 'discrepancy';

  return {
    year,
    term: definition.term,
    frequency,
    fromDate: definition.fromDate,
    toDate: definition.toDate,
    periods: definition.periods,
    filingDueDate: definition.filingDueDate,
    status,
    taxCodes,
    totals: {
      outputVat,
      inputVat,
      netVat,
      position: netVat.gt(0) ? 'payable' : netVat.lt(0) ? 'refundable' : 'zero',
    },
    reconciliation: { bookedOutputVat, bookedInputVat, outputVatDifference, inputVatDifference, accounts: bookedAccounts },
  };
};

export interface VatCompany {
  id: string;
  vatFrequency: VatFrequency;
}

/** The VAT terms of a year (omitted: the current accounting year), all in one page. */
export const listVatTerms = async (company: VatCompany, requestedYear: number | undefined, now = new Date()): Promise<Page<VatTerm>> => {
  const year = requestedYear ?? (await currentAccountingYear(company.id, now));
  const [cells, accounts] = await Promise.all([vatCells(company.id, year), vatAccountCells(company.id, year)]);
  // A term has ended once its last day is over in Norway.
  const today = norwegianDate(now);
  return {
    data: termsOf(year, company.vatFrequency).map((definition) => termOf(year, company.vatFrequency, definition, cells, accounts, today)),
    pagination: { next_cursor: null, has_more: false },
  };
};
