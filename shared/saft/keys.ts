/** DynamoDB keys of SAF-T imports. */
export const saftKeys = (id: string) => ({ PK: `SAFT#${id}`, SK: 'SAFT' });
/** SAF-T imports of a company, newest first (GSI1). */
export const saftListKeys = (companyId: string, createdAt: string, id: string) => ({ GSI1PK: saftListPartition(companyId), GSI1SK: `${createdAt}#${id}` });
export const saftListPartition = (companyId: string) => `SAFTS#${companyId}`;

/**
 * The sweep index (GSI2, sparse), as imports have it (shared/imports/keys.ts): a SAF-T import
 * carries it from its start (queued) until the worker moves it on (running, its end) or a start
 * that could not be queued is undone. Keyed by the start's instant, then by the instant of the
 * sweeper's last re-send (shared/saft/requeue.ts). One partition for all
 * companies: two writes per start, far below DynamoDB's 1,000 writes a second per partition key.
 */
export const queuedSaftIndexKeys = (startedAt: string, id: string) => ({
  GSI2PK: queuedSaftPartition,
  GSI2SK: `${startedAt}#${id}`,
});
export const queuedSaftPartition = 'QUEUED#saft';
