import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCamt053, type DemoStatement } from '../../infra/local/demo-statements';
import { isValidNorwegianAccountNumber, normalizeIban, norwegianAccountNumberOfIban } from '../../shared/bank/account-number';
import { Camt053Error, maxCamt053Bytes, maxCamt053Entries, parseCamt053, type BankStatement, type StatementEntry } from '../../shared/bank/camt053';
import { Decimal } from '../../shared/platform/money';

const fixtures = join(import.meta.dirname, '../fixtures/camt053');
const fixture = (name: string) => readFileSync(join(fixtures, name));
const fixtureText = (name: string) => readFileSync(join(fixtures, name), 'utf8');

const ns02 = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.02';
const ns08 = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.08';

/** A minimal camt.053 document around the given Stmt elements. */
const camt = (statements: string, namespace = ns02) =>
  `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="${namespace}"><BkToCstmrStmt>` +
  `<GrpHdr><MsgId>M1</MsgId><CreDtTm>2026-02-01T06:00:00</CreDtTm></GrpHdr>${statements}</BkToCstmrStmt></Document>`;

const account = '<Acct><Id><IBAN>NO7215031234562</IBAN></Id></Acct>';
const stmt = (content: string, head = '<Id>S1</Id>') => `<Stmt>${head}${account}${content}</Stmt>`;

interface EntryParts {
  amount?: string;
  indicator?: string;
  status?: string;
  booking?: string;
  rest?: string;
}
const ntry = ({
  amount = '<Amt Ccy="NOK">100.00</Amt>',
  indicator = '<CdtDbtInd>CRDT</CdtDbtInd>',
  status = '<Sts>BOOK</Sts>',
  booking = '<BookgDt><Dt>2026-01-05</Dt></BookgDt>',
  rest = '',
}: EntryParts = {}) => `<Ntry>${amount}${indicator}${status}${booking}${rest}</Ntry>`;

const oneEntry = (parts: EntryParts, namespace = ns02): StatementEntry => parseCamt053(camt(stmt(ntry(parts)), namespace))[0]!.entries[0]!;

const camtError = (xml: string | Buffer): Camt053Error => {
  try {
    parseCamt053(xml);
  } catch (error) {
    expect(error).toBeInstanceOf(Camt053Error);
    return error as Camt053Error;
  }
  throw new Error('expected a Camt053Error, but the document parsed');
};

const money = (value: Decimal | undefined) => value?.toFixed(2);

describe('camt.053.001.02: statement-2026-01.xml', () => {
  const statements = parseCamt053(fixture('statement-2026-01.xml'));
  const statement = statements[0]!;

  it('reads the group header, the statement and the account', () => {
    expect(statements).toHaveLength(1);
    expect(statement).toMatchObject({
      messageId: 'DNB-CAMT053-20260201-0001',
      createdAt: '2026-02-01T06:15:02.123+01:00',
      statementId: '15031234562-2026-01',
      sequenceNumber: '0031',
      fromDate: '2026-01-01',
      toDate: '2026-01-31',
    });
    expect(statement.account).toEqual({
      iban: 'NO7215031234562',
      bban: null,
      currency: 'NOK',
      name: 'Driftskonto',
      ownerName: 'Fjellbekk Kraft AS',
      bic: 'DNBANOKKXXX',
    });
    expect(norwegianAccountNumberOfIban(statement.account.iban!)).toBe('15031234562');
  });

  it('reads OPBD and CLBD (not CLAV) as Decimal with their dates', () => {
    expect(statement.openingBalance?.amount).toBeInstanceOf(Decimal);
    expect(money(statement.openingBalance?.amount)).toBe('245310.75');
    expect(statement.openingBalance?.date).toBe('2026-01-01');
    expect(money(statement.closingBalance?.amount)).toBe('244268.35');
    expect(statement.closingBalance?.date).toBe('2026-01-31');
  });

  it('has balances consistent with the booked entries', () => {
    const booked = statement.entries.filter((entry) => entry.status === 'BOOK');
    expect(booked).toHaveLength(8);
    const sum = booked.reduce((total, entry) => total.plus(entry.amount), new Decimal(0));
    expect(statement.openingBalance!.amount.plus(sum).equals(statement.closingBalance!.amount)).toBe(true);
  });

  it('signs amounts by CdtDbtInd and keeps them exact', () => {
    expect(statement.entries.map((entry) => money(entry.amount))).toEqual([
      '12500.00', '-3749.90', '-129.00', '8125.50', '-1250.00', '22000.00', '-38450.00', '-89.00', '-5000.00',
    ]);
    expect(statement.entries.every((entry) => entry.amount instanceof Decimal && entry.currency === 'NOK')).toBe(true);
  });

  it('numbers entries from 1 and reads every AcctSvcrRef of a booked entry', () => {
    expect(statement.entries.map((entry) => entry.index)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(statement.entries.map((entry) => entry.entryReference)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', null]);
    const references = statement.entries.filter((entry) => entry.status === 'BOOK').map((entry) => entry.accountServicerReference);
    expect(new Set(references).size).toBe(8);
    expect(references.every((reference) => reference !== null)).toBe(true);
  });

  it('maps a customer payment with KID (credit: the debtor is the counterparty)', () => {
    expect(statement.entries[0]).toEqual({
      index: 1,
      entryReference: '1',
      accountServicerReference: '2026010500012345',
      amount: expect.any(Decimal),
      currency: 'NOK',
      status: 'BOOK',
      bookingDate: '2026-01-05',
      valueDate: '2026-01-05',
      description: 'Innbetaling KID',
      reference: '2026001046', // CdtrRefInf/Ref wins over EndToEndId
      counterpartyName: 'Nordlys Bygg AS',
      counterpartyAccount: 'NO5912065588127',
      bankTransactionCode: 'PMNT/RCDT/DMCT',
    });
  });

  it('maps a supplier payment (debit: the creditor is the counterparty) and decodes entities', () => {
    expect(statement.entries[1]).toMatchObject({
      reference: '175002310',
      counterpartyName: 'Bergen Kontor & Papir AS',
      counterpartyAccount: 'NO4160110543215',
      bankTransactionCode: 'PMNT/ICDT/DMCT',
      description: 'Betaling med KID',
    });
  });

  it('maps a card fee without transaction details', () => {
    expect(statement.entries[2]).toMatchObject({
      description: 'Kortgebyr Visa Business januar',
      reference: null,
      counterpartyName: null,
      counterpartyAccount: null,
      bankTransactionCode: 'ACMT/MDOP/CHRG',
    });
  });

  it('keeps the leading zeros of a KID and reads a BBAN counterparty account', () => {
    expect(statement.entries[3]).toMatchObject({
      reference: '0004711008',
      counterpartyName: 'Hansen Rørlegger AS',
      counterpartyAccount: '15039876547',
      bookingDate: '2026-01-12',
      valueDate: '2026-01-13',
      description: null,
    });
  });

  it('falls back to the Ustrd texts joined with a space, and to EndToEndId as the reference', () => {
    expect(statement.entries[5]).toMatchObject({
      description: 'Faktura 10234 og 10235',
      reference: 'KN-2026-0120',
      counterpartyName: 'Kari Nordmann',
      counterpartyAccount: '15031234538',
    });
  });

  it('prefers AddtlNtryInf over Ustrd and ignores EndToEndId NOTPROVIDED', () => {
    expect(statement.entries[6]).toMatchObject({
      description: 'Lønn januar 2026',
      reference: null,
      counterpartyName: 'Ola Nordmann',
      bankTransactionCode: 'PMNT/ICDT/SALA',
    });
  });

  it('cuts the joined remittance lines to 4000 characters (the read shape)', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `<Ustrd>${String(i).padStart(139, '-')}</Ustrd>`).join('');
    const joined = oneEntry({ rest: `<NtryDtls><TxDtls><RmtInf>${lines}</RmtInf></TxDtls></NtryDtls>` }).description!;
    expect(joined).toHaveLength(4000);
    expect(joined.endsWith('…')).toBe(true);
  });

  it('reads a proprietary bank transaction code when there is no Domn', () => {
    expect(statement.entries[7]!.bankTransactionCode).toBe('GEBYR');
  });

  it('reads a pending entry; without BookgDt its booking date is the value date', () => {
    expect(statement.entries[8]).toMatchObject({
      status: 'PDNG',
      accountServicerReference: null,
      bookingDate: '2026-02-02',
      valueDate: '2026-02-02',
      description: 'Forfallsregister: Fjordkraft AS',
      counterpartyName: 'Fjordkraft AS',
    });
  });

  it('uses valid Norwegian account numbers and IBANs throughout the fixture', () => {
    for (const entry of statement.entries) {
      const accountText = entry.counterpartyAccount;
      if (accountText === null) continue;
      if (accountText.startsWith('NO')) expect(normalizeIban(accountText)).toBe(accountText);
      else expect(isValidNorwegianAccountNumber(accountText)).toBe(true);
    }
  });

  it('reads a string the same as a Buffer', () => {
    expect(parseCamt053(fixtureText('statement-2026-01.xml'))).toEqual(statements);
  });
});

