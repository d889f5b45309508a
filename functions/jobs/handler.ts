import { jobContracts as contracts } from '../../shared/jobs/contracts';
import { getJob, listJobs } from '../../shared/jobs/service';
import { httpHandler } from '../../shared/platform/http';
import { defineOperation } from '../../shared/platform/operation';

export const handler = httpHandler('jobs', {
  getJob: defineOperation(contracts.getJob, async ({ principal, params }) => ({ status: 200, body: await getJob(principal, params.jobId) })),
  listJobs: defineOperation(contracts.listJobs, async ({ principal, query, operationId }) => ({
    status: 200,
    body: await listJobs(principal, query, { clientId: principal.clientId, operationId }),
  })),
});
