import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { bankRepository } from '../../shared/bank/repository';
import { deleteReconciliation } from '../../shared/bank/reconciliation';
import { ingestBankStatement } from '../../shared/bank/ingestion';
import { maxCamt053Bytes } from '../../shared/bank/camt053';
import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { dynamo } from '../../shared/platform/aws';
import { firstTransactionConflicted, observingCalls } from '../support/sdk-calls';
import { api, expectProblem } from '../support/api';
import { admin, ingest, ingestOk, lineIdsOf, statementXml, transactionsByReference, validAccountNumber, waitForPostFetch } from '../support/bank';
import { chartOf, importAndWait, newApiCompany } from '../support/ledger';
import { eventsOfCompany } from '../../shared/outbox/repository';
import { testStack } from '../support/stack';
import type { Json } from '../support/json';

const year = 2026;
const fixtures = resolve(import.meta.dirname, '../fixtures/camt053');

/**
 * A company with a 2026 chart, GL lines (no transaction dates, so the auto-reconciliation engine
 * leaves them to these tests) and one bank account ingested from a camt.053 statement.
 */
const books = async (lines: { id: string; accountCode?: string; amount: string; period: number; transactionDate?: string; description?: string }[], entries: Parameters<typeof statementXml>[2]) => {
  const companyId = await newApiCompany();
  await importAndWait(companyId, 'accounts', chartOf(year, ['1500', '1920', '1930', '3000']));
  if (lines.length) {
    const done = await importAndWait(companyId, 'general-ledger-lines', { year, lines: lines.map((line) => ({ accountCode: '1920', ...line })) });
    expect(done.body.rowsFailed).toBe(0);
    await waitForPostFetch(companyId, done.body.id);
  }
  const accountNumber = validAccountNumber('1206' + String(Math.floor(Math.random() * 1e6)).padStart(6, '0'));
  const result = await ingestOk(companyId, statementXml(accountNumber, `ST-${accountNumber}-1`, entries), '--gl-account', '1920');
  const bankAccountId = result.statements[0]!.bankAccountId;
  const transactions = await transactionsByReference(companyId, bankAccountId);
  const lineIds = await lineIdsOf(companyId, year, '1920');
  const tx = (reference: string) => transactions.get(reference)!.id as string;
  const line = (sourceId: string) => lineIds.get(sourceId)!;
  return { companyId, bankAccountId, accountNumber, tx, line };
};

const entry = (reference: string, bookingDate: string, amount: string, description = `Entry ${reference}`) => ({ reference, bookingDate, amount, description });

const create = (companyId: string, body: unknown, as = 'a-system', idempotencyKey?: string) =>
  api('POST', `/v1/companies/${companyId}/bank/reconciliations`, { as, body, ...(idempotencyKey && { idempotencyKey }) });

const statusOf = async (companyId: string, bankAccountId: string, reference: string) =>
  (await transactionsByReference(companyId, bankAccountId)).get(reference)!.reconciliationStatus;

