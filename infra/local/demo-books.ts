import { setTimeout as sleep } from 'node:timers/promises';
import { ibanOfNorwegianAccountNumber, isValidNorwegianAccountNumber } from '../../shared/bank/account-number';
import { ingestBankStatement } from '../../shared/bank/ingestion';
import { setPeriodApproval } from '../../shared/bank/reconciliation';
import { bankRepository } from '../../shared/bank/repository';
import type { Principal } from '../../shared/identity/principal';
import { companyRepository } from '../../shared/companies/repository';
import { submitImport } from '../../shared/imports/pipeline';
import { importKind } from '../../shared/composition/import-kinds';
import { getImport, listFetchRuns } from '../../shared/imports/service';
import { Decimal } from '../../shared/platform/money';
import { buildCamt053, type DemoEntry, type DemoStatement } from './demo-statements';

/**
 * The demo books of the first seeded company (a bakery): a 2026 chart, four months of bank
 * statements (camt.053) on one bank account mapped to GL account 1920, and GL lines that match
 * most of the bank transactions. Left for a person on purpose: two identical card payments in one
 * week (ambiguous), a customer payment not yet booked, a fee booked a week late, and GL lines with
 * no bank transaction yet. Loaded through the real paths: statement ingestion, then the chart and
 * GL imports, whose post-fetch run auto-reconciles.
 */
export const demoYear = 2026;
export const demoGlAccount = '1920';

const chart: [code: string, description: string, category: 'Balance' | 'Result'][] = [
  ['1500', 'Kundefordringer', 'Balance'],
  ['1920', 'Bankinnskudd', 'Balance'],
  ['2400', 'Leverandørgjeld', 'Balance'],
  ['2700', 'Utgående merverdiavgift, høy sats', 'Balance'],
  ['2710', 'Inngående merverdiavgift, høy sats', 'Balance'],
  ['2740', 'Oppgjørskonto merverdiavgift', 'Balance'],
  ['3000', 'Salgsinntekt, avgiftspliktig', 'Result'],
  ['4000', 'Innkjøp av råvarer', 'Result'],
  ['5000', 'Lønn til ansatte', 'Result'],
  ['6300', 'Leie lokale', 'Result'],
  ['6860', 'Møte, kurs, oppdatering', 'Result'],
  ['7770', 'Bank- og kortgebyrer', 'Result'],
];

const customers = ['Fjordkanten Kafé AS', 'Solsiden Hotell AS', 'Kaffebrenneriet Nord AS', 'Bryggen Catering AS', 'Lille Lunsj AS', 'Torget Deli AS'];
const suppliers = ['Møllerens Mel AS', 'Gjærfabrikken Norge AS', 'Meieriet Vest SA'];

/** A Norwegian account number with its mod-11 check digit (the first valid completion of the prefix). */
const accountNumber = (prefix10: string): string => {
  for (let digit = 0; digit <= 9; digit++) if (isValidNorwegianAccountNumber(`${prefix10}${digit}`)) return `${prefix10}${digit}`;
  return accountNumber(String(Number(prefix10) + 1).padStart(10, '0'));
};

