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
 * is the import's). Never fails the import: a problem here is reported as fetchCompletion error.
 */
export const completeFetch = async (item: ImportItem, changedRows: number, engineNames: readonly string[]): Promise<NonNullable<ImportRecord['fetchCompletion']>> => {
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
    // The run and the ledger's last-updated instant move together, for a company not deleted.
    await unitOfWork()
      .add('fetchRun', importRepository.fetchRunWrite(item.companyId, run))
      .add('ledgerState', importRepository.ledgerUpdatedWrite(item.companyId, run, recordedAt))
      .add('company', companyRepository.liveCheck(item.companyId))
      .commit();
    const queue = queues.find((q) => q.name === 'reconciliation')!;
    await sqs().send(
      new SendMessageCommand({
        QueueUrl: process.env[queue.urlEnv],
        MessageBody: JSON.stringify({ companyId: item.companyId, fetchRunId: run.id, importId: item.id, year: item.year, completedAt: run.completedAt }),
      }),
    );
    return { status: 'completed', fetchRunId: run.id, recordedAt };
  } catch (error) {
    // Deleted meanwhile: nothing recorded; the import's end fails it company_deleted.
    if (error instanceof ConditionsFailed && error.names.includes('company')) return { status: 'error', failureType: 'recording_failed', fetchRunId: null, recordedAt, message: 'The company was deleted; no fetch was recorded.' };
    logger.error('Fetch completion failed', error as Error);
    return { status: 'error', failureType: 'recording_failed', fetchRunId: null, recordedAt, message: 'The fetch could not be recorded; the import itself succeeded.' };
  }
};