describe('statement-2026-01-amended.xml', () => {
  const original = parseCamt053(fixture('statement-2026-01.xml'))[0]!;
  const amended = parseCamt053(fixture('statement-2026-01-amended.xml'))[0]!;

  it('keeps the statement id and every AcctSvcrRef; only entry 4 changed amount', () => {
    expect(amended.statementId).toBe(original.statementId);
    expect(amended.messageId).not.toBe(original.messageId);
    expect(amended.entries.map((entry) => entry.accountServicerReference)).toEqual(original.entries.map((entry) => entry.accountServicerReference));
    const changed = amended.entries.filter((entry, i) => !entry.amount.equals(original.entries[i]!.amount));
    expect(changed.map((entry) => [entry.index, money(entry.amount)])).toEqual([[4, '8152.50']]);
    expect(amended.entries.map(({ amount: _amount, ...rest }) => rest)).toEqual(original.entries.map(({ amount: _amount, ...rest }) => rest));
  });

  it('has a closing balance consistent with the corrected entry', () => {
    const sum = amended.entries.filter((entry) => entry.status === 'BOOK').reduce((total, entry) => total.plus(entry.amount), new Decimal(0));
    expect(amended.openingBalance!.amount.plus(sum).equals(amended.closingBalance!.amount)).toBe(true);
    expect(money(amended.closingBalance!.amount)).toBe('244295.35');
  });
});

