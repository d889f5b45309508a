import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { XMLParser } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { companyRepository } from '../../shared/companies/repository';
import { laneLockKeys } from '../../shared/jobs/keys';
import { eventsOfCompany } from '../../shared/outbox/repository';
import { dynamo, tableName } from '../../shared/platform/aws';
import { Decimal } from '../../shared/platform/money';
import { queues } from '../../shared/queues';
import { startSaftImport } from '../../shared/saft/service';
import { api, expectProblem, type ApiResponse } from '../support/api';
import { eventually, queueWaitMs } from '../support/poll';
import { testStack } from '../support/stack';

/**
 * SAF-T Financial in, over HTTP: declare, PUT the file to the presigned URL, start, poll, then the
 * report and the trial balance. Skatteetaten's published example files must reproduce every
 * account's opening and closing balance to the øre (or be named as inconsistent by the report).
 */

const as = 'a-system';
const fixture = (name: string) => readFileSync(new URL(`../fixtures/saft/${name}`, import.meta.url));

beforeAll(() => {
  testStack();
});

const newCompany = async (organizationNumber: string): Promise<string> => {
  const response = await api('POST', '/v1/companies', { as, body: { displayName: `SAF-T ${randomUUID().slice(0, 8)} AS`, accountingSystem: 'Api', organizationNumber } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id as string;
};

/** Declares and uploads a file; answers the SAF-T import's id. */
const upload = async (companyId: string, bytes: Uint8Array, fileName = 'saft.xml'): Promise<string> => {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const created = await api('POST', `/v1/companies/${companyId}/imports/saft`, { as, body: { fileName, sizeBytes: bytes.length, sha256 } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.status).toBe('awaiting_upload');
  const put = await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: bytes });
  expect(put.status).toBe(200);
  return created.body.id as string;
};

const start = (companyId: string, id: string, body: unknown = {}) => api('POST', `/v1/companies/${companyId}/imports/saft/${id}/start`, { as, body });

const waitForSaft = (companyId: string, id: string): Promise<ApiResponse> =>
  eventually(async () => {
    const response = await api('GET', `/v1/companies/${companyId}/imports/saft/${id}`, { as });
    expect(response.status).toBe(200);
    return (response.body.status === 'succeeded' || response.body.status === 'failed') && response;
  }, queueWaitMs * 3, `SAF-T import ${id}`);

/** The file's tax table (own code -> StandardTaxCode) and each line's own tax code by GL line id (<JournalID>/<TransactionID>-<RecordID>), read independently of the service's parser. */
const fileTaxCodes = (bytes: Buffer): { standard: Map<string, string>; lineCodes: Map<string, string> } => {
  const arrays = new Set(['TaxTableEntry', 'TaxCodeDetails', 'Journal', 'Transaction', 'Line']);
  const doc = new XMLParser({ removeNSPrefix: true, parseTagValue: false, isArray: (name) => arrays.has(name) }).parse(bytes.toString('utf8'));
  const standard = new Map<string, string>();
  for (const entry of doc.AuditFile.MasterFiles.TaxTable.TaxTableEntry) for (const details of entry.TaxCodeDetails) standard.set(String(details.TaxCode), String(details.StandardTaxCode));
  const lineCodes = new Map<string, string>();
  for (const journal of doc.AuditFile.GeneralLedgerEntries.Journal) {
    for (const transaction of journal.Transaction ?? []) {
      for (const line of transaction.Line ?? []) {
        const code = line.TaxInformation?.TaxCode;
        if (code !== undefined) lineCodes.set(`${journal.JournalID}/${transaction.TransactionID}-${line.RecordID}`, String(code));
      }
    }
  }
  return { standard, lineCodes };
};

/** Each account's opening and closing balance as the file states them (debit minus credit), read independently of the service's parser. */
const fileBalances = (bytes: Buffer): Map<string, { opening: Decimal; closing: Decimal }> => {
  const doc = new XMLParser({ removeNSPrefix: true, parseTagValue: false, isArray: (name) => name === 'Account' }).parse(bytes.toString('utf8'));
  const value = (text: unknown) => new Decimal(text === undefined ? 0 : String(text));
  return new Map(
    (doc.AuditFile.MasterFiles.GeneralLedgerAccounts.Account as Record<string, unknown>[]).map((account) => [
      String(account.AccountID),
      {
        opening: value(account.OpeningDebitBalance).minus(value(account.OpeningCreditBalance)),
        closing: value(account.ClosingDebitBalance).minus(value(account.ClosingCreditBalance)),
      },
    ]),
  );
};

const importFile = async (name: string, organizationNumber: string, startBody: unknown = {}) => {
  const companyId = await newCompany(organizationNumber);
  const bytes = fixture(name);
  const id = await upload(companyId, bytes, name);
  const started = await start(companyId, id, startBody);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  expect(started.body.status).toBe('queued');
  const again = await start(companyId, id, startBody);
  expect(again.status).toBe(202);
  expect(again.body.jobId).toBe(started.body.jobId);
  const done = await waitForSaft(companyId, id);
  expect(done.body.status, JSON.stringify(done.body)).toBe('succeeded');
  return { companyId, id, bytes, record: done.body };
};

/** The trial balance reproduces the file: opening balances always, closing balances unless the report names the account as inconsistent. */
const expectReproduced = async (companyId: string, year: number, bytes: Buffer, record: { report: { closingBalanceMismatches: { accounts: { accountCode: string; openingBalance: string; lines: string; closingBalance: string }[] } } }) => {
  const trial = await api('GET', `/v1/companies/${companyId}/trial-balance?year=${year}`, { as });
  expect(trial.status).toBe(200);
  const rows = new Map((trial.body.accounts as { accountCode: string; openingBalance: number; closingBalance: number }[]).map((row) => [row.accountCode, row]));
  const mismatches = new Map(record.report.closingBalanceMismatches.accounts.map((m) => [m.accountCode, m]));
  let checked = 0;
  for (const [accountCode, { opening, closing }] of fileBalances(bytes)) {
    const row = rows.get(accountCode);
    const tbOpening = new Decimal(String(row?.openingBalance ?? 0));
    const tbClosing = new Decimal(String(row?.closingBalance ?? 0));
    expect(tbOpening.toFixed(2), `opening of ${accountCode}`).toBe(opening.toFixed(2));
    const mismatch = mismatches.get(accountCode);
    if (mismatch) {
      expect(mismatch.closingBalance).toBe(closing.toFixed());
      expect(tbClosing.toFixed(2), `closing of ${accountCode} (inconsistent in the file)`).toBe(new Decimal(mismatch.openingBalance).plus(mismatch.lines).toFixed(2));
      expect(tbClosing.equals(closing)).toBe(false);
    } else {
      expect(tbClosing.toFixed(2), `closing of ${accountCode}`).toBe(closing.toFixed(2));
    }
    checked++;
  }
  expect(checked).toBeGreaterThan(0);
};

describe('SAF-T Financial import of the published example files', () => {
  it('1.10 example 999999999: report, per-kind imports, and the trial balance reproduces the file (its inconsistent accounts named)', async () => {
    const { companyId, bytes, record } = await importFile('example-1.10-999999999.xml', '999999999');
    expect(record.report.header).toMatchObject({ companyName: 'Selskapet AS', organizationNumber: '999999999', saftVersion: '1.10', fiscalYears: [2015] });
    expect(record.report.counts).toMatchObject({ accounts: 4, customers: 1, suppliers: 1, transactions: 2, lines: 5 });
    expect(record.report.controlTotals.matches).toBe(true);
    expect(record.report.schemaValidation).toBe('valid');
    expect(record.report.closingBalanceMismatches.count).toBeGreaterThan(0);
    expect(record.report.notImported.map((n: { element: string }) => n.element)).toContain('Account/StandardAccountID');
    expect(record.importIds.length).toBeGreaterThanOrEqual(5);
    for (const importId of record.importIds) {
      const one = await api('GET', `/v1/companies/${companyId}/imports/${importId}`, { as });
      expect(one.status).toBe(200);
      expect(one.body.status).toBe('succeeded');
    }
    await expectReproduced(companyId, 2015, bytes, record);
    const dimensions = await api('GET', `/v1/companies/${companyId}/dimensions`, { as });
    expect(dimensions.body.data.map((d: { key: string }) => d.key)).toEqual(expect.arrayContaining(['A', 'A/100', 'P/2000']));
    const list = await api('GET', `/v1/companies/${companyId}/imports/saft`, { as });
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: { id: string }) => s.id)).toContain(record.id);
  });

  it('a corrected file of the same year replaces every opening balance it states, a zero too', async () => {
    const { companyId } = await importFile('example-1.10-999999999.xml', '999999999');
    const corrected = Buffer.from(
      fixture('example-1.10-999999999.xml')
        .toString('utf8')
        .replace('<n1:OpeningDebitBalance>1234.56</n1:OpeningDebitBalance>', '<n1:OpeningDebitBalance>0</n1:OpeningDebitBalance>') // 1925
        .replace(/<n1:OpeningDebitBalance>0<\/n1:OpeningDebitBalance>(\s*<n1:ClosingDebitBalance>0<)/, '<n1:OpeningDebitBalance>1234.56</n1:OpeningDebitBalance>$1'), // 4000
    );
    const balances = fileBalances(corrected);
    expect([balances.get('1925')!.opening.toFixed(2), balances.get('4000')!.opening.toFixed(2)]).toEqual(['0.00', '1234.56']);
    const id = await upload(companyId, corrected);
    expect((await start(companyId, id)).status).toBe(202);
    const done = await waitForSaft(companyId, id);
    expect(done.body.status, JSON.stringify(done.body)).toBe('succeeded');
    await expectReproduced(companyId, 2015, corrected, done.body);
  });

  it('two journals with the same voucher numbers keep every line: a line id is <JournalID>/<TransactionID>-<RecordID>', async () => {
    const original = fixture('example-1.10-999999999.xml').toString('utf8');
    const journal = original.slice(original.indexOf('<n1:Journal>'), original.indexOf('</n1:Journal>') + '</n1:Journal>'.length);
    const bytes = Buffer.from(original.replace(journal, `${journal}\n${journal.replace('<n1:JournalID>A</n1:JournalID>', '<n1:JournalID>B</n1:JournalID>')}`));
    const companyId = await newCompany('999999999');
    const id = await upload(companyId, bytes);
    expect((await start(companyId, id)).status).toBe(202);
    const done = await waitForSaft(companyId, id);
    expect(done.body.status, JSON.stringify(done.body)).toBe('succeeded');
    expect(done.body.report.counts).toMatchObject({ transactions: 4, lines: 10 });
    const lines = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=2015&page_size=200`, { as });
    const ids: string[] = lines.body.data.map((line: { sourceLineId: string }) => line.sourceLineId);
    expect(ids).toHaveLength(10);
    const ofJournal = (journalId: string) => ids.filter((lineId) => lineId.startsWith(`${journalId}/`)).map((lineId) => lineId.slice(journalId.length + 1)).sort();
    expect(ofJournal('A')).toHaveLength(5);
    expect(ofJournal('B')).toEqual(ofJournal('A'));
  });

  it('a supplier numbered as a customer is its own sub-ledger, supplier/<id>, with its lines', async () => {
    const bytes = Buffer.from(fixture('example-1.10-999999999.xml').toString('utf8').replaceAll('<n1:SupplierID>20000</n1:SupplierID>', '<n1:SupplierID>12000</n1:SupplierID>'));
    const companyId = await newCompany('999999999');
    const id = await upload(companyId, bytes);
    expect((await start(companyId, id)).status).toBe(202);
    const done = await waitForSaft(companyId, id);
    expect(done.body.status, JSON.stringify(done.body)).toBe('succeeded');
    const subLedgers = await api('GET', `/v1/companies/${companyId}/sub-ledgers`, { as });
    expect(subLedgers.body.data.map((s: { key: string; type: string }) => `${s.type} ${s.key}`).sort()).toEqual(['customer 12000', 'supplier supplier/12000']);
    const lines = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=2015&page_size=200`, { as });
    const keysOf = (accountCode: string) => lines.body.data.filter((line: { accountCode: string }) => line.accountCode === accountCode).map((line: { subLedgerKeys: string[] | null }) => line.subLedgerKeys);
    expect(keysOf('2400')).toContainEqual(['supplier/12000']);
    expect(keysOf('2400')).not.toContainEqual(['12000']);
  });

  it('1.30 (the same example in 1.30) reproduces the same trial balance', async () => {
    const { companyId, bytes, record } = await importFile('example-1.30-999999999.xml', '999999999');
    expect(record.report.header.saftVersion).toBe('1.30');
    await expectReproduced(companyId, 2015, bytes, record);
  });

  it('1.10 example 888888888 (170 lines) reproduces every balance; re-importing it updates the lines in place', async () => {
    const { companyId, bytes, record } = await importFile('example-1.10-888888888.xml', '888888888');
    expect(record.report.counts.lines).toBe(170);
    const year = record.report.header.fiscalYears[0];
    await expectReproduced(companyId, year, bytes, record);
    // 1.10 writes tax amounts unsigned: each line's is stored with the sign of its amount (credit sales negative).
    const lines = (await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=${year}&page_size=200`, { as })).body.data as { amount: unknown; taxAmount: unknown }[];
    const taxed = lines.filter((line) => line.taxAmount !== null && Number(String(line.taxAmount)) !== 0);
    expect(taxed.some((line) => Number(String(line.amount)) < 0)).toBe(true);
    expect(taxed.some((line) => Number(String(line.amount)) > 0)).toBe(true);
    for (const line of taxed) expect(Math.sign(Number(String(line.taxAmount))), JSON.stringify(line)).toBe(Math.sign(Number(String(line.amount))));
    // A line's TaxCode is the accounting system's own code: each GL line holds the standard code the tax table maps it to.
    const { standard, lineCodes } = fileTaxCodes(bytes);
    expect(standard.get('2')).toBe('3'); // this file's own code 2 is 25 % output VAT
    const stored = new Map((lines as unknown as { sourceLineId: string; taxCode: string | null }[]).map((line) => [line.sourceLineId, line.taxCode]));
    expect(lineCodes.size).toBeGreaterThan(0);
    for (const [lineId, own] of lineCodes) expect(stored.get(lineId), `${lineId} (own code ${own})`).toBe(standard.get(own) ?? own);
    // VAT reads the standard codes: term 1 has its 25 % output VAT (read as the own code 2, it counted in no total and the term read refundable).
    const terms = (await api('GET', `/v1/companies/${companyId}/vat/terms?year=${year}`, { as })).body;
    expect(terms.data[0]).toMatchObject({ term: 1, totals: { outputVat: 302708, inputVat: 44225.25, netVat: 258482.75, position: 'payable' } });
    const id = await upload(companyId, bytes);
    expect((await start(companyId, id)).status).toBe(202);
    const second = await waitForSaft(companyId, id);
    expect(second.body.status).toBe('succeeded');
    await expectReproduced(companyId, year, bytes, second.body);
  });
});

describe('SAF-T files that are refused, with nothing imported', () => {
  let companyId: string;
  beforeAll(async () => {
    companyId = await newCompany('999999999');
  });

  const nothingImported = async () => {
    const accounts = await api('GET', `/v1/companies/${companyId}/accounts?year=2015`, { as });
    expect(accounts.body.data ?? []).toEqual([]);
  };

  it.each([
    ['not XML', Buffer.from('this is not xml at all'), 'saft_not_xml'],
    ['gzip bytes declared as XML (a zip bomb)', gzipSync(Buffer.alloc(1024 * 1024)), 'saft_compressed'],
    ['billion laughs (a DTD with entities)', Buffer.from('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><lolz>&lol1;</lolz>'), 'saft_dtd_refused'],
    ['wrong namespace (the published 1.30 XMLSpy sample has none)', fixture('example-1.30-xmlspy.xml'), 'saft_not_saft'],
  ])('%s: 422 at start naming the problem', async (_what, bytes, reason) => {
    const id = await upload(companyId, bytes);
    const response = await start(companyId, id);
    expectProblem(response, 422, 'validation_failed');
    expect(response.body.reason).toBe(reason);
    await nothingImported();
  });

  it('an organization number that differs is 422 unless allowed', async () => {
    const other = await newCompany('123456785');
    const id = await upload(other, fixture('example-1.10-999999999.xml'));
    const refused = await start(other, id);
    expectProblem(refused, 422, 'validation_failed');
    expect(refused.body.reason).toBe('organization_number_mismatch');
  });

  it('XSD errors fail the import with their line numbers; a truncated file fails; nothing imported', async () => {
    const valid = fixture('example-1.10-999999999.xml').toString('utf8');
    const invalid = Buffer.from(valid.replace('<n1:AccountType>GL</n1:AccountType>', '<n1:AccountType>GL</n1:AccountType><n1:Colour>blue</n1:Colour>'));
    const id = await upload(companyId, invalid);
    expect((await start(companyId, id)).status).toBe(202);
    const failed = await waitForSaft(companyId, id);
    expect(failed.body).toMatchObject({ status: 'failed', failureReason: 'schema_invalid', importIds: [] });
    expect(failed.body.problems[0].line).toBeGreaterThan(1);
    expect(failed.body.problems[0].message).toContain('Colour');
    await nothingImported();

    const truncated = Buffer.from(valid.slice(0, Math.floor(valid.length * 0.7)));
    const cut = await upload(companyId, truncated);
    expect((await start(companyId, cut)).status).toBe(202);
    const failedCut = await waitForSaft(companyId, cut);
    expect(failedCut.body).toMatchObject({ status: 'failed', failureReason: 'invalid_file', importIds: [] });
    expect(failedCut.body.problems[0].message).toMatch(/truncated/);
    await nothingImported();
  });

  it('a header field the report could not show (a bidirectional override in Company/Name, valid for the XSD) is refused at start naming it (422 saft_not_saft); nothing queued or imported', async () => {
    const valid = fixture('example-1.10-999999999.xml').toString('utf8');
    const id = await upload(companyId, Buffer.from(valid.replace('<n1:Name>Selskapet AS</n1:Name>', '<n1:Name>Selskapet \u202Egnp.exe AS</n1:Name>')));
    const refused = await start(companyId, id);
    expectProblem(refused, 422, 'validation_failed');
    expect(refused.body).toMatchObject({ reason: 'saft_not_saft' });
    expect(refused.body.detail).toContain('Header/Company/Name must not contain bidirectional override or isolate characters (U+202A-U+202E, U+2066-U+2069).');
    expect((await api('GET', `/v1/companies/${companyId}/imports/saft/${id}`, { as })).body.status).toBe('awaiting_upload');
    await nothingImported();
  });

  it('200 MiB + 1 is refused at declaration; start without upload is 409 upload_missing; other bytes are 422 upload_mismatch', async () => {
    const tooLarge = await api('POST', `/v1/companies/${companyId}/imports/saft`, { as, body: { fileName: 'big.xml', sizeBytes: 200 * 1024 * 1024 + 1, sha256: 'a'.repeat(64) } });
    expectProblem(tooLarge, 400, 'validation_failed');
    const bytes = fixture('example-1.10-999999999.xml');
    const declared = await api('POST', `/v1/companies/${companyId}/imports/saft`, { as, body: { fileName: 'x.xml', sizeBytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') } });
    expectProblem(await start(companyId, declared.body.id), 409, 'upload_missing');

    // Other bytes of the declared length (the emulator does not check x-amz-checksum-sha256; real S3 answers BadDigest): start answers 422.
    const otherBytes = Buffer.from(bytes.toString('latin1').replace('Selskapet AS', 'Selskapet BS'), 'latin1');
    expect(otherBytes.length).toBe(bytes.length);
    expect((await fetch(declared.body.upload.url, { method: 'PUT', headers: declared.body.upload.headers, body: otherBytes })).status).toBe(200);
    const mismatch = await start(companyId, declared.body.id);
    expectProblem(mismatch, 422, 'upload_mismatch');
    expect((await api('GET', `/v1/companies/${companyId}/imports/saft/${declared.body.id}`, { as })).body.status).toBe('awaiting_upload');
  });

  it('a lane it writes through held by another import: 409 job_in_flight naming that job; nothing queued', async () => {
    const busyCompany = await newCompany('999999999');
    const id = await upload(busyCompany, fixture('example-1.10-999999999.xml'));
    const jobId = randomUUID();
    await dynamo().send(
      new PutCommand({ TableName: tableName(), Item: { ...laneLockKeys(busyCompany, 'general_ledger_lines'), jobId, importId: randomUUID(), leaseExpiresAt: Date.now() + 60_000 } }),
    );
    const response = await start(busyCompany, id);
    expectProblem(response, 409, 'conflict');
    expect(response.body).toMatchObject({ reason: 'job_in_flight', jobId });
    expect((await api('GET', `/v1/companies/${busyCompany}/imports/saft/${id}`, { as })).body.status).toBe('awaiting_upload');
  });

  it('a start that cannot be queued leaves the file awaiting a start: its job failed says why, the lanes are free, and starting again imports it', async () => {
    const companyId = await newCompany('999999999');
    const id = await upload(companyId, fixture('example-1.10-999999999.xml'));
    // The start as the imports function runs it, with the imports queue unreachable.
    const importsQueue = queues.find((queue) => queue.name === 'imports')!;
    const queueUrl = process.env[importsQueue.urlEnv];
    process.env[importsQueue.urlEnv] = `${queueUrl}-absent`;
    try {
      await expect(startSaftImport((await companyRepository.get(companyId))!, id, {})).rejects.toThrow();
    } finally {
      process.env[importsQueue.urlEnv] = queueUrl;
    }

    const jobs = await api('GET', `/v1/jobs?company_id=${companyId}`, { as });
    expect(jobs.body.data).toHaveLength(1);
    expect(jobs.body.data[0]).toMatchObject({ type: 'import:saft', status: 'failed', error: { code: 'internal_error', message: 'The import could not be queued; start it again.' } });
    const unstarted = await api('GET', `/v1/companies/${companyId}/imports/saft/${id}`, { as });
    expect(unstarted.body).toMatchObject({ status: 'awaiting_upload', jobId: null });
    expect((await eventsOfCompany(companyId)).map((event) => event.type)).toEqual(['company.created', 'job.failed']);

    const started = await start(companyId, id);
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.jobId).not.toBe(jobs.body.data[0].id);
    expect((await waitForSaft(companyId, id)).body.status).toBe('succeeded');
  });
});
