import { cursorCaller } from '../../shared/identity/principal';
import { defineOperations } from '../../shared/composition/operations';
import { documentContracts as contracts } from '../../shared/documents/contracts';
import { completeUpload, declareUpload, deleteDocument, downloadDocument, listDocuments, restoreDocument, toDocument } from '../../shared/documents/service';

/**
 * Documents: two-step signed upload, metadata, download URLs, soft delete and restore (documents:read/write).
 * {documentId} resolves to the document (on completion: the pending declaration) with its company.
 */
export const documentOperations = defineOperations('documents', contracts, {
  declareDocumentUpload: async ({ principal, owner: company, body }) => ({
    status: 200,
    body: await declareUpload(company.id, body, principal.clientId),
  }),
  completeDocumentUpload: async ({ owner: { document, declaration } }) => ({
    status: 200,
    body: toDocument(document ?? (await completeUpload(declaration!))),
  }),
  listDocuments: async ({ principal, owner: company, query, operationId }) => ({
    status: 200,
    body: await listDocuments(company.id, query, cursorCaller(principal, operationId)),
  }),
  getDocument: async ({ owner: { document } }) => ({ status: 200, body: toDocument(document!) }),
  getDocumentDownload: async ({ owner: { document } }) => ({
    status: 200,
    body: await downloadDocument(document!),
  }),
  deleteDocument: async ({ principal, owner: { document } }) => ({
    status: 200,
    body: await deleteDocument(document!, principal.clientId),
  }),
  restoreDocument: async ({ owner: { document } }) => ({ status: 200, body: await restoreDocument(document!) }),
});