describe('camt.053.001.08: statement-v08.xml', () => {
  const statements = parseCamt053(fixture('statement-v08.xml'));
  const [operating, withholding] = statements as [BankStatement, BankStatement];

  it('reads two statements for two accounts', () => {
    expect(statements).toHaveLength(2);
    expect(statements.map((statement) => statement.messageId)).toEqual(['SMN20260201053000417', 'SMN20260201053000417']);
    expect(operating).toMatchObject({
      statementId: '12065588127-20260131',
      sequenceNumber: '12',
      createdAt: '2026-02-01T05:30:00+01:00',
      fromDate: '2026-01-01',
      toDate: '2026-01-31',
    });
    expect(operating.account).toEqual({
      iban: 'NO5912065588127',
      bban: null,
      currency: 'NOK',
      name: 'Brukskonto bedrift',
      ownerName: 'Nordlys Bygg AS',
      bic: 'SPTRNO22XXX',
    });
    expect(withholding.statementId).toBe('30002456784-20260131');
    expect(withholding.account).toEqual({
      iban: null,
      bban: '30002456784',
      currency: 'NOK',
      name: 'Skattetrekkskonto',
      ownerName: 'Nordlys Bygg AS',
      bic: 'SPTRNO22XXX',
    });
  });

  it('reads balances dated by DtTm, and PRCD when there is no OPBD', () => {
    expect(operating.openingBalance).toEqual({ amount: expect.any(Decimal), date: '2026-01-01' });
    expect(money(operating.openingBalance!.amount)).toBe('152340.00');
    expect(money(operating.closingBalance!.amount)).toBe('166440.00');
    expect(operating.closingBalance!.date).toBe('2026-01-31');
    expect(money(withholding.openingBalance!.amount)).toBe('21500.00');
    expect(withholding.openingBalance!.date).toBe('2025-12-31');
    for (const statement of statements) {
      const sum = statement.entries.filter((entry) => entry.status === 'BOOK').reduce((total, entry) => total.plus(entry.amount), new Decimal(0));
      expect(statement.openingBalance!.amount.plus(sum).equals(statement.closingBalance!.amount)).toBe(true);
    }
  });

  it('reads Sts/Cd, the date part of BookgDt/DtTm and ValDt/DtTm, and Pty-nested names', () => {
    expect(operating.entries[0]).toEqual({
      index: 1,
      entryReference: '000001',
      accountServicerReference: 'SMN-2026-0105-884201',
      amount: expect.any(Decimal),
      currency: 'NOK',
      status: 'BOOK',
      bookingDate: '2026-01-05',
      valueDate: '2026-01-05',
      description: null,
      reference: '2026001046',
      counterpartyName: 'Fjellbekk Kraft AS',
      counterpartyAccount: 'NO7215031234562',
      bankTransactionCode: 'PMNT/ICDT/DMCT',
    });
    expect(money(operating.entries[0]!.amount)).toBe('-12500.00');
    expect(operating.entries[1]).toMatchObject({
      status: 'BOOK',
      bookingDate: '2026-01-14',
      valueDate: '2026-01-14',
      description: 'Innbetaling KID 001239870',
      reference: '001239870',
      counterpartyName: 'Trondheim Eiendom AS',
      counterpartyAccount: '15064012344',
      bankTransactionCode: 'PMNT/RCDT/DMCT', // Domn wins over Prtry
    });
    expect(money(operating.entries[1]!.amount)).toBe('45000.00');
    expect(operating.entries[2]).toMatchObject({ description: 'Skattetrekk januar 2026', reference: null, counterpartyAccount: '30002456784' });
    expect(operating.entries[3]).toMatchObject({ status: 'PDNG', bookingDate: '2026-01-31', valueDate: null, bankTransactionCode: 'PMNT/CCRD/POSD' });
  });

  it('reads the second statement independently, numbering its entries from 1', () => {
    expect(withholding.entries.map((entry) => [entry.index, money(entry.amount), entry.counterpartyName, entry.reference])).toEqual([
      [1, '-21500.00', 'Skatteetaten', '20260115991'],
      [2, '18400.00', 'Nordlys Bygg AS', null],
    ]);
  });
});

