import type { SQSRecord } from 'aws-lambda';
import { companyRepository } from '../companies/repository';
import { logger } from '../platform/logger';
import { queueWorker } from '../platform/queue-worker';
import { importRepository } from './repository';
import type { FetchRun, ImportRecord } from './schemas';

/** A post-fetch engine: runs after each fetch of a company (e.g. auto-reconciliation, with the bank feature). */
export interface PostFetchEngine {
  name: string;
  run(message: PostFetchMessage): Promise<string | null>;
}

export interface PostFetchMessage {
  companyId: string;
  fetchRunId: string;
  importId: string;
  year: number | null;
  /** The run's completedAt (its key); absent in messages sent before it was added. */
  completedAt?: string;
}

/**
 * The reconciliation-queue worker: runs every registered engine for a fetch run and records each
 * engine's outcome on the run. An engine that throws is recorded as failed; the message is then
 * redelivered so the engine gets another chance (engines must be idempotent), and the import's
 * fetchCompletion reads `failed` (failureType post_fetch_engine_failed) until a run succeeds.
 */
export const createPostFetchWorker = (engines: readonly PostFetchEngine[]) =>
  queueWorker(createPostFetchRun(engines), { failureMessage: 'Post-fetch run failed; the message will be redelivered' });

/**
 * The import's worker queues the engines just before it records the import's end, so an engine
 * could read the import still queued (the context picture's recent imports did, and kept it so).
 * A run first waits for that end: a few milliseconds as a rule, bounded for a worker that died
 * between the two (its redelivery ends the import later).
 */
export const importEndWait = { checks: 20, pauseMs: 100 };

const awaitImportEnd = async (importId: string): Promise<void> => {
  for (let check = 1; ; check++) {
    const item = await importRepository.get(importId);
    if (!item || item.status !== 'queued' || check >= importEndWait.checks) return;
    await new Promise((resolve) => setTimeout(resolve, importEndWait.pauseMs));
  }
};

/**
 * One fetch run's message through the engines (the worker's record handler); throws when an engine
 * failed. A run of a deleted company is skipped: no engine runs, nothing is recorded; so when the
 * company is deleted while the engines run (an engine may fail on it), nothing is recorded either.
 */
export const createPostFetchRun =
  (engines: readonly PostFetchEngine[]) =>
  async (record: SQSRecord): Promise<void> => {
    const message = JSON.parse(record.body) as PostFetchMessage;
    const run = await importRepository.findFetchRun(message.companyId, message.importId, message.completedAt);
    if (!run) return;
    await awaitImportEnd(message.importId);
    const companyDeleted = async () => {
      if (await companyRepository.getLive(message.companyId)) return false;
      logger.info('Post-fetch run skipped: the company is deleted', { companyId: message.companyId, fetchRunId: run.id });
      return true;
    };
    if (await companyDeleted()) return;
    const results: FetchRun['engines'] = [];
    let failed = false;
    for (const engine of engines) {
      try {
        const detail = await engine.run(message);
        results.push({ name: engine.name, status: 'completed', finishedAt: new Date().toISOString(), detail });
      } catch (error) {
        logger.error('Post-fetch engine failed', { engine: engine.name, error: error as Error });
        results.push({ name: engine.name, status: 'failed', finishedAt: new Date().toISOString(), detail: (error as Error).message });
        failed = true;
      }
    }
    if (await companyDeleted()) return;
    const at = new Date().toISOString();
    await importRepository.recordEngineResults(message.companyId, run, results, at);
    // The import's fetchCompletion tells the integrator when an engine failed after the fetch.
    const completion: ImportRecord['fetchCompletion'] = failed
      ? { status: 'failed', failureType: 'post_fetch_engine_failed', fetchRunId: run.id, recordedAt: at, message: results.filter((r) => r.status === 'failed').map((r) => r.name).join(', ') }
      : { status: 'completed', fetchRunId: run.id, recordedAt: at };
    await importRepository.setFetchCompletion(message.importId, completion);
    if (failed) throw new Error(`Post-fetch engine(s) failed: ${results.filter((r) => r.status === 'failed').map((r) => r.name).join(', ')}`);
  };
