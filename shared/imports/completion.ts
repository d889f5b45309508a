import { companyRepository } from '../companies/repository';
import { ConditionsFailed, unitOfWork } from '../db/unit-of-work';
import { countMetric } from '../platform/metrics';
import { jobRepository, type JobEnding } from '../jobs/repository';
import { outboxEventWrite } from '../outbox/repository';
import { importRepository, type ImportEnding, type ImportItem } from './repository';

type Terminal = ImportEnding & {
  /** Human-readable, for this failure: the job's error.message (else the reason's standard message). */
  failureDetail?: string;
};

/** The failureReason of an import whose company was deleted before it finished. */
export const companyDeletedReason = 'company_deleted';
/** The failureReason of an import whose company was moved off the Api accounting system before it finished (as the 409's reason). */
export const companyNotApiManagedReason = 'company_not_api_managed';

/**
 * The one terminal step of an import: import, job, event and lane release in one unit of work,
 * so a job never ends without its event and never keeps its lane. A success also checks that the
 * company is live and bound to Api: when it was deleted meanwhile the import fails company_deleted
 * instead, when moved off Api company_not_api_managed.
 * Returns false when the import was already terminal (a redelivered message).
 */
export const finishImport = (item: ImportItem, terminal: Terminal): Promise<boolean> => finish(item, terminal, terminal.status === 'succeeded' ? 'apiManaged' : undefined);

/**
 * finishImport with a check of the company in the same transaction: live and bound to Api (a
 * success), or deleted (a success refused by that check first tries company_deleted; when the
 * company is live, it was moved off Api: company_not_api_managed).
 */
const finish = async (item: ImportItem, terminal: Terminal, companyCheck: 'apiManaged' | 'deleted' | undefined): Promise<boolean> => {
  const at = new Date().toISOString();
  const { failureDetail, ...ending } = terminal;
  const job: JobEnding = {
    status: terminal.status,
    error: terminal.status === 'failed' ? { code: terminal.failureReason ?? 'failed', message: failureDetail ?? failureMessage(terminal.failureReason) } : null,
  };
  const event = terminal.status === 'succeeded' ? 'job.succeeded' : 'job.failed';
  const work = (releaseLane: boolean) => {
    const writes = unitOfWork()
      .add('import', importRepository.finishWrite(item.id, ending, at))
      .add('job', jobRepository.finishWrite(item.jobId, job, at))
      .add('event', outboxEventWrite(event, item.companyId, { jobId: item.jobId, importId: item.id, kind: item.kind, status: terminal.status }, at));
    if (companyCheck) writes.add('company', companyCheck === 'apiManaged' ? companyRepository.apiManagedCheck(item.companyId) : companyRepository.deletedCheck(item.companyId));
    return releaseLane ? writes.add('laneLock', jobRepository.releaseLaneWrite(item.companyId, item.lane, item.jobId)) : writes;
  };
  for (let releaseLane = true; ; releaseLane = false) {
    try {
      await work(releaseLane).commit();
      break;
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      if (error.names.includes('import')) return false;
      if (error.names.includes('company')) {
        const progress = terminal.progress && { progress: terminal.progress };
        if (companyCheck === 'apiManaged') return finish(item, { status: 'failed', failureReason: companyDeletedReason, ...progress }, 'deleted');
        return finish(item, { status: 'failed', failureReason: companyNotApiManagedReason, ...progress }, undefined);
      }
      // The lease ran out and another job holds the lane now: finish without touching its lock.
      if (!releaseLane || !error.names.includes('laneLock')) throw error;
    }
  }
  countImportEnd(item, terminal, at);
  return true;
};

/**
 * The import's metrics, once, at its terminal step: rows applied (inserted, updated, deleted by
 * the request) and failed, and the wall time from acceptance to the final status.
 */
const countImportEnd = (item: ImportItem, terminal: Terminal, at: string): void => {
  const progress = terminal.progress ?? item.progress;
  const dimensions = { kind: item.kind };
  const metadata = { importId: item.id };
  countMetric('importRowsApplied', dimensions, progress.rowsInserted + progress.rowsUpdated + progress.rowsDeletedFromRequest, metadata);
  countMetric('importRowsFailed', dimensions, progress.rowsFailed, metadata);
  countMetric('importDuration', dimensions, Math.max(0, Date.parse(at) - Date.parse(item.createdAt)), metadata);
};

/**
 * Fails an import that broke on the service side: its failureReason is the code, and the job's
 * error carries the code and the detail (what went wrong, for a person), else the code's
 * standard message.
 */
export const failImport = (item: ImportItem, failureReason: string, failureDetail?: string) =>
  finishImport(item, { status: 'failed', failureReason, failureDetail });

const failureMessage = (reason: string | undefined): string =>
  ({
    invalid_rows: 'At least one row is invalid; nothing was applied (see sampleErrors).',
    lines_in_use: 'GL lines to delete were put in reconciliation groups after the deletion was accepted; nothing was deleted (see sampleErrors).',
    opening_balances_in_use: 'Opening balances to delete were put in reconciliation groups after the deletion was accepted; nothing was deleted (see sampleErrors).',
    internal_error: 'The import failed on the service side; submit it again.',
    company_deleted: 'The company was deleted while the import waited or ran; nothing was applied after that, and the import did not succeed.',
    company_not_api_managed: 'The company was moved off the Api accounting system while the import waited or ran; nothing was applied after that, and the import did not succeed.',
    rejected_by_database: 'The database refused to store a row of the import; it was not retried (the same write fails every time).',
    invalid_payload: 'The stored request of the import does not pass validation any more; it was not retried. Submit it again.',
  })[reason ?? ''] ?? 'The job failed.';
