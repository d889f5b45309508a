import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { importRepository } from '../../shared/imports/repository';
import { api } from '../support/api';
import { waitForPostFetch } from '../support/bank';
import { chartOf, importAndWait, newApiCompany } from '../support/ledger';
import { testStack } from '../support/stack';

/**
 * A redelivered post-fetch message can run twice at once; each run records its outcome on the
 * fetch run and on the import. Whatever order their writes land in, the newest outcome stays on
 * both (before, an older run's write landing last left the two disagreeing).
 */
describe('post-fetch outcomes recorded out of order', () => {
  it('keep the newest on the fetch run and on the import; an outcome for an import or fetch run that does not exist is refused', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2026, ['1920']));
    const done = await importAndWait(companyId, 'general-ledger-lines', { year: 2026, lines: [{ id: 'o1', accountCode: '1920', amount: '1.00', period: 1 }, { id: 'o2', accountCode: '1920', amount: '-1.00', period: 1 }] });
    const importId = done.body.id as string;
    await waitForPostFetch(companyId, importId);
    testStack();
    const run = (await importRepository.findFetchRun(companyId, importId))!;

    const newer = new Date(Date.now() + 60_000).toISOString();
    const older = new Date(Date.now() + 30_000).toISOString();
    const outcome = (at: string, detail: string) => [{ name: 'auto_reconciliation', status: 'completed' as const, finishedAt: at, detail }];
    await importRepository.recordEngineResults(companyId, run, outcome(newer, 'the newer run'), newer);
    await importRepository.recordEngineResults(companyId, run, outcome(older, 'the older run'), older);
    await importRepository.setFetchCompletion(importId, { status: 'completed', fetchRunId: run.id, recordedAt: newer });
    await importRepository.setFetchCompletion(importId, { status: 'failed', failureType: 'post_fetch_engine_failed', fetchRunId: run.id, recordedAt: older, message: 'auto_reconciliation' });

    const runs = await api('GET', `/v1/companies/${companyId}/fetch-runs?page_size=50`, { as: 'a-system' });
    const recorded = runs.body.data.find((candidate: { importId: string }) => candidate.importId === importId);
    expect(recorded).toMatchObject({ postFetchCompletedAt: newer, engines: [{ detail: 'the newer run' }] });
    const read = await api('GET', `/v1/companies/${companyId}/imports/${importId}`, { as: 'a-system' });
    expect(read.body.fetchCompletion).toEqual({ status: 'completed', fetchRunId: run.id, recordedAt: newer });
    // What the test helpers wait for holds: the import's completion is as new as the run's.
    expect(await waitForPostFetch(companyId, importId)).toMatchObject({ postFetchCompletedAt: newer });

    await expect(importRepository.setFetchCompletion(randomUUID(), { status: 'completed', fetchRunId: run.id, recordedAt: newer })).rejects.toThrow(/conditional request failed/i);
    // Nor does an outcome make a fetch run that does not exist.
    const missing = { ...run, importId: randomUUID() };
    await expect(importRepository.recordEngineResults(companyId, missing, outcome(newer, 'none'), newer)).rejects.toThrow(/conditional request failed/i);
    expect(await importRepository.findFetchRun(companyId, missing.importId, missing.completedAt)).toBeUndefined();
  });
});
