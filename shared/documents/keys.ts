/**
 * DynamoDB keys and S3 object keys of documents (one module; layout in README, Single-table keys).
 *
 * A document and its pending declaration share the partition `DOCUMENT#<id>`, so the top-level
 * routes `/v1/documents/{documentId}` find either by id alone. GSI1 lists the live documents of a
 * company newest first (`<createdAt>#<id>`, so from/to are a key condition); a soft-deleted
 * document drops its GSI1 attributes (sparse index), so lists never filter deleted ones out.
 */
export const documentPartition = (documentId: string) => `DOCUMENT#${documentId}`;
export const documentKeys = (documentId: string) => ({ PK: documentPartition(documentId), SK: 'DOCUMENT' });
/** The declaration of an upload not completed yet (TTL `expiresAt`). */
export const documentDeclarationKeys = (documentId: string) => ({ PK: documentPartition(documentId), SK: 'UPLOAD' });
/**
 * The documents that link a GL line (`lineId`) of a company: one item per line with the set
 * `documentIds`, so a GL-line deletion reads the links of its lines with BatchGets (the list's
 * `linked_line_id` filter scans the company's documents). Written by completion, never removed.
 */
export const documentLineLinkKeys = (companyId: string, lineId: string) => ({ PK: `DOCLINKS#${companyId}#${lineId}`, SK: 'LINE' });
export const documentListPartition = (companyId: string) => `DOCUMENTS#${companyId}`;
export const documentListKeys = (companyId: string, createdAt: string, documentId: string) => ({
  GSI1PK: documentListPartition(companyId),
  GSI1SK: `${createdAt}#${documentId}`,
});

/**
 * Object keys in the documents bucket. Uploads land under `uploads/pending/` (a lifecycle rule
 * removes what is left there after a day, and the S3 ObjectCreated notification to the uploads
 * queue is filtered on this prefix); completion copies the verified object to its permanent key.
 */
export const pendingUploadsPrefix = 'uploads/pending/';
export const pendingUploadObjectKey = (companyId: string, documentId: string) => `${pendingUploadsPrefix}${companyId}/${documentId}`;
export const documentsObjectPrefix = 'companies/';
export const documentObjectKey = (companyId: string, documentId: string) => `${documentsObjectPrefix}${companyId}/documents/${documentId}`;

/** `uploads/pending/<companyId>/<documentId>` -> its ids; undefined for any other key. */
export const parsePendingUploadObjectKey = (key: string): { companyId: string; documentId: string } | undefined => {
  const match = /^uploads\/pending\/([0-9a-f-]{36})\/([0-9a-f-]{36})$/i.exec(key);
  return match ? { companyId: match[1]!, documentId: match[2]! } : undefined;
};
