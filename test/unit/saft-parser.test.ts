import { createReadStream, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { maxReportList, otherElements, SaftMapping } from '../../shared/saft/mapping';
import { maxDepth, parseLimits, parseSaft, type ParseLimits, type SaftFileError } from '../../shared/saft/parser';
import { SaftReportSchema } from '../../shared/saft/schemas';

const fixture = (name: string) => createReadStream(new URL(`../fixtures/saft/${name}`, import.meta.url));
const read = async (name: string) => {
  const mapping = new SaftMapping();
  await parseSaft(fixture(name), mapping);
  return { mapping, report: mapping.report(mapping.openingBalances().length, 'valid') };
};
const refusal = async (text: string | Uint8Array) => {
  try {
    await parseSaft([typeof text === 'string' ? new TextEncoder().encode(text) : text], new SaftMapping());
  } catch (error) {
    return error as SaftFileError;
  }
  throw new Error('not refused');
};

describe('SAF-T parser and mapping', () => {
  it('reads the published 1.10 example 999999999: header, counts, control totals, the inconsistent closing balances', async () => {
    const { report } = await read('example-1.10-999999999.xml');
    expect(report.header).toMatchObject({ companyName: 'Selskapet AS', organizationNumber: '999999999', saftVersion: '1.10', fiscalYears: [2015] });
    expect(report.counts).toMatchObject({ accounts: 4, customers: 1, suppliers: 1, transactions: 2, lines: 5 });
    expect(report.controlTotals.matches).toBe(true);
    expect(report.closingBalanceMismatches.count).toBeGreaterThan(0);
    expect(report.skipped.find((s) => s.kind === 'openingBalances')?.samples[0]).toMatch(/account 1500/);
  });

  it("gives each line the standard tax code its own code stands for (TaxTable); an empty code is none and one too long is dropped, never the line", async () => {
    const example = readFileSync(new URL('../fixtures/saft/example-1.10-999999999.xml', import.meta.url), 'utf8');
    const linesOf = async (text: string) => {
      const lines: { taxCode: string | null; amount: string }[] = [];
      const mapping = new SaftMapping((line) => lines.push(line.line as { taxCode: string | null; amount: string }));
      await parseSaft([new TextEncoder().encode(text)], mapping);
      return { lines, report: mapping.report(0, 'valid') };
    };
    const taxed = (lines: { taxCode: string | null; amount: string }[]) => lines.find((line) => line.amount === '10000');
    const mapped = await linesOf(example);
    expect(taxed(mapped.lines)?.taxCode).toBe('1'); // own code 14, StandardTaxCode 1
    expect(mapped.report.notImported.map((entry) => entry.element)).not.toContain('MasterFiles/TaxTable');
    expect(taxed((await linesOf(example.replace('<n1:StandardTaxCode>1</n1:StandardTaxCode>', '<n1:StandardTaxCode>NA</n1:StandardTaxCode>'))).lines)?.taxCode).toBe('14');
    const unpaired = await linesOf(example.replace('<n1:StandardTaxCode>1</n1:StandardTaxCode>', ''));
    expect(taxed(unpaired.lines)?.taxCode).toBe('14');
    expect(unpaired.report.skipped.find((entry) => entry.kind === 'taxCodes')?.samples[0]).toMatch(/1 TaxCode and 0 StandardTaxCode/);
    const lineCode = example.lastIndexOf('<n1:TaxCode>14</n1:TaxCode>'); // the line's (the first is the tax table's)
    const withLineCode = (code: string) => `${example.slice(0, lineCode)}<n1:TaxCode>${code}</n1:TaxCode>${example.slice(lineCode + '<n1:TaxCode>14</n1:TaxCode>'.length)}`;
    const empty = await linesOf(withLineCode(''));
    expect(empty.lines).toHaveLength(mapped.lines.length);
    expect(taxed(empty.lines)?.taxCode).toBeNull();
    const long = 'K'.repeat(60);
    const overlong = await linesOf(withLineCode(long));
    expect(overlong.lines).toHaveLength(mapped.lines.length);
    expect(taxed(overlong.lines)?.taxCode).toBeNull();
    expect(overlong.report.skipped.find((entry) => entry.kind === 'taxCodes')?.samples[0]).toMatch(/is longer than 50 characters: the line is imported without it/);
  });

  it('leaves the opening balance of a party whose row is refused with its account, and names the party (files over 32 MiB, which the XSD does not check)', async () => {
    const text = readFileSync(new URL('../fixtures/saft/example-1.10-999999999.xml', import.meta.url), 'utf8').replace(
      /(<n1:CustomerID>12000<\/n1:CustomerID>\s*)<n1:AccountID>1500<\/n1:AccountID>(\s*)<n1:OpeningDebitBalance>1234.56</,
      // Each a SAF-T amount, but debit minus credit has 19 digits: more than an opening balance holds.
      '$1<n1:AccountID>1925</n1:AccountID>$2<n1:OpeningCreditBalance>-999999999999999999</n1:OpeningCreditBalance><n1:OpeningDebitBalance>999999999999999999<',
    );
    expect(text).toContain('999999999999999999');
    const mapping = new SaftMapping();
    await parseSaft([new TextEncoder().encode(text)], mapping);
    const rows = mapping.openingBalances();
    expect(rows.find((row) => row.accountCode === '1925')).toEqual({ id: 'OB-1925', accountCode: '1925', amount: '1234.56' });
    expect(rows.filter((row) => String(row.id).startsWith('OB-1925-'))).toEqual([]);
    const skipped = mapping.report(rows.length, 'valid').skipped.find((s) => s.kind === 'openingBalances');
    expect(skipped?.samples.join(' ')).toMatch(/party 12000 on 1925: /);
  });

  it('refuses a file with an amount or a count that is no number, naming it and its line (files over 32 MiB, which the XSD does not check)', async () => {
    const example = readFileSync(new URL('../fixtures/saft/example-1.10-999999999.xml', import.meta.url), 'utf8');
    const refused = async (text: string) => {
      const error = await refusal(text);
      return { code: error.code, message: error.message, line: error.line };
    };
    expect(await refused(example.replace('<n1:Amount>10000</n1:Amount>', '<n1:Amount>10000,50</n1:Amount>'))).toEqual({
      code: 'invalid_number',
      message: 'DebitAmount/Amount "10000,50" is not a decimal number.',
      line: expect.any(Number),
    });
    for (const amount of ['1e4', '0x10', 'Infinity', '-', '1.2.3']) {
      expect((await refused(example.replace('<n1:Amount>10000</n1:Amount>', `<n1:Amount>${amount}</n1:Amount>`))).message).toContain(`"${amount}" is not a decimal number`);
    }
    expect((await refused(example.replace('<n1:OpeningDebitBalance>1234.56</n1:OpeningDebitBalance>', '<n1:OpeningDebitBalance>NaN</n1:OpeningDebitBalance>'))).message).toBe('OpeningDebitBalance "NaN" is not a decimal number.');
    expect((await refused(example.replace('<n1:TotalDebit>25000</n1:TotalDebit>', '<n1:TotalDebit>25 000</n1:TotalDebit>'))).message).toBe('TotalDebit "25 000" is not a decimal number.');
    expect((await refused(example.replace('<n1:NumberOfEntries>2</n1:NumberOfEntries>', '<n1:NumberOfEntries>two</n1:NumberOfEntries>'))).message).toBe('NumberOfEntries "two" is not a whole number.');
    // what xs:decimal allows reads as before
    await expect(parseSaft([new TextEncoder().encode(example.replace('<n1:Amount>10000</n1:Amount>', '<n1:Amount>+10000.</n1:Amount>'))], new SaftMapping())).resolves.toBeDefined();
  });

  it('gives a supplier numbered as a customer the key supplier/<id>: its sub-ledger, its lines and its opening balance', async () => {
    const text = readFileSync(new URL('../fixtures/saft/example-1.10-999999999.xml', import.meta.url), 'utf8').replaceAll('<n1:SupplierID>20000</n1:SupplierID>', '<n1:SupplierID>12000</n1:SupplierID>');
    const lines: { subLedgerKeys: string[] | null }[] = [];
    const mapping = new SaftMapping(({ line }) => lines.push(line as { subLedgerKeys: string[] | null }));
    await parseSaft([new TextEncoder().encode(text)], mapping);
    expect(mapping.subLedgers.map((party) => `${party.type} ${party.key}`)).toEqual(['customer 12000', 'supplier supplier/12000']);
    expect(lines.map((line) => line.subLedgerKeys).filter(Boolean)).toEqual([['supplier/12000']]);
    expect(mapping.openingBalances()).toContainEqual({ id: 'OB-2400-supplier/12000', accountCode: '2400', amount: '-1234.56', subLedgerKeys: ['supplier/12000'] });
  });

  it('reads the 1.30 adaptation of the same example to the same report figures', async () => {
    const v110 = (await read('example-1.10-999999999.xml')).report;
    const v130 = (await read('example-1.30-999999999.xml')).report;
    expect(v130.header.saftVersion).toBe('1.30');
    expect(v130.counts).toEqual(v110.counts);
    expect(v130.closingBalanceMismatches).toEqual(v110.closingBalanceMismatches);
  });

  it('reads the published 1.10 example 888888888 with its control totals matching', async () => {
    const { report } = await read('example-1.10-888888888.xml');
    expect(report.header.organizationNumber).toBe('888888888');
    expect(report.controlTotals.matches).toBe(true);
    expect(report.counts.lines).toBe(170);
  });

  it('refuses what is not a SAF-T Financial file, before any record', async () => {
    expect((await refusal('hello, not xml')).code).toBe('not_xml');
    expect((await refusal(new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0]))).code).toBe('compressed');
    expect((await refusal('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><lolz>&lol2;</lolz>')).code).toBe('dtd_refused');
    const wrong = await refusal('<?xml version="1.0"?><AuditFile xmlns="urn:OECD:StandardAuditFile-Tax:PT_1.04_01"><Header/></AuditFile>');
    expect(wrong.code).toBe('not_saft');
    expect(wrong.message).toContain('urn:OECD:StandardAuditFile-Tax:PT_1.04_01');
    expect((await refusal('<AuditFile xmlns="urn:StandardAuditFile-Taxation-Financial:NO"><Header><AuditFileVersion>2.0</AuditFileVersion></Header></AuditFile>')).code).toBe('unsupported_version');
    expect((await refusal('<AuditFile xmlns="urn:StandardAuditFile-Taxation-Financial:NO"><Header><AuditFileVersion>1.30</AuditFileVersion></Header><MasterFiles>')).code).toBe('truncated');
  });
  const header = '<AuditFile xmlns="urn:StandardAuditFile-Taxation-Financial:NO"><Header><AuditFileVersion>1.30</AuditFileVersion></Header>';

  it('refuses elements nested deeper than a SAF-T file nests, at once (a hostile file cannot make each tag cost its depth)', async () => {
    const depth = 20_000;
    const error = await refusal(`${header}${'<Foo>'.repeat(depth)}${'</Foo>'.repeat(depth)}</AuditFile>`);
    expect(error.code).toBe('not_saft');
    expect(error.message).toBe(`Elements nest deeper than ${maxDepth} levels (Foo); a SAF-T Financial file nests at most 8.`);
    // The published examples nest 8 deep and are read (the tests above).
    const shallow = `${header}${'<Foo>'.repeat(maxDepth - 1)}${'</Foo>'.repeat(maxDepth - 1)}</AuditFile>`;
    await expect(parseSaft([new TextEncoder().encode(shallow)], new SaftMapping())).resolves.not.toThrow();
  });

  it('quotes at most 200 characters of a name or namespace from the file in its messages', async () => {
    const namespace = `urn:${'x'.repeat(1_000_000)}`;
    const error = await refusal(`<AuditFile xmlns="${namespace}"><Header/></AuditFile>`);
    expect(error.code).toBe('not_saft');
    expect(error.message.length).toBeLessThan(400);
    expect(error.message).toContain(`{${namespace.slice(0, 200)}…}AuditFile`);
  });

  it('names at most maxReportList elements it did not import and counts the rest together', async () => {
    const mapping = new SaftMapping();
    const names = Array.from({ length: 500 }, (_, i) => `Extra${i}`);
    await parseSaft([new TextEncoder().encode(`${header}${names.map((name) => `<${name}/>`).join('')}</AuditFile>`)], mapping);
    const { notImported } = mapping.report(0, 'valid');
    expect(notImported).toHaveLength(maxReportList + 1);
    expect(notImported.find((entry) => entry.element === otherElements)?.count).toBe(500 - maxReportList);
    expect(notImported.reduce((total, entry) => total + entry.count, 0)).toBe(500);
    // A path longer than the report's element field is cut to it.
    const long = new SaftMapping();
    await parseSaft([new TextEncoder().encode(`${header}<${'L'.repeat(300)}/></AuditFile>`)], long);
    expect(long.report(0, 'valid').notImported).toEqual([{ element: `${'L'.repeat(199)}…`, count: 1 }]);
  });
});

