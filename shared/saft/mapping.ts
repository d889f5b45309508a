import { AccountImportLineSchema, DimensionImportLineSchema, SubLedgerImportLineSchema, type AccountImportLine, type DimensionImportLine, type DimensionType, type SubLedgerImportLine } from '../ledger/chart/schemas';
import { GeneralLedgerLineInputSchema, OpeningBalanceInputSchema } from '../ledger/general-ledger/schemas';
import { Decimal } from '../platform/money';
import { limits } from '../platform/schemas';
import { clip, toWellFormed } from '../platform/text';
import { checkHeader, headerFields } from './header';
import { field, SaftFileError, type Fields, type SaftSink, type SaftVersion } from './parser';
import type { SaftReport } from './schemas';

/** Lists in the report (ids, accounts, samples) hold at most this many entries; counts are complete. */
export const maxReportList = 100;
/** Where the report counts the elements not imported beyond the first maxReportList it names. */
export const otherElements = '(other elements)';

const zero = new Decimal(0);
/** The characters the text rule refuses (shared/platform/schemas.ts): file text quoted in the report shows U+FFFD instead. */
// eslint-disable-next-line no-control-regex -- the rule's control characters
const refusedCharacters = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;
/** File text as the report quotes it: at most `max` characters, well-formed, no character the text rule refuses. */
const quotable = (text: string, max: number): string => toWellFormed(clip(text, max)).replace(refusedCharacters, '\uFFFD');

/** The longest amount text read: SAF-T amounts hold at most 18 digits (SAFmonetaryType); the report shows 64 characters. */
const maxAmountLength = 64;
/** A GL line's tax code holds at most this many characters (GeneralLedgerLineInputSchema). */
const maxTaxCodeLength = 50;
/** xs:decimal: an optional sign, digits and an optional point (decimal.js alone would also take 1e5, 0x1f or Infinity). */
const decimalText = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
/** SAFmonetaryType (both versions' XSD): xs:decimal with totalDigits 18 and fractionDigits 2. */
const monetaryTotalDigits = 18;
const monetaryFractionDigits = 2;
const monetaryBound = new Decimal(10).pow(monetaryTotalDigits);
/**
 * An amount of the file; one that is no decimal number, or no SAF-T amount (SAFmonetaryType: at
 * most 2 decimals and 18 digits in all, so at most 18 before the point), refuses the file, as the
 * XSD would for files it checks. The XSD judges the value: leading zeros and trailing zeros of the
 * decimals do not count (`0012.50` and `12.500` are amounts, `12.345` is not).
 */
const amountOf = (text: string | undefined, element: string): Decimal => {
  if (text === undefined || text === '') return zero;
  if (text.length > maxAmountLength) throw new SaftFileError('invalid_number', `${element} ${JSON.stringify(quotable(text, 40))} is longer than ${maxAmountLength} characters: no SAF-T amount.`);
  if (!decimalText.test(text)) throw new SaftFileError('invalid_number', `${element} ${JSON.stringify(clip(text, 40))} is not a decimal number.`);
  const amount = new Decimal(text);
  if (amount.decimalPlaces() > monetaryFractionDigits) throw new SaftFileError('invalid_number', `${element} ${JSON.stringify(clip(text, 40))} has more than ${monetaryFractionDigits} decimals: no SAF-T amount.`);
  if (!amount.times(10 ** amount.decimalPlaces()).abs().lessThan(monetaryBound)) {
    throw new SaftFileError('invalid_number', `${element} ${JSON.stringify(clip(text, 40))} has more than ${monetaryTotalDigits} digits: no SAF-T amount.`);
  }
  return amount;
};
/** `magnitude` with the sign of `line` (zero lines keep the magnitude's own sign). */
const withSignOf = (line: Decimal, magnitude: Decimal): Decimal => (line.isZero() ? magnitude : line.isNegative() ? magnitude.abs().negated() : magnitude.abs());
const sum = (values: string[] | undefined, element: string): Decimal => (values ?? []).reduce((total, value) => total.plus(amountOf(value, element)), zero);
/** Debit minus credit of a record's balance fields (prefix '' or 'BalanceAccount/'). */
const balance = (fields: Fields, side: 'Opening' | 'Closing', prefix = ''): Decimal =>
  amountOf(field(fields, `${prefix}${side}DebitBalance`), `${side}DebitBalance`).minus(amountOf(field(fields, `${prefix}${side}CreditBalance`), `${side}CreditBalance`));
