import type { JobRecord } from './repository';
import type { Job } from './schemas';

/** The job as callers see it (the runner's reach step found it visible: its company live and within reach). */
export const toJob = (job: JobRecord): Job => {
  const { companyId: _companyId, ...visible } = job;
  return visible;
};
