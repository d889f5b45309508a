import { GetObjectCommand } from '@aws-sdk/client-s3';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { companyRepository } from '../companies/repository';
import { parseLosslessJson as parseLossless } from '../platform/lossless-json';
import { ZodError } from 'zod';
import { jobRepository } from '../jobs/repository';
import { PartitionPacer } from '../db/partition-pacer';
import { bucketName, s3 } from '../platform/aws';
import { importIndexWritesPerPartitionPerSecond } from '../platform/config';
import { logger } from '../platform/logger';
import { queueWorker } from '../platform/queue-worker';
import { timed } from '../platform/stage-timing';
import { queues } from '../queues';
import { companyDeletedReason, companyNotApiManagedReason, failImport, finishImport } from './completion';
import { completeFetch } from './fetch-completion';
import type { ImportContext, ImportKind, RowOutcome } from './kind';
import { maxUnknownListed } from './fields';
import { importRepository, unknownCountOf, type ImportItem, type ImportProgress } from './repository';

const maxSampleErrors = 100;
const importsQueue = queues.find((queue) => queue.name === 'imports')!;

/**
 * The asynchronous part of an import: an SQS-triggered worker that applies the claim-checked
 * payload chunk by chunk. Every chunk is an exactly-once step (the kinds are idempotent per
 * chunk, and the import item records the next chunk conditionally), so a crash or redelivery
 * resumes where it stopped and ends with the same rows and counters. On the last allowed
 * delivery a failing import is marked failed, which releases its lane; a deterministic failure
 * (the database refusing a row, a payload that no longer validates) fails it at once. Every
 * failing end also ends the claims a deletion made on its rows (releaseClaims).
 */
export const createImportWorker = (
  kinds: readonly ImportKind[],
  postFetchEngineNames: readonly string[],
  /** Messages of SAF-T imports ({ saftImportId }) on the same queue (shared/saft/worker.ts). */
  saft?: (saftImportId: string, receiveCount: number) => Promise<void>,
) => {
  const byName = new Map(kinds.map((kind) => [kind.name, kind]));
  return queueWorker(
    async (record) => {
      const { importId, saftImportId } = JSON.parse(record.body) as { importId: string; saftImportId?: string };
      if (saftImportId && saft) return saft(saftImportId, Number(record.attributes.ApproximateReceiveCount));
      logger.appendKeys({ importId });
      const receiveCount = Number(record.attributes.ApproximateReceiveCount);
      try {
        await processImport(importId, byName, postFetchEngineNames, { lastDelivery: receiveCount >= importsQueue.maxReceiveCount });
      } catch (error) {
        const deterministic = deterministicFailure(error);
        const item = await importRepository.get(importId);
        if (!item || !(deterministic || receiveCount >= importsQueue.maxReceiveCount)) throw error; // redelivered
        logger.error('Import step failed; the import fails, not retried', { error: error as Error, receiveCount });
        await (deterministic ? failImport(item, deterministic.reason, deterministic.detail) : failImport(item, 'internal_error'));
        const kind = byName.get(item.kind);
        if (kind) await releaseClaims(item, kind);
      }
    },
    { failureMessage: 'Import step failed; the message will be redelivered' },
  );
};

/**
 * A failure that every redelivery would meet again: retrying it only holds the lane (and every
 * later import of the lane: 409 job_in_flight) until the last delivery. Such an import fails at
 * once, through the same terminal step (job failed, job.failed, lane released). Everything else
 * (throttling, timeouts, a crash) is retried by SQS as before.
 */
const deterministicFailure = (error: unknown): { reason: string; detail: string } | undefined => {
  if (error instanceof ChunkFailure) {
    const refused = deterministicFailure(error.cause);
    return refused && { ...refused, detail: `${refused.detail} (rows ${error.firstRow + 1} to ${error.lastRow + 1}; rows before them are applied)` };
  }
  const name = (error as { name?: unknown } | null)?.name;
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'ValidationException' || (error instanceof TransactionCanceledException && error.CancellationReasons?.some((r) => r.Code === 'ValidationError'))) {
    return { reason: 'rejected_by_database', detail: `The database refused to store a row of the import (${message}); the same write would fail again, so it was not retried.` };
  }
  if (error instanceof ZodError || error instanceof SyntaxError) {
    return { reason: 'invalid_payload', detail: 'The stored request of the import does not pass validation any more; it was not retried. Submit it again.' };
  }
  return undefined;
};

