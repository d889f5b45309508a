import type { JobRecord } from '../../shared/jobs/repository';
import { jobContracts as contracts } from '../../shared/jobs/contracts';
import { toJob } from '../../shared/jobs/service';
import { defineOperation } from '../../shared/api/operation';

/** Jobs (any valid token): the runner resolves {jobId} where its company is within reach. */
export const jobOperations = {
  getJob: defineOperation(contracts.getJob, async ({ owner }) => ({ status: 200, body: toJob(owner as JobRecord) })),
};
