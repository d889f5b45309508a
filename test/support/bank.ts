import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { buildCamt053, type DemoEntry } from '../../infra/local/demo-statements';
import { runAdmin } from '../../infra/tools/admin';
import { ibanOfNorwegianAccountNumber, isValidNorwegianAccountNumber } from '../../shared/bank/account-number';
import { Decimal } from '../../shared/platform/money';
import { api } from './api';
import { eventually, queueWaitMs } from './poll';
import { testStack } from './stack';
import type { Json } from './json';

/** A valid Norwegian account number: the first mod-11 completion of a 10-digit prefix. */
export const validAccountNumber = (prefix10: string): string => {
  for (let digit = 0; digit <= 9; digit++) if (isValidNorwegianAccountNumber(`${prefix10}${digit}`)) return `${prefix10}${digit}`;
  return validAccountNumber(String(Number(prefix10) + 1).padStart(10, '0'));
};

/** A camt.053 statement of one account with the given entries (reference = the bank's AcctSvcrRef). */
export const statementXml = (accountNumber: string, statementId: string, entries: DemoEntry[], openingBalance = '1000.00'): string =>
  buildCamt053({
    messageId: `MSG-${statementId}`,
    statementId,
    iban: ibanOfNorwegianAccountNumber(accountNumber),
    accountName: 'Driftskonto',
    ownerName: 'Testbedrift AS',
    currency: 'NOK',
    fromDate: entries.map((e) => e.bookingDate).sort()[0] ?? '2026-01-01',
    toDate: entries.map((e) => e.bookingDate).sort().at(-1) ?? '2026-01-31',
    openingBalance: new Decimal(openingBalance).toFixed(2),
    entries,
  });

export interface AdminRun {
  code: number;
  out: string;
  err: string;
}

/** Runs `act` in a fresh temporary folder, removed after it. */
const inTempDir = async <T>(act: (dir: string) => Promise<T>): Promise<T> => {
  const dir = mkdtempSync(join(tmpdir(), 'bank-'));
  try {
    return await act(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/** The admin CLI in-process against the test stack (through a stack file). */
export const admin = (...argv: string[]): Promise<AdminRun> =>
  inTempDir(async (dir) => {
    const stackFile = join(dir, 'stack.json');
    writeFileSync(stackFile, JSON.stringify(testStack()));
    const stdout: string[] = [];
    const stderr: string[] = [];
    const code = await runAdmin([...argv, '--stack', stackFile], { out: (line) => stdout.push(line), err: (line) => stderr.push(line) });
    return { code, out: stdout.join('\n'), err: stderr.join('\n') };
  });

/** Writes the XML to a file and ingests it with `admin import-bank-statement --json`. */
export const ingest = (companyId: string, xml: string, ...flags: string[]): Promise<AdminRun> =>
  inTempDir(async (dir) => {
    const file = join(dir, `statement-${Math.random().toString(36).slice(2)}.xml`);
    writeFileSync(file, xml);
    return admin('import-bank-statement', '--company', companyId, '--file', file, ...flags);
  });

/** Ingests and expects success; the parsed --json result. */
export const ingestOk = async (companyId: string, xml: string, ...flags: string[]) => {
  const run = await ingest(companyId, xml, '--json', ...flags);
  expect(run.err).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.out) as { statements: { bankAccountId: string; inserted: number; amended: number; unchanged: number; skippedNotBooked: number; accountCreated: boolean; glAccountCode: string }[] };
};

/** Every transaction of a bank account (newest first), by the bank's reference. */
export const transactionsByReference = async (companyId: string, bankAccountId: string, as = 'a-system') => {
  const response = await api('GET', `/v1/companies/${companyId}/bank/accounts/${bankAccountId}/transactions?page_size=200`, { as });
  expect(response.status).toBe(200);
  return new Map<string, Json>(response.body.data.map((t: { bankReference: string }) => [t.bankReference, t]));
};

/** The lineId of each GL line of a year on an account, by the integrator's id. */
export const lineIdsOf = async (companyId: string, year: number, account: string, as = 'a-system') => {
  const response = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=${year}&account=${account}&page_size=200`, { as });
  expect(response.status).toBe(200);
  return new Map<string, string>(response.body.data.map((line: { sourceLineId: string; lineId: string }) => [line.sourceLineId, line.lineId]));
};

/**
 * Waits until the fetch run of an import has run its post-fetch engines and the worker has written
 * their outcome to the import's fetchCompletion (its last write; bounded: queueWaitMs).
 */
export const waitForPostFetch = async (companyId: string, importId: string, as = 'a-system') =>
  eventually(async () => {
    const runs = await api('GET', `/v1/companies/${companyId}/fetch-runs?page_size=50`, { as });
    const run = runs.body.data.find((r: { importId: string }) => r.importId === importId);
    if (!run?.postFetchCompletedAt) return undefined;
    const recorded = (await api('GET', `/v1/companies/${companyId}/imports/${importId}`, { as })).body.fetchCompletion?.recordedAt;
    return recorded && recorded >= run.postFetchCompletedAt ? run : undefined;
  }, queueWaitMs, `post-fetch of ${importId}`);
