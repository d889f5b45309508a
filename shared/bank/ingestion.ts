import { createHash } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';
import { storedInteger } from '../db/attributes';
import { inParallel } from '../db/batch';
import { Decimal, fromStoredNumber, toStoredNumber } from '../platform/money';
import { ProblemError } from '../platform/problem';
import { normalizeIban, normalizeNorwegianAccountNumber, norwegianAccountNumberOfIban } from './account-number';
import { Camt053Error, parseCamt053, type BankStatement, type StatementEntry } from './camt053';
import { batchGet } from '../db/batch';
import { ConditionsFailed, unitOfWork } from '../db/unit-of-work';
import { outboxEventWrite } from '../outbox/repository';
import { bankRepository, keyId, type Item } from './repository';
import { defaultBankGlAccount } from './defaults';

/**
 * Bank data in: ISO 20022 camt.053 statements, as Norwegian banks deliver them. Used by the admin
 * CLI (`import-bank-statement`) and by a future bank-feed Lambda. The whole file is parsed and
 * checked before anything is written; re-ingesting a statement creates no duplicates (ids are
 * derived from the bank's entry references), and an entry the bank amended is updated in place.
 */

/** Namespace of the service's derived (UUID v5) ids of bank accounts and transactions. */
const idNamespace = '5f0e3a52-8d0c-4b7e-9a51-0c1f6f2d9b1e';

export const bankAccountIdOf = (companyId: string, accountNumber: string) => uuidv5(`bank-account:${companyId}:${accountNumber}`, idNamespace);
const transactionIdOf = (bankAccountId: string, entryKey: string) => uuidv5(`bank-transaction:${bankAccountId}:${entryKey}`, idNamespace);


export class BankStatementError extends ProblemError {
  constructor(detail: string) {
    super({ status: 422, error: 'validation_failed', reason: 'invalid_bank_statement', title: 'Invalid bank statement', detail });
  }
}

export interface IngestionOptions {
  /** Maps the statement's bank account(s) to this GL account (new accounts default to 1920). */
  glAccountCode?: string;
  /** A label of where the file came from (file name), kept on the statement record. */
  source?: string;
  now?: () => Date;
}

export interface IngestionResult {
  statements: {
    statementId: string;
    bankAccountId: string;
    accountNumber: string;
    accountCreated: boolean;
    glAccountCode: string;
    entries: number;
    inserted: number;
    amended: number;
    unchanged: number;
    skippedNotBooked: number;
  }[];
}

interface PlannedStatement {
  statement: BankStatement;
  accountNumber: string;
  iban: string | null;
  bankAccountId: string;
  booked: { entry: StatementEntry; id: string; key: string }[];
  skippedNotBooked: number;
}

const accountNumberOf = (statement: BankStatement): { accountNumber: string; iban: string | null } => {
  const where = `statement ${statement.statementId}`;
  const iban = statement.account.iban ? normalizeIban(statement.account.iban) : null;
  if (statement.account.iban && !iban) throw new BankStatementError(`${where}: the account IBAN ${statement.account.iban} has a wrong check digit`);
  const fromIban = iban ? norwegianAccountNumberOfIban(iban) : null;
  if (iban && !fromIban) throw new BankStatementError(`${where}: ${iban} is not a Norwegian IBAN; only Norwegian bank accounts are supported`);
  const fromBban = statement.account.bban ? normalizeNorwegianAccountNumber(statement.account.bban) : null;
  if (statement.account.bban && !fromBban && !fromIban) {
    throw new BankStatementError(`${where}: ${statement.account.bban} is not a Norwegian bank account number (11 digits with a mod-11 check digit)`);
  }
  if (fromIban && fromBban && fromIban !== fromBban) throw new BankStatementError(`${where}: the IBAN and the account number name different accounts`);
  return { accountNumber: (fromIban ?? fromBban)!, iban };
};

/**
 * The stable key of an entry within its bank account: the bank's own reference (AcctSvcrRef,
 * else NtryRef); without either, a hash of its content plus its occurrence among identical
 * entries of the statement, which is stable when the same statement is ingested again.
 */
