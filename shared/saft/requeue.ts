import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqs } from '../platform/aws';
import type { ImportRequeueSettings } from '../platform/config';
import { logger } from '../platform/logger';
import { countMetric } from '../platform/metrics';
import { queues } from '../queues';
import { importRepository } from '../imports/repository';
import { saftRepository } from './repository';

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
 */
export interface QueuedImport {
  entity: 'import' | 'saft';
  id: string;
  companyId: string;
  /** The import kind, `saft` for a SAF-T import. */
  kind: string;
  /** When it was accepted (an import) or started (a SAF-T import). */
  queuedAt: string;
}

export interface RequeueResult {
  found: number;
  requeued: number;
  failed: number;
  limitReached: boolean;
}

/** The imports and SAF-T imports queued since before `olderThanSeconds` with nothing applied, oldest first, at most `limit` (one index page of each). */
export const queuedImportsToRequeue = async (settings: ImportRequeueSettings, now = new Date()): Promise<QueuedImport[]> => {
  const before = new Date(now.getTime() - settings.olderThanSeconds * 1000).toISOString();
  const [imports, safts] = await Promise.all([importRepository.queuedBefore(before, settings.limit), saftRepository.queuedBefore(before, settings.limit)]);
  const found: QueuedImport[] = [
    ...imports.map((item) => ({ entity: 'import' as const, ...item })),
    ...safts.map((item) => ({ entity: 'saft' as const, ...item, kind: 'saft' })),
  ];
  return found.sort((a, b) => (a.queuedAt < b.queuedAt ? -1 : a.queuedAt > b.queuedAt ? 1 : 0)).slice(0, settings.limit);
};

/** Sends the message of each import left queued (see above) again: the bounded, logged step of the outbox sweeper. */
export const requeueQueuedImports = async (settings: ImportRequeueSettings, now = new Date()): Promise<RequeueResult> => {
  const queued = await queuedImportsToRequeue(settings, now);
  const result: RequeueResult = { found: queued.length, requeued: 0, failed: 0, limitReached: queued.length >= settings.limit };
  const queueUrl = importsQueueUrl();
  for (const item of queued) {
    const body = item.entity === 'saft' ? { saftImportId: item.id } : { importId: item.id };
    try {
      await sqs().send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }));
      result.requeued++;
      countMetric('importsRequeued', { kind: item.kind }, 1, { [item.entity === 'saft' ? 'saftImportId' : 'importId']: item.id, companyId: item.companyId });
      logger.warn('Import queued without its message: sent again', { ...body, companyId: item.companyId, kind: item.kind, queuedAt: item.queuedAt });
    } catch (error) {
      result.failed++;
      logger.error('Could not send an import message again; the next run tries again', { ...body, error: error as Error });
    }
  }
  return result;
};

const importsQueueUrl = (): string => {
  const queue = queues.find((q) => q.name === 'imports')!;
  const url = process.env[queue.urlEnv];
  if (!url) throw new Error(`Missing environment variable ${queue.urlEnv}`);
  return url;
};
