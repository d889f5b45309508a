import { jobContracts as contracts } from '../../shared/jobs/contracts';
import { getJob } from '../../shared/jobs/service';
import { httpHandler } from '../../shared/platform/http';
import { defineOperation } from '../../shared/platform/operation';

export const handler = httpHandler('jobs', {
  getJob: defineOperation(contracts.getJob, async ({ principal, params }) => ({ status: 200, body: await getJob(principal, params.jobId) })),
});
