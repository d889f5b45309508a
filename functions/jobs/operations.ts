import { cursorCaller } from '../../shared/identity/principal';
import { defineOperation } from '../../shared/api/operation';
import { jobContracts as contracts } from '../../shared/jobs/contracts';
import type { JobRecord } from '../../shared/jobs/repository';
import { listJobs, toJob } from '../../shared/jobs/service';

/** Jobs (any valid token): the runner resolves {jobId} where its company is within reach; the list holds only such jobs. */
export const jobOperations = {
  getJob: defineOperation(contracts.getJob, async ({ owner }) => ({ status: 200, body: toJob(owner as JobRecord) })),
  listJobs: defineOperation(contracts.listJobs, async ({ principal, query, operationId }) => ({
    status: 200,
    body: await listJobs(principal, query, cursorCaller(principal, operationId)),
  })),
};