describe('parsing details', () => {
  it('accepts any camt.053.001.xx namespace and a namespace prefix', () => {
    const prefixed =
      `<?xml version="1.0"?><ns2:Document xmlns:ns2="urn:iso:std:iso:20022:tech:xsd:camt.053.001.04"><ns2:BkToCstmrStmt>` +
      `<ns2:GrpHdr><ns2:MsgId>M9</ns2:MsgId></ns2:GrpHdr><ns2:Stmt><ns2:Id>S9</ns2:Id>` +
      `<ns2:Acct><ns2:Id><ns2:IBAN>NO7215031234562</ns2:IBAN></ns2:Id></ns2:Acct>` +
      `<ns2:Ntry><ns2:Amt Ccy="NOK">10.00</ns2:Amt><ns2:CdtDbtInd>DBIT</ns2:CdtDbtInd><ns2:Sts>BOOK</ns2:Sts>` +
      `<ns2:BookgDt><ns2:Dt>2026-01-05</ns2:Dt></ns2:BookgDt></ns2:Ntry></ns2:Stmt></ns2:BkToCstmrStmt></ns2:Document>`;
    const [statement] = parseCamt053(prefixed);
    expect(statement).toMatchObject({ messageId: 'M9', statementId: 'S9', createdAt: null, fromDate: null, toDate: null });
    expect(money(statement!.entries[0]!.amount)).toBe('-10.00');
    expect(statement!.openingBalance).toBeNull();
    expect(statement!.closingBalance).toBeNull();
  });

  it('accepts amounts like "1234.5", "0.00" and five decimals', () => {
    expect(oneEntry({ amount: '<Amt Ccy="NOK">1234.5</Amt>' }).amount.toString()).toBe('1234.5');
    const zero = oneEntry({ amount: '<Amt Ccy="NOK">0.00</Amt>', indicator: '<CdtDbtInd>DBIT</CdtDbtInd>' }).amount;
    expect(zero.isZero()).toBe(true);
    expect(zero.toFixed(2)).toBe('0.00');
    expect(oneEntry({ amount: '<Amt Ccy="NOK">0.12345</Amt>' }).amount.toString()).toBe('0.12345');
    expect(oneEntry({ amount: '<Amt Ccy="NOK">  17 </Amt>' }).amount.toString()).toBe('17');
    expect(oneEntry({ amount: '<Amt Ccy="NOK">12345678901234567.8</Amt>' }).amount.toFixed(1)).toBe('12345678901234567.8');
  });

  it('reads INFO and PDNG in both Sts forms', () => {
    expect(oneEntry({ status: '<Sts>INFO</Sts>' }).status).toBe('INFO');
    expect(oneEntry({ status: '<Sts><Cd>PDNG</Cd></Sts>' }, ns08).status).toBe('PDNG');
  });

  it('dates a pending entry with neither BookgDt nor ValDt by the statement period', () => {
    const xml = camt(stmt(ntry({ status: '<Sts>PDNG</Sts>', booking: '' }), '<Id>S1</Id><FrToDt><FrDtTm>2026-01-01T00:00:00</FrDtTm><ToDtTm>2026-01-31T23:59:59</ToDtTm></FrToDt>'));
    expect(parseCamt053(xml)[0]!.entries[0]!.bookingDate).toBe('2026-01-31');
  });

  it('reads a debit balance as negative', () => {
    const balance = '<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="NOK">1500.25</Amt><CdtDbtInd>DBIT</CdtDbtInd><Dt><Dt>2026-01-01</Dt></Dt></Bal>';
    const prcd = '<Bal><Tp><CdOrPrtry><Cd>PRCD</Cd></CdOrPrtry></Tp><Amt Ccy="NOK">9.99</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2025-12-31</Dt></Dt></Bal>';
    const [statement] = parseCamt053(camt(stmt(prcd + balance)));
    expect(money(statement!.openingBalance!.amount)).toBe('-1500.25'); // OPBD wins over PRCD
  });

  it('joins the Domn codes and falls back to Prtry/Cd', () => {
    const domain = '<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>DMCT</SubFmlyCd></Fmly></Domn></BkTxCd>';
    expect(oneEntry({ rest: `<AcctSvcrRef>A1</AcctSvcrRef>${domain}` }).bankTransactionCode).toBe('PMNT/RCDT/DMCT');
    expect(oneEntry({ rest: '<BkTxCd><Prtry><Cd>230</Cd><Issr>NO</Issr></Prtry></BkTxCd>' }).bankTransactionCode).toBe('230');
    expect(oneEntry({}).bankTransactionCode).toBeNull();
  });

  it('reads the counterparty of the first TxDtls only, from Dbtr for credits and Cdtr for debits', () => {
    const details =
      '<NtryDtls><TxDtls><RltdPties><Dbtr><Nm>Betaler AS</Nm></Dbtr><DbtrAcct><Id><IBAN>NO9386011117947</IBAN></Id></DbtrAcct>' +
      '<Cdtr><Nm>Mottaker AS</Nm></Cdtr><CdtrAcct><Id><Othr><Id>15031234562</Id></Othr></Id></CdtrAcct></RltdPties>' +
      '<RmtInf><Ustrd>første</Ustrd></RmtInf></TxDtls><TxDtls><RmtInf><Ustrd>andre</Ustrd></RmtInf></TxDtls></NtryDtls>';
    expect(oneEntry({ rest: details })).toMatchObject({ counterpartyName: 'Betaler AS', counterpartyAccount: 'NO9386011117947', description: 'første' });
    expect(oneEntry({ rest: details, indicator: '<CdtDbtInd>DBIT</CdtDbtInd>' })).toMatchObject({
      counterpartyName: 'Mottaker AS',
      counterpartyAccount: '15031234562',
    });
  });

  it('decodes character references (&#248; is ø) and refuses one that decodes to a character the text rule refuses', () => {
    expect(oneEntry({ rest: '<AddtlNtryInf>S&#248;r &#xE6;re &amp; takk</AddtlNtryInf>' }).description).toBe('Sør ære & takk');
    expect(camtError(camt(stmt(ntry({ rest: '<AddtlNtryInf>x&#x202E;y</AddtlNtryInf>' })))).message).toMatch(/AddtlNtryInf/);
  });

  it('reads a UTF-8 Buffer with a byte-order mark', () => {
    const xml = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), fixture('statement-2026-01.xml')]);
    expect(parseCamt053(xml)[0]!.statementId).toBe('15031234562-2026-01');
  });
});