const hasBalance = (fields: Fields, side: 'Opening' | 'Closing', prefix = ''): boolean =>
  fields.has(`${prefix}${side}DebitBalance`) || fields.has(`${prefix}${side}CreditBalance`);

/** Account category by the Norwegian standard chart (NS 4102): classes 1 and 2 are the balance sheet. */
const categoryOf = (accountCode: string, standard: string | undefined): AccountImportLine['accountCategory'] =>
  /^[12]/.test(standard ?? accountCode) ? 'Balance' : 'Result';

/** Dimension type from the analysis type's description (free text in SAF-T). */
const dimensionTypeOf = (description: string): DimensionType => {
  const text = description.toLowerCase();
  if (/avdeling|department/.test(text)) return 'department';
  if (/prosjekt|project/.test(text)) return 'project';
  if (/kostnadss?ted|cost ?cent/.test(text)) return 'costCenter';
  if (/region|distrikt/.test(text)) return 'region';
  if (/produkt|product/.test(text)) return 'product';
  if (/ansatt|employee/.test(text)) return 'employee';
  return 'other';
};

/** The dimension key of an analysis id: the type and the id (the type alone is the parent). */
export const analysisKey = (type: string, id: string): string => `${type}/${id}`;

/** Record children the mapping carries (the rest is counted under notImported). */
const mappedChildren: Record<string, Set<string>> = {
  Account: new Set(['AccountID', 'AccountDescription', 'AccountType', 'OpeningDebitBalance', 'OpeningCreditBalance', 'ClosingDebitBalance', 'ClosingCreditBalance']),
  Customer: new Set(['CustomerID', 'Name', 'AccountID', 'BalanceAccount', 'OpeningDebitBalance', 'OpeningCreditBalance', 'ClosingDebitBalance', 'ClosingCreditBalance']),
  Supplier: new Set(['SupplierID', 'Name', 'AccountID', 'BalanceAccount', 'OpeningDebitBalance', 'OpeningCreditBalance', 'ClosingDebitBalance', 'ClosingCreditBalance']),
  AnalysisTypeTableEntry: new Set(['AnalysisType', 'AnalysisTypeDescription', 'AnalysisID', 'AnalysisIDDescription']),
  TaxTableEntry: new Set(['TaxType', 'Description', 'TaxCodeDetails']),
};

interface AccountFigures {
  opening: Decimal;
  closing: Decimal | null;
  lines: Decimal;
}

/** One GL line of the file, ready for the GL-line import of its year. */
export interface SaftLine {
  year: number;
  /** The request row (amounts as decimal strings), as an integrator would send it. */
  line: Record<string, unknown>;
}
/** An opening-balance request row (amount as a decimal string). */
export type OpeningBalanceRow = Record<string, unknown>;

/**
 * Maps the records of a SAF-T file onto the rows of the six import kinds and builds the report.
 * Each row passes the row schema of its kind here; a row that does not is skipped and counted
 * (with samples), never half-applied. With `onLine`, each GL line is handed on as it is read.
 */
export class SaftMapping implements SaftSink {
  version: SaftVersion | null = null;
  headerFields: Fields = new Map();
  readonly accounts = new Map<string, { row: AccountImportLine; standard: string | null; figures: AccountFigures }>();
  readonly subLedgers: SubLedgerImportLine[] = [];
  /** Party opening balances by account: split out of the account's opening balance. */
  readonly partyOpenings: { accountCode: string; key: string; amount: Decimal }[] = [];
  readonly dimensions = new Map<string, DimensionImportLine>();
  /** The CustomerIDs read: a supplier with one of them gets its own key (see supplierKey). */
  private readonly customerIds = new Set<string>();
  private analysisIds = 0;
  private readonly analysisTypes = new Set<string>();
  /** The file's own VAT codes (a line's TaxCode) and the standard codes they stand for (TaxTable's StandardTaxCode). */
  private readonly standardTaxCodes = new Map<string, string>();
  transactions = 0;
  lines = 0;
  private totalDebit = zero;
  private totalCredit = zero;
  private fileTotals: Fields = new Map();
  private readonly unbalanced: string[] = [];
  private unbalancedCount = 0;
  private readonly notImported = new Map<string, number>();
  private readonly skipped = new Map<string, { count: number; samples: string[] }>();
  readonly years = new Set<number>();