describe('camt.053 ingestion (admin import-bank-statement)', () => {
  it('creates the bank account and its booked transactions; a re-ingest adds nothing; an amendment updates in place', async () => {
    const companyId = await newApiCompany();
    const xml = readFileSync(resolve(fixtures, 'statement-2026-01.xml'), 'utf8');
    const first = await ingest(companyId, xml);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/Ingested statement-\w+\.xml into company/);
    expect(first.out).toMatch(/STATEMENT\s+ACCOUNT NUMBER\s+BANK ACCOUNT ID\s+GL\s+ENTRIES\s+NEW\s+AMENDED\s+UNCHANGED\s+NOT BOOKED/);
    expect(first.out).toMatch(/\(new\)\s+[0-9a-f-]{36}\s+1920\s+9\s+8\s+0\s+0\s+1/);

    const accounts = await api('GET', `/v1/companies/${companyId}/bank/accounts`, { as: 'a-readonly' });
    expect(accounts.status).toBe(200);
    expect(accounts.body.pagination).toEqual({ next_cursor: null, has_more: false });
    expect(accounts.body.data).toHaveLength(1);
    const account = accounts.body.data[0];
    expect(account).toMatchObject({ currency: 'NOK', glAccountCode: '1920', accountNumber: expect.stringMatching(/^\d{11}$/), iban: `NO${account.iban.slice(2, 4)}${account.accountNumber}` });

    // The statement is announced in the same transaction that records it (webhook event bank.statement.ingested).
    testStack();
    const ingested = (await eventsOfCompany(companyId)).filter((event) => event.type === 'bank.statement.ingested');
    expect(ingested).toEqual([expect.objectContaining({ companyId, data: expect.objectContaining({ bankAccountId: account.id, statementId: expect.any(String) }) })]);

    const before = await transactionsByReference(companyId, account.id);
    expect(before.size).toBe(8);
    for (const t of before.values()) expect(t).toMatchObject({ reconciliationStatus: 'unreconciled', version: 1, currency: 'NOK', bankAccountId: account.id });
    const debits = [...before.values()].filter((t) => t.amount < 0);
    expect(debits.length).toBeGreaterThan(0);

    const again = await ingestOk(companyId, xml);
    expect(again.statements[0]).toMatchObject({ accountCreated: false, inserted: 0, amended: 0, unchanged: 8, skippedNotBooked: 1 });
    const after = await transactionsByReference(companyId, account.id);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    expect([...after.values()].map((t) => t.id).sort()).toEqual([...before.values()].map((t) => t.id).sort());

    const amended = await ingestOk(companyId, readFileSync(resolve(fixtures, 'statement-2026-01-amended.xml'), 'utf8'));
    expect(amended.statements[0]).toMatchObject({ inserted: 0, amended: 1, unchanged: 7 });
    const changed = [...(await transactionsByReference(companyId, account.id)).values()].filter((t) => t.version === 2);
    expect(changed).toHaveLength(1);
    expect(changed[0].amount).toBe(8152.5);
    expect(changed[0].id).toBe([...before.values()].find((t) => t.bankReference === changed[0].bankReference).id);

    // The original again (an older message than the correction: GrpHdr/CreDtTm): the correction stays, nothing is announced.
    const events = (await eventsOfCompany(companyId)).filter((event) => event.type === 'bank.statement.ingested').length;
    const older = await ingestOk(companyId, xml);
    expect(older.statements[0]).toMatchObject({ inserted: 0, amended: 0, unchanged: 8 });
    const kept = [...(await transactionsByReference(companyId, account.id)).values()].find((t) => t.id === changed[0].id);
    expect(kept).toMatchObject({ amount: 8152.5, version: 2 });
    expect((await eventsOfCompany(companyId)).filter((event) => event.type === 'bank.statement.ingested')).toHaveLength(events);
  });

  it('an entry a reconciliation transaction holds at the moment of its write (TransactionConflict) is read and written again: the statement is ingested whole', async () => {
    const companyId = await newApiCompany();
    const accountNumber = validAccountNumber('1503248200');
    const statement = (id: string, description: string) => statementXml(accountNumber, id, [entry('Q1', '2026-02-04', '100.00', description), entry('Q2', '2026-02-05', '200.00', description)]);
    const bankAccountId = (await ingestOk(companyId, statement('ST-HELD-0', 'Original'))).statements[0]!.bankAccountId;
    let refused = 0;
    const result = await observingCalls(
      dynamo(),
      (commandName, input) => {
        if (commandName !== 'UpdateItemCommand' || refused > 0 || !JSON.stringify(input.Key).includes('TX#')) return;
        refused++;
        throw new TransactionConflictException({ message: 'Transaction is ongoing for the item', $metadata: {} });
      },
      () => ingestBankStatement(companyId, statement('ST-HELD-1', 'Amended')),
    );
    expect(refused).toBe(1);
    expect(result.statements[0]).toMatchObject({ inserted: 0, amended: 2, unchanged: 0 });
    const stored = await transactionsByReference(companyId, bankAccountId);
    expect([stored.get('Q1').description, stored.get('Q2').description]).toEqual(['Amended', 'Amended']);
  });

  it('two statements amending one entry at once: the later writes its content on top of the other, none is lost or miscounted', async () => {
    const companyId = await newApiCompany();
    const accountNumber = validAccountNumber('1503248100');
    const statement = (id: string, description: string) => statementXml(accountNumber, id, [entry('R1', '2026-02-03', '100.00', description)]);
    const bankAccountId = (await ingestOk(companyId, statement('ST-RACE-0', 'Original'))).statements[0]!.bankAccountId;
    const amend = bankRepository.amendTransaction;
    let raced = false;
    // Another ingestion amends the entry between this one's read and its write.
    const spy = vi.spyOn(bankRepository, 'amendTransaction').mockImplementation(async (...args) => {
      if (!raced) {
        raced = true;
        expect((await ingestOk(companyId, statement('ST-RACE-2', 'Other run'))).statements[0]).toMatchObject({ amended: 1 });
      }
      return amend(...args);
    });
    try {
      expect((await ingestOk(companyId, statement('ST-RACE-1', 'This run'))).statements[0]).toMatchObject({ inserted: 0, amended: 1, unchanged: 0 });
    } finally {
      spy.mockRestore();
    }
    expect(raced).toBe(true);
    expect((await transactionsByReference(companyId, bankAccountId)).get('R1')).toMatchObject({ description: 'This run', version: 3 });
  });

  it('maps the statement fields: signed amounts, dates, KID, counterparty, bank transaction code', async () => {
    const companyId = await newApiCompany();
    const accountNumber = validAccountNumber('1503123456');
    const xml = statementXml(accountNumber, 'ST-FIELDS', [
      { reference: 'R1', bookingDate: '2026-03-02', valueDate: '2026-03-03', amount: '12500.00', description: 'Innbetaling faktura 10001', kid: '0012345678903', counterpartyName: 'Fjordkanten Kafé AS' },
      { reference: 'R2', bookingDate: '2026-03-05', amount: '-8000.5', description: 'Betaling <Møllerens> & Co', counterpartyName: 'Møllerens Mel AS' },
    ]);
    const { statements } = await ingestOk(companyId, xml, '--gl-account', '1930');
    expect(statements[0]).toMatchObject({ accountCreated: true, glAccountCode: '1930', inserted: 2 });
    const byReference = await transactionsByReference(companyId, statements[0]!.bankAccountId);
    expect(byReference.get('R1')).toMatchObject({
      bookingDate: '2026-03-02',
      valueDate: '2026-03-03',
      amount: 12500,
      reference: '0012345678903',
      counterpartyName: 'Fjordkanten Kafé AS',
      description: 'Innbetaling faktura 10001',
      bankTransactionCode: 'PMNT/RCDT/DMCT',
      statementId: 'ST-FIELDS',
    });
    expect(byReference.get('R2')).toMatchObject({ amount: -8000.5, description: 'Betaling <Møllerens> & Co', counterpartyName: 'Møllerens Mel AS' });
    const raw = await api('GET', `/v1/companies/${companyId}/bank/accounts/${statements[0]!.bankAccountId}/transactions`, { as: 'a-system' });
    expect(raw.text).toContain('"amount":-8000.50'); // explicit decimals on the wire
  });

  it.each([
    ['not-well-formed.xml', /^error: Not well-formed XML at line \d+/],
    ['camt052.xml', /^error: Not a camt\.053 statement: the file is a camt\.052/],
    ['missing-amount.xml', /^error: Stmt 1 Ntry \d+: Amt is missing/],
    ['bad-indicator.xml', /^error: Stmt 1 Ntry \d+: CdtDbtInd/],
  ])('refuses %s with a clear error and writes nothing', async (file, message) => {
    const companyId = await newApiCompany();
    const run = await ingest(companyId, readFileSync(resolve(fixtures, file), 'utf8'));
    expect(run.code).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toMatch(message);
    const accounts = await api('GET', `/v1/companies/${companyId}/bank/accounts`, { as: 'a-system' });
    expect(accounts.body.data).toEqual([]);
  });

  it('refuses a statement whose later entry is bad without writing its earlier entries', async () => {
    const companyId = await newApiCompany();
    const good = statementXml(validAccountNumber('1503555555'), 'ST-HALF', [entry('A', '2026-01-02', '10.00'), entry('B', '2026-01-03', '20.00')]);
    const broken = good.replace(/<Amt Ccy="NOK">20\.00<\/Amt>/, '<Amt Ccy="NOK">20,00</Amt>');
    expect(broken).not.toBe(good);
    const run = await ingest(companyId, broken);
    expect(run).toMatchObject({ code: 1 });
    expect(run.err).toMatch(/Ntry 2: Amt is not a decimal/);
    expect((await api('GET', `/v1/companies/${companyId}/bank/accounts`, { as: 'a-system' })).body.data).toEqual([]);
  });

  it('refuses a file breaking ISO 20022 limits or the text rule whole, writing nothing (a 1,100-character Stmt/Id once wrote the account and transactions, then failed on its key)', async () => {
    const companyId = await newApiCompany();
    const good = statementXml(validAccountNumber('1503666666'), 'ST-LIMITS', [entry('A', '2026-01-02', '10.00'), entry('B', '2026-01-03', '20.00')]);
    const pendingOnly = good.replaceAll('<Sts>BOOK</Sts>', '<Sts>PDNG</Sts>');
    const cases: [string, string | RegExp][] = [
      [good.replace('<Id>ST-LIMITS</Id>', `<Id>${'S'.repeat(1100)}</Id>`), 'error: Stmt 1: Id has 1100 characters; ISO 20022 allows at most 35'],
      [good.replace('Entry B', 'Entry\u0085B'), /^error: Stmt 1 Ntry 2: AddtlNtryInf must not contain control characters/],
      [good.replace('Testbedrift AS', 'Testbedrift\u202ESA'), /^error: Stmt 1 Acct: Ownr\/Nm must not contain bidirectional override/],
      [pendingOnly.replace('<Ccy>NOK</Ccy>', `<Ccy>${'N'.repeat(4000)}</Ccy>`), 'error: Stmt 1 Acct: Ccy has 4000 characters; ISO 20022 allows at most 3'],
      [pendingOnly.replace('<Ccy>NOK</Ccy>', '<Ccy>kr.</Ccy>'), 'error: Stmt 1 Acct: Ccy is not a currency code (three capital letters): "kr."'],
      [good.replace('<CreDtTm>2026-01-03T23:59:59</CreDtTm>', '<CreDtTm>in the morning</CreDtTm>'), 'error: GrpHdr: CreDtTm is not a valid ISO date-time: "in the morning"'],
      [good.replace('<Document', '<!DOCTYPE Document [<!ENTITY x "x">]><Document'), 'error: The file has a DOCTYPE; DTDs and entity declarations are refused (a camt.053 statement has none)'],
    ];
    expect(new Set(cases.map(([xml]) => xml)).size).toBe(cases.length);
    expect(cases.every(([xml]) => xml !== good && xml !== pendingOnly)).toBe(true);
    for (const [xml, message] of cases) {
      const run = await ingest(companyId, xml);
      expect(run.code).toBe(1);
      expect(run.err.split('\n')).toHaveLength(1);
      expect(run.err).toMatch(message);
    }
    expect((await api('GET', `/v1/companies/${companyId}/bank/accounts`, { as: 'a-system' })).body.data).toEqual([]);
    expect((await eventsOfCompany(companyId)).filter((event) => event.type === 'bank.statement.ingested')).toEqual([]);
  });

  it(`refuses a file over 16 MiB before reading it`, async () => {
    const companyId = await newApiCompany();
    const good = statementXml(validAccountNumber('1503777777'), 'ST-SIZE', [entry('A', '2026-01-02', '10.00')]);
    const big = good.replace('</Document>', `<!--${' '.repeat(maxCamt053Bytes)}--></Document>`);
    const run = await ingest(companyId, big);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(new RegExp(`^error: \\S+\\.xml is ${Buffer.byteLength(big)} bytes; a camt\\.053 file may be at most ${maxCamt053Bytes} \\(16 MiB\\)$`));
    expect((await api('GET', `/v1/companies/${companyId}/bank/accounts`, { as: 'a-system' })).body.data).toEqual([]);
  });

  it('answers usage errors: missing flags, unreadable file, unknown company, bad GL code', async () => {
    expect((await admin('import-bank-statement', '--company', 'x')).code).toBe(2);
    const companyId = await newApiCompany();
    const missing = await admin('import-bank-statement', '--company', companyId, '--file', '/nonexistent/statement.xml');
    expect(missing).toMatchObject({ code: 1, err: 'error: Cannot read /nonexistent/statement.xml: ENOENT' });
    const unknown = await ingest('00000000-0000-4000-8000-000000000000', '<x/>');
    expect(unknown).toMatchObject({ code: 1, err: 'error: Company 00000000-0000-4000-8000-000000000000 not found' });
    const badCode = await ingest(companyId, '<x/>', '--gl-account', '19 20');
    expect(badCode).toMatchObject({ code: 1, err: 'error: --gl-account 19 20 is not an account code' });
  });
});

