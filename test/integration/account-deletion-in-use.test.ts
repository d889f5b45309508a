import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { laneLockKeys } from '../../shared/jobs/keys';
import { laneLockItem } from '../../shared/jobs/repository';
import { accountDeletionKind } from '../../shared/ledger/chart/import-kinds';
import { dynamo, tableName } from '../../shared/platform/aws';
import { api, expectProblem } from '../support/api';
import { ingestOk, statementXml, validAccountNumber } from '../support/bank';
import { chartOf, importAndWait, newApiCompany, openItem, waitForImport } from '../support/ledger';
import { testStack } from '../support/stack';

/**
 * Spec Imports rule 11: an account that work depends on is never deleted. Besides lines and
 * opening balances, a bank account mapped to it and a live open item naming it (dated that year or
 * before) hold it: DELETE answers 409 account_in_use, and nothing is deleted.
 */

const deleteAccount = (companyId: string, code: string, year: number, idempotencyKey?: string) => api('DELETE', `/v1/companies/${companyId}/accounts/${code}?year=${year}`, { as: 'a-system', idempotencyKey });
const getAccount = (companyId: string, code: string, year: number) => api('GET', `/v1/companies/${companyId}/accounts/${code}?year=${year}`, { as: 'a-system' });

/** Ingests one statement through the admin CLI without --gl-account: the bank account is mapped to 1920 by default. */
const bankAccountOn1920 = async (companyId: string): Promise<string> => {
  const accountNumber = validAccountNumber('1207' + String(Math.floor(Math.random() * 1e6)).padStart(6, '0'));
  const result = await ingestOk(companyId, statementXml(accountNumber, `ST-${accountNumber}-1`, [{ reference: 'R1', bookingDate: '2025-01-15', amount: '100.00', description: 'Innbetaling' }]));
  expect(result.statements[0]).toMatchObject({ accountCreated: true, glAccountCode: '1920' });
  return result.statements[0]!.bankAccountId;
};


describe('DELETE of an account that work depends on (rule 11)', () => {
  it('a bank account mapped to the account (no lines yet) holds it: 409 account_in_use naming the bank account; a GL import onto it still works', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    const bankAccountId = await bankAccountOn1920(companyId);

    const refused = await deleteAccount(companyId, '1920', 2025);
    expectProblem(refused, 409, 'conflict');
    expect(refused.body).toMatchObject({ reason: 'account_in_use', inUse: [{ id: '1920', lines: 0, generalLedgerLines: 0, openingBalances: 0, bankAccounts: [bankAccountId] }] });
    expect((await getAccount(companyId, '1920', 2025)).status).toBe(200);

    // an account no bank account is mapped to is deleted as before
    const accepted = await deleteAccount(companyId, '3000', 2025);
    expect(accepted.status).toBe(202);
    expect((await waitForImport(companyId, accepted.body.id)).body).toMatchObject({ kind: 'account_deletion', status: 'succeeded', rowsDeleted: 1 });

    // 1920 kept: GL lines can still be imported onto it
    const lines = await importAndWait(companyId, 'general-ledger-lines', { year: 2025, lines: [{ id: 'l1', accountCode: '1920', amount: '100.00', period: 1 }] });
    expect(lines.body).toMatchObject({ status: 'succeeded', rowsInserted: 1, rowsFailed: 0 });
  });

  it('a live open item naming the account, dated that year or before, holds it; once retired, the account is deleted', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2024, ['1500']));
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1500']));
    await importAndWait(companyId, 'accounts', chartOf(2026, ['1500']));
    const seeded = await importAndWait(companyId, 'open-items', { subLedgerType: 'customer', mode: 'incremental', items: [openItem('A'), openItem('B', { accountCode: '1510' })] });
    expect(seeded.body).toMatchObject({ status: 'succeeded', rowsInserted: 2 });

    for (const year of [2025, 2026]) {
      const refused = await deleteAccount(companyId, '1500', year);
      expectProblem(refused, 409, 'conflict');
      expect(refused.body).toMatchObject({ reason: 'account_in_use', inUse: [{ id: '1500', lines: 0, openItems: 1 }] });
      expect(refused.body.inUse[0]).not.toHaveProperty('bankAccounts');
    }

    // the item is dated 2025: it is not on the 2024 chart's account
    const earlier = await deleteAccount(companyId, '1500', 2024);
    expect(earlier.status).toBe(202);
    expect((await waitForImport(companyId, earlier.body.id)).body).toMatchObject({ kind: 'account_deletion', status: 'succeeded', rowsDeleted: 1 });

    // retired (deleted in the source): history, no longer holding the account
    await importAndWait(companyId, 'open-items', { subLedgerType: 'customer', mode: 'incremental', items: [{ itemKey: 'A', subLedgerType: 'customer', sourceDeleted: true }] });
    const accepted = await deleteAccount(companyId, '1500', 2025);
    expect(accepted.status).toBe(202);
    expect((await waitForImport(companyId, accepted.body.id)).body).toMatchObject({ kind: 'account_deletion', status: 'succeeded', rowsDeleted: 1 });
    expectProblem(await getAccount(companyId, '1500', 2025), 404, 'not_found');
  });

  it('a bank account mapped or an open item written after acceptance: the row fails at apply time and nothing is deleted', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1500', '1920']));
    // accepted while nothing used them (precheck passes) ...
    const context = () => ({ companyId, importId: randomUUID(), datasetId: randomUUID(), year: 2025, mode: 'merge', lane: 'accounts' as const, appliedAt: new Date().toISOString() });
    await accountDeletionKind.precheck!(companyId, { year: 2025, ids: ['1500', '1920'] });
    // ... then used before the deletion is applied
    const bankAccountId = await bankAccountOn1920(companyId);
    await importAndWait(companyId, 'open-items', { subLedgerType: 'customer', mode: 'incremental', items: [openItem('A')] });
    testStack();
    const outcomes = await accountDeletionKind.applyChunk(context(), ['1500', '1920'], { index: 0, firstRow: 0 });
    expect(outcomes).toEqual([
      { outcome: 'failed', message: 'account 1500 is in use and was not deleted (lines 0; generalLedgerLines 0; openingBalances 0; openItems 1)' },
      { outcome: 'failed', message: `account 1920 is in use and was not deleted (lines 0; generalLedgerLines 0; openingBalances 0; bankAccounts ${bankAccountId})` },
    ]);
    expect((await getAccount(companyId, '1500', 2025)).status).toBe(200);
    expect((await getAccount(companyId, '1920', 2025)).status).toBe(200);
  });

  it('not deleted while an import of open items is in flight (it may name the account): 409 job_in_flight, not stored under its key: sent again with the same key once the job is done, it is accepted', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1500']));
    testStack();
    const jobId = randomUUID();
    const key = randomUUID();
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: laneLockItem(companyId, 'open_items', jobId, randomUUID(), Date.now()) }));
    const refused = await deleteAccount(companyId, '1500', 2025, key);
    expectProblem(refused, 409, 'conflict');
    expect(refused.body).toMatchObject({ reason: 'job_in_flight', jobId });
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: laneLockKeys(companyId, 'open_items') }));
    const accepted = await deleteAccount(companyId, '1500', 2025, key);
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('idempotency-replayed')).toBeNull();
    // The accepted answer is the one stored: the same key now replays it.
    const replayed = await deleteAccount(companyId, '1500', 2025, key);
    expect(replayed.headers.get('idempotency-replayed')).toBe('true');
    expect(replayed.text).toBe(accepted.text);
  });
});
