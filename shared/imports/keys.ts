/** DynamoDB keys of imports, jobs, lane locks, fetch runs and outbox events. */
export const importKeys = (importId: string) => ({ PK: `IMPORT#${importId}`, SK: 'IMPORT' });
/** Imports of a company, newest first (GSI1, sort key begins with the acceptance instant). */
export const importListKeys = (companyId: string, createdAt: string, importId: string) => ({
  GSI1PK: importListPartition(companyId),
  GSI1SK: `${createdAt}#${importId}`,
});
export const importListPartition = (companyId: string) => `IMPORTS#${companyId}`;

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

export const fetchRunKeys = (companyId: string, completedAt: string, importId: string) => ({
  PK: fetchRunPartition(companyId),
  SK: `${completedAt}#${importId}`,
});
export const fetchRunPartition = (companyId: string) => `FETCHRUNS#${companyId}`;

/** The ledger's state of a company (last updated). */
export const ledgerStateKeys = (companyId: string) => ({ PK: `LEDGER#${companyId}`, SK: 'STATE' });

/** Durable outbox: one item per event; GSI1 lists a company's events in order, GSI2 the undelivered ones per day. */
export const outboxEventKeys = (eventId: string) => ({ PK: `EVENT#${eventId}`, SK: 'EVENT' });
export const outboxCompanyIndexKeys = (companyId: string, occurredAt: string, eventId: string) => ({
  GSI1PK: `EVENTS#${companyId}`,
  GSI1SK: `${occurredAt}#${eventId}`,
});
export const outboxPendingIndexKeys = (occurredAt: string, eventId: string) => ({
  GSI2PK: `OUTBOX#pending#${occurredAt.slice(0, 10)}`,
  GSI2SK: `${occurredAt}#${eventId}`,
});
export const outboxCompanyPartition = (companyId: string) => `EVENTS#${companyId}`;
