import { pageOf, PageQuerySchema, UuidSchema } from '../platform/schemas';
import { isWellFormed } from '../platform/text';
import { z } from '../platform/zod';

/** What may be uploaded: receipts, invoices (PDF, EHF/PEPPOL XML), bank statements, photos of receipts. */
export const documentContentTypes = [
  'application/pdf',
  'image/jpeg',
  'image/png',
  'image/heic',
  'image/tiff',
  'application/xml',
  'text/xml',
  'text/csv',
  'text/plain',
] as const;
export type DocumentContentType = (typeof documentContentTypes)[number];

/** 50 MiB: the largest document. */
export const maxDocumentBytes = 50 * 1024 * 1024;

// eslint-disable-next-line no-control-regex
const unsafeFileNameCharacters = /[\u0000-\u001f\u007f/\\]/;

const fileName = z
  .string()
  .min(1)
  .max(255)
  .refine((value) => !unsafeFileNameCharacters.test(value), { message: 'must not contain path separators (/ or \\) or control characters' })
  .refine(isWellFormed, { message: 'must be well-formed Unicode (no lone surrogate)' })
  .refine((value) => value !== '.' && value !== '..', { message: 'must be a file name' })
  .openapi({ description: 'The file name shown to people and given on download (1 to 255 characters, no / or \\, no control characters)', example: 'kvittering-2026-03-14.pdf' });

const sha256 = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal digits')
  .transform((value) => value.toLowerCase())
  .openapi({ type: 'string', pattern: '^[0-9a-fA-F]{64}$', description: 'SHA-256 of the exact bytes, hexadecimal (answered in lower case)', example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' });

const lineId = z.string().min(1).max(200);
const transactionId = z.string().min(1).max(200);

export const DocumentLinksSchema = z
  .strictObject({
    lineIds: z.array(lineId).max(100).optional().openapi({ description: 'GL lines (`lineId`) the document supports' }),
    transactionIds: z.array(transactionId).max(100).optional().openapi({ description: 'Vouchers (GL `transactionId`) the document supports' }),
  })
  .openapi('DocumentLinks', {
    description:
      'What the document belongs to in the books. Ids are stored as given and not checked against the ledger: a receipt is often attached before its voucher is imported.',
  });

export const DeclareDocumentSchema = z
  .strictObject({
    fileName,
    contentType: z.enum(documentContentTypes).openapi({ description: 'The media type of the bytes; checked against their first bytes on completion', example: 'application/pdf' }),
    sizeBytes: z.number().int().min(1).max(maxDocumentBytes).openapi({ description: 'Exact size in bytes, 1 B to 50 MiB (52428800); the upload URL accepts only this length', example: 48213 }),
    sha256,
    description: z.string().max(1000).optional().openapi({ example: 'Kvittering, lunsj med kunde' }),
    links: DocumentLinksSchema.optional(),
  })
  .openapi('DeclareDocument');

export const UploadInstructionsSchema = z
  .object({
    method: z.literal('PUT'),
    url: z.string().openapi({ format: 'uri', description: 'Presigned storage URL; PUT the bytes here (no bearer token). Valid until expiresAt (15 minutes).' }),
    headers: z
      .record(z.string(), z.string())
      .openapi({
        description:
          'Headers the PUT must carry exactly (Content-Type and x-amz-checksum-sha256, the base64 SHA-256); the signed Content-Length is the declared sizeBytes, so the body must be exactly that long',
        example: { 'Content-Type': 'application/pdf', 'x-amz-checksum-sha256': 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=' },
      }),
    expiresAt: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('UploadInstructions');

export const DeclaredUploadSchema = z
  .object({
    documentId: z.string().uuid(),
    status: z.literal('pending_upload'),
    upload: UploadInstructionsSchema,
    completeBy: z.string().openapi({ format: 'date-time', description: 'Completion after this instant answers 410 upload_expired (declare again)' }),
  })
  .openapi('DeclaredUpload', {
    description: 'The document does not exist yet (GET answers 404): PUT the bytes to upload.url, then POST /v1/documents/{documentId}/complete',
  });

export const DocumentSchema = z
  .object({
    id: z.string().uuid(),
    companyId: z.string().uuid(),
    fileName: z.string(),
    contentType: z.enum(documentContentTypes),
    sizeBytes: z.number().int(),
    sha256: z.string().openapi({ description: 'Hexadecimal, lower case; verified against the stored bytes' }),
    description: z.string().nullable(),
    links: z.object({ lineIds: z.array(z.string()), transactionIds: z.array(z.string()) }),
    status: z.enum(['available', 'deleted']).openapi({ description: 'deleted only in the answer of a delete; a deleted document otherwise answers 404' }),
    createdAt: z.string().openapi({ format: 'date-time', description: 'When the upload was completed' }),
    createdBy: z.string().openapi({ description: 'Client id that declared the upload' }),
    deletedAt: z.string().nullable().openapi({ format: 'date-time' }),
  })
  .openapi('Document');

export const DocumentPageSchema = pageOf(DocumentSchema, 'DocumentPage');

export const DocumentDeletionSchema = z
  .object({ id: z.string().uuid(), deleted: z.literal(true), deletedAt: z.string().openapi({ format: 'date-time' }) })
  .openapi('DocumentDeletion');

export const DownloadSchema = z
  .object({
    url: z.string().openapi({ format: 'uri', description: 'Presigned GET URL; the answer carries Content-Disposition with the file name' }),
    expiresAt: z.string().openapi({ format: 'date-time', description: '5 minutes after the request' }),
  })
  .openapi('DocumentDownload');

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD').openapi({ format: 'date' });

export const DocumentListQuerySchema = z.strictObject({
  ...PageQuerySchema.shape,
  linked_line_id: lineId.optional().openapi({ description: 'Only documents linked to this GL line' }),
  content_type: z.enum(documentContentTypes).optional(),
  from: date.optional().openapi({ description: 'Uploaded (completed) on or after this UTC date' }),
  to: date.optional().openapi({ description: 'Uploaded (completed) on or before this UTC date' }),
});

export const DocumentParamsSchema = z.object({ documentId: UuidSchema });

export type DeclareDocumentInput = z.infer<typeof DeclareDocumentSchema>;
export type Document = z.infer<typeof DocumentSchema>;
export type DocumentListQuery = z.infer<typeof DocumentListQuerySchema>;