  private readonly onLine: ((line: SaftLine) => void) | undefined;

  constructor(onLine?: (line: SaftLine) => void) {
    this.onLine = onLine;
  }

  /** Refuses a header the report could not show (checkHeader). */
  header(fields: Fields, version: SaftVersion): void {
    checkHeader(fields);
    this.headerFields = fields;
    this.version = version;
    const startYear = this.selectionStartYear();
    if (startYear) this.years.add(startYear);
  }

  /** The year the file's opening balances belong to: the selection's start. */
  selectionStartYear(): number | null {
    const year = field(this.headerFields, 'SelectionCriteria/PeriodStartYear') ?? field(this.headerFields, 'SelectionCriteria/SelectionStartDate')?.slice(0, 4);
    const number = Number(year);
    return Number.isInteger(number) && number >= 1900 && number <= 2999 ? number : null;
  }

  account(fields: Fields): void {
    const accountCode = field(fields, 'AccountID') ?? '';
    const standard = field(fields, 'StandardAccountID') ?? field(fields, 'GroupingCode') ?? null;
    const row = { accountCode, accountDescription: field(fields, 'AccountDescription') || accountCode, accountCategory: categoryOf(accountCode, standard ?? undefined) };
    if (!this.valid('accounts', AccountImportLineSchema, row, `account ${accountCode}`)) return;
    if (this.accounts.has(accountCode)) return this.skip('accounts', `account ${accountCode}: listed twice (the first applies)`);
    this.accounts.set(accountCode, {
      row,
      standard,
      figures: { opening: balance(fields, 'Opening'), closing: hasBalance(fields, 'Closing') ? balance(fields, 'Closing') : null, lines: zero },
    });
  }

  customer(fields: Fields): void {
    this.party(fields, 'customer', field(fields, 'CustomerID'));
  }

  supplier(fields: Fields): void {
    const id = field(fields, 'SupplierID');
    this.party(fields, 'supplier', id === undefined ? undefined : this.supplierKey(id));
  }

  /**
   * Customers and suppliers are numbered apart, and a party may be both under one number; a key is
   * one sub-ledger of one type. So a SupplierID that is also a CustomerID of the file is the
   * sub-ledger `supplier/<id>` (the file's customers come before its suppliers and its lines).
   */
  private supplierKey(id: string): string {
    return this.customerIds.has(id) ? `supplier/${id}` : id;
  }

  /** A line's tax code as VAT reads it: the standard code its own code stands for. Empty is none; one too long for a GL line is dropped, not the line. */
  private taxCodeOf(own: string | undefined, lineId: string): string | null {
    if (!own) return null;
    const code = this.standardTaxCodes.get(own) ?? own;
    if (code.length <= maxTaxCodeLength) return code;
    this.skip('taxCodes', `line ${lineId}: tax code ${clip(code, 60)} is longer than ${maxTaxCodeLength} characters: the line is imported without it`);
    return null;
  }

  private party(fields: Fields, type: 'customer' | 'supplier', key: string | undefined): void {
    const row = { key: key ?? '', value: field(fields, 'Name') || (key ?? ''), type };
    if (!this.valid('subLedgers', SubLedgerImportLineSchema, row, `${type} ${key}`)) return;
    if (type === 'customer') this.customerIds.add(row.key);
    this.subLedgers.push(row);
    // 1.10 has the balance on the party; 1.30 in BalanceAccount (the first one is taken).
    const prefix = fields.has('BalanceAccount/AccountID') ? 'BalanceAccount/' : '';
    const accountCode = field(fields, `${prefix}AccountID`);
    if ((fields.get('BalanceAccount/AccountID')?.length ?? 0) > 1) this.count(`${type === 'customer' ? 'Customer' : 'Supplier'}/BalanceAccount (beyond the first)`, fields.get('BalanceAccount/AccountID')!.length - 1);
    if (accountCode && hasBalance(fields, 'Opening', prefix)) {
      const amount = balance(fields, 'Opening', prefix);
      if (!this.accounts.has(accountCode)) this.skip('openingBalances', `${type} ${row.key}: opening balance on account ${accountCode}, which is not in the file's chart`);
      // A zero the file states is written too: it replaces what an earlier file of the year stored.
      else this.partyOpenings.push({ accountCode, key: row.key, amount });
    }
  }