describe('bank reads', () => {
  it('lists transactions newest first with from/to, status filter and cursor pagination', async () => {
    const entries = Array.from({ length: 9 }, (_, i) => entry(`P${i}`, `2026-02-${String(10 + i).padStart(2, '0')}`, `${100 + i}.00`));
    const { companyId, bankAccountId, tx, line } = await books([{ id: 'l-p3', amount: '103.00', period: 2 }], entries);
    const path = `/v1/companies/${companyId}/bank/accounts/${bankAccountId}/transactions`;

    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Json = await api('GET', `${path}?page_size=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { as: 'a-system' });
      expect(page.status).toBe(200);
      pages.push(...page.body.data.map((t: { bankReference: string }) => t.bankReference));
      cursor = page.body.pagination.next_cursor;
      expect(page.body.pagination.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(pages).toEqual(['P8', 'P7', 'P6', 'P5', 'P4', 'P3', 'P2', 'P1', 'P0']);

    const window = await api('GET', `${path}?from=2026-02-12&to=2026-02-14`, { as: 'a-system' });
    expect(window.body.data.map((t: { bankReference: string }) => t.bankReference)).toEqual(['P4', 'P3', 'P2']);

    expect((await create(companyId, { bankAccountId, year, period: 2, bankTransactionIds: [tx('P3')], lineIds: [line('l-p3')] })).status).toBe(200);
    const reconciled = await api('GET', `${path}?reconciliation_status=reconciled`, { as: 'a-system' });
    expect(reconciled.body.data.map((t: { bankReference: string }) => t.bankReference)).toEqual(['P3']);
    const open = await api('GET', `${path}?reconciliation_status=unreconciled&page_size=3`, { as: 'a-system' });
    expect(open.body.data.map((t: { bankReference: string }) => t.bankReference)).toEqual(['P8', 'P7', 'P6']);
    const rest = await api('GET', `${path}?reconciliation_status=unreconciled&page_size=10&cursor=${encodeURIComponent(open.body.pagination.next_cursor)}`, { as: 'a-system' });
    expect(rest.body.data.map((t: { bankReference: string }) => t.bankReference)).toEqual(['P5', 'P4', 'P2', 'P1', 'P0']);
    expect(rest.body.pagination).toEqual({ next_cursor: null, has_more: false });
    expect((await api('GET', `${path}?reconciliation_status=stale`, { as: 'a-system' })).body.data).toEqual([]);

    // a cursor is bound to its filters
    expectProblem(await api('GET', `${path}?reconciliation_status=reconciled&cursor=${encodeURIComponent(open.body.pagination.next_cursor)}`, { as: 'a-system' }), 400, 'invalid_cursor');
  });

  it('validates the query and answers 404 outside the company or reach', async () => {
    const { companyId, bankAccountId } = await books([], [entry('Q1', '2026-01-05', '1.00')]);
    const path = `/v1/companies/${companyId}/bank/accounts/${bankAccountId}/transactions`;
    expectProblem(await api('GET', `${path}?reconciliation_status=done`, { as: 'a-system' }), 400, 'validation_failed');
    expectProblem(await api('GET', `${path}?from=2026-13-01`, { as: 'a-system' }), 400, 'validation_failed');
    expectProblem(await api('GET', `${path}?from=2026-02-01&to=2026-01-01`, { as: 'a-system' }), 400, 'validation_failed');
    expectProblem(await api('GET', `${path}?page_size=201`, { as: 'a-system' }), 400, 'validation_failed');
    expectProblem(await api('GET', `${path}?color=red`, { as: 'a-system' }), 400, 'validation_failed');
    expectProblem(await api('GET', path, { as: 'b-system' }), 404, 'not_found');
    expectProblem(await api('GET', `/v1/companies/${companyId}/bank/accounts`, { as: 'b-system' }), 404, 'not_found');
    const other = await newApiCompany();
    expectProblem(await api('GET', `/v1/companies/${other}/bank/accounts/${bankAccountId}/transactions`, { as: 'a-system' }), 404, 'not_found');
    expectProblem(await api('GET', `/v1/companies/${companyId}/bank/accounts/00000000-0000-4000-8000-000000000000/transactions`, { as: 'a-system' }), 404, 'not_found');
    expectProblem(await api('GET', `/v1/companies/${companyId}/bank/accounts/not-a-uuid/transactions`, { as: 'a-system' }), 404, 'not_found');
  });
});

describe('reconciliation groups', () => {
  it("keeps the first 500 characters of a member's description in the group (the member keeps all of it)", async () => {
    const description = 'Faktura '.repeat(125); // 1,000 characters
    const { companyId, bankAccountId, tx, line } = await books([{ id: 'long', amount: '40.00', period: 3, description }], [entry('L1', '2026-03-10', '40.00')]);
    const created = await create(companyId, { bankAccountId, year, period: 3, bankTransactionIds: [tx('L1')], lineIds: [line('long')] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const lineEntry = created.body.entries.find((e: { type: string }) => e.type === 'gl_line');
    expect(lineEntry.description).toBe(`${description.slice(0, 499)}…`);
    const lines = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=${year}`, { as: 'a-system' });
    expect(lines.body.data[0].description).toBe(description);
  });

  it('a dissolution whose transaction a concurrent one cancelled (TransactionConflict, nothing written) is made again: dissolved once, one event', async () => {
    const { companyId, bankAccountId, tx, line } = await books([{ id: 'c1', amount: '410.00', period: 5 }], [entry('C1', '2026-05-10', '410.00')]);
    const created = await create(companyId, { bankAccountId, year, period: 5, bankTransactionIds: [tx('C1')], lineIds: [line('c1')] });
    expect(created.status).toBe(200);
    const { answer, cancelled } = await firstTransactionConflicted(dynamo(), created.body.id, () => deleteReconciliation(companyId, created.body.id));
    expect(cancelled).toBe(1);
    expect(answer).toMatchObject({ id: created.body.id, deleted: true, released: { bankTransactionIds: [tx('C1')], lineIds: [line('c1')] } });
    expect(await statusOf(companyId, bankAccountId, 'C1')).toBe('unreconciled');
    expect((await eventsOfCompany(companyId)).filter((event) => event.type === 'reconciliation.deleted')).toHaveLength(1);
  });

  it('creates a group (members reconciled), reads it and lists it by year and period; DELETE dissolves it', async () => {
    const { companyId, bankAccountId, tx, line } = await books(
      [
        { id: 'g1', amount: '700.00', period: 3 },
        { id: 'g2', amount: '300.00', period: 3 },
        { id: 'g3', amount: '-50.00', period: 4 },
      ],
      [entry('T1', '2026-03-10', '1000.00'), entry('T2', '2026-04-02', '-50.00')],
    );
    const body = { bankAccountId, year, period: 3, bankTransactionIds: [tx('T1')], lineIds: [line('g1'), line('g2')], note: 'Innbetaling to fakturaer' };
    const created = await create(companyId, body);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      bankAccountId,
      year,
      period: 3,
      glAccountCode: '1920',
      source: 'manual',
      note: 'Innbetaling to fakturaer',
      bankTransactionCount: 1,
      glLineCount: 2,
      total: 1000,
      stale: false,
      createdBy: expect.any(String),
    });
    expect(created.text).toContain('"total":1000.00');
    expect(created.body.entries).toEqual([
      expect.objectContaining({ type: 'bank_transaction', bankTransactionId: tx('T1'), amount: 1000, stale: false }),
      expect.objectContaining({ type: 'gl_line', lineId: line('g1'), sourceLineId: 'g1', accountCode: '1920', period: 3, amount: 700, stale: false }),
      expect.objectContaining({ type: 'gl_line', lineId: line('g2'), sourceLineId: 'g2', amount: 300 }),
    ]);
    const groupId = created.body.id;
    expect(await statusOf(companyId, bankAccountId, 'T1')).toBe('reconciled');
    expect((await transactionsByReference(companyId, bankAccountId)).get('T1').reconciliationId).toBe(groupId);

    const second = await create(companyId, { bankAccountId, year, period: 4, bankTransactionIds: [tx('T2')], lineIds: [line('g3')] });
    expect(second.status).toBe(200);

    const read = await api('GET', `/v1/companies/${companyId}/reconciliations/${groupId}`, { as: 'a-readonly' });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const list = (query: string) => api('GET', `/v1/companies/${companyId}/bank/accounts/${bankAccountId}/reconciliations${query}`, { as: 'a-system' });
    expect((await list('')).body.data.map((g: { id: string }) => g.id)).toEqual([groupId, second.body.id]);
    expect((await list(`?year=${year}&period=3`)).body.data.map((g: { id: string }) => g.id)).toEqual([groupId]);
    expect((await list(`?year=${year}&period=5`)).body.data).toEqual([]);
    expect((await list('?year=2025')).body.data).toEqual([]);
    const firstPage = await list('?page_size=1');
    expect(firstPage.body.data[0]).not.toHaveProperty('entries');
    expect(firstPage.body.pagination.has_more).toBe(true);
    expect((await list(`?page_size=1&cursor=${encodeURIComponent(firstPage.body.pagination.next_cursor)}`)).body.data[0].id).toBe(second.body.id);
    // period alone: that period of the current accounting year (2026 here)
    expect((await list('?period=3')).body.data.map((g: { id: string }) => g.id)).toEqual([groupId]);
    expectProblem(await list('?period=13&year=2026'), 400, 'validation_failed');

    // a reconciled GL line cannot be deleted (the ledger's rule 11)
    const deletion = await api('POST', `/v1/companies/${companyId}/imports/general-ledger-lines/deletions`, { as: 'a-system', body: { year, ids: ['g1'] } });
    expectProblem(deletion, 409, 'conflict');
    expect(deletion.body).toMatchObject({ reason: 'lines_in_use', inUse: [{ id: 'g1', reconciliationGroupId: groupId }] });

    const dissolved = await api('DELETE', `/v1/companies/${companyId}/reconciliations/${groupId}`, { as: 'a-system' });
    expect(dissolved.status).toBe(200);
    expect(dissolved.body).toEqual({ id: groupId, deleted: true, deletedAt: expect.any(String), released: { bankTransactionIds: [tx('T1')], lineIds: [line('g1'), line('g2')] } });
    expect(await statusOf(companyId, bankAccountId, 'T1')).toBe('unreconciled');
    expectProblem(await api('GET', `/v1/companies/${companyId}/reconciliations/${groupId}`, { as: 'a-system' }), 404, 'not_found');
    expect((await list('')).body.data.map((g: { id: string }) => g.id)).toEqual([second.body.id]);
    const again = await api('DELETE', `/v1/companies/${companyId}/reconciliations/${groupId}`, { as: 'a-system' });
    expect(again.body).toEqual(dissolved.body);

    // the members are free again: a new group may take them
    const recreated = await create(companyId, body);
    expect(recreated.status).toBe(200);
    // each change is announced in the outbox, in the same transaction
    const { testStack } = await import('../support/stack');
    const { eventsOfCompany } = await import('../../shared/outbox/repository');
    testStack();
    const events = (await eventsOfCompany(companyId)).filter((event) => event.type.startsWith('reconciliation.'));
    expect(events.map((event) => `${event.type} ${event.data.reconciliationId}`)).toEqual([
      `reconciliation.created ${groupId}`,
      `reconciliation.created ${second.body.id}`,
      `reconciliation.deleted ${groupId}`,
      `reconciliation.created ${recreated.body.id}`,
    ]);
    expect(events[0]!.data).toEqual({ reconciliationId: groupId, bankAccountId, year, period: 3, source: 'manual' });
    expectProblem(await api('DELETE', `/v1/companies/${companyId}/reconciliations/00000000-0000-4000-8000-000000000000`, { as: 'a-system' }), 404, 'not_found');
    expectProblem(await api('GET', `/v1/companies/${companyId}/reconciliations/${second.body.id}`, { as: 'b-system' }), 404, 'not_found');
    expectProblem(await api('DELETE', `/v1/companies/${companyId}/reconciliations/${second.body.id}`, { as: 'a-readonly' }), 403, 'insufficient_scope');
  });

  it('lists by period alone in the current accounting year, with cursors bound to the filters', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(year - 1, ['1920', '3000']));
    await importAndWait(companyId, 'accounts', chartOf(year, ['1920', '3000']));
    for (const [lineYear, lines] of [
      [year - 1, [{ id: 'p1', accountCode: '1920', amount: '100.00', period: 3 }]],
      [year, [{ id: 'c1', accountCode: '1920', amount: '200.00', period: 3 }, { id: 'c2', accountCode: '1920', amount: '300.00', period: 3 }, { id: 'c3', accountCode: '1920', amount: '400.00', period: 4 }]],
    ] as const) {
      const done = await importAndWait(companyId, 'general-ledger-lines', { year: lineYear, lines });
      await waitForPostFetch(companyId, done.body.id);
    }
    const accountNumber = validAccountNumber('1207' + String(Math.floor(Math.random() * 1e6)).padStart(6, '0'));
    const ingested = await ingestOk(
      companyId,
      statementXml(accountNumber, `ST-${accountNumber}-1`, [
        entry('P1', `${year - 1}-03-10`, '100.00'),
        entry('C1', `${year}-03-10`, '200.00'),
        entry('C2', `${year}-03-11`, '300.00'),
        entry('C3', `${year}-04-11`, '400.00'),
      ]),
      '--gl-account',
      '1920',
    );
    const bankAccountId = ingested.statements[0]!.bankAccountId;
    const transactions = await transactionsByReference(companyId, bankAccountId);
    const linesOf = { [year - 1]: await lineIdsOf(companyId, year - 1, '1920'), [year]: await lineIdsOf(companyId, year, '1920') };
    const group = async (groupYear: number, period: number, reference: string, sourceId: string) => {
      const created = await create(companyId, { bankAccountId, year: groupYear, period, bankTransactionIds: [transactions.get(reference)!.id], lineIds: [linesOf[groupYear]!.get(sourceId)] });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      return created.body.id as string;
    };
    const past = await group(year - 1, 3, 'P1', 'p1');
    const c1 = await group(year, 3, 'C1', 'c1');
    const c2 = await group(year, 3, 'C2', 'c2');
    const april = await group(year, 4, 'C3', 'c3');

    const list = (query: string) => api('GET', `/v1/companies/${companyId}/bank/accounts/${bankAccountId}/reconciliations${query}`, { as: 'a-readonly' });
    const ids = async (query: string) => (await list(query)).body.data.map((g: { id: string }) => g.id);
    expect(await ids('?period=3')).toEqual([c1, c2]);
    expect(await ids(`?year=${year - 1}&period=3`)).toEqual([past]);
    expect(await ids('?period=4')).toEqual([april]);
    expect(await ids('?period=5')).toEqual([]);
    expect(await ids('')).toEqual([past, c1, c2, april]);

    const first = await list('?period=3&page_size=1');
    expect(first.body.data.map((g: { id: string; year: number }) => [g.id, g.year])).toEqual([[c1, year]]);
    expect(first.body.pagination.has_more).toBe(true);
    const cursor = encodeURIComponent(first.body.pagination.next_cursor);
    const second = await list(`?period=3&page_size=1&cursor=${cursor}`);
    expect(second.body.data.map((g: { id: string }) => g.id)).toEqual([c2]);
    expect(second.body.pagination).toEqual({ next_cursor: null, has_more: false });
    // the cursor is bound to the filters as given: the same listing with the year spelled out is another listing
    expectProblem(await list(`?year=${year}&period=3&page_size=1&cursor=${cursor}`), 400, 'invalid_cursor');
    expectProblem(await list(`?period=4&page_size=1&cursor=${cursor}`), 400, 'invalid_cursor');
  });

  it('answers 409 already_reconciled for a member in another group, naming it and its group', async () => {
    const { companyId, bankAccountId, tx, line } = await books(
      [
        { id: 'a1', amount: '40.00', period: 1 },
        { id: 'a2', amount: '40.00', period: 1 },
      ],
      [entry('U1', '2026-01-10', '40.00'), entry('U2', '2026-01-11', '40.00')],
    );
    const first = await create(companyId, { bankAccountId, year, period: 1, bankTransactionIds: [tx('U1')], lineIds: [line('a1')] });
    expect(first.status).toBe(200);
    const sameLine = await create(companyId, { bankAccountId, year, period: 1, bankTransactionIds: [tx('U2')], lineIds: [line('a1')] });
    expectProblem(sameLine, 409, 'already_reconciled');
    expect(sameLine.body.inUse).toEqual([{ id: line('a1'), type: 'gl_line', reconciliationId: first.body.id }]);
    const sameTransaction = await create(companyId, { bankAccountId, year, period: 1, bankTransactionIds: [tx('U1')], lineIds: [line('a2')] });
    expectProblem(sameTransaction, 409, 'already_reconciled');
    expect(sameTransaction.body.inUse).toEqual([{ id: tx('U1'), type: 'bank_transaction', reconciliationId: first.body.id }]);
    expect(await statusOf(companyId, bankAccountId, 'U2')).toBe('unreconciled');
  });

  it('answers 422 invalid_members for members that do not fit, and 422 unbalanced; nothing is written', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(year, ['1920', '1930', '3000']));
    await importAndWait(companyId, 'general-ledger-lines', {
      year,
      lines: [
        { id: 'v1', accountCode: '1920', amount: '10.00', period: 5 },
        { id: 'v2', accountCode: '3000', amount: '10.00', period: 5 },
        { id: 'v3', accountCode: '1920', amount: '10.00', period: 6 },
        { id: 'v4', accountCode: '1920', amount: '10.01', period: 5 },
      ],
    });
    const { statements } = await ingestOk(companyId, statementXml(validAccountNumber('1503777777'), 'ST-V', [entry('V1', '2026-05-03', '10.00')]));
    const bankAccountId = statements[0]!.bankAccountId;
    const otherAccount = (await ingestOk(companyId, statementXml(validAccountNumber('1503888888'), 'ST-W', [entry('W1', '2026-05-03', '10.00')]))).statements[0]!;
    const t = (await transactionsByReference(companyId, bankAccountId)).get('V1').id;
    const foreign = (await transactionsByReference(companyId, otherAccount.bankAccountId)).get('W1').id;
    const lines = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=${year}`, { as: 'a-system' });
    const l = (id: string) => lines.body.data.find((x: { sourceLineId: string }) => x.sourceLineId === id).lineId;

    const invalid = await create(companyId, { bankAccountId, year, period: 5, bankTransactionIds: [t, foreign], lineIds: [l('v1'), l('v2'), l('v3'), 'nosuchline'] });
    expectProblem(invalid, 422, 'validation_failed');
    expect(invalid.body.reason).toBe('invalid_members');
    expect(invalid.body.errors).toEqual([
      { index: 1, field: 'bankTransactionIds', message: `bank transaction ${foreign} is not a transaction of bank account ${bankAccountId}` },
      { index: 1, field: 'lineIds', message: `GL line ${l('v2')} is on account 3000, not on the bank account's GL account 1920` },
      { index: 2, field: 'lineIds', message: `GL line ${l('v3')} is in period 6, not 5` },
      { index: 3, field: 'lineIds', message: `GL line nosuchline does not exist in ${year}` },
    ]);
    const wrongYear = await create(companyId, { bankAccountId, year: 2025, period: 5, bankTransactionIds: [t], lineIds: [l('v1')] });
    expect(wrongYear.body.errors).toEqual([{ index: 0, field: 'lineIds', message: `GL line ${l('v1')} does not exist in 2025` }]);

    const unbalanced = await create(companyId, { bankAccountId, year, period: 5, bankTransactionIds: [t], lineIds: [l('v4')] });
    expectProblem(unbalanced, 422, 'validation_failed');
    expect(unbalanced.body).toMatchObject({ reason: 'unbalanced', detail: expect.stringContaining('difference -0.01') });
    expect(await statusOf(companyId, bankAccountId, 'V1')).toBe('unreconciled');
    expect((await api('GET', `/v1/companies/${companyId}/bank/accounts/${bankAccountId}/reconciliations`, { as: 'a-system' })).body.data).toEqual([]);

    // structure: 400 validation_failed naming the field
    for (const body of [
      { year, period: 5, bankTransactionIds: [t] },
      { bankAccountId, year, period: 13, bankTransactionIds: [t] },
      { bankAccountId, year, period: 5, bankTransactionIds: [] },
      { bankAccountId, year, period: 5, bankTransactionIds: [t, t] },
      { bankAccountId, year, period: 5, bankTransactionIds: [t], extra: true },
      { bankAccountId, year, period: 5, bankTransactionIds: [t], lineIds: Array.from({ length: 98 }, (_, i) => `x${i}`) },
    ]) {
      expectProblem(await create(companyId, body), 400, 'validation_failed');
    }
    expectProblem(await create(companyId, { bankAccountId: '00000000-0000-4000-8000-000000000000', year, period: 5, bankTransactionIds: [t] }), 404, 'not_found');
    expectProblem(await create(companyId, { bankAccountId, year, period: 5, bankTransactionIds: [t], lineIds: [l('v1')] }, 'b-system'), 404, 'not_found');
    expectProblem(await create(companyId, { bankAccountId, year, period: 5, bankTransactionIds: [t], lineIds: [l('v1')] }, 'a-readonly'), 403, 'insufficient_scope');
    const noKey = await api('POST', `/v1/companies/${companyId}/bank/reconciliations`, { as: 'a-system', body: { bankAccountId, year, period: 5, bankTransactionIds: [t], lineIds: [l('v1')] }, idempotencyKey: null });
    expect(noKey.status).toBe(400);
  });

  it('replays the same Idempotency-Key with the stored group and never creates a second', async () => {
    const { companyId, bankAccountId, tx, line } = await books([{ id: 'i1', amount: '99.90', period: 2 }], [entry('I1', '2026-02-01', '99.90')]);
    const body = { bankAccountId, year, period: 2, bankTransactionIds: [tx('I1')], lineIds: [line('i1')] };
    const key = crypto.randomUUID();
    const first = await create(companyId, body, 'a-system', key);
    const replay = await create(companyId, body, 'a-system', key);
    expect(first.status).toBe(200);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect((await api('GET', `/v1/companies/${companyId}/bank/accounts/${bankAccountId}/reconciliations`, { as: 'a-system' })).body.data).toHaveLength(1);
  });

  it('lets exactly one of two racing creates take the same GL line; the other gets 409', async () => {
    for (let round = 0; round < 3; round++) {
      const { companyId, bankAccountId, tx, line } = await books([{ id: 'r1', amount: '500.00', period: 7 }], [entry('RA', '2026-07-01', '500.00'), entry('RB', '2026-07-02', '500.00')]);
      const results = await Promise.all([
        create(companyId, { bankAccountId, year, period: 7, bankTransactionIds: [tx('RA')], lineIds: [line('r1')] }),
        create(companyId, { bankAccountId, year, period: 7, bankTransactionIds: [tx('RB')], lineIds: [line('r1')] }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const loser = results.find((r) => r.status === 409)!;
      expectProblem(loser, 409, 'already_reconciled');
      const winner = results.find((r) => r.status === 200)!;
      expect(loser.body.inUse).toEqual([{ id: line('r1'), type: 'gl_line', reconciliationId: winner.body.id }]);
      const statuses = await transactionsByReference(companyId, bankAccountId);
      expect([statuses.get('RA').reconciliationStatus, statuses.get('RB').reconciliationStatus].sort()).toEqual(['reconciled', 'unreconciled']);
      expect((await api('GET', `/v1/companies/${companyId}/bank/accounts/${bankAccountId}/reconciliations`, { as: 'a-system' })).body.data).toHaveLength(1);
    }
  });
});

describe('stale groups', () => {
  it('a GL line re-imported with another amount makes its group and transactions stale; an unchanged re-send does not', async () => {
    const { companyId, bankAccountId, tx, line } = await books([{ id: 's1', amount: '250.00', period: 8, description: 'Innbetaling' }], [entry('S1', '2026-08-05', '250.00')]);
    const group = await create(companyId, { bankAccountId, year, period: 8, bankTransactionIds: [tx('S1')], lineIds: [line('s1')] });
    expect(group.status).toBe(200);

    await importAndWait(companyId, 'general-ledger-lines', { year, lines: [{ id: 's1', accountCode: '1920', amount: '250.00', period: 8, description: 'Innbetaling' }] });
    expect(await statusOf(companyId, bankAccountId, 'S1')).toBe('reconciled');
    await importAndWait(companyId, 'general-ledger-lines', { year, lines: [{ id: 's1', accountCode: '1920', amount: '250.00', period: 8, description: 'Innbetaling, ny tekst' }] });
    expect(await statusOf(companyId, bankAccountId, 'S1')).toBe('reconciled'); // description is not part of the condition

    await importAndWait(companyId, 'general-ledger-lines', { year, lines: [{ id: 's1', accountCode: '1920', amount: '260.00', period: 8 }] });
    expect(await statusOf(companyId, bankAccountId, 'S1')).toBe('stale');
    const read = await api('GET', `/v1/companies/${companyId}/reconciliations/${group.body.id}`, { as: 'a-system' });
    expect(read.body).toMatchObject({ stale: true, total: 250 });
    expect(read.body.entries.map((e: { type: string; stale: boolean }) => [e.type, e.stale])).toEqual([['bank_transaction', false], ['gl_line', true]]);
    const stale = await api('GET', `/v1/companies/${companyId}/bank/accounts/${bankAccountId}/transactions?reconciliation_status=stale`, { as: 'a-system' });
    expect(stale.body.data.map((t: { bankReference: string }) => t.bankReference)).toEqual(['S1']);
    const summary = await api('GET', `/v1/companies/${companyId}/bank/accounts/${bankAccountId}/reconciliation-summary?year=${year}`, { as: 'a-system' });
    expect(summary.body.periods[7]).toMatchObject({ period: 8, groupCount: 1, staleGroupCount: 1, stale: true });

    // moved back to what it was: no longer stale
    await importAndWait(companyId, 'general-ledger-lines', { year, lines: [{ id: 's1', accountCode: '1920', amount: '250.00', period: 8 }] });
    expect(await statusOf(companyId, bankAccountId, 'S1')).toBe('reconciled');
    // moved to another account: stale
    await importAndWait(companyId, 'general-ledger-lines', { year, lines: [{ id: 's1', accountCode: '1930', amount: '250.00', period: 8 }] });
    expect(await statusOf(companyId, bankAccountId, 'S1')).toBe('stale');
    // dissolving the stale group leaves the transaction unreconciled
    expect((await api('DELETE', `/v1/companies/${companyId}/reconciliations/${group.body.id}`, { as: 'a-system' })).status).toBe(200);
    expect(await statusOf(companyId, bankAccountId, 'S1')).toBe('unreconciled');
  });

  it('a bank transaction amended by a later statement makes its group stale', async () => {
    const accountNumber = validAccountNumber('1503999000');
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(year, ['1920']));
    await importAndWait(companyId, 'general-ledger-lines', { year, lines: [{ id: 'b1', accountCode: '1920', amount: '75.00', period: 9 }] });
    const { statements } = await ingestOk(companyId, statementXml(accountNumber, 'ST-AM', [entry('AM1', '2026-09-01', '75.00')]));
    const bankAccountId = statements[0]!.bankAccountId;
    const t = (await transactionsByReference(companyId, bankAccountId)).get('AM1').id;
    const l = (await lineIdsOf(companyId, year, '1920')).get('b1')!;
    expect((await create(companyId, { bankAccountId, year, period: 9, bankTransactionIds: [t], lineIds: [l] })).status).toBe(200);
    const amended = await ingestOk(companyId, statementXml(accountNumber, 'ST-AM', [entry('AM1', '2026-09-01', '57.00')]));
    expect(amended.statements[0]).toMatchObject({ amended: 1 });
    const after = (await transactionsByReference(companyId, bankAccountId)).get('AM1');
    expect(after).toMatchObject({ id: t, amount: 57, version: 2, reconciliationStatus: 'stale' });
  });
});