const day = (month: number, d: number) => `${demoYear}-${String(month).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
const money = (value: Decimal) => value.toFixed(2);

interface Line {
  id: string;
  accountCode: string;
  amount: string;
  period: number;
  transactionDate: string;
  transactionId: string;
  description: string;
  taxCode?: string;
  taxAmount?: string;
  taxPercentage?: string;
}

interface DemoBooks {
  statements: DemoStatement[];
  lines: Line[];
}

/** Builds the statements and the GL lines (deterministic: the same every run). */
export const demoBooks = (): DemoBooks => {
  const bankAccount = accountNumber('1503201234');
  const iban = ibanOfNorwegianAccountNumber(bankAccount);
  const lines: Line[] = [];
  let voucher = 0;
  const post = (period: number, date: string, description: string, postings: [string, Decimal, { taxCode: string; taxAmount: Decimal }?][]) => {
    voucher++;
    const transactionId = `${demoYear}-${String(voucher).padStart(4, '0')}`;
    postings.forEach(([accountCode, amount, tax], i) =>
      lines.push({
        id: `demo-${transactionId}-${i + 1}`,
        accountCode,
        amount: money(amount),
        period,
        transactionDate: date,
        transactionId,
        description,
        ...(tax && { taxCode: tax.taxCode, taxAmount: money(tax.taxAmount), taxPercentage: '25' }),
      }),
    );
  };

  let balance = new Decimal('184250.00');
  const statements: DemoStatement[] = [];
  for (let month = 1; month <= 4; month++) {
    const entries: DemoEntry[] = [];
    const entry = (d: number, amount: Decimal, description: string, extra: Partial<DemoEntry> = {}) =>
      entries.push({ reference: `NO${demoYear}${String(month).padStart(2, '0')}${String(entries.length + 1).padStart(3, '0')}`, bookingDate: day(month, d), amount: money(amount), description, ...extra });

    // Sales invoiced this month; customers pay a few days later with KID.
    customers.forEach((customer, i) => {
      const net = new Decimal(2400 + 850 * i + 125 * month);
      const vat = net.times('0.25');
      const gross = net.plus(vat);
      const invoiceDay = 2 + i * 3;
      post(month, day(month, invoiceDay), `Faktura ${customer}`, [
        ['1500', gross],
        ['3000', net.negated(), { taxCode: '3', taxAmount: vat.negated() }],
        ['2700', vat.negated()],
      ]);
      const paidDay = invoiceDay + 3;
      const kid = `${month}${String(1000 + i * 7)}${String((month * 7 + i) % 10)}`;
      if (month === 4 && i === 5) {
        // paid in the bank, not yet booked in the ledger
        entry(paidDay, gross, `Innbetaling ${customer}`, { kid, counterpartyName: customer });
        return;
      }
      entry(paidDay, gross, `Innbetaling ${customer}`, { kid, counterpartyName: customer });
      post(month, day(month, paidDay + (i % 2)), `Innbetaling ${customer} KID ${kid}`, [
        [demoGlAccount, gross],
        ['1500', gross.negated()],
      ]);
    });

    // Supplier invoices paid by bank transfer.
    suppliers.forEach((supplier, i) => {
      const net = new Decimal(3100 + 1450 * i + 210 * month);
      const vat = net.times('0.25');
      const gross = net.plus(vat);
      post(month, day(month, 4 + i), `Leverandørfaktura ${supplier}`, [
        ['4000', net, { taxCode: '1', taxAmount: vat }],
        ['2710', vat],
        ['2400', gross.negated()],
      ]);
      const paidDay = 18 + i;
      entry(paidDay, gross.negated(), `Betaling ${supplier}`, { counterpartyName: supplier });
      post(month, day(month, paidDay), `Betaling ${supplier}`, [
        ['2400', gross],
        [demoGlAccount, gross.negated()],
      ]);
    });

    // Rent and salaries.
    const rent = new Decimal('18000.00');
    entry(1, rent.negated(), 'Husleie Solsiden Eiendom AS', { counterpartyName: 'Solsiden Eiendom AS' });
    post(month, day(month, 1), 'Husleie', [['6300', rent], [demoGlAccount, rent.negated()]]);
    const salary = new Decimal('42310.00');
    entry(25, salary.negated(), 'Lønn', { counterpartyName: 'Bakeriet Solsiden AS' });
    post(month, day(month, 25), 'Lønnsutbetaling', [['5000', salary], [demoGlAccount, salary.negated()]]);

    // Bank fee; in March the ledger dated it a week before the bank booked it (outside the window).
    const fee = new Decimal('89.00');
    entry(28, fee.negated(), 'Gebyr nettbank');
    post(month, day(month, month === 3 ? 21 : 28), 'Bankgebyr', [['7770', fee], [demoGlAccount, fee.negated()]]);

    // February: two identical card payments in one week: ambiguous for the engine.
    if (month === 2) {
      for (const d of [12, 13]) {
        const course = new Decimal('250.00');
        entry(d, course.negated(), 'Kortkjøp Kursportalen');
        post(month, day(month, d), 'Kurs hygiene', [['6860', course], [demoGlAccount, course.negated()]]);
      }
    }

    const opening = balance;
    balance = entries.reduce((sum, e) => sum.plus(e.amount), balance);
    statements.push({
      messageId: `SOLSIDEN-${demoYear}${String(month).padStart(2, '0')}`,
      statementId: `${bankAccount}-${demoYear}-${String(month).padStart(2, '0')}`,
      iban,
      accountName: 'Driftskonto',
      ownerName: 'Bakeriet Solsiden AS',
      currency: 'NOK',
      fromDate: day(month, 1),
      toDate: new Date(Date.UTC(demoYear, month, 0)).toISOString().slice(0, 10),
      openingBalance: money(opening),
      entries: entries.sort((a, b) => a.bookingDate.localeCompare(b.bookingDate)),
    });
  }
  // April: a GL receipt with no bank transaction yet (the bank has not booked it).
  post(4, day(4, 29), 'Kontantinnskudd', [[demoGlAccount, new Decimal('5000.00')], ['1500', new Decimal('-5000.00')]]);
  return { statements, lines };
};

export interface DemoBooksResult {
  bankAccounts: { id: string; companyId: string; accountNumber: string; glAccountCode: string }[];
  reconciliations: { id: string; companyId: string; bankAccountId: string }[];
  autoReconciliation: string | null;
}

const waitForImport = async (companyId: string, importId: string) => {
  for (let attempt = 0; attempt < 600; attempt++) {
    const record = await getImport(companyId, importId);
    if (record.status !== 'queued') return record;
    await sleep(100);
  }
  throw new Error(`Demo import ${importId} did not finish in 60 s`);
};

/** Loads the demo books into a company (bound to Api); the stack's queue workers must be running. */
export const seedDemoBooks = async (principal: Principal, companyId: string): Promise<DemoBooksResult> => {
  const { statements, lines } = demoBooks();
  for (const statement of statements) await ingestBankStatement(companyId, buildCamt053(statement), { glAccountCode: demoGlAccount, source: 'demo' });
  const company = await companyRepository.get(companyId);
  if (!company) throw new Error(`Demo company ${companyId} does not exist`);
  const accounts = await submitImport(principal, company, importKind('accounts'), {
    year: demoYear,
    accounts: chart.map(([accountCode, accountDescription, accountCategory]) => ({ accountCode, accountDescription, accountCategory, currencyCode: 'NOK' })),
  });
  await waitForImport(companyId, accounts.id);
  const glImport = await submitImport(principal, company, importKind('general_ledger_lines'), { year: demoYear, lines });
  await waitForImport(companyId, glImport.id);
  let autoReconciliation: string | null = null;
  for (let attempt = 0; attempt < 600 && autoReconciliation === null; attempt++) {
    const run = (await listFetchRuns(principal, companyId, { page_size: 1 })).data[0];
    autoReconciliation = run?.engines.find((engine) => engine.name === 'auto_reconciliation')?.detail ?? null;
    if (autoReconciliation === null) await sleep(100);
  }
  for (const period of [1, 2]) await setPeriodApproval(companyId, { glAccountCode: demoGlAccount, year: demoYear, period, status: 'approved', by: 'seed' });
  const bankAccounts = (await bankRepository.listAccounts(companyId)).map((item) => ({
    id: String(item.id),
    companyId,
    accountNumber: String(item.accountNumber),
    glAccountCode: String(item.glAccountCode),
  }));
  const groups = bankAccounts.length ? await bankRepository.groupsOf(companyId, bankAccounts[0]!.id, demoYear) : [];
  return {
    bankAccounts,
    reconciliations: groups.slice(0, 1).map((item) => ({ id: String(item.id), companyId, bankAccountId: String(item.bankAccountId) })),
    autoReconciliation,
  };
};
