import { describe, expect, it } from 'vitest';
import { api } from '../support/api';
import { chartOf, importAndWait, newApiCompany } from '../support/ledger';

/** Jobs over HTTP: their timestamps (GET /v1/jobs/{jobId}). */
describe('job timestamps', () => {
  it('a succeeded import job shows when it was created, started and finished, in that order', async () => {
    const companyId = await newApiCompany();
    const done = await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    expect(done.body.status).toBe('succeeded');
    const job = await api('GET', `/v1/jobs/${done.body.jobId}`, { as: 'a-system' });
    expect(job.status).toBe(200);
    expect(job.body).toMatchObject({ status: 'succeeded', error: null });
    const { createdAt, startedAt, finishedAt } = job.body as { createdAt: string; startedAt: string | null; finishedAt: string | null };
    expect(startedAt).not.toBeNull();
    expect(finishedAt).not.toBeNull();
    expect(Date.parse(createdAt)).toBeLessThanOrEqual(Date.parse(startedAt!));
    expect(Date.parse(startedAt!)).toBeLessThanOrEqual(Date.parse(finishedAt!));
  });

  it('a failed import job has its start and finish too', async () => {
    const companyId = await newApiCompany();
    // An open-items import with an invalid item fails as a whole (all or nothing) once the worker ran it.
    const failed = await importAndWait(companyId, 'open-items', {
      subLedgerType: 'customer',
      mode: 'incremental',
      items: [{ itemKey: 'X', subLedgerKey: 'C1', subLedgerType: 'customer', accountCode: '1500', documentId: 'D', entryCategory: 'invoice', documentDate: '2025-01-01', dueDate: '2025-01-31', amount: '100', amountOpen: '1000.01', settlementStatus: 'open' }],
    });
    expect(failed.body.status).toBe('failed');
    const job = await api('GET', `/v1/jobs/${failed.body.jobId}`, { as: 'a-system' });
    expect(job.body).toMatchObject({ status: 'failed', startedAt: expect.any(String), finishedAt: expect.any(String) });
    expect(Date.parse(job.body.startedAt)).toBeLessThanOrEqual(Date.parse(job.body.finishedAt));
  });
});
