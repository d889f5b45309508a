import { CompanyParamsSchema } from '../companies/schemas';
import type { OperationContract } from '../api/operation';
import {
  DeclareDocumentSchema,
  DeclaredUploadSchema,
  DocumentDeletionSchema,
  DocumentListQuerySchema,
  DocumentPageSchema,
  DocumentParamsSchema,
  DocumentSchema,
  DownloadSchema,
} from './schemas';

const documentNotFound = 'not_found: no such document, soft-deleted, or its company is outside your reach';

/** Request and response shapes of the document operations, keyed by operationId. */
export const documentContracts = {
  declareDocumentUpload: {
    params: CompanyParamsSchema,
    body: DeclareDocumentSchema,
    responses: {
      200: {
        description:
          'Step 1 of 2. The upload is declared; nothing exists yet. PUT the exact bytes to upload.url with upload.headers (the URL binds Content-Type, Content-Length and the SHA-256 checksum and expires after 15 minutes), then complete the upload (step 2). An S3 notification also completes it on its own shortly after the PUT.',
        schema: DeclaredUploadSchema,
      },
    },
  },
  completeDocumentUpload: {
    params: DocumentParamsSchema,
    responses: {
      200: {
        description:
          'Step 2 of 2. The stored bytes were checked (they exist; size and SHA-256 equal the declaration; their first bytes match the declared content type) and the document now exists. Completing again (or after the automatic completion) answers the same document.',
        schema: DocumentSchema,
      },
    },
    problems: {
      404: 'not_found: no such declaration or document, or its company is outside your reach',
      409: 'upload_missing: nothing was uploaded to the URL yet (PUT the bytes, then complete again)',
      410: 'upload_expired: the declaration expired before completion (declare again)',
      422: 'upload_mismatch: the stored bytes differ from the declaration; errors[].field names sizeBytes, sha256 or contentType. Nothing is created; PUT the right bytes and complete again',
    },
  },
  listDocuments: {
    params: CompanyParamsSchema,
    query: DocumentListQuerySchema,
    responses: {
      200: {
        description: 'A page of document metadata, newest first (completion time). Pages filtered by linked_line_id or content_type may hold fewer than page_size; follow next_cursor.',
        schema: DocumentPageSchema,
      },
    },
  },
  getDocument: {
    params: DocumentParamsSchema,
    responses: { 200: { description: 'The document metadata', schema: DocumentSchema } },
    problems: { 404: documentNotFound },
  },
  getDocumentDownload: {
    params: DocumentParamsSchema,
    responses: { 200: { description: 'A presigned GET URL valid for 5 minutes; its answer carries Content-Disposition: attachment with the file name', schema: DownloadSchema } },
    problems: { 404: documentNotFound },
  },
  deleteDocument: {
    params: DocumentParamsSchema,
    responses: {
      200: { description: 'Soft delete: the document answers 404 everywhere afterwards; the stored bytes stay. Deleting again answers the same deletion.', schema: DocumentDeletionSchema },
    },
    problems: { 404: 'not_found: no such document, or its company is outside your reach' },
  },
  restoreDocument: {
    params: DocumentParamsSchema,
    responses: { 200: { description: 'The document, back (a document that is not deleted is answered unchanged)', schema: DocumentSchema } },
    problems: { 404: 'not_found: no such document, or its company is outside your reach' },
  },
} satisfies Record<string, OperationContract>;