const entryKeys = (entries: StatementEntry[]): string[] => {
  const occurrences = new Map<string, number>();
  return entries.map((entry) => {
    if (entry.accountServicerReference) return `ref:${entry.accountServicerReference}`;
    if (entry.entryReference) return `ntry:${entry.entryReference}`;
    const content = [entry.bookingDate, entry.amount.toString(), entry.reference ?? '', entry.description ?? '', entry.counterpartyAccount ?? ''].join('|');
    const n = (occurrences.get(content) ?? 0) + 1;
    occurrences.set(content, n);
    return `hash:${createHash('sha256').update(content).digest('hex').slice(0, 32)}:${n}`;
  });
};

const plan = (companyId: string, statements: BankStatement[]): PlannedStatement[] =>
  statements.map((statement) => {
    const { accountNumber, iban } = accountNumberOf(statement);
    const bankAccountId = bankAccountIdOf(companyId, accountNumber);
    const currency = statement.account.currency ?? 'NOK';
    const bookedEntries = statement.entries.filter((entry) => entry.status === 'BOOK');
    for (const entry of bookedEntries) {
      if (entry.currency !== currency) {
        throw new BankStatementError(`statement ${statement.statementId} entry ${entry.index}: currency ${entry.currency} differs from the account's ${currency}`);
      }
    }
    const keys = entryKeys(bookedEntries);
    const seen = new Map<string, number>();
    const booked = bookedEntries.map((entry, i) => {
      const earlier = seen.get(keys[i]!);
      if (earlier !== undefined) throw new BankStatementError(`statement ${statement.statementId}: entries ${earlier} and ${entry.index} carry the same bank reference`);
      seen.set(keys[i]!, entry.index);
      return { entry, key: keys[i]!, id: transactionIdOf(bankAccountId, keys[i]!) };
    });
    return { statement, accountNumber, iban, bankAccountId, booked, skippedNotBooked: statement.entries.length - bookedEntries.length };
  });

/** The stored content of a transaction: what an amendment compares and replaces. */
const contentOf = (entry: StatementEntry, statementId: string): Item => ({
  bookingDate: entry.bookingDate,
  valueDate: entry.valueDate ?? undefined,
  amount: toStoredNumber(entry.amount),
  currency: entry.currency,
  description: entry.description ?? undefined,
  reference: entry.reference ?? undefined,
  counterpartyName: entry.counterpartyName ?? undefined,
  counterpartyAccount: entry.counterpartyAccount ?? undefined,
  bankTransactionCode: entry.bankTransactionCode ?? undefined,
  bankReference: entry.accountServicerReference ?? entry.entryReference ?? undefined,
  statementId,
});

const comparable = (value: unknown): string => {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object' && 'value' in (value)) return fromStoredNumber(value).toString();
  if (typeof value === 'number') return new Decimal(value).toString();
  return String(value);
};

/** Fields whose change is an amendment (statementId alone changes when a later statement repeats an entry). */
const amendableFields = ['bookingDate', 'valueDate', 'amount', 'currency', 'description', 'reference', 'counterpartyName', 'counterpartyAccount', 'bankTransactionCode'];

/**
 * A write of an entry; false (read it again and retry) when DynamoDB refused it because a
 * transaction holds the item (a reconciliation made or dissolved meanwhile: TransactionConflict).
 */
const whileNoTransaction = async (write: () => Promise<boolean>): Promise<boolean> => {
  try {
    return await write();
  } catch (error) {
    if ((error as { name?: string } | null)?.name === 'TransactionConflictException') return false;
    throw error;
  }
};

/** Attempts at writing one entry that other ingestions keep changing meanwhile. */
const maxWriteAttempts = 5;

