import { cursorCaller } from '../../shared/identity/principal';
import { defineCompanyOperation } from '../../shared/companies/operation';
import { documentContracts as contracts } from '../../shared/documents/contracts';
import { defineDocumentOperation } from '../../shared/documents/operation';
import { completeUpload, declareUpload, deleteDocument, downloadDocument, listDocuments, restoreDocument, toDocument } from '../../shared/documents/service';

/** Documents: two-step signed upload, metadata, download URLs, soft delete and restore (documents:read/write). */
export const documentOperations = {
  declareDocumentUpload: defineCompanyOperation(contracts.declareDocumentUpload, async ({ principal, company, body }) => ({
    status: 200,
    body: await declareUpload(company.id, body, principal.clientId),
  })),
  completeDocumentUpload: defineDocumentOperation(contracts.completeDocumentUpload, async ({ document, declaration }) => ({
    status: 200,
    body: toDocument(document ?? (await completeUpload(declaration!))),
  })),
  listDocuments: defineCompanyOperation(contracts.listDocuments, async ({ principal, company, query, operationId }) => ({
    status: 200,
    body: await listDocuments(company.id, query, cursorCaller(principal, operationId)),
  })),
  getDocument: defineDocumentOperation(contracts.getDocument, async ({ document }) => ({ status: 200, body: toDocument(document!) })),
  getDocumentDownload: defineDocumentOperation(contracts.getDocumentDownload, async ({ document }) => ({
    status: 200,
    body: await downloadDocument(document!),
  })),
  deleteDocument: defineDocumentOperation(contracts.deleteDocument, async ({ principal, document }) => ({
    status: 200,
    body: await deleteDocument(document!, principal.clientId),
  })),
  restoreDocument: defineDocumentOperation(contracts.restoreDocument, async ({ document }) => ({ status: 200, body: await restoreDocument(document!) })),
};