describe('reconciliation summary', () => {
  it('has twelve periods with group and entry counts, unreconciled counts and the approvals set with the admin CLI', async () => {
    const { companyId, bankAccountId, tx, line } = await books(
      [
        { id: 'm1', amount: '10.00', period: 1 },
        { id: 'm2', amount: '20.00', period: 1 },
        { id: 'm3', amount: '30.00', period: 3 },
      ],
      [entry('M1', '2026-01-03', '30.00'), entry('M3', '2026-03-03', '30.00'), entry('M4', '2026-03-09', '-5.00'), entry('M5', '2026-12-31', '1.00')],
    );
    expect((await create(companyId, { bankAccountId, year, period: 1, bankTransactionIds: [tx('M1')], lineIds: [line('m1'), line('m2')] })).status).toBe(200);
    expect((await create(companyId, { bankAccountId, year, period: 3, bankTransactionIds: [tx('M3')], lineIds: [line('m3')] })).status).toBe(200);

    const approve = await admin('set-period-approval', '--company', companyId, '--gl-account', '1920', '--year', String(year), '--period', '1', '--status', 'approved', '--by', 'Kari Nordmann');
    expect(approve.code).toBe(0);
    expect(approve.out).toMatch(/^Period 2026-01 on GL account 1920 of ".+" is now approved \(by Kari Nordmann\)$/);
    expect((await admin('set-period-approval', '--company', companyId, '--gl-account', '1920', '--year', String(year), '--period', '3', '--status', 'approved')).code).toBe(0);
    expect((await admin('set-period-approval', '--company', companyId, '--gl-account', '1920', '--year', String(year), '--period', '3', '--status', 'not_approved')).code).toBe(0);
    expect((await admin('set-period-approval', '--company', companyId, '--gl-account', '1930', '--year', String(year), '--period', '2', '--status', 'approved')).code).toBe(0);
    const bad = await admin('set-period-approval', '--company', companyId, '--gl-account', '1920', '--year', String(year), '--period', '13', '--status', 'approved');
    expect(bad).toMatchObject({ code: 1, err: 'error: --period must be an integer from 1 to 12, not 13' });
    expect((await admin('set-period-approval', '--company', companyId, '--gl-account', '1920', '--year', String(year), '--period', '2', '--status', 'maybe')).err).toBe(
      'error: --status must be approved or not_approved, not maybe',
    );

    const summary = await api('GET', `/v1/companies/${companyId}/bank/accounts/${bankAccountId}/reconciliation-summary?year=${year}`, { as: 'a-readonly' });
    expect(summary.status).toBe(200);
    expect(summary.body).toMatchObject({ bankAccountId, glAccountCode: '1920', year });
    expect(summary.body.periods).toHaveLength(12);
    expect(summary.body.periods.map((p: { period: number; label: string }) => `${p.period}:${p.label}`)).toEqual(
      ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'].map((m, i) => `${i + 1}:${m}`),
    );
    expect(summary.body.periods[0]).toEqual({
      period: 1,
      label: 'January',
      groupCount: 1,
      automaticGroupCount: 0,
      entryCount: 3,
      staleGroupCount: 0,
      stale: false,
      unreconciledTransactionCount: 0,
      approval: { status: 'approved', approvedAt: expect.any(String), approvedBy: 'Kari Nordmann', outdated: false },
    });
    expect(summary.body.periods[1]).toMatchObject({ groupCount: 0, entryCount: 0, approval: { status: 'not_approved', approvedAt: null, approvedBy: null } });
    expect(summary.body.periods[2]).toMatchObject({ groupCount: 1, entryCount: 2, unreconciledTransactionCount: 1, approval: { status: 'not_approved' } });
    expect(summary.body.periods[11]).toMatchObject({ groupCount: 0, unreconciledTransactionCount: 1 });

    const path = `/v1/companies/${companyId}/bank/accounts/${bankAccountId}/reconciliation-summary`;
    const missing = await api('GET', path, { as: 'a-system' });
    expectProblem(missing, 400, 'validation_failed');
    expect(missing.body.detail).toContain('year');
    expectProblem(await api('GET', `${path}?year=20x6`, { as: 'a-system' }), 400, 'validation_failed');
    expectProblem(await api('GET', path.replace(bankAccountId, '00000000-0000-4000-8000-000000000000') + '?year=2026', { as: 'a-system' }), 404, 'not_found');
    expectProblem(await api('GET', `${path}?year=2026`, { as: 'b-system' }), 404, 'not_found');
  });

  it('answers an approval as outdated once a group of its period is created or deleted after it (manual or automatic); approving again clears it; other periods keep theirs', async () => {
    const { companyId, bankAccountId, tx, line } = await books(
      [
        { id: 'o1', amount: '10.00', period: 3 },
        { id: 'o2', amount: '20.00', period: 3 },
        { id: 'o3', amount: '30.00', period: 4 },
        { id: 'o4', amount: '40.00', period: 5 },
        { id: 'o6', amount: '60.00', period: 6, transactionDate: '2026-06-10' }, // the engine's to match
      ],
      [entry('O1', '2026-03-03', '10.00'), entry('O2', '2026-03-05', '20.00'), entry('O3', '2026-04-03', '30.00'), entry('O4', '2026-05-03', '40.00'), entry('O6', '2026-06-11', '60.00')],
    );
    const approve = async (period: number, status = 'approved') =>
      expect((await admin('set-period-approval', '--company', companyId, '--gl-account', '1920', '--year', String(year), '--period', String(period), '--status', status)).code).toBe(0);
    const approvals = async () => {
      const summary = await api('GET', `/v1/companies/${companyId}/bank/accounts/${bankAccountId}/reconciliation-summary?year=${year}`, { as: 'a-readonly' });
      expect(summary.status).toBe(200);
      return summary.body.periods.map((p: Json) => p.approval);
    };
    const outdated = async () => (await approvals()).map((a: Json) => (a.status === 'approved' ? (a.outdated ? 'outdated' : 'approved') : a.outdated ? 'not_approved+outdated' : '-'));

    const first = await create(companyId, { bankAccountId, year, period: 3, bankTransactionIds: [tx('O1')], lineIds: [line('o1')] });
    expect(first.status).toBe(200);
    for (const period of [3, 4, 6]) await approve(period);
    expect((await outdated()).slice(2, 6)).toEqual(['approved', 'approved', '-', 'approved']);
    const approvedAt = (await approvals())[2].approvedAt;

    // deleting a group of period 3 after its approval: outdated, approvedAt unchanged; period 4 is not
    expect((await api('DELETE', `/v1/companies/${companyId}/reconciliations/${first.body.id}`, { as: 'a-system' })).status).toBe(200);
    expect((await approvals())[2]).toEqual({ status: 'approved', approvedAt, approvedBy: 'admin-cli', outdated: true });
    expect((await outdated()).slice(2, 6)).toEqual(['outdated', 'approved', '-', 'approved']);

    // approving again clears it
    await approve(3);
    expect((await outdated()).slice(2, 6)).toEqual(['approved', 'approved', '-', 'approved']);

    // creating a group in period 3: outdated again; a group in period 5 (never approved) flags nothing and stays not approved
    expect((await create(companyId, { bankAccountId, year, period: 3, bankTransactionIds: [tx('O2')], lineIds: [line('o2')] })).status).toBe(200);
    expect((await create(companyId, { bankAccountId, year, period: 5, bankTransactionIds: [tx('O4')], lineIds: [line('o4')] })).status).toBe(200);
    expect((await outdated()).slice(2, 6)).toEqual(['outdated', 'approved', '-', 'approved']);
    expect((await approvals())[4]).toEqual({ status: 'not_approved', approvedAt: null, approvedBy: null, outdated: false });
    await approve(3);
    expect((await outdated()).slice(2, 6)).toEqual(['approved', 'approved', '-', 'approved']);

    // the auto-reconciliation engine's group in period 6 outdates period 6 only
    const run = await admin('auto-reconcile', '--company', companyId, '--year', String(year), '--json');
    expect(JSON.parse(run.out)).toMatchObject({ matched: 1 });
    expect((await outdated()).slice(2, 6)).toEqual(['approved', 'approved', '-', 'outdated']);

    // withdrawn and given again: not outdated
    await approve(6, 'not_approved');
    expect((await approvals())[5]).toEqual({ status: 'not_approved', approvedAt: null, approvedBy: null, outdated: false });
    await approve(6);
    expect((await outdated()).slice(2, 6)).toEqual(['approved', 'approved', '-', 'approved']);
  });

  it('outdates the approval of a 98-member group, whose create and dissolve fill their transaction (100 items)', async () => {
    const lines = Array.from({ length: 97 }, (_, i) => ({ id: `f${i}`, amount: '1.00', period: 7 }));
    const { companyId, bankAccountId, tx, line } = await books(lines, [entry('F1', '2026-07-03', '97.00')]);
    const approve = async () => expect((await admin('set-period-approval', '--company', companyId, '--gl-account', '1920', '--year', String(year), '--period', '7', '--status', 'approved')).code).toBe(0);
    const approval7 = async () => (await api('GET', `/v1/companies/${companyId}/bank/accounts/${bankAccountId}/reconciliation-summary?year=${year}`, { as: 'a-system' })).body.periods[6].approval;
    await approve();
    const group = await create(companyId, { bankAccountId, year, period: 7, bankTransactionIds: [tx('F1')], lineIds: lines.map((l) => line(l.id)) });
    expect(group.status).toBe(200);
    expect(await approval7()).toMatchObject({ status: 'approved', outdated: true });
    await approve();
    expect(await approval7()).toMatchObject({ status: 'approved', outdated: false });
    expect((await api('DELETE', `/v1/companies/${companyId}/reconciliations/${group.body.id}`, { as: 'a-system' })).status).toBe(200);
    expect(await statusOf(companyId, bankAccountId, 'F1')).toBe('unreconciled');
    expect(await approval7()).toMatchObject({ status: 'approved', outdated: true });
  });

  it('answers an approval as outdated while its period has a stale group, whenever it was given', async () => {
    const { companyId, bankAccountId, tx, line } = await books([{ id: 'q1', amount: '250.00', period: 8 }], [entry('Q1', '2026-08-05', '250.00')]);
    expect((await create(companyId, { bankAccountId, year, period: 8, bankTransactionIds: [tx('Q1')], lineIds: [line('q1')] })).status).toBe(200);
    const approve = async () => expect((await admin('set-period-approval', '--company', companyId, '--gl-account', '1920', '--year', String(year), '--period', '8', '--status', 'approved')).code).toBe(0);
    const period8 = async () => (await api('GET', `/v1/companies/${companyId}/bank/accounts/${bankAccountId}/reconciliation-summary?year=${year}`, { as: 'a-system' })).body.periods[7];
    await approve();
    expect(await period8()).toMatchObject({ stale: false, approval: { status: 'approved', outdated: false } });

    await importAndWait(companyId, 'general-ledger-lines', { year, lines: [{ id: 'q1', accountCode: '1920', amount: '260.00', period: 8 }] });
    expect(await period8()).toMatchObject({ stale: true, approval: { status: 'approved', outdated: true } });
    await approve(); // approving a period with a stale group does not make the group fit
    expect(await period8()).toMatchObject({ stale: true, approval: { status: 'approved', outdated: true } });

    // the line moved back: no longer stale, the approval (given after the group) holds again
    await importAndWait(companyId, 'general-ledger-lines', { year, lines: [{ id: 'q1', accountCode: '1920', amount: '250.00', period: 8 }] });
    expect(await period8()).toMatchObject({ stale: false, approval: { status: 'approved', outdated: false } });
  });
});