  analysisType(fields: Fields): void {
    const type = field(fields, 'AnalysisType') ?? '';
    const id = field(fields, 'AnalysisID') ?? '';
    const typeDescription = field(fields, 'AnalysisTypeDescription') || type;
    const dimensionType = dimensionTypeOf(typeDescription);
    if (!this.analysisTypes.has(type)) {
      const parent = { key: type, value: typeDescription, type: dimensionType };
      if (!this.valid('dimensions', DimensionImportLineSchema, parent, `analysis type ${type}`)) return;
      this.analysisTypes.add(type);
      this.dimensions.set(type, parent);
    }
    const key = analysisKey(type, id);
    const row = { key, value: field(fields, 'AnalysisIDDescription') || id, type: dimensionType, parentKey: type };
    if (!this.valid('dimensions', DimensionImportLineSchema, row, `analysis ${key}`)) return;
    if (!this.dimensions.has(key)) this.analysisIds++;
    this.dimensions.set(key, row);
  }

  /**
   * A line's TaxCode is the accounting system's own code; the tax table maps each to the standard
   * SAF-T code (StandardTaxCode), which VAT reads. A code the file maps to "NA", or not at all,
   * stays as the file writes it. Codes and standard codes pair up within each TaxCodeDetails.
   */
  taxTableEntry(fields: Fields): void {
    const codes = fields.get('TaxCodeDetails/TaxCode') ?? [];
    const standards = fields.get('TaxCodeDetails/StandardTaxCode') ?? [];
    if (codes.length !== standards.length) {
      return this.skip('taxCodes', `tax table entry ${clip(field(fields, 'TaxType') ?? '', 40)}: ${codes.length} TaxCode and ${standards.length} StandardTaxCode in its TaxCodeDetails (each needs both): its codes are kept as written`);
    }
    codes.forEach((code, index) => {
      const standard = standards[index]!;
      if (!code || !standard || standard.toUpperCase() === 'NA') return;
      const mapped = this.standardTaxCodes.get(code);
      if (mapped !== undefined && mapped !== standard) return this.skip('taxCodes', `tax code ${clip(code, 50)}: mapped to ${clip(mapped, 50)} and to ${clip(standard, 50)} (the first applies)`);
      this.standardTaxCodes.set(code, standard);
    });
  }

