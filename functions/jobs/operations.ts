import { cursorCaller } from '../../shared/identity/principal';
import { defineOperations } from '../../shared/composition/operations';
import { jobContracts as contracts } from '../../shared/jobs/contracts';
import { listJobs, toJob } from '../../shared/jobs/service';

/** Jobs (any valid token): the runner resolves {jobId} where its company is within reach; the list holds only such jobs. */
export const jobOperations = defineOperations('jobs', contracts, {
  getJob: async ({ owner: job }) => ({ status: 200, body: toJob(job) }),
  listJobs: async ({ principal, query, operationId }) => ({
    status: 200,
    body: await listJobs(principal, query, cursorCaller(principal, operationId)),
  }),
});
