import type { UnitOfWork } from '../db/unit-of-work';
import { jobRepository, type JobEnding } from '../jobs/repository';
import { outboxEventWrite } from '../outbox/repository';

/** The lane a SAF-T import holds (beside checking its per-kind lanes free). */
export const saftLane = 'saft';

/**
 * The writes that end a SAF-T import's job: the job, its job.succeeded or job.failed event, and the
 * SAF-T lane released. Kept apart from shared/saft/service.ts (the file's parser, the start's
 * checks) so that the outbox sweeper, which fails a SAF-T import that never started
 * (shared/saft/requeue.ts), ends it the same way without bundling them.
 */
export const endSaftJob = (
  work: UnitOfWork,
  job: { companyId: string; importId: string; jobId: string },
  ending: JobEnding,
  at: string,
  /** false once another job holds the lane (this one's lease ran out): there is nothing of its own to release. */
  options: { releaseLane?: boolean } = {},
) => {
  work
    .add('job', jobRepository.finishWrite(job.jobId, ending, at))
    .add('event', outboxEventWrite(ending.status === 'succeeded' ? 'job.succeeded' : 'job.failed', job.companyId, { jobId: job.jobId, importId: job.importId, kind: 'saft', status: ending.status }, at));
  return options.releaseLane === false ? work : work.add('laneLock', jobRepository.releaseLaneWrite(job.companyId, saftLane, job.jobId));
};
