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
    description:
      'Declares an upload: file name, content type (PDF, JPEG, PNG, HEIC, TIFF, XML, CSV, plain text), exact size (1 B to 50 MiB) and SHA-256. Answers a presigned **PUT** URL valid for 15 minutes with the headers to send; the bytes go straight to storage, then call `POST /v1/documents/{documentId}/complete`. The document does not exist until completed. Errors: **400** `validation_failed` naming the field; **403** without `documents:write`.',
    params: CompanyParamsSchema,
    body: DeclareDocumentSchema,
    responses: {
      200: {
        description:
          'Step 1 of 2. The upload is declared; nothing exists yet. PUT the exact bytes to upload.url with upload.headers (the URL binds Content-Type, Content-Length and the SHA-256 checksum and expires after 15 minutes), then complete the upload (step 2). An S3 notification also completes it on its own shortly after the PUT, unless the company was deleted meanwhile (then nothing is created).',
        schema: DeclaredUploadSchema,
      },
    },
  },
  completeDocumentUpload: {
    description:
      'Checks the stored object against the declaration (exists, exact size, SHA-256, first bytes match the content type) and creates the document. Completing again, or after the automatic completion, answers the same document. Errors: **409** `upload_missing` (nothing uploaded yet), **409** `conflict` `job_in_flight` when the document links GL lines while a deletion of the company\'s GL lines is in flight (`jobId` names it; complete again once it has finished), **410** `upload_expired` (declare again), **422** `upload_mismatch` naming the field, **404** when the company was deleted (the automatic completion then creates nothing either); nothing is created on any failure.',
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
      409: 'upload_missing: nothing was uploaded to the URL yet (PUT the bytes, then complete again); conflict: reason job_in_flight, the document links GL lines and a deletion of the company\'s GL lines is in flight (jobId names it; complete again once it has finished)',
      410: 'upload_expired: the declaration expired before completion (declare again)',
      422: 'upload_mismatch: the stored bytes differ from the declaration; errors[].field names sizeBytes, sha256 or contentType. Nothing is created. sizeBytes or sha256: PUT the declared bytes to the upload URL (while it is valid) and complete again, or declare again; contentType: the URL binds the declared type and checksum, so declare again with the right content type',
    },
  },
  listDocuments: {
    description:
      'Metadata of the company\'s documents, newest first; filters `linked_line_id`, `content_type`, `from`/`to` (completion date). Filtered pages may be shorter than `page_size`: follow `pagination.next_cursor`.',
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
    description: 'Metadata of one document. **404** when unknown, soft-deleted or outside the reach.',
    params: DocumentParamsSchema,
    responses: { 200: { description: 'The document metadata', schema: DocumentSchema } },
    problems: { 404: documentNotFound },
  },
  getDocumentDownload: {
    description: 'A presigned **GET** URL of the document\'s bytes, valid for 5 minutes, whose answer carries `Content-Disposition` with the file name.',
    params: DocumentParamsSchema,
    responses: { 200: { description: 'A presigned GET URL valid for 5 minutes; its answer carries Content-Disposition: attachment with the file name', schema: DownloadSchema } },
    problems: { 404: documentNotFound },
  },
  deleteDocument: {
    description: 'Soft delete: the document answers 404 everywhere afterwards; the bytes stay in storage. Deleting again answers the same deletion.',
    params: DocumentParamsSchema,
    responses: {
      200: { description: 'Soft delete: the document answers 404 everywhere afterwards; the stored bytes stay. Deleting again answers the same deletion.', schema: DocumentDeletionSchema },
    },
    problems: { 404: 'not_found: no such document, or its company is outside your reach' },
  },
  restoreDocument: {
    description: 'Brings a soft-deleted document back; restoring a live document answers it unchanged. **404** for an unknown id or outside the reach.',
    params: DocumentParamsSchema,
    responses: { 200: { description: 'The document, back (a document that is not deleted is answered unchanged)', schema: DocumentSchema } },
    problems: { 404: 'not_found: no such document, or its company is outside your reach' },
  },
} satisfies Record<string, OperationContract>;