  transaction(fields: Fields, lines: Fields[], journal: Fields): void {
    this.transactions++;
    const transactionId = field(fields, 'TransactionID') ?? '';
    // Voucher numbers are unique within their journal (a voucher series), not across journals.
    const journalId = field(journal, 'JournalID');
    const voucher = journalId ? `${journalId}/${transactionId}` : transactionId;
    const period = Number(field(fields, 'Period'));
    const date = field(fields, 'TransactionDate');
    const year = Number(field(fields, 'PeriodYear') ?? date?.slice(0, 4));
    let net = zero;
    lines.forEach((line, index) => {
      this.lines++;
      const debit = sum(line.get('DebitAmount/Amount'), 'DebitAmount/Amount');
      const credit = sum(line.get('CreditAmount/Amount'), 'CreditAmount/Amount');
      this.totalDebit = this.totalDebit.plus(debit);
      this.totalCredit = this.totalCredit.plus(credit);
      const amount = debit.minus(credit);
      net = net.plus(amount);
      const accountCode = field(line, 'AccountID') ?? '';
      const figures = this.accounts.get(accountCode)?.figures;
      if (figures) figures.lines = figures.lines.plus(amount);
      const recordId = field(line, 'RecordID');
      const id = `${voucher}-${recordId ?? `L${index + 1}`}`;
      if (!figures) return this.skip('lines', `line ${id}: account ${accountCode} is not in the file's chart`);
      if (!Number.isInteger(year) || year < 1900 || year > 2999) return this.skip('lines', `line ${id}: no year (PeriodYear or TransactionDate)`);
      // 1.10 writes the tax amount unsigned; a GL line's tax amount has the sign of its line.
      const taxAmount = line.has('TaxInformation/TaxAmount/Amount')
        ? withSignOf(amount, amountOf(field(line, 'TaxInformation/TaxAmount/Amount'), 'TaxAmount/Amount'))
        : line.has('TaxInformation/DebitTaxAmount/Amount') || line.has('TaxInformation/CreditTaxAmount/Amount')
          ? amountOf(field(line, 'TaxInformation/DebitTaxAmount/Amount'), 'DebitTaxAmount/Amount').minus(amountOf(field(line, 'TaxInformation/CreditTaxAmount/Amount'), 'CreditTaxAmount/Amount'))
          : null;
      if ((line.get('TaxInformation/TaxCode')?.length ?? 0) > 1) this.count('Line/TaxInformation (beyond the first)', line.get('TaxInformation/TaxCode')!.length - 1);
      const types = line.get('Analysis/AnalysisType') ?? [];
      const ids = line.get('Analysis/AnalysisID') ?? [];
      const supplierId = field(line, 'SupplierID');
      const party = field(line, 'CustomerID') ?? (supplierId === undefined ? undefined : this.supplierKey(supplierId));
      const row = {
        id,
        accountCode,
        amount: amount.toFixed(),
        period,
        transactionId: transactionId || null,
        description: field(line, 'Description') ?? field(fields, 'Description') ?? null,
        transactionDate: date ?? null,
        taxCode: this.taxCodeOf(field(line, 'TaxInformation/TaxCode'), id),
        taxAmount: taxAmount ? taxAmount.toFixed() : null,
        taxPercentage: field(line, 'TaxInformation/TaxPercentage') ?? null,
        dimensionKeys: types.length ? [...new Set(types.map((type, i) => analysisKey(type, ids[i] ?? '')))] : null,
        subLedgerKeys: party ? [party] : null,
      };
      const parsed = GeneralLedgerLineInputSchema.safeParse(row);
      if (!parsed.success) return this.skip('lines', `line ${id}: ${issueText(parsed.error.issues)}`);
      this.years.add(year);
      this.onLine?.({ year, line: row });
    });
    if (!net.isZero()) {
      this.unbalancedCount++;
      if (this.unbalanced.length < maxReportList) this.unbalanced.push(quotable(voucher, limits.integratorId));
    }
  }

  controlTotals(fields: Fields): void {
    amountOf(field(fields, 'TotalDebit'), 'TotalDebit');
    amountOf(field(fields, 'TotalCredit'), 'TotalCredit');
    const entries = field(fields, 'NumberOfEntries');
    if (entries !== undefined && !/^\+?\d{1,15}$/.test(entries)) throw new SaftFileError('invalid_number', `NumberOfEntries ${JSON.stringify(clip(entries, 40))} is not a whole number.`);
    this.fileTotals = fields;
  }

  notRead(path: string): void {
    this.count(path, 1);
  }

  recordChild(record: string, child: string): void {
    if (!mappedChildren[record]?.has(child)) this.count(`${record}/${child}`, 1);
  }

  private count(element: string, count: number): void {
    // Elements past the report's list are counted together: a file naming endless elements keeps a bounded report.
    const named = quotable(element, limits.name);
    const key = this.notImported.has(named) || this.notImported.size < maxReportList ? named : otherElements;
    this.notImported.set(key, (this.notImported.get(key) ?? 0) + count);
  }

  private skip(kind: string, message: string): void {
    const entry = this.skipped.get(kind) ?? { count: 0, samples: [] };
    entry.count++;
    if (entry.samples.length < maxReportList) entry.samples.push(quotable(message, limits.note));
    this.skipped.set(kind, entry);
  }

