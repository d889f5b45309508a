import { afterEach, describe, expect, it, vi } from 'vitest';
import { autoReconcile, describeReport } from '../../shared/bank/auto-reconciliation';
import { bankRepository } from '../../shared/bank/repository';
import { glLineRepository } from '../../shared/ledger/general-ledger/repository';
import { toStoredNumber, Decimal } from '../../shared/platform/money';

/**
 * What auto-reconciliation reads: the GL lines of a bank account's GL account only when the
 * account has open transactions in the year (the matching itself is shown over HTTP in
 * test/integration/bank.test.ts and by the property test). Repository stubs stand in for DynamoDB.
 */
const companyId = '00000000-0000-4000-8000-000000000001';
const account = (id: string, glAccountCode: string) => ({ id, glAccountCode });
const transaction = (id: string, amount: string, bookingDate: string, reconciliationGroupId?: string) => ({
  id,
  amount: toStoredNumber(new Decimal(amount)),
  bookingDate,
  ...(reconciliationGroupId && { reconciliationGroupId }),
});

afterEach(() => vi.restoreAllMocks());

describe('auto-reconciliation reads', () => {
  it('reads no GL lines of a bank account without open transactions, and the lines of one with them', async () => {
    vi.spyOn(bankRepository, 'listAccounts').mockResolvedValue([account('b-quiet', '1920'), account('b-busy', '1930'), account('b-empty', '1940')]);
    const transactions: Record<string, ReturnType<typeof transaction>[]> = {
      'b-quiet': [transaction('t1', '10.00', '2026-03-01', 'group-1')], // all reconciled
      'b-busy': [transaction('t2', '-20.00', '2026-03-02'), transaction('t3', '30.00', '2026-03-03', 'group-2')],
      'b-empty': [],
    };
    vi.spyOn(bankRepository, 'transactionsBetween').mockImplementation(async (_, bankAccountId) => transactions[bankAccountId] ?? []);
    const linesOfAccount = vi.spyOn(glLineRepository, 'linesOfAccount').mockResolvedValue([
      { lineId: 'l1', period: 3, amount: toStoredNumber(new Decimal('-20.00')), transactionDate: '2026-03-10' }, // outside the window: no match
      { lineId: 'l2', period: 3, amount: toStoredNumber(new Decimal('5.00')), transactionDate: '2026-03-02', reconciliationGroupId: 'group-3' },
    ]);

    const report = await autoReconcile(companyId, 2026);

    expect(linesOfAccount.mock.calls).toEqual([[companyId, 2026, '1930']]);
    expect(report).toMatchObject({ bankAccounts: 3, unreconciledTransactions: 1, unreconciledLines: 1, linesNotRead: 2, matched: 0, ambiguous: 0 });
    expect(describeReport(report)).toMatch(
      /^matched 0 of 1 unreconciled bank transactions in 2026 \(3 bank accounts, 1 open GL lines, 0 ambiguous left; 2 without open transactions, their GL lines not read\) in \d+ ms$/,
    );
  });

  it('reads no GL lines at all for a company without bank accounts', async () => {
    vi.spyOn(bankRepository, 'listAccounts').mockResolvedValue([]);
    const transactionsBetween = vi.spyOn(bankRepository, 'transactionsBetween');
    const linesOfAccount = vi.spyOn(glLineRepository, 'linesOfAccount');
    const report = await autoReconcile(companyId, 2026);
    expect(transactionsBetween).not.toHaveBeenCalled();
    expect(linesOfAccount).not.toHaveBeenCalled();
    expect(describeReport(report)).toMatch(/^matched 0 of 0 unreconciled bank transactions in 2026 \(0 bank accounts, 0 open GL lines, 0 ambiguous left\) in \d+ ms$/);
  });
});
