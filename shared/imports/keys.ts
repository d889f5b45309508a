/** DynamoDB keys of imports, fetch runs and the ledger state the fetch completion moves. */
export const importKeys = (importId: string) => ({ PK: `IMPORT#${importId}`, SK: 'IMPORT' });
/** Imports of a company, newest first (GSI1, sort key begins with the acceptance instant). */
export const importListKeys = (companyId: string, createdAt: string, importId: string) => ({
  GSI1PK: importListPartition(companyId),
  GSI1SK: `${createdAt}#${importId}`,
});
export const importListPartition = (companyId: string) => `IMPORTS#${companyId}`;

export const fetchRunKeys = (companyId: string, completedAt: string, importId: string) => ({
  PK: fetchRunPartition(companyId),
  SK: `${completedAt}#${importId}`,
});
export const fetchRunPartition = (companyId: string) => `FETCHRUNS#${companyId}`;

/** The ledger's state of a company (last updated). */
export const ledgerStateKeys = (companyId: string) => ({ PK: `LEDGER#${companyId}`, SK: 'STATE' });

/**
 * The sweep index (GSI2, sparse): an import accepted with a queue message carries it while it is
 * queued with nothing applied; its first recorded chunk or its end (shared/imports/repository.ts
 * recordChunk, finishWrite) removes it. The outbox sweeper (shared/saft/requeue.ts) reads it,
 * oldest first, to send again the message of an import whose acceptance was cut off between the
 * commit and the SendMessage; each re-send moves the entry's sort key to the instant of the send
 * (and counts it on the item, requeueCount), so an import comes up once per age window, and one
 * sent again too often is failed instead. One partition for all companies: each import writes it
 * twice (put, remove), plus once per re-send, and acceptances stay far below the 500 a second that would reach DynamoDB's 1,000
 * writes a second per partition key (lanes allow one import per kind and company in flight).
 */
export const queuedImportIndexKeys = (createdAt: string, importId: string) => ({
  GSI2PK: queuedImportsPartition,
  GSI2SK: `${createdAt}#${importId}`,
});
export const queuedImportsPartition = 'QUEUED#import';

/**
 * The permanent record of an Idempotency-Key that accepted an import (never expires): one per
 * caller and key, the scope of the request-control idempotency records (shared/platform/keys.ts),
 * so the key keeps answering its import after that 24 h record is gone (spec: Import rules 6).
 */
export const importIdempotencyKeys = (caller: string, idempotencyKey: string) => ({
  PK: `IMPORTKEY#${caller}#${idempotencyKey}`,
  SK: 'IMPORTKEY',
});
