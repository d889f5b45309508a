import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { companyRepository } from '../companies/repository';
import { ConditionsFailed, unitOfWork } from '../db/unit-of-work';
import { sqs } from '../platform/aws';
import { logger } from '../platform/logger';
import { queues } from '../queues';
import { importRepository, type ImportItem } from './repository';
import type { FetchRun, ImportRecord } from './schemas';

/**
 * After a GL-line or opening-balance import: record the fetch run, move the ledger's
 * last-updated timestamp and queue the post-fetch engines. Idempotent per import (the run's key
 * is the import's). A run that could not be recorded is reported as fetchCompletion error (the
 * import still succeeds). A run recorded whose engines could not be queued throws
 * EnginesNotQueued: the import's message is redelivered, and the step again records the same
 * run (same id, engines queued) and queues it; on the last delivery the engines are recorded
 * failed instead (the import never fails because of its fetch completion).
 */
export const completeFetch = async (
  item: ImportItem,
  changedRows: number,
  engineNames: readonly string[],
  /** The import's last delivery: engines that cannot be queued are recorded failed (the import never fails for them). */
  options: { lastDelivery?: boolean } = {},
): Promise<NonNullable<ImportRecord['fetchCompletion']>> => {
  const recordedAt = new Date().toISOString();
  if (changedRows === 0) return { status: 'ignored', fetchRunId: null, recordedAt };
  try {
    const run: FetchRun = {
      id: item.id,
      importId: item.id,
      kind: item.kind,
      year: item.year,
      completedAt: item.createdAt,
      recordedAt,
      engines: engineNames.map((name) => ({ name, status: 'queued', finishedAt: null, detail: null })),
    };
    // The run and the ledger's last-updated instant move together, for a company live and bound to Api.
    await unitOfWork()
      .add('fetchRun', importRepository.fetchRunWrite(item.companyId, run))
      .add('ledgerState', importRepository.ledgerUpdatedWrite(item.companyId, run, recordedAt))
      .add('company', companyRepository.apiManagedCheck(item.companyId))
      .commit();
    const queue = queues.find((q) => q.name === 'reconciliation')!;
    const queued = await sqs()
      .send(
        new SendMessageCommand({
          QueueUrl: process.env[queue.urlEnv],
          MessageBody: JSON.stringify({ companyId: item.companyId, fetchRunId: run.id, importId: item.id, year: item.year, completedAt: run.completedAt }),
        }),
      )
      .catch(async (error: unknown) => {
        if (!options.lastDelivery) throw new EnginesNotQueued(run.id, error);
        logger.error('Post-fetch engines could not be queued on the last delivery; recorded failed', error as Error);
        const detail = 'The engine could not be queued (the queue refused the message); it did not run for this fetch.';
        await importRepository.recordEngineResults(item.companyId, run, run.engines.map((engine) => ({ ...engine, status: 'failed', finishedAt: recordedAt, detail })), recordedAt);
        return 'not queued' as const;
      });
    if (queued === 'not queued') {
      return { status: 'failed', failureType: 'post_fetch_engine_failed', fetchRunId: run.id, recordedAt, message: 'The fetch was recorded, but its post-fetch engines could not be queued and did not run for it; the import itself succeeded.' };
    }
    return { status: 'completed', fetchRunId: run.id, recordedAt };
  } catch (error) {
    if (error instanceof EnginesNotQueued) throw error;
    // Deleted or moved off Api meanwhile: nothing recorded; the import's end fails it.
    if (error instanceof ConditionsFailed && error.names.includes('company')) return { status: 'error', failureType: 'recording_failed', fetchRunId: null, recordedAt, message: 'The company was deleted or moved off Api; no fetch was recorded.' };
    logger.error('Fetch completion failed', error as Error);
    return { status: 'error', failureType: 'recording_failed', fetchRunId: null, recordedAt, message: 'The fetch could not be recorded; the import itself succeeded.' };
  }
};

/** The fetch run is recorded (engines queued) but its message could not be sent: the import's step is retried. */
export class EnginesNotQueued extends Error {
  constructor(fetchRunId: string, cause: unknown) {
    super(`Fetch run ${fetchRunId} is recorded, but its post-fetch engines could not be queued: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'EnginesNotQueued';
  }
}
