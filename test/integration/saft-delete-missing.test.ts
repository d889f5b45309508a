import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { XMLParser } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../shared/platform/money';
import { api, type ApiResponse } from '../support/api';
import { ingestOk, statementXml, transactionsByReference, validAccountNumber } from '../support/bank';
import { eventually, queueWaitMs } from '../support/poll';
import { testStack } from '../support/stack';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { v5 as uuidv5 } from 'uuid';
import { localSqsClient } from '../../infra/local/sqs';
import { companyRepository } from '../../shared/companies/repository';
import { importKinds } from '../../shared/composition/import-kinds';
import { postFetchEngineNames } from '../../shared/composition/post-fetch-engines';
import { glLineRepository, lineIdOf, markLineReconciled } from '../../shared/ledger/general-ledger/repository';
import { dynamo } from '../../shared/platform/aws';
import { queues } from '../../shared/queues';
import { startSaftImport } from '../../shared/saft/service';
import { createSaftProcessor } from '../../shared/saft/worker';
import { observingCalls } from '../support/sdk-calls';

/**
 * A re-upload with `{"deleteMissing": true}`: the company's GL lines of the file's years that the
 * new file no longer holds are deleted (history kept), all or nothing when one is reconciled.
 * The smaller files are the published example with transactions removed.
 */

const as = 'a-system';
const year = 2017;
const original = readFileSync(new URL('../fixtures/saft/example-1.10-888888888.xml', import.meta.url));

beforeAll(() => {
  testStack();
});

/** The example without the transactions whose TransactionID is named. */
const without = (transactionIds: string[]): Buffer =>
  Buffer.from(
    original.toString('utf8').replace(/<n1:Transaction>[\s\S]*?<\/n1:Transaction>\s*/g, (transaction) => {
      const id = /<n1:TransactionID>(.*?)<\/n1:TransactionID>/.exec(transaction)![1]!;
      return transactionIds.includes(id) ? '' : transaction;
    }),
  );

/** Each line's id (`<JournalID>/<TransactionID>-<RecordID>`) and each account's sum of lines, read independently of the service's parser. */
const linesOf = (bytes: Buffer) => {
  const doc = new XMLParser({ removeNSPrefix: true, parseTagValue: false, isArray: (name) => ['Journal', 'Transaction', 'Line'].includes(name) }).parse(bytes.toString('utf8'));
  const ids: string[] = [];
  const sums = new Map<string, Decimal>();
  for (const journal of doc.AuditFile.GeneralLedgerEntries.Journal as { JournalID: unknown; Transaction: Record<string, unknown>[] }[]) {
    for (const transaction of journal.Transaction) {
      for (const line of transaction.Line as Record<string, Record<string, unknown>>[]) {
        ids.push(`${String(journal.JournalID)}/${String(transaction.TransactionID)}-${String(line.RecordID)}`);
        const amount = new Decimal(String(line.DebitAmount?.Amount ?? 0)).minus(String(line.CreditAmount?.Amount ?? 0));
        const account = String(line.AccountID);
        sums.set(account, (sums.get(account) ?? new Decimal(0)).plus(amount));
      }
    }
  }
  return { ids, sums };
};

