/** DynamoDB keys of jobs and of the lane locks that keep one job per (type, scope) in flight. */
export const jobKeys = (jobId: string) => ({ PK: `JOB#${jobId}`, SK: 'JOB' });
/** Jobs of a company, newest first (GSI1; the job list's company_id filter). */
export const jobCompanyIndexKeys = (companyId: string, createdAt: string, jobId: string) => ({
  GSI1PK: jobCompanyPartition(companyId),
  GSI1SK: `${createdAt}#${jobId}`,
});
export const jobCompanyPartition = (companyId: string) => `JOBS#${companyId}`;
/**
 * Jobs of an organization tree, newest first (GSI2; the unfiltered job list). The job carries its
 * company's organization path, so a caller below the root filters the tree's partition to its
 * subtree. See README (Single-table keys) for why the tree and not the organization.
 */
export const jobTreeIndexKeys = (rootOrganizationId: string, createdAt: string, jobId: string) => ({
  GSI2PK: jobTreePartition(rootOrganizationId),
  GSI2SK: `${createdAt}#${jobId}`,
});
export const jobTreePartition = (rootOrganizationId: string) => `JOBTREE#${rootOrganizationId}`;

/** One job per (type, scope) in flight: the lock item of a lane of a company. */
export const laneLockKeys = (companyId: string, lane: string) => ({ PK: `LANE#${companyId}#${lane}`, SK: 'LOCK' });