  private valid(kind: string, schema: { safeParse(value: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }, row: unknown, what: string): boolean {
    const result = schema.safeParse(row);
    if (!result.success) this.skip(kind, `${what}: ${issueText(result.error!.issues)}`);
    return result.success;
  }

  /**
   * Opening balances of the selection's first year: each party's that is a valid row, and each
   * account's less what those hold (a refused party row leaves its amount with its account).
   * Zeros too: a corrected file of the year replaces each balance an earlier one stored.
   */
  openingBalances(): OpeningBalanceRow[] {
    const partyRows: OpeningBalanceRow[] = [];
    const parties = new Map<string, Decimal>();
    for (const { accountCode, key, amount } of this.partyOpenings) {
      const row = { id: `OB-${accountCode}-${key}`, accountCode, amount: amount.toFixed(), subLedgerKeys: [key] };
      if (!this.valid('openingBalances', OpeningBalanceInputSchema, row, `party ${key} on ${accountCode}`)) continue;
      partyRows.push(row);
      parties.set(accountCode, (parties.get(accountCode) ?? zero).plus(amount));
    }
    const rows: OpeningBalanceRow[] = [];
    for (const [accountCode, { figures }] of this.accounts) {
      const own = figures.opening.minus(parties.get(accountCode) ?? zero);
      const row = { id: `OB-${accountCode}`, accountCode, amount: own.toFixed() };
      if (this.valid('openingBalances', OpeningBalanceInputSchema, row, `account ${accountCode}`)) rows.push(row);
    }
    return [...rows, ...partyRows];
  }

  report(openingBalanceCount: number, schemaValidation: SaftReport['schemaValidation']): SaftReport {
    const h = (path: string) => {
      const value = field(this.headerFields, path);
      return value === undefined ? null : quotable(value, headerFields[path]!.shown);
    };
    const numberOfEntries = field(this.fileTotals, 'NumberOfEntries');
    const fileDebit = field(this.fileTotals, 'TotalDebit');
    const fileCredit = field(this.fileTotals, 'TotalCredit');
    const mismatches = [...this.accounts]
      .filter(([, { figures }]) => figures.closing !== null && !figures.opening.plus(figures.lines).equals(figures.closing))
      .map(([accountCode, { figures }]) => ({
        accountCode,
        openingBalance: figures.opening.toFixed(),
        lines: figures.lines.toFixed(),
        closingBalance: figures.closing!.toFixed(),
      }));
    const controlTotals = {
      numberOfEntries: { file: numberOfEntries === undefined ? null : Number(numberOfEntries), read: this.transactions },
      totalDebit: { file: fileDebit ?? null, read: this.totalDebit.toFixed() },
      totalCredit: { file: fileCredit ?? null, read: this.totalCredit.toFixed() },
    };
    return {
      header: {
        companyName: h('Company/Name'),
        organizationNumber: h('Company/RegistrationNumber'),
        softwareCompanyName: h('SoftwareCompanyName'),
        softwareId: h('SoftwareID'),
        softwareVersion: h('SoftwareVersion'),
        auditFileVersion: h('AuditFileVersion'),
        saftVersion: this.version!,
        fiscalYears: [...this.years].sort((a, b) => a - b),
        selection: {
          periodStart: h('SelectionCriteria/PeriodStart'),
          periodStartYear: h('SelectionCriteria/PeriodStartYear'),
          periodEnd: h('SelectionCriteria/PeriodEnd'),
          periodEndYear: h('SelectionCriteria/PeriodEndYear'),
          selectionStartDate: h('SelectionCriteria/SelectionStartDate'),
          selectionEndDate: h('SelectionCriteria/SelectionEndDate'),
        },
      },
      counts: {
        accounts: this.accounts.size,
        customers: this.subLedgers.filter((s) => s.type === 'customer').length,
        suppliers: this.subLedgers.filter((s) => s.type === 'supplier').length,
        analysisTypes: this.analysisTypes.size,
        analysisIds: this.analysisIds,
        openingBalances: openingBalanceCount,
        transactions: this.transactions,
        lines: this.lines,
        linesDeleted: 0,
      },
      controlTotals: {
        ...controlTotals,
        matches:
          controlTotals.numberOfEntries.file === this.transactions &&
          fileDebit !== undefined &&
          amountOf(fileDebit, 'TotalDebit').equals(this.totalDebit) &&
          fileCredit !== undefined &&
          amountOf(fileCredit, 'TotalCredit').equals(this.totalCredit),
      },
      unbalancedTransactions: { count: this.unbalancedCount, transactionIds: this.unbalanced },
      closingBalanceMismatches: { count: mismatches.length, accounts: mismatches.slice(0, maxReportList) },
      notImported: [...this.notImported].map(([element, count]) => ({ element, count })).sort((a, b) => a.element.localeCompare(b.element)),
      skipped: [...this.skipped].map(([kind, { count, samples }]) => ({ kind, count, samples })),
      schemaValidation,
    };
  }
}

const issueText = (issues: { path: PropertyKey[]; message: string }[]): string =>
  issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || 'row'} ${issue.message}`)
    .join('; ');