/** A chunk's rows could not be applied; names them for the job's error message. */
class ChunkFailure extends Error {
  readonly firstRow: number;
  readonly lastRow: number;

  constructor(firstRow: number, lastRow: number, cause: unknown) {
    super(`Chunk of rows ${firstRow + 1} to ${lastRow + 1} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ChunkFailure';
    this.firstRow = firstRow;
    this.lastRow = lastRow;
  }
}

/**
 * Applies one accepted import to its end (resuming after its last recorded chunk); the worker's
 * step, also run by a SAF-T import. The company is read before anything is applied and before each
 * chunk: once it is deleted the import fails company_deleted, once it is bound to another
 * accounting system than Api company_not_api_managed, and writes nothing more (the chunks before
 * stay). The terminal step checks it again (finishImport).
 */
export const processImport = async (
  importId: string,
  kinds: ReadonlyMap<string, ImportKind>,
  postFetchEngineNames: readonly string[],
  /** The message's last delivery (see completeFetch). */
  options: { lastDelivery?: boolean } = {},
): Promise<void> => {
  const item = await importRepository.get(importId);
  if (!item) return;
  const kind = kinds.get(item.kind);
  if (item.status !== 'queued') {
    // Already finished: a redelivered message. A failed import's claims may have outlived its failing end (a crash right after it).
    if (item.status === 'failed' && kind) await releaseClaims(item, kind);
    return;
  }
  if (!kind) throw new Error(`No import kind ${item.kind}`);
  let rows: unknown[] | undefined;
  /** Fails the import, then ends the claims it made (before the rows are read, they are read for it). */
  const fail = async (reason: string, detail?: string) => {
    await failImport(item, reason, detail);
    await releaseClaims(item, kind, rows);
  };
  /** True when the company is deleted or no longer bound to Api: the import has then failed (company_deleted, company_not_api_managed). */
  const companyRefused = async (): Promise<boolean> => {
    const company = await companyRepository.getLive(item.companyId);
    if (company?.accountingSystem === 'Api') return false;
    await fail(company ? companyNotApiManagedReason : companyDeletedReason);
    return true;
  };
  if (await companyRefused()) return;
  if (!(await jobRepository.holdLane(item.companyId, item.lane, item.jobId, item.id, Date.now()))) {
    const applied = item.progress.nextChunk === 0 ? 'nothing was applied' : 'the rows it counts were applied';
    await fail('lane_taken', `The import waited past its lease and another import of the same kind took its place; ${applied}. Submit it again.`);
    return;
  }
  // The job shows running while the payload is fetched.
  [, rows] = await Promise.all([
    jobRepository.markRunning(item.jobId, new Date().toISOString()).catch(() => undefined),
    timed('import: payload (S3 get, parse, validate)', () => payloadRows(item, kind)),
  ]);
  const context = contextOf(item, kind);
  // One pacer for this import's chunks: enough in-process, since the index keys an import writes are
  // its company's and one import per company and lane runs at a time (the job lock).
  const budget = importIndexWritesPerPartitionPerSecond();
  if (budget > 0) context.indexPacer = new PartitionPacer(budget);
  let progress = item.progress;

  if (kind.validateRows && progress.nextChunk === 0) {
    const invalid = await kind.validateRows(context, rows);
    if (invalid.length) {
      const rowsFailed = new Set(invalid.map((e) => e.index)).size;
      await finishImport(item, {
        status: 'failed',
        failureReason: kind.invalidRowsReason ?? 'invalid_rows',
        progress: {
          ...progress,
          rowsFailed,
          rowsValidNotApplied: rows.length - rowsFailed,
          sampleErrors: invalid.slice(0, maxSampleErrors).map((e) => `line ${e.index + 1}: ${e.message}`),
        },
      });
      return;
    }
  }

  const chunkCount = Math.ceil(rows.length / kind.chunkSize);
  const firstRowOfId = firstRowsOfIds(kind, rows);
  for (let index = progress.nextChunk; index < chunkCount; index++) {
    if (await companyRefused()) return;
    const firstRow = index * kind.chunkSize;
    const chunk = rows.slice(firstRow, firstRow + kind.chunkSize);
    const outcomes = await timed('import: apply chunks', () => kind.applyChunk(context, chunk, { index, firstRow, firstRowOfId, rows })).catch((error: unknown) => {
      throw new ChunkFailure(firstRow, firstRow + chunk.length - 1, error);
    });
    const next = { ...tally(kind, progress, outcomes, chunk, firstRow), nextChunk: index + 1 };
    const recorded = await timed('import: record chunk, extend lease', async () => {
      if (!(await importRepository.recordChunk(item.id, index, next, new Date().toISOString()))) return false;
      await jobRepository.extendLease(item.companyId, item.lane, item.jobId, Date.now()).catch(() => undefined);
      return true;
    });
    if (!recorded) return; // another delivery is ahead
    progress = next;
  }

  if (kind.finish && progress.rowsRetired === null) {
    if (await companyRefused()) return;
    const { rowsDeleted } = await kind.finish(context, rows);
    const next = { ...progress, rowsRetired: rowsDeleted, nextChunk: chunkCount + 1 };
    if (!(await importRepository.recordChunk(item.id, chunkCount, next, new Date().toISOString()))) return;
    progress = next;
  }

  if (await companyRefused()) return; // before the fetch run and the post-fetch engines
  const changed = progress.rowsInserted + progress.rowsUpdated + progress.rowsDeletedFromRequest + (progress.rowsRetired ?? 0);
  const fetchCompletion = kind.postFetch ? await timed('import: fetch completion', () => completeFetch(item, changed, postFetchEngineNames, options)) : undefined;
  await timed('import: finish (import, job, event)', () => finishImport(item, { status: 'succeeded', progress, ...(fetchCompletion && { fetchCompletion }) }));
};

/** The import's rows, from its stored request (parsed and validated again). */
const payloadRows = async (item: ImportItem, kind: ImportKind): Promise<unknown[]> => {
  const payload = await s3().send(new GetObjectCommand({ Bucket: bucketName(), Key: item.payloadKey }));
  return kind.rows(kind.bodySchema.parse(parseLossless(await payload.Body!.transformToString())));
};

const contextOf = (item: ImportItem, kind: ImportKind): ImportContext => ({
  companyId: item.companyId,
  importId: item.id,
  datasetId: item.datasetId,
  year: item.year,
  mode: item.mode,
  lane: kind.lane,
  appliedAt: item.createdAt,
});

/**
 * After an import ended without succeeding: a kind that claims its rows (deletions, validateRows)
 * ends the claims that are still this import's (ImportKind.releaseClaims), so reconciliation takes
 * the rows it did not delete at once. Idempotent. The rows are read from the stored request when
 * not at hand; one that no longer parses claimed nothing (validateRows never ran on it). Should
 * this step not run or fail (a crash), a redelivered message releases them (processImport), and
 * the claims lapse with the lane lease at the latest (deletingUntil).
 */
const releaseClaims = async (item: ImportItem, kind: ImportKind, rows?: unknown[]): Promise<void> => {
  if (!kind.releaseClaims) return;
  let named = rows;
  if (!named) {
    try {
      named = await payloadRows(item, kind);
    } catch (error) {
      if (error instanceof ZodError || error instanceof SyntaxError) return;
      throw error;
    }
  }
  await kind.releaseClaims(contextOf(item, kind), named);
};

/** Adds a chunk's outcomes to the counters; sample errors name the row as "line N" (from 1). */
const tally = (kind: ImportKind, progress: ImportProgress, outcomes: RowOutcome[], rows: unknown[], firstRow: number): ImportProgress => {
  const next: ImportProgress = { ...progress, sampleErrors: [...progress.sampleErrors], unknown: [...progress.unknown] };
  outcomes.forEach((result, i) => {
    switch (result.outcome) {
      case 'inserted':
        next.rowsInserted++;
        break;
      case 'updated':
        next.rowsUpdated++;
        break;
      case 'deleted':
        next.rowsDeletedFromRequest++;
        break;
      case 'unknown':
        next.unknownCount = unknownCountOf(next) + 1;
        if (next.unknown.length < maxUnknownListed) next.unknown.push(kind.rowId(rows[i]));
        break;
      case 'failed':
        next.rowsFailed++;
        if (next.sampleErrors.length < maxSampleErrors) next.sampleErrors.push(`line ${firstRow + i + 1}: ${result.message}`);
        break;
    }
  });
  return next;
};

/** Each row id (the kind's rowId) -> the position of its first row (ChunkPosition.firstRowOfId). */
export const firstRowsOfIds = <Row>(kind: Pick<ImportKind<unknown, Row>, 'rowId'>, rows: readonly Row[]): Map<string, number> => {
  const first = new Map<string, number>();
  rows.forEach((row, i) => {
    const id = kind.rowId(row);
    if (!first.has(id)) first.set(id, i);
  });
  return first;
};

export type { ImportItem };