export const ingestBankStatement = async (companyId: string, xml: string | Buffer, options: IngestionOptions = {}): Promise<IngestionResult> => {
  let statements: BankStatement[];
  try {
    statements = parseCamt053(xml);
  } catch (error) {
    if (error instanceof Camt053Error) throw new BankStatementError(error.message);
    throw error;
  }
  const planned = plan(companyId, statements);
  const at = (options.now?.() ?? new Date()).toISOString();
  const result: IngestionResult = { statements: [] };

  for (const { statement, accountNumber, iban, bankAccountId, booked, skippedNotBooked } of planned) {
    const existing = await bankRepository.getAccount(companyId, bankAccountId);
    const glAccountCode = options.glAccountCode ?? (existing ? String(existing.glAccountCode) : defaultBankGlAccount);
    const { created } = await bankRepository.saveAccount(
      {
        entity: 'bankAccount',
        id: bankAccountId,
        companyId,
        accountNumber,
        iban: iban ?? undefined,
        bic: statement.account.bic ?? undefined,
        currency: statement.account.currency ?? 'NOK',
        name: statement.account.name ?? statement.account.ownerName ?? `Account ${accountNumber}`,
        glAccountCode,
        lastStatementAt: at,
      },
      options.glAccountCode,
      at,
    );

    // When the bank created the message (GrpHdr/CreDtTm): an entry last written from a later message keeps that content.
    const createdMs = statement.createdAt === null ? Number.NaN : Date.parse(statement.createdAt);
    const sourceCreatedAt = Number.isFinite(createdMs) ? new Date(createdMs).toISOString() : undefined;
    const keys = booked.map(({ id }) => bankRepository.transactionKeys(companyId, bankAccountId, id));
    const current = await batchGet(keys);
    let inserted = 0;
    let amended = 0;
    let unchanged = 0;
    await inParallel(booked, 16, async ({ entry, id }) => {
      const key = bankRepository.transactionKeys(companyId, bankAccountId, id);
      const content = contentOf(entry, statement.statementId);
      // Another ingestion may write the same entry meanwhile (another run of this statement, or
      // another statement that carries it): read it again and apply this one's content on top.
      for (let attempt = 0; attempt < maxWriteAttempts; attempt++) {
        const item = attempt === 0 ? current.get(keyId(key)) : await bankRepository.getTransaction(key);
        if (!item) {
          const defined = Object.fromEntries(Object.entries(content).filter(([, value]) => value !== undefined));
          const wrote = await whileNoTransaction(() => bankRepository.insertTransaction({
            ...key,
            ...bankRepository.transactionIndexKeys(companyId, bankAccountId, entry.bookingDate, id),
            entity: 'bankTransaction',
            id,
            companyId,
            bankAccountId,
            ...defined,
            ...(sourceCreatedAt && { sourceCreatedAt }),
            version: 1,
            createdAt: at,
            updatedAt: at,
          }));
          if (wrote) return void inserted++;
          continue;
        }
        if (amendableFields.every((field) => comparable(item[field]) === comparable(content[field]))) return void unchanged++;
        // An older message (a statement ingested again after its correction): the correction stays.
        if (sourceCreatedAt && typeof item.sourceCreatedAt === 'string' && sourceCreatedAt < item.sourceCreatedAt) return void unchanged++;
        const set = Object.fromEntries(Object.entries(content).filter(([, value]) => value !== undefined));
        const remove = Object.keys(content).filter((field) => content[field] === undefined);
        const ok = await whileNoTransaction(() => bankRepository.amendTransaction(
          key,
          { ...set, ...bankRepository.transactionIndexKeys(companyId, bankAccountId, entry.bookingDate, id), ...(sourceCreatedAt && { sourceCreatedAt }), version: storedInteger(item.version) + 1, updatedAt: at },
          remove,
          item.version,
        ));
        if (ok) return void amended++;
      }
      throw new Error(`Bank transaction ${id} changed under ${maxWriteAttempts} attempts to write it; ingest the statement again.`);
    });

    // The statement record and its event, in one transaction (the transactions above are idempotent on a re-run).
    const statementWrite = bankRepository.statementWrite(companyId, bankAccountId, statement.statementId, {
      companyId,
      bankAccountId,
      statementId: statement.statementId,
      messageId: statement.messageId,
      sequenceNumber: statement.sequenceNumber ?? undefined,
      fromDate: statement.fromDate ?? undefined,
      toDate: statement.toDate ?? undefined,
      openingBalance: statement.openingBalance ? toStoredNumber(statement.openingBalance.amount) : undefined,
      closingBalance: statement.closingBalance ? toStoredNumber(statement.closingBalance.amount) : undefined,
      entries: statement.entries.length,
      source: options.source,
      ingestedAt: at,
      sourceCreatedAt,
    });
    // An older message than the one recorded (ingested again after its correction) changes no record and announces nothing.
    await unitOfWork()
      .add('statement', statementWrite)
      .add('event', outboxEventWrite('bank.statement.ingested', companyId, { bankAccountId, statementId: statement.statementId }, at))
      .commit()
      .catch((error: unknown) => {
        if (!(error instanceof ConditionsFailed && error.names.includes('statement'))) throw error;
      });

    result.statements.push({
      statementId: statement.statementId,
      bankAccountId,
      accountNumber,
      accountCreated: created,
      glAccountCode,
      entries: statement.entries.length,
      inserted,
      amended,
      unchanged,
      skippedNotBooked,
    });
  }
  return result;
};
