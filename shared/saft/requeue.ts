import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { ConditionsFailed, unitOfWork } from '../db/unit-of-work';
import { failImport } from '../imports/completion';
import { importRepository, type SweepEntry } from '../imports/repository';
import { sqs } from '../platform/aws';
import type { ImportRequeueSettings } from '../platform/config';
import { logger } from '../platform/logger';
import { countMetric } from '../platform/metrics';
import { queueUrl } from '../queues';
import { saftRepository } from './repository';
import { endSaftJob } from './completion';

/**
 * Accepting an import (shared/imports/pipeline.ts acceptImport) and starting a SAF-T import
 * (shared/saft/service.ts startSaftImport) commit the lane, the job and the import first and send
 * the queue message after: a function cut off between the two (a timeout, a crash) leaves the
 * import queued with no message, its job queued and its lane held. Such imports carry the sweep
 * index (GSI2, shared/imports/keys.ts and shared/saft/keys.ts) until the worker moves them on; the
 * outbox sweeper sends their message again once they are older than the settings' bound. A message
 * that was sent after all is then received twice, which the workers take: an import applies each
 * chunk once (its progress is recorded conditionally) and a message of an import no longer queued
 * changes nothing; a SAF-T import resumes its per-kind imports by their derived ids.
 *
 * Each re-send first moves the entry to the instant of the send and counts it on the item (a
 * conditional write: only while queued with the entry read), so an import is sent again at most
 * once per age window, by one sweep. An import still in the index a window after its last allowed
 * re-send (settings.maxRequeues) never started: its first pass dies on every delivery (a timeout,
 * out of memory: the worker's own last-delivery failure never runs) or its messages are lost. The
 * sweep then fails it through its terminal step (internal_error: the job fails, job.failed is
 * written, the lane is freed) instead of sending again.
 */
export interface QueuedImport extends SweepEntry {
  entity: 'import' | 'saft';
  /** The import kind, `saft` for a SAF-T import. */
  kind: string;
}

export interface RequeueResult {
  found: number;
  requeued: number;
  /** Messages that could not be sent (or imports that could not be failed): the next run tries again. */
  failed: number;
  /** Imports failed (internal_error) because their message was sent again settings.maxRequeues times and they never started. */
  failedNeverStarted: number;
  limitReached: boolean;
}

/** The imports and SAF-T imports queued (or last sent again) since before `olderThanSeconds` with nothing applied, oldest first, at most `limit` (one index page of each). */
export const queuedImportsToRequeue = async (settings: Pick<ImportRequeueSettings, 'olderThanSeconds' | 'limit'>, now = new Date()): Promise<QueuedImport[]> => {
  const before = new Date(now.getTime() - settings.olderThanSeconds * 1000).toISOString();
  const [imports, safts] = await Promise.all([importRepository.queuedBefore(before, settings.limit), saftRepository.queuedBefore(before, settings.limit)]);
  const found: QueuedImport[] = [
    ...imports.map((item) => ({ ...item, entity: 'import' as const })),
    ...safts.map((item) => ({ ...item, entity: 'saft' as const, kind: 'saft' })),
  ];
  return found.sort((a, b) => (a.queuedAt < b.queuedAt ? -1 : a.queuedAt > b.queuedAt ? 1 : 0)).slice(0, settings.limit);
};

/** The job's error message of an import failed by the sweep. */
export const neverStartedMessage = (requeues: number, again: 'submit' | 'start'): string =>
  `The import was queued but never started: its message was sent again ${requeues} time${requeues === 1 ? '' : 's'} and it never started. ${again === 'submit' ? 'Submit' : 'Start'} it again.`;

/** Sends the message of each import left queued (see above) again, or fails it past the bound: the bounded, logged step of the outbox sweeper. */
export const requeueQueuedImports = async (settings: ImportRequeueSettings, now = new Date()): Promise<RequeueResult> => {
  const queued = await queuedImportsToRequeue(settings, now);
  const result: RequeueResult = { found: queued.length, requeued: 0, failed: 0, failedNeverStarted: 0, limitReached: queued.length >= settings.limit };
  const queueUrl = importsQueueUrl();
  const at = now.toISOString();
  for (const item of queued) {
    const repository = item.entity === 'saft' ? saftRepository : importRepository;
    const body = item.entity === 'saft' ? { saftImportId: item.id } : { importId: item.id };
    const context = { ...body, companyId: item.companyId, kind: item.kind, queuedAt: item.queuedAt, requeues: item.requeues };
    if (item.requeues >= settings.maxRequeues) {
      try {
        if (!(await repository.takeSweepEntry(item, at, { countResend: false }))) continue; // moved on, or another sweep has it
        if (await failNeverStarted(item)) {
          result.failedNeverStarted++;
          logger.error('Import never started though its message was sent again: failed (internal_error)', context);
          // One more message: the worker ends what a failed import may still hold (a deletion's claims on its rows).
          if (item.entity === 'import') await sqs().send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ importId: item.id }) }));
        }
      } catch (error) {
        result.failed++;
        logger.error('Could not fail an import that never started; a later run tries again', { ...context, error: error as Error });
      }
      continue;
    }
    let taken = false;
    try {
      taken = await repository.takeSweepEntry(item, at, { countResend: true });
      if (!taken) continue; // moved on, or another sweep sent it
      await sqs().send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }));
      result.requeued++;
      countMetric('importsRequeued', { kind: item.kind }, 1, { [item.entity === 'saft' ? 'saftImportId' : 'importId']: item.id, companyId: item.companyId });
      logger.warn('Import queued without its message: sent again', { ...context, requeues: item.requeues + 1 });
    } catch (error) {
      result.failed++;
      logger.error('Could not send an import message again; the next run tries again', { ...body, error: error as Error });
      if (taken) await repository.releaseSweepEntry(item, at).catch((release: unknown) => logger.error('Could not give back the sweep entry of an import not sent again', { ...body, error: release as Error }));
    }
  }
  return result;
};

/** Fails an import still queued through its terminal step (internal_error); false when it had moved on meanwhile. */
const failNeverStarted = async (item: QueuedImport): Promise<boolean> => {
  if (item.entity === 'import') {
    const record = await importRepository.get(item.id);
    if (record?.status !== 'queued') return false;
    return failImport(record, 'internal_error', neverStartedMessage(item.requeues, 'submit'));
  }
  // As shared/saft/service.ts finishSaftImport ends a failed one: the SAF-T import, then its job, job.failed and the lane (endSaftJob).
  const record = await saftRepository.get(item.id);
  if (record?.status !== 'queued' || !record.jobId) return false;
  const message = neverStartedMessage(item.requeues, 'start');
  const at = new Date().toISOString();
  const end = (releaseLane: boolean) =>
    endSaftJob(
      unitOfWork().add('saft', saftRepository.finishWrite(record.id, { status: 'failed', failureReason: 'internal_error', problems: [{ line: null, message }] }, at)),
      { companyId: record.companyId, importId: record.id, jobId: record.jobId! },
      { status: 'failed', error: { code: 'internal_error', message } },
      at,
      { releaseLane },
    ).commit();
  try {
    await end(true);
    return true;
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    if (error.names.includes('saft')) return false; // ended meanwhile
    if (!error.names.includes('laneLock')) throw error;
    await end(false); // its lease ran out and another import holds the lane now
    return true;
  }
};

const importsQueueUrl = (): string => queueUrl('imports');