describe('auto-reconciliation', () => {
  it('runs after a GL import: matches one-to-one pairs within the window, leaves ambiguous and distant ones, reports on the fetch run', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(year, ['1500', '1920']));
    const { statements } = await ingestOk(companyId, statementXml(validAccountNumber('1503246800'), 'ST-AUTO', [
      entry('X1', '2026-05-04', '1250.00'), // line dated 2 days later: matched
      entry('X2', '2026-05-10', '-300.00'), // two identical card payments in a week, two identical lines: ambiguous
      entry('X3', '2026-05-11', '-300.00'),
      entry('X4', '2026-05-20', '99.00'), // line dated 6 days later: outside the window
      entry('X5', '2026-05-25', '42.00'), // no line
    ]));
    const bankAccountId = statements[0]!.bankAccountId;
    const done = await importAndWait(companyId, 'general-ledger-lines', {
      year,
      lines: [
        { id: 'y1', accountCode: '1920', amount: '1250.00', period: 5, transactionDate: '2026-05-06' },
        { id: 'y1b', accountCode: '1500', amount: '-1250.00', period: 5, transactionDate: '2026-05-06' },
        { id: 'y2', accountCode: '1920', amount: '-300.00', period: 5, transactionDate: '2026-05-10' },
        { id: 'y3', accountCode: '1920', amount: '-300.00', period: 5, transactionDate: '2026-05-11' },
        { id: 'y4', accountCode: '1920', amount: '99.00', period: 5, transactionDate: '2026-05-26' },
        { id: 'y5', accountCode: '1920', amount: '77.00', period: 5, transactionDate: '2026-05-25' },
      ],
    });
    const run = await waitForPostFetch(companyId, done.body.id);
    expect(run.engines).toEqual([
      expect.objectContaining({
        name: 'auto_reconciliation',
        status: 'completed',
        detail: expect.stringMatching(/^matched 1 of 5 unreconciled bank transactions in 2026 \(1 bank account, 5 open GL lines, 2 ambiguous left\) in \d+ ms$/),
      }),
      expect.objectContaining({ name: 'context', status: 'completed' }),
    ]);
    const statuses = await transactionsByReference(companyId, bankAccountId);
    expect(Object.fromEntries([...statuses].map(([reference, t]) => [reference, t.reconciliationStatus]))).toEqual({
      X1: 'reconciled',
      X2: 'unreconciled',
      X3: 'unreconciled',
      X4: 'unreconciled',
      X5: 'unreconciled',
    });
    const group = await api('GET', `/v1/companies/${companyId}/reconciliations/${statuses.get('X1').reconciliationId}`, { as: 'a-system' });
    expect(group.body).toMatchObject({ source: 'automatic', createdBy: 'auto-reconciliation', period: 5, total: 1250 });
    expect(group.body.entries.map((e: { sourceLineId?: string; bankTransactionId?: string }) => e.sourceLineId ?? e.bankTransactionId)).toEqual([statuses.get('X1').id, 'y1']);
    const fetched = await api('GET', `/v1/companies/${companyId}/imports/${done.body.id}`, { as: 'a-system' });
    expect(fetched.body.fetchCompletion).toMatchObject({ status: 'completed' });

    // a person resolves the ambiguity; the next run (on demand, admin CLI) finds nothing more to do
    const lines = await lineIdsOf(companyId, year, '1920');
    expect((await create(companyId, { bankAccountId, year, period: 5, bankTransactionIds: [statuses.get('X2').id], lineIds: [lines.get('y2')] })).status).toBe(200);
    const onDemand = await admin('auto-reconcile', '--company', companyId, '--year', String(year), '--json');
    expect(onDemand.code).toBe(0);
    expect(JSON.parse(onDemand.out)).toMatchObject({ year, bankAccounts: 1, unreconciledTransactions: 3, matched: 1, ambiguous: 0 });
    expect(await statusOf(companyId, bankAccountId, 'X3')).toBe('reconciled');
    const summary = await api('GET', `/v1/companies/${companyId}/bank/accounts/${bankAccountId}/reconciliation-summary?year=${year}`, { as: 'a-system' });
    expect(summary.body.periods[4]).toMatchObject({ groupCount: 3, automaticGroupCount: 2, entryCount: 6, unreconciledTransactionCount: 2 });
  });

  it('counts candidates across the bank accounts of one GL account and across the year edge: a line two accounts could pay, or a payment two years could hold, is left to a person', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(year - 1, ['1920']));
    await importAndWait(companyId, 'accounts', chartOf(year, ['1920']));
    const lastYear = await importAndWait(companyId, 'general-ledger-lines', { year: year - 1, lines: [{ id: 'dec', accountCode: '1920', amount: '-700.00', period: 12, transactionDate: '2025-12-31' }] });
    const thisYear = await importAndWait(companyId, 'general-ledger-lines', {
      year,
      lines: [
        { id: 'mar', accountCode: '1920', amount: '-500.00', period: 3, transactionDate: '2026-03-10' },
        { id: 'jan', accountCode: '1920', amount: '-700.00', period: 1, transactionDate: '2026-01-02' },
      ],
    });
    // The imports' own auto-reconciliation runs first: run between the two statements, it would pair A1 with the one -500 line.
    for (const done of [lastYear, thisYear]) await waitForPostFetch(companyId, done.body.id);
    // Two bank accounts on 1920: each has a -500 within the window of the one -500 line.
    const a = (await ingestOk(companyId, statementXml(validAccountNumber('1503246900'), 'ST-EDGE-A', [entry('A1', '2026-03-11', '-500.00'), entry('A2', '2026-01-01', '-700.00')]), '--gl-account', '1920')).statements[0]!.bankAccountId;
    const b = (await ingestOk(companyId, statementXml(validAccountNumber('1503247000'), 'ST-EDGE-B', [entry('B1', '2026-03-10', '-500.00')]), '--gl-account', '1920')).statements[0]!.bankAccountId;
    for (const runYear of [year, year - 1]) {
      const run = await admin('auto-reconcile', '--company', companyId, '--year', String(runYear), '--json');
      expect(run.code, run.err).toBe(0);
      expect(JSON.parse(run.out)).toMatchObject({ year: runYear, bankAccounts: 2, matched: 0 });
    }
    expect(JSON.parse((await admin('auto-reconcile', '--company', companyId, '--year', String(year), '--json')).out)).toMatchObject({ unreconciledTransactions: 3, ambiguous: 3 });
    for (const [account, reference] of [[a, 'A1'], [a, 'A2'], [b, 'B1']] as const) expect(await statusOf(companyId, account, reference), reference).toBe('unreconciled');
  });

  it('a pair whose automatic group a person dissolved is left to the person, and counted', async () => {
    const { companyId, bankAccountId } = await books([{ id: 'p1', amount: '321.00', period: 6, transactionDate: '2026-06-10' }], [entry('P1', '2026-06-11', '321.00')]);
    const first = await admin('auto-reconcile', '--company', companyId, '--year', String(year), '--json');
    expect(JSON.parse(first.out)).toMatchObject({ matched: 1, dissolvedLeft: 0 });
    const groupId = (await transactionsByReference(companyId, bankAccountId)).get('P1').reconciliationId;
    expect((await api('DELETE', `/v1/companies/${companyId}/reconciliations/${groupId}`, { as: 'a-system' })).status).toBe(200);
    const again = await admin('auto-reconcile', '--company', companyId, '--year', String(year), '--json');
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ unreconciledTransactions: 1, matched: 0, ambiguous: 0, dissolvedLeft: 1 });
    expect(await statusOf(companyId, bankAccountId, 'P1')).toBe('unreconciled');
  });

  it('leaves the transactions of a bank account in another currency than NOK to a person: GL amounts are in NOK', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(year, ['1920']));
    const done = await importAndWait(companyId, 'general-ledger-lines', { year, lines: [{ id: 'eur', accountCode: '1920', amount: '-500.00', period: 3, transactionDate: '2026-03-10' }] });
    await waitForPostFetch(companyId, done.body.id);
    const accountNumber = validAccountNumber('1503249900');
    const euro = statementXml(accountNumber, 'ST-EUR', [entry('E1', '2026-03-10', '-500.00')]).replaceAll('Ccy="NOK"', 'Ccy="EUR"').replace('<Ccy>NOK</Ccy>', '<Ccy>EUR</Ccy>');
    expect(euro).toContain('EUR');
    const bankAccountId = (await ingestOk(companyId, euro, '--gl-account', '1920')).statements[0]!.bankAccountId;
    expect((await api('GET', `/v1/companies/${companyId}/bank/accounts`, { as: 'a-system' })).body.data[0]).toMatchObject({ currency: 'EUR' });
    const run = await admin('auto-reconcile', '--company', companyId, '--year', String(year), '--json');
    expect(run.code, run.err).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({ bankAccounts: 1, matched: 0, unreconciledTransactions: 0 });
    expect(await statusOf(companyId, bankAccountId, 'E1')).toBe('unreconciled');
  });

  it('is idempotent: a redelivered post-fetch message creates no second group', async () => {
    const { createPostFetchWorker } = await import('../../shared/imports/post-fetch');
    const { autoReconciliationEngine } = await import('../../shared/bank/auto-reconciliation');
    const { testStack } = await import('../support/stack');
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(year, ['1920']));
    const { statements } = await ingestOk(companyId, statementXml(validAccountNumber('1503135700'), 'ST-IDEM', [entry('Z1', '2026-06-01', '10.00'), entry('Z2', '2026-06-02', '20.00')]));
    const bankAccountId = statements[0]!.bankAccountId;
    const done = await importAndWait(companyId, 'general-ledger-lines', {
      year,
      lines: [
        { id: 'z1', accountCode: '1920', amount: '10.00', period: 6, transactionDate: '2026-06-01' },
        { id: 'z2', accountCode: '1920', amount: '20.00', period: 6, transactionDate: '2026-06-02' },
      ],
    });
    await waitForPostFetch(companyId, done.body.id);
    const list = async () => (await api('GET', `/v1/companies/${companyId}/bank/accounts/${bankAccountId}/reconciliations`, { as: 'a-system' })).body.data;
    const groups = await list();
    expect(groups).toHaveLength(2);

    testStack();
    const worker = createPostFetchWorker([autoReconciliationEngine]);
    const message = { companyId, fetchRunId: done.body.id, importId: done.body.id, year };
    const event = { Records: [{ messageId: 'redelivery', body: JSON.stringify(message) }] } as never;
    const [a, b] = await Promise.all([worker(event), worker(event)]);
    expect([a.batchItemFailures, b.batchItemFailures]).toEqual([[], []]);
    expect((await list()).map((g: { id: string }) => g.id).sort()).toEqual(groups.map((g: { id: string }) => g.id).sort());
    const run = await waitForPostFetch(companyId, done.body.id);
    expect(run.engines[0].detail).toMatch(/^matched 0 of 0 unreconciled/);
  });
});