describe('Camt053Error', () => {
  it('refuses an empty file', () => {
    expect(camtError('').message).toBe('The file is empty');
    expect(camtError(Buffer.alloc(0)).message).toBe('The file is empty');
    expect(camtError('  \n ').message).toBe('The file is empty');
  });

  it('refuses XML that is not well-formed, with the line number', () => {
    const error = camtError(fixture('not-well-formed.xml'));
    expect(error.message).toMatch(/^Not well-formed XML at line 16, column \d+: /);
    expect(error.message).toContain("'Amnt'");
    expect(camtError('not xml at all').message).toMatch(/^Not well-formed XML at line 1/);
  });

  it('refuses a Buffer that is not UTF-8', () => {
    expect(camtError(Buffer.from([0x3c, 0x61, 0x3e, 0xff, 0x3c, 0x2f, 0x61, 0x3e])).message).toBe('The file is not valid UTF-8 text');
  });

  it('refuses a camt.052 report by name', () => {
    expect(camtError(fixture('camt052.xml')).message).toBe(
      'Not a camt.053 statement: the file is a camt.052.001.02 message (Document/BkToCstmrAcctRpt, namespace urn:iso:std:iso:20022:tech:xsd:camt.052.001.02)',
    );
  });

  it('refuses a pain.001 payment order by name', () => {
    const pain = '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"><CstmrCdtTrfInitn><GrpHdr><MsgId>P1</MsgId></GrpHdr></CstmrCdtTrfInitn></Document>';
    expect(camtError(pain).message).toBe(
      'Not a camt.053 statement: the file is a pain.001.001.03 message (Document/CstmrCdtTrfInitn, namespace urn:iso:std:iso:20022:tech:xsd:pain.001.001.03)',
    );
  });

  it('refuses other roots and namespaces, saying what they are', () => {
    expect(camtError('<Invoice><Id>1</Id></Invoice>').message).toBe(
      'Not a camt.053 statement: the root element is Invoice/Id without a namespace; expected Document/BkToCstmrStmt in a camt.053.001.xx namespace',
    );
    expect(camtError('<Document xmlns="urn:example"><BkToCstmrStmt/></Document>').message).toBe(
      'Not a camt.053 statement: the root element is Document/BkToCstmrStmt in namespace urn:example; expected Document/BkToCstmrStmt in a camt.053.001.xx namespace',
    );
    expect(camtError(`<Document xmlns="${ns02}"><BkToCstmrAcctRpt/></Document>`).message).toBe(
      'Not a camt.053 statement: the root element is Document/BkToCstmrAcctRpt; expected Document/BkToCstmrStmt',
    );
    expect(camtError(`<Document xmlns="${ns02}"/><Document xmlns="${ns02}"/>`).message).toBe('The XML has 2 root elements (Document, Document); expected one Document');
  });

  it('refuses a message without MsgId or without Stmt', () => {
    expect(camtError(`<Document xmlns="${ns02}"><BkToCstmrStmt><GrpHdr/></BkToCstmrStmt></Document>`).message).toBe('GrpHdr/MsgId is missing');
    expect(camtError(camt('')).message).toBe('BkToCstmrStmt has no Stmt');
  });

  it('refuses a Stmt without Id, naming the statement', () => {
    expect(camtError(camt(stmt('') + stmt('', ''))).message).toBe('Stmt 2: Id is missing');
  });

  it('refuses an account without identification', () => {
    expect(camtError(camt('<Stmt><Id>S1</Id><Acct><Ccy>NOK</Ccy></Acct></Stmt>')).message).toBe(
      'Stmt 1: Acct has no identification (neither Id/IBAN nor Id/Othr/Id)',
    );
    expect(camtError(camt('<Stmt><Id>S1</Id></Stmt>')).message).toBe('Stmt 1: Acct is missing');
  });

  it('refuses an entry without Amt (fixture)', () => {
    expect(camtError(fixture('missing-amount.xml')).message).toBe('Stmt 1 Ntry 2: Amt is missing');
  });

  it('refuses an invalid CdtDbtInd (fixture) or none', () => {
    expect(camtError(fixture('bad-indicator.xml')).message).toBe('Stmt 1 Ntry 1: CdtDbtInd must be CRDT or DBIT, not "CREDIT"');
    expect(camtError(camt(stmt(ntry() + ntry({ indicator: '' })))).message).toBe('Stmt 1 Ntry 2: CdtDbtInd is missing');
  });

  it.each([
    ['12,50', 'Stmt 1 Ntry 1: Amt is not a decimal: "12,50"'],
    ['1e3', 'Stmt 1 Ntry 1: Amt is not a decimal: "1e3"'],
    ['12.', 'Stmt 1 Ntry 1: Amt is not a decimal: "12."'],
    ['NOK 100', 'Stmt 1 Ntry 1: Amt is not a decimal: "NOK 100"'],
    ['-12.50', 'Stmt 1 Ntry 1: Amt is negative ("-12.50"); the sign belongs in CdtDbtInd'],
    ['1.123456', 'Stmt 1 Ntry 1: Amt has more than 5 decimals: "1.123456"'],
    ['1234567890123456789', 'Stmt 1 Ntry 1: Amt has more than 18 digits: "1234567890123456789"'],
    ['', 'Stmt 1 Ntry 1: Amt is empty'],
  ])('refuses the amount %j', (amount, message) => {
    expect(camtError(camt(stmt(ntry({ amount: `<Amt Ccy="NOK">${amount}</Amt>` })))).message).toBe(message);
  });

  it('refuses an amount without a currency', () => {
    expect(camtError(camt(stmt(ntry({ amount: '<Amt>10.00</Amt>' })))).message).toBe('Stmt 1 Ntry 1: Amt has no Ccy attribute');
    expect(camtError(camt(stmt(ntry({ amount: '<Amt Ccy="kr">10.00</Amt>' })))).message).toBe('Stmt 1 Ntry 1: Amt Ccy is not a currency code: "kr"');
  });

  it('refuses a malformed balance, naming it', () => {
    const balance = '<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="NOK">1 000,00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-01-31</Dt></Dt></Bal>';
    expect(camtError(camt(stmt(balance))).message).toBe('Stmt 1 Bal 1 (CLBD): Amt is not a decimal: "1 000,00"');
    const undated = '<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="NOK">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal>';
    expect(camtError(camt(stmt(undated))).message).toBe('Stmt 1 Bal 1 (OPBD): Dt is missing');
  });

  it('refuses a booked entry without booking date', () => {
    expect(camtError(camt(stmt(ntry({ booking: '' })))).message).toBe('Stmt 1 Ntry 1: booked entry (Sts BOOK) has no BookgDt');
    expect(camtError(camt(stmt(ntry({ booking: '<BookgDt></BookgDt>' })))).message).toBe('Stmt 1 Ntry 1: BookgDt has neither Dt nor DtTm');
  });

  it('refuses a missing or unknown status', () => {
    expect(camtError(camt(stmt(ntry({ status: '' })))).message).toBe('Stmt 1 Ntry 1: Sts is missing');
    expect(camtError(camt(stmt(ntry({ status: '<Sts><Cd>XXXX</Cd></Sts>' })), ns08)).message).toBe(
      'Stmt 1 Ntry 1: Sts must be BOOK, PDNG, INFO or FUTR, not "XXXX"',
    );
  });

  it('reads a future-dated entry (camt.053.001.08 FUTR) as not booked', () => {
    const [statement] = parseCamt053(camt(stmt(ntry({ status: '<Sts><Cd>FUTR</Cd></Sts>' })), ns08));
    expect(statement!.entries[0]!.status).toBe('FUTR');
  });

  it.each([
    ['<BookgDt><Dt>2026-02-30</Dt></BookgDt>', 'Stmt 1 Ntry 1: BookgDt/Dt is not a valid ISO date: "2026-02-30"'],
    ['<BookgDt><Dt>05.01.2026</Dt></BookgDt>', 'Stmt 1 Ntry 1: BookgDt/Dt is not a valid ISO date: "05.01.2026"'],
    ['<BookgDt><DtTm>2026-01-05 10:00</DtTm></BookgDt>', 'Stmt 1 Ntry 1: BookgDt/DtTm is not a valid ISO date-time: "2026-01-05 10:00"'],
    ['<BookgDt><DtTm>2026-01-05T25:00:00</DtTm></BookgDt>', 'Stmt 1 Ntry 1: BookgDt/DtTm is not a valid ISO date-time: "2026-01-05T25:00:00"'],
    ['<BookgDt><Dt>2026-01-05</Dt></BookgDt><ValDt><Dt>2026-13-01</Dt></ValDt>', 'Stmt 1 Ntry 1: ValDt/Dt is not a valid ISO date: "2026-13-01"'],
  ])('refuses the date in %s', (booking, message) => {
    expect(camtError(camt(stmt(ntry({ booking })))).message).toBe(message);
  });

  it('refuses an invalid statement period', () => {
    const head = '<Id>S1</Id><FrToDt><FrDtTm>2026-01-01</FrDtTm><ToDtTm>2026-01-31T23:59:59</ToDtTm></FrToDt>';
    expect(camtError(camt(stmt('', head))).message).toBe('Stmt 1: FrToDt/FrDtTm is not a valid ISO date-time: "2026-01-01"');
  });

  it('throws only Camt053Error on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        try {
          parseCamt053(text);
        } catch (error) {
          expect(error).toBeInstanceOf(Camt053Error);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('throws only Camt053Error on any truncation or dropped element of a real statement', () => {
    const source = fixtureText('statement-v08.xml');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: source.trimEnd().length - 1 }), (cut) => {
        expect(() => parseCamt053(source.slice(0, cut))).toThrow(Camt053Error);
      }),
      { numRuns: 150 },
    );
    const openings = [...source.matchAll(/<([A-Za-z]+)[ >]/g)].map((match) => ({ name: match[1]!, at: match.index }));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: openings.length - 1 }), (i) => {
        const { name, at } = openings[i]!;
        const end = source.indexOf(`</${name}>`, at) + name.length + 3;
        const dropped = source.slice(0, at) + source.slice(end);
        try {
          parseCamt053(dropped);
        } catch (error) {
          expect(error).toBeInstanceOf(Camt053Error);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('ISO 20022 limits and the text rule (the whole file refused, naming the element)', () => {
  const party = '<RltdPties><Dbtr><Nm>Ola Nordmann</Nm></Dbtr></RltdPties>';
  const details = (inner: string) => `<NtryDtls><TxDtls>${inner}</TxDtls></NtryDtls>`;
  /** A statement with one element set to `value`, and the message that names it. */
  const cases: [string, (value: string) => string, string][] = [
    ['GrpHdr/MsgId', (v) => camt(stmt(ntry())).replace('<MsgId>M1</MsgId>', `<MsgId>${v}</MsgId>`), 'GrpHdr: MsgId'],
    ['Stmt/Id', (v) => camt(stmt(ntry(), `<Id>${v}</Id>`)), 'Stmt 1: Id'],
    ['Ntry/NtryRef', (v) => camt(stmt(ntry({ rest: `<NtryRef>${v}</NtryRef>` }))), 'Stmt 1 Ntry 1: NtryRef'],
    ['Ntry/AcctSvcrRef', (v) => camt(stmt(ntry({ rest: `<AcctSvcrRef>${v}</AcctSvcrRef>` }))), 'Stmt 1 Ntry 1: AcctSvcrRef'],
    ['Ntry/AddtlNtryInf', (v) => camt(stmt(ntry({ rest: `<AddtlNtryInf>${v}</AddtlNtryInf>` }))), 'Stmt 1 Ntry 1: AddtlNtryInf'],
    ['RmtInf/Ustrd', (v) => camt(stmt(ntry({ rest: details(`<RmtInf><Ustrd>ok</Ustrd><Ustrd>${v}</Ustrd></RmtInf>`) }))), 'Stmt 1 Ntry 1 NtryDtls/TxDtls: RmtInf/Ustrd'],
    ['CdtrRefInf/Ref', (v) => camt(stmt(ntry({ rest: details(`<RmtInf><Strd><CdtrRefInf><Ref>${v}</Ref></CdtrRefInf></Strd></RmtInf>`) }))), 'Stmt 1 Ntry 1 NtryDtls/TxDtls RmtInf/Strd: CdtrRefInf/Ref'],
    ['Refs/EndToEndId', (v) => camt(stmt(ntry({ rest: details(`<Refs><EndToEndId>${v}</EndToEndId></Refs>`) }))), 'Stmt 1 Ntry 1 NtryDtls/TxDtls: Refs/EndToEndId'],
    ['Dbtr/Nm', (v) => camt(stmt(ntry({ rest: details(party.replace('Ola Nordmann', v)) }))), 'Stmt 1 Ntry 1 NtryDtls/TxDtls/RltdPties: Dbtr/Nm'],
    ['BkTxCd/Prtry/Cd', (v) => camt(stmt(ntry({ rest: `<BkTxCd><Prtry><Cd>${v}</Cd></Prtry></BkTxCd>` }))), 'Stmt 1 Ntry 1 BkTxCd: Prtry/Cd'],
    ['Acct/Nm', (v) => camt(`<Stmt><Id>S1</Id><Acct><Id><IBAN>NO7215031234562</IBAN></Id><Nm>${v}</Nm></Acct></Stmt>`), 'Stmt 1 Acct: Nm'],
    ['Acct/Ownr/Nm', (v) => camt(`<Stmt><Id>S1</Id><Acct><Id><IBAN>NO7215031234562</IBAN></Id><Ownr><Nm>${v}</Nm></Ownr></Acct></Stmt>`), 'Stmt 1 Acct: Ownr/Nm'],
    ['Acct/Id/Othr/Id', (v) => camt(`<Stmt><Id>S1</Id><Acct><Id><Othr><Id>${v}</Id></Othr></Id></Acct></Stmt>`), 'Stmt 1 Acct: Id/Othr/Id'],
  ];
  const limitOf: Record<string, number> = { 'Ntry/AddtlNtryInf': 500, 'RmtInf/Ustrd': 140, 'Dbtr/Nm': 140, 'Acct/Ownr/Nm': 140, 'Acct/Nm': 70, 'Acct/Id/Othr/Id': 34 };

  it.each(cases)('refuses %s over its ISO 20022 length, and takes it at the limit', (element, build, named) => {
    const max = limitOf[element] ?? 35;
    expect(camtError(build('x'.repeat(max + 1))).message).toBe(`${named} has ${max + 1} characters; ISO 20022 allows at most ${max}`);
    if (element !== 'Acct/Id/Othr/Id') expect(() => parseCamt053(build('x'.repeat(max)))).not.toThrow();
  });

  it('refuses a 1,000-character Stmt/Id (it would become part of a DynamoDB key)', () => {
    expect(camtError(camt(stmt(ntry(), `<Id>${'S'.repeat(1000)}</Id>`))).message).toBe('Stmt 1: Id has 1000 characters; ISO 20022 allows at most 35');
  });

  it.each(cases)('refuses a C1 control or a bidi override in %s', (_element, build, named) => {
    for (const value of ['Evil\u0085AS', 'Evil\u009bAS']) {
      expect(camtError(build(value)).message).toBe(`${named} must not contain control characters (U+0000-U+001F, U+007F-U+009F)${named.endsWith('AddtlNtryInf') || named.endsWith('Ustrd') ? ' other than tab and line breaks' : ''}`);
    }
    for (const value of ['abc\u202Efdp.exe', 'abc\u2066x']) {
      expect(camtError(build(value)).message).toBe(`${named} must not contain bidirectional override or isolate characters (U+202A-U+202E, U+2066-U+2069)`);
    }
  });

  it('keeps line breaks in free text (AddtlNtryInf, Ustrd) but not in references and names', () => {
    expect(oneEntry({ rest: '<AddtlNtryInf>Linje 1\n\tLinje 2</AddtlNtryInf>' }).description).toBe('Linje 1\n\tLinje 2');
    expect(camtError(camt(stmt(ntry({ rest: '<AcctSvcrRef>A\nB</AcctSvcrRef>' })))).message).toBe(
      'Stmt 1 Ntry 1: AcctSvcrRef must not contain control characters (U+0000-U+001F, U+007F-U+009F)',
    );
  });

  it('refuses an account currency that is not three capital letters, also on a statement of pending entries only', () => {
    const withCcy = (ccy: string) => camt(`<Stmt><Id>S1</Id><Acct><Id><IBAN>NO7215031234562</IBAN></Id><Ccy>${ccy}</Ccy></Acct>${ntry({ status: '<Sts>PDNG</Sts>' })}</Stmt>`);
    expect(parseCamt053(withCcy('NOK'))[0]!.account.currency).toBe('NOK');
    expect(camtError(withCcy('nok')).message).toBe('Stmt 1 Acct: Ccy is not a currency code (three capital letters): "nok"');
    expect(camtError(withCcy('N'.repeat(4000))).message).toBe('Stmt 1 Acct: Ccy has 4000 characters; ISO 20022 allows at most 3');
    expect(camtError(withCcy('N\u0085K')).message).toMatch(/^Stmt 1 Acct: Ccy must not contain control characters/);
  });

  it('refuses a BIC (.02) or BICFI (.08) that is not one', () => {
    const withAgent = (agent: string) => camt(`<Stmt><Id>S1</Id><Acct><Id><IBAN>NO7215031234562</IBAN></Id><Svcr><FinInstnId>${agent}</FinInstnId></Svcr></Acct></Stmt>`);
    expect(parseCamt053(withAgent('<BIC>DNBANOKKXXX</BIC>'))[0]!.account.bic).toBe('DNBANOKKXXX');
    expect(parseCamt053(withAgent('<BICFI>SPTRNO22</BICFI>'))[0]!.account.bic).toBe('SPTRNO22');
    expect(camtError(withAgent('<BIC>DNB ANO KK</BIC>')).message).toBe('Stmt 1 Acct: Svcr/FinInstnId/BIC is not a BIC: "DNB ANO KK"');
    expect(camtError(withAgent('<BICFI>dnbanokk</BICFI>')).message).toBe('Stmt 1 Acct: Svcr/FinInstnId/BICFI is not a BIC: "dnbanokk"');
    expect(camtError(withAgent(`<BIC>${'D'.repeat(12)}</BIC>`)).message).toBe('Stmt 1 Acct: Svcr/FinInstnId/BIC has 12 characters; ISO 20022 allows at most 11');
  });

  it('refuses a GrpHdr/CreDtTm that is not an ISO date-time, even when no entry needs it', () => {
    const created = (value: string) => camt(stmt(ntry())).replace('<CreDtTm>2026-02-01T06:00:00</CreDtTm>', `<CreDtTm>${value}</CreDtTm>`);
    expect(parseCamt053(created('2026-02-01T06:15:02.123+01:00'))[0]!.createdAt).toBe('2026-02-01T06:15:02.123+01:00');
    expect(camtError(created('yesterday')).message).toBe('GrpHdr: CreDtTm is not a valid ISO date-time: "yesterday"');
    expect(camtError(created('2026-02-30T06:00:00')).message).toBe('GrpHdr: CreDtTm is not a valid ISO date-time: "2026-02-30T06:00:00"');
    expect(camtError(created(`2026-02-01T06:00:00.${'1'.repeat(3000)}`)).message).toMatch(/^GrpHdr: CreDtTm is not a valid ISO date-time: "2026-02-01T06:00:00\.1+…"$/);
  });

  it('refuses a non-numeric ElctrncSeqNb', () => {
    expect(parseCamt053(camt(stmt('', '<Id>S1</Id><ElctrncSeqNb>0031</ElctrncSeqNb>')))[0]!.sequenceNumber).toBe('0031');
    expect(camtError(camt(stmt('', '<Id>S1</Id><ElctrncSeqNb>31a</ElctrncSeqNb>'))).message).toBe('Stmt 1: ElctrncSeqNb is not a whole number of at most 18 digits: "31a"');
  });

  it('shows a refused value in one line: at most 40 characters, controls and bidi characters escaped', () => {
    const message = camtError(camt(stmt(ntry({ status: `<Sts>\u202E${'X'.repeat(100)}\u0085</Sts>` })))).message;
    expect(message).toBe(`Stmt 1 Ntry 1: Sts must be BOOK, PDNG, INFO or FUTR, not "\\u202E${'X'.repeat(38)}…"`);
    expect(camtError(camt(stmt(ntry({ indicator: '<CdtDbtInd>CR\nDT</CdtDbtInd>' })))).message).toBe('Stmt 1 Ntry 1: CdtDbtInd must be CRDT or DBIT, not "CR\\u000ADT"');
  });
});

describe('file bounds: no DOCTYPE, size and entry count', () => {
  it('refuses a DOCTYPE (no DTD, no entity declarations), also an otherwise valid statement', () => {
    const valid = camt(stmt(ntry()));
    const withDtd = valid.replace('<Document', '<!DOCTYPE Document [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><Document').replace('<MsgId>M1</MsgId>', '<MsgId>&b;</MsgId>');
    const message = 'The file has a DOCTYPE; DTDs and entity declarations are refused (a camt.053 statement has none)';
    expect(camtError(withDtd).message).toBe(message);
    expect(camtError(valid.replace('<Document', '<!DOCTYPE Document SYSTEM "file:///etc/passwd"><Document')).message).toBe(message);
  });

  it(`refuses a file over ${maxCamt053Bytes} bytes before parsing it, as a Buffer or a string`, () => {
    const padded = (bytes: number) => {
      const xml = camt(stmt(ntry()));
      return xml.replace('</Document>', `<!--${' '.repeat(bytes - Buffer.byteLength(xml) - 7)}--></Document>`);
    };
    expect(Buffer.byteLength(padded(maxCamt053Bytes))).toBe(maxCamt053Bytes);
    expect(parseCamt053(padded(maxCamt053Bytes))).toHaveLength(1);
    const over = padded(maxCamt053Bytes + 1);
    expect(camtError(over).message).toBe(`The file is ${maxCamt053Bytes + 1} bytes; at most ${maxCamt053Bytes} (16 MiB) are taken`);
    expect(camtError(Buffer.from(over)).message).toBe(`The file is ${maxCamt053Bytes + 1} bytes; at most ${maxCamt053Bytes} (16 MiB) are taken`);
  });

  it(`refuses more than ${maxCamt053Entries} entries in one file, across its statements`, () => {
    const half = '<Ntry/>'.repeat(maxCamt053Entries / 2);
    expect(camtError(camt(stmt(half) + stmt(`${half}<Ntry/>`))).message).toBe(`The file has ${maxCamt053Entries + 1} entries (Ntry); at most ${maxCamt053Entries} are taken`);
  });
});

describe('infra/local/demo-statements buildCamt053', () => {
  const demo: DemoStatement = {
    messageId: 'DEMO-2026-01',
    statementId: 'DEMO-15031234562-2026-01',
    iban: 'NO7215031234562',
    accountName: 'Driftskonto',
    ownerName: 'Fjellbekk & Sønn <Kraft> AS',
    currency: 'NOK',
    fromDate: '2026-01-01',
    toDate: '2026-01-31',
    openingBalance: '-1500.75',
    entries: [
      {
        reference: 'DEMO-0001',
        bookingDate: '2026-01-05',
        valueDate: '2026-01-06',
        amount: '12500.00',
        description: 'Innbetaling "faktura" 1001 & 1002',
        kid: '0004711008',
        counterpartyName: 'Nordlys Bygg AS',
        counterpartyAccount: 'NO5912065588127',
      },
      {
        reference: 'DEMO-0002',
        bookingDate: '2026-01-08',
        amount: '-3749.9',
        description: 'Kontorrekvisita',
        counterpartyName: 'Bergen Kontor & Papir AS',
        counterpartyAccount: '60110543215',
      },
      { reference: 'DEMO-0003', bookingDate: '2026-01-10', amount: '-129.00', description: 'Kortgebyr' },
      { reference: 'DEMO-0004', bookingDate: '2026-01-31', amount: '0.12345', description: 'Renter' },
    ],
  };

  it('round-trips every field through parseCamt053', () => {
    const xml = buildCamt053(demo);
    const [statement, ...rest] = parseCamt053(xml);
    expect(rest).toHaveLength(0);
    expect(statement).toMatchObject({
      messageId: demo.messageId,
      statementId: demo.statementId,
      fromDate: demo.fromDate,
      toDate: demo.toDate,
      account: { iban: demo.iban, bban: null, currency: 'NOK', name: demo.accountName, ownerName: demo.ownerName },
    });
    expect(statement!.openingBalance!.amount.equals(new Decimal(demo.openingBalance))).toBe(true);
    expect(statement!.openingBalance!.date).toBe(demo.fromDate);
    expect(statement!.closingBalance!.date).toBe(demo.toDate);
    expect(statement!.entries).toHaveLength(demo.entries.length);
    statement!.entries.forEach((entry, i) => {
      const expected = demo.entries[i]!;
      expect(entry.amount.equals(new Decimal(expected.amount))).toBe(true);
      expect(entry).toMatchObject({
        index: i + 1,
        accountServicerReference: expected.reference,
        currency: 'NOK',
        status: 'BOOK',
        bookingDate: expected.bookingDate,
        valueDate: expected.valueDate ?? null,
        description: expected.description,
        reference: expected.kid ?? null,
        counterpartyName: expected.counterpartyName ?? null,
        counterpartyAccount: expected.counterpartyAccount ?? null,
      });
    });
  });

  it('writes the closing balance as opening + the sum of the entries', () => {
    const [statement] = parseCamt053(buildCamt053(demo));
    expect(statement!.closingBalance!.amount.toString()).toBe('7120.47345');
  });

  it('escapes text rather than writing markup', () => {
    const xml = buildCamt053(demo);
    expect(xml).toContain('Fjellbekk &amp; Sønn &lt;Kraft&gt; AS');
    expect(xml).not.toContain('<Kraft>');
  });
});