describe('SAF-T files that would exhaust memory or store text the API refuses (files over 32 MiB, which the XSD does not check)', () => {
  const example = () => readFileSync(new URL('../fixtures/saft/example-1.10-999999999.xml', import.meta.url), 'utf8');
  const head = '<AuditFile xmlns="urn:StandardAuditFile-Taxation-Financial:NO"><Header><AuditFileVersion>1.30</AuditFileVersion></Header>';
  const parse = (source: Iterable<string> | AsyncIterable<string>, limits?: Partial<ParseLimits>, mapping = new SaftMapping()) => parseSaft(source, mapping, limits ? { limits } : {});
  const refusedWith = async (source: Iterable<string> | AsyncIterable<string>, limits?: Partial<ParseLimits>) => {
    try {
      await parse(source, limits);
    } catch (error) {
      return error as SaftFileError;
    }
    throw new Error('not refused');
  };
  const ledger = (transactions: string) => `${head}<GeneralLedgerEntries><Journal><JournalID>A</JournalID>${transactions}</Journal></GeneralLedgerEntries></AuditFile>`;
  const transaction = (lines: string[]) => `<Transaction><TransactionID>T1</TransactionID>${lines.map((line) => `<Line>${line}</Line>`).join('')}</Transaction>`;

  it('refuses an element whose text is longer than any SAF-T element holds, naming it and its line', async () => {
    const error = await refusedWith([ledger(transaction([`<AccountID>1920</AccountID><Description>${'x'.repeat(parseLimits.elementText + 1)}</Description>`]))]);
    expect(error.message).toBe(`The text of <AuditFile/GeneralLedgerEntries/Journal/Transaction/Line/Description> is longer than ${parseLimits.elementText} characters; no SAF-T element holds that much.`);
    expect(error.line).toBe(1);
    // CDATA counts too; text up to the limit is read
    expect((await refusedWith([ledger(transaction([`<Description>${'x'.repeat(600)}<![CDATA[${'y'.repeat(600)}]]></Description>`]))], { elementText: 1000 })).message).toMatch(/<AuditFile\/GeneralLedgerEntries\/Journal\/Transaction\/Line\/Description> is longer than 1000/);
    await expect(parse([ledger(transaction([`<Description>${'x'.repeat(1000)}</Description>`]))], { elementText: 1000 })).resolves.toBeDefined();
  });

  it('stops reading a text node (or comment) that never ends at the limit, not at the end of the file', async () => {
    for (const open of ['<Description>', '<!--']) {
      let chunks = 0;
      const endless = function* () {
        yield `${head}<GeneralLedgerEntries><Journal><Transaction><Line>${open}`;
        for (const text = 'x'.repeat(64 * 1024); chunks < 2000; chunks++) yield text; // 128 Mi characters if read to the end
      };
      const error = await refusedWith(endless(), { elementText: 100_000 });
      expect(error.message).toBe('A text or comment in <AuditFile/GeneralLedgerEntries/Journal/Transaction/Line' + (open === '<!--' ? '' : '/Description') + '> is longer than 100000 characters; no SAF-T element holds that much.');
      expect(chunks).toBeLessThan(5);
    }
    // a tag: its attributes count together, up to their own (higher) limit
    let chunks = 0;
    const endlessTag = function* () {
      yield `${head}<MasterFiles a="`;
      for (const text = 'x'.repeat(64 * 1024); chunks < 2000; chunks++) yield text;
    };
    expect((await refusedWith(endlessTag(), { tag: 200_000 })).message).toBe('A tag in <AuditFile> is longer than 200000 characters.');
    expect(chunks).toBeLessThan(6);
  });

  it('reads the whitespace between the children of an element however long it is in all (a journal of many transactions)', async () => {
    const spaced = ledger(Array.from({ length: 200 }, () => `\n      ${transaction(['<AccountID>1920</AccountID>'])}`).join(''));
    const mapping = new SaftMapping();
    await parse([spaced], { elementText: 100 }, mapping);
    expect(mapping.transactions).toBe(200);
  });

  it('refuses a transaction with more lines than the limit, naming it', async () => {
    const lines = (count: number) => ledger(transaction(Array.from({ length: count }, (_, i) => `<RecordID>${i}</RecordID><AccountID>1920</AccountID>`)));
    const mapping = new SaftMapping();
    await parse([lines(10)], { transactionLines: 10 }, mapping);
    expect(mapping.lines).toBe(10);
    const error = await refusedWith([lines(11)], { transactionLines: 10 });
    expect(error.message).toBe('Transaction "T1" holds more than 10 lines (<Line>).');
    expect(parseLimits.transactionLines).toBe(50_000);
  });

  it('refuses a record that collects more text than the limit: many values, or long ones', async () => {
    const many = await refusedWith([ledger(transaction(['<Foo/>'.repeat(1000)]))], { recordChars: 10_000 });
    expect(many.message).toBe('A Transaction with its lines holds more than 10000 characters of text; a SAF-T record holds far less.');
    const account = `${head}<MasterFiles><GeneralLedgerAccounts><Account>${`<Notes>${'n'.repeat(900)}</Notes>`.repeat(20)}</Account></GeneralLedgerAccounts></MasterFiles></AuditFile>`;
    expect((await refusedWith([account], { recordChars: 10_000 })).message).toBe('<MasterFiles/GeneralLedgerAccounts/Account> holds more than 10000 characters of text; a SAF-T record holds far less.');
  });

  it('refuses a header field longer than SAF-T allows or with a character the text rule refuses, naming it; a longer valid one is shown clipped', async () => {
    const withName = (name: string) => example().replace('<n1:Name>Selskapet AS</n1:Name>', `<n1:Name>${name}</n1:Name>`);
    expect(withName('x')).toContain('<n1:Name>x</n1:Name>');
    const bidi = await refusal(withName('Selskapet \u202Egnp.exe AS'));
    expect(bidi.message).toBe('Header/Company/Name must not contain bidirectional override or isolate characters (U+202A-U+202E, U+2066-U+2069).');
    expect(bidi.line).toEqual(expect.any(Number));
    expect((await refusal(withName('Selskapet\u0085AS'))).message).toBe('Header/Company/Name must not contain control characters (U+0000-U+001F, U+007F-U+009F).');
    expect((await refusal(withName('x'.repeat(257)))).message).toBe('Header/Company/Name is 257 characters long; SAF-T allows at most 256.');
    const software = example().replace(/<n1:SoftwareID>[^<]*<\/n1:SoftwareID>/, `<n1:SoftwareID>${'s'.repeat(60_000)}</n1:SoftwareID>`);
    expect((await refusal(software)).message).toBe('Header/SoftwareID is 60000 characters long; SAF-T allows at most 256.');
    // 230 characters: valid SAF-T, shown cut to the report's 200
    const mapping = new SaftMapping();
    await parseSaft([withName('N'.repeat(230))], mapping);
    const report = mapping.report(0, 'skipped_over_size_limit');
    expect(report.header.companyName).toBe(`${'N'.repeat(199)}…`);
    expect(SaftReportSchema.safeParse(report).success).toBe(true);
  });

  it('refuses an amount longer than any SAF-T amount (the report stores the file\'s totals)', async () => {
    const digits = '1'.repeat(65);
    expect((await refusal(example().replace('<n1:TotalDebit>25000</n1:TotalDebit>', `<n1:TotalDebit>${digits}</n1:TotalDebit>`))).message).toBe(`TotalDebit "${'1'.repeat(39)}…" is longer than 64 characters: no SAF-T amount.`);
  });

  it('refuses an amount that is no SAF-T amount (SAFmonetaryType: 18 digits in all, at most 2 decimals), as the XSD would; reads those it allows', async () => {
    const withTotalDebit = (amount: string) => example().replace('<n1:TotalDebit>25000</n1:TotalDebit>', `<n1:TotalDebit>${amount}</n1:TotalDebit>`);
    const withAmount = (amount: string) => example().replace('<n1:Amount>10000</n1:Amount>', `<n1:Amount>${amount}</n1:Amount>`);
    const refused = async (text: string) => {
      const error = await refusal(text);
      return { code: error.code, message: error.message, line: error.line };
    };
    expect(await refused(withTotalDebit('1234567890123456789'))).toEqual({
      code: 'invalid_number',
      message: 'TotalDebit "1234567890123456789" has more than 18 digits: no SAF-T amount.',
      line: expect.any(Number),
    });
    expect((await refused(withAmount('-1234567890123456789.00'))).message).toBe('DebitAmount/Amount "-1234567890123456789.00" has more than 18 digits: no SAF-T amount.');
    expect((await refused(withAmount('12345678901234567.89'))).message).toBe('DebitAmount/Amount "12345678901234567.89" has more than 18 digits: no SAF-T amount.');
    expect((await refused(withAmount('10000.005'))).message).toBe('DebitAmount/Amount "10000.005" has more than 2 decimals: no SAF-T amount.');
    expect((await refused(example().replace('<n1:OpeningDebitBalance>1234.56</n1:OpeningDebitBalance>', '<n1:OpeningDebitBalance>9999999999999999999</n1:OpeningDebitBalance>'))).message).toBe(
      'OpeningDebitBalance "9999999999999999999" has more than 18 digits: no SAF-T amount.',
    );
    // What SAFmonetaryType allows (xmllint agrees): 18 digits, leading zeros and trailing zeros of the decimals not counted.
    for (const amount of ['123456789012345678', '-1234567890123456.78', '12345678901234567.8', '0001234567890123456.78', '10000.500', '+10000.']) {
      await expect(parseSaft([new TextEncoder().encode(withAmount(amount))], new SaftMapping()), amount).resolves.toBeDefined();
    }
  });

  it('quotes file text in the report within its limits and without characters the text rule refuses', async () => {
    const id = `T\u202E${'9'.repeat(300)}`;
    const unbalanced = ledger(`<Transaction><TransactionID>${id}</TransactionID><Line><AccountID>19\u008520</AccountID><DebitAmount><Amount>1</Amount></DebitAmount></Line></Transaction>`);
    const mapping = new SaftMapping();
    await parse([unbalanced], undefined, mapping);
    const report = mapping.report(0, 'skipped_over_size_limit');
    expect(report.unbalancedTransactions.transactionIds).toEqual([`A/T\uFFFD${'9'.repeat(195)}…`]);
    expect(report.skipped.find((entry) => entry.kind === 'lines')?.samples[0]).toMatch(/^line A\/T\uFFFD9+…?.*account 19\uFFFD20 is not in the file's chart$/);
    expect(JSON.stringify(report)).not.toMatch(/[\u0085\u202E]/);
    expect(SaftReportSchema.safeParse(report).success).toBe(true);
  });

  it('never hands on a row the JSON imports would refuse: a name, description or key with a refused character or too long is skipped', async () => {
    const text = example()
      .replace('<n1:Name>Kunden AS</n1:Name>', '<n1:Name>Kunden \u202EAS</n1:Name>')
      .replace(/<n1:AccountDescription>[^<]*<\/n1:AccountDescription>/, `<n1:AccountDescription>${'d'.repeat(201)}</n1:AccountDescription>`);
    const lines: Record<string, unknown>[] = [];
    const mapping = new SaftMapping(({ line }) => lines.push(line));
    await parseSaft([text.replace(/<n1:Description>([^<]*)<\/n1:Description>(\s*<n1:DebitAmount>)/, '<n1:Description>$1\u0085</n1:Description>$2')], mapping);
    const stored = JSON.stringify({ accounts: [...mapping.accounts.values()].map((a) => a.row), subLedgers: mapping.subLedgers, lines });
    expect(stored).not.toMatch(/[\u0085\u202E]|d{201}/);
    const skipped = mapping.report(0, 'valid').skipped;
    expect(skipped.map((entry) => entry.kind).sort()).toEqual(expect.arrayContaining(['accounts', 'lines']));
  });
});