describe('the demo books of the seeded bakery', () => {
  it('has a bank account on 1920 with four months of statements, auto-reconciled but for the cases left to a person', async () => {
    const { testStack } = await import('../support/stack');
    const stack = testStack();
    const [bakery] = stack.companies;
    const [account] = stack.bankAccounts;
    expect(account).toMatchObject({ companyId: bakery!.id, glAccountCode: '1920', accountNumber: expect.stringMatching(/^\d{11}$/) });
    expect(stack.autoReconciliation).toMatch(/^matched 46 of 50 unreconciled bank transactions in 2026 \(1 bank account, 50 open GL lines, 2 ambiguous left\) in \d+ ms$/);

    const open = await api('GET', `/v1/companies/${bakery!.id}/bank/accounts/${account!.id}/transactions?reconciliation_status=unreconciled`, { as: 'a-readonly' });
    expect(open.body.data.map((t: { bookingDate: string; amount: number; description: string }) => `${t.bookingDate} ${t.amount} ${t.description}`)).toEqual([
      '2026-04-20 8937.5 Innbetaling Torget Deli AS', // paid, not yet booked in the ledger
      '2026-03-28 -89 Gebyr nettbank', // booked a week earlier in the ledger: outside the window
      '2026-02-13 -250 Kortkjøp Kursportalen', // two identical card payments: ambiguous
      '2026-02-12 -250 Kortkjøp Kursportalen',
    ]);
    const summary = await api('GET', `/v1/companies/${bakery!.id}/bank/accounts/${account!.id}/reconciliation-summary?year=2026`, { as: 'a-readonly' });
    expect(summary.body.periods.slice(0, 5).map((p: Json) => [p.groupCount, p.unreconciledTransactionCount, p.approval.status])).toEqual([
      [12, 0, 'approved'],
      [12, 2, 'approved'],
      [11, 1, 'not_approved'],
      [11, 1, 'not_approved'],
      [0, 0, 'not_approved'],
    ]);
  });

  it('has VAT term 1 (January-February 2026) as computed by hand, reconciled with the VAT accounts', async () => {
    const { testStack } = await import('../support/stack');
    const [bakery] = testStack().companies;
    const terms = await api('GET', `/v1/companies/${bakery!.id}/vat/terms?year=2026`, { as: 'a-readonly' });
    expect(terms.status).toBe(200);
    // Sales: six customers a month, net 2400 + 850 i + 125 m (i = 0..5, m = month): 27 900 + 28 650 = 56 550 at 25 %.
    // Purchases: three suppliers a month, net 3100 + 1450 i + 210 m (i = 0..2): 14 280 + 14 910 = 29 190 at 25 %.
    const term = terms.body.data[0];
    expect(term).toMatchObject({ term: 1, fromDate: '2026-01-01', toDate: '2026-02-28', status: 'reconciled' });
    expect(term.taxCodes.map((c: Json) => [c.taxCode, c.basis, c.outputVat, c.inputVat])).toEqual([
      ['1', 29190, 0, 7297.5],
      ['3', 56550, 14137.5, 0],
    ]);
    expect(term.totals).toEqual({ outputVat: 14137.5, inputVat: 7297.5, netVat: 6840, position: 'payable' });
    expect(terms.text).toContain('"netVat":6840.00');
  });
});