const newCompany = async (): Promise<string> => {
  const response = await api('POST', '/v1/companies', { as, body: { displayName: `SAF-T ${randomUUID().slice(0, 8)} AS`, accountingSystem: 'Api', organizationNumber: '888888888' } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id as string;
};

const upload = async (companyId: string, bytes: Uint8Array): Promise<string> => {
  const created = await api('POST', `/v1/companies/${companyId}/imports/saft`, { as, body: { fileName: 'saft.xml', sizeBytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const put = await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: bytes });
  expect(put.status).toBe(200);
  return created.body.id as string;
};

/** Uploads, starts with the body, waits until terminal; answers the record. */
const importFile = async (companyId: string, bytes: Buffer, body: unknown = {}): Promise<ApiResponse> => {
  const id = await upload(companyId, bytes);
  const started = await api('POST', `/v1/companies/${companyId}/imports/saft/${id}/start`, { as, body });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return eventually(async () => {
    const response = await api('GET', `/v1/companies/${companyId}/imports/saft/${id}`, { as });
    expect(response.status).toBe(200);
    return (response.body.status === 'succeeded' || response.body.status === 'failed') && response;
  }, queueWaitMs * 3, `SAF-T import ${id}`);
};

/** The year's live GL lines: sourceLineId -> lineId. */
const glLines = async (companyId: string): Promise<Map<string, string>> => {
  const lines = new Map<string, string>();
  let cursor: string | null = null;
  for (let page = 0; page < 20; page++) {
    const response: ApiResponse = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=${year}&page_size=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { as });
    expect(response.status).toBe(200);
    for (const line of response.body.data as { sourceLineId: string; lineId: string }[]) lines.set(line.sourceLineId, line.lineId);
    cursor = response.body.pagination.next_cursor;
    if (!cursor) break;
  }
  return lines;
};

/** Closing minus opening of each account in the trial balance: the lines' sum. */
const trialLineSums = async (companyId: string): Promise<Map<string, Decimal>> => {
  const trial = await api('GET', `/v1/companies/${companyId}/trial-balance?year=${year}`, { as });
  expect(trial.status).toBe(200);
  return new Map((trial.body.accounts as { accountCode: string; openingBalance: number; closingBalance: number }[]).map((row) => [row.accountCode, new Decimal(String(row.closingBalance)).minus(String(row.openingBalance))]));
};

const expectTrialBalanceOf = async (companyId: string, bytes: Buffer) => {
  const trial = await trialLineSums(companyId);
  const { sums } = linesOf(bytes);
  expect(sums.size).toBeGreaterThan(0);
  for (const [account, sum] of sums) expect((trial.get(account) ?? new Decimal(0)).toFixed(2), `lines of ${account}`).toBe(sum.toFixed(2));
  for (const [account, sum] of trial) if (!sums.has(account)) expect(sum.toFixed(2), `lines of ${account} (none in the file)`).toBe('0.00');
};

describe('SAF-T re-import with deleteMissing', () => {
  it('without the option the lines absent from the new file stay; with it they are deleted (history kept) and the trial balance is the new file', async () => {
    const companyId = await newCompany();
    const first = await importFile(companyId, original);
    expect(first.body.status, JSON.stringify(first.body)).toBe('succeeded');
    expect(first.body).toMatchObject({ deleteMissing: false, allowOrganizationNumberMismatch: false });
    expect(first.body.report.counts.linesDeleted).toBe(0);
    const all = linesOf(original).ids;
    expect([...(await glLines(companyId)).keys()].sort()).toEqual([...all].sort());

    const smaller = without(['1001', '1012']);
    const kept = linesOf(smaller).ids;
    const gone = all.filter((id) => !kept.includes(id));
    expect(gone.length).toBeGreaterThanOrEqual(2);

    const merged = await importFile(companyId, smaller);
    expect(merged.body.status, JSON.stringify(merged.body)).toBe('succeeded');
    expect(merged.body.report.counts.linesDeleted).toBe(0);
    expect([...(await glLines(companyId)).keys()].sort()).toEqual([...all].sort());
    const lineIdsBefore = await glLines(companyId);

    const replaced = await importFile(companyId, smaller, { deleteMissing: true });
    expect(replaced.body.status, JSON.stringify(replaced.body)).toBe('succeeded');
    expect(replaced.body.deleteMissing).toBe(true);
    expect(replaced.body.report.counts.linesDeleted).toBe(gone.length);
    const deletion = await api('GET', `/v1/companies/${companyId}/imports/${replaced.body.importIds.at(-1)}`, { as });
    expect(deletion.status).toBe(200);
    expect(deletion.body).toMatchObject({ status: 'succeeded', rowsDeleted: gone.length });
    expect([...(await glLines(companyId)).keys()].sort()).toEqual([...kept].sort());
    const versions = await api('GET', `/v1/companies/${companyId}/general-ledger/lines/${lineIdsBefore.get(gone[0]!)}/versions`, { as });
    expect(versions.status).toBe(200);
    expect(versions.body.data.at(-1)).toMatchObject({ change: 'deleted', importId: deletion.body.id, sourceLineId: gone[0] });
    expect(versions.body.data.length).toBeGreaterThanOrEqual(2);
    await expectTrialBalanceOf(companyId, smaller);
  });

  it('a missing line in a reconciliation group fails the import lines_in_use, naming it, with nothing of the new file imported', async () => {
    const companyId = await newCompany();
    expect((await importFile(companyId, original)).body.status).toBe('succeeded');
    // Line 1012-1: 1920, period 1, credit 175477.50; a bank transaction of that amount reconciles it.
    const accountNumber = validAccountNumber('1206' + String(Math.floor(Math.random() * 1e6)).padStart(6, '0'));
    const ingested = await ingestOk(companyId, statementXml(accountNumber, `ST-${accountNumber}`, [{ reference: 'R1', bookingDate: '2017-01-10', amount: '-175477.50', description: 'Betaling' }]), '--gl-account', '1920');
    const bankAccountId = ingested.statements[0]!.bankAccountId;
    const transaction = (await transactionsByReference(companyId, bankAccountId)).get('R1')!;
    const lineId = (await glLines(companyId)).get('123ABC/1012-1')!;
    const group = await api('POST', `/v1/companies/${companyId}/bank/reconciliations`, { as, body: { bankAccountId, year, period: 1, bankTransactionIds: [transaction.id], lineIds: [lineId] } });
    // The auto-reconciliation engine may have grouped them already (then the line is in use all the same).
    if (group.status === 409) expect(group.body.reason ?? group.body.error).toMatch(/already_reconciled/);
    else expect(group.status, JSON.stringify(group.body)).toBeLessThan(300);
    const linesBefore = await glLines(companyId);
    const trialBefore = await trialLineSums(companyId);

    // The new file also changes a kept line's amount: it must not be applied either.
    const smaller = Buffer.from(without(['1001', '1012']).toString('utf8').replace('<n1:Amount>540100</n1:Amount>', '<n1:Amount>540101</n1:Amount>'));
    const failed = await importFile(companyId, smaller, { deleteMissing: true });
    expect(failed.body).toMatchObject({ status: 'failed', failureReason: 'lines_in_use', importIds: [], deleteMissing: true });
    expect(failed.body.problems.map((p: { message: string }) => p.message).join(' ')).toContain('123ABC/1012-1');
    expect(failed.body.problems.map((p: { message: string }) => p.message).join(' ')).not.toContain('123ABC/1001-1');
    const job = await api('GET', `/v1/jobs/${failed.body.jobId}`, { as });
    expect(job.status).toBe(200);
    expect(job.body).toMatchObject({ status: 'failed', error: { code: 'lines_in_use' } });
    expect(await glLines(companyId)).toEqual(linesBefore);
    expect(await trialLineSums(companyId)).toEqual(trialBefore);
  });

  it('a missing line reconciled after the check, before its deletion: the import fails lines_in_use saying what was applied, at once (not retried)', async () => {
    // The small published example (two vouchers, five lines, 2015); the new file lacks voucher 5678.
    const small = readFileSync(new URL('../fixtures/saft/example-1.10-999999999.xml', import.meta.url));
    const smallYear = 2015;
    const companyId = await newCompany();
    expect((await importFile(companyId, small, { allowOrganizationNumberMismatch: true })).body.status).toBe('succeeded');
    const smaller = Buffer.from(small.toString('utf8').replace(/<n1:Transaction>(?:(?!<\/n1:Transaction>)[\s\S])*?<n1:TransactionID>5678<\/n1:TransactionID>[\s\S]*?<\/n1:Transaction>\s*/, ''));
    const gone = linesOf(small).ids.filter((id) => !linesOf(smaller).ids.includes(id));
    expect(gone.length).toBeGreaterThan(0);
    // The start as the imports function runs it, its message to a queue no worker reads: this process runs the import.
    const sqsClient = localSqsClient(testStack().internal.sqsEndpoint);
    const importsQueue = queues.find((queue) => queue.name === 'imports')!;
    const id = await upload(companyId, smaller);
    const company = (await companyRepository.get(companyId))!;
    const queueUrl = process.env[importsQueue.urlEnv];
    const unread = (await sqsClient.send(new CreateQueueCommand({ QueueName: `saft-race-${randomUUID()}` }))).QueueUrl!;
    process.env[importsQueue.urlEnv] = unread; // after the last testStack() (it sets the stack's environment again)
    try {
      await startSaftImport(company, id, { deleteMissing: true, allowOrganizationNumberMismatch: true });
    } finally {
      process.env[importsQueue.urlEnv] = queueUrl;
    }
    // The deletion step's import id (derived from the SAF-T import and the ids it deletes), looked up first when the step starts.
    const rows = (await glLineRepository.liveSourceLineIds(companyId, smallYear)).filter((lineId) => gone.includes(lineId));
    const deletionImportId = uuidv5(`general-ledger-line-deletions:${smallYear}:${createHash('sha256').update(rows.join('\n')).digest('hex')}`, id);
    let reconciled = false;
    await observingCalls(
      dynamo(),
      async (_commandName, input) => {
        if (reconciled || !JSON.stringify(input).includes(deletionImportId)) return;
        reconciled = await markLineReconciled(companyId, smallYear, lineIdOf(companyId, smallYear, gone[0]!), randomUUID());
      },
      async () => {
        // As SQS redelivers: a lane still held by the first file's runs (its post-fetch) is waited out.
        for (let delivery = 1; ; delivery++) {
          try {
            return await createSaftProcessor(importKinds, postFetchEngineNames)(id, 1);
          } catch (error) {
            if (delivery >= 40 || !/is already running for the company/.test(String(error))) throw error;
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
        }
      },
    );
    expect(reconciled).toBe(true);
    const failed = await api('GET', `/v1/companies/${companyId}/imports/saft/${id}`, { as });
    expect(failed.body).toMatchObject({ status: 'failed', failureReason: 'lines_in_use' });
    expect(failed.body.problems[0].message).toMatch(/^1 GL line the file no longer holds was put in reconciliation groups or linked by documents while the file was imported: it stays; the file's imports before the deletion are applied\./);
    expect(failed.body.problems.map((p: { message: string }) => p.message).join(' ')).toContain(gone[0]);
    const live = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=${smallYear}`, { as });
    expect(live.body.data.map((line: { sourceLineId: string }) => line.sourceLineId).sort()).toEqual([...linesOf(small).ids].sort());
  });
});
