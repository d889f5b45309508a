import { lazySchema } from '../platform/lazy-schema';
import { identifier, limits, pageOf, PageQuerySchema, text, textOut, textPattern, textRuleProblem, TimestampSchema, UuidSchema } from '../platform/schemas';
import * as z from '../platform/zod';

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

/** GL lines or vouchers one document names. */
const maxLinks = 100;
/**
 * A presigned URL: the storage URL and its signature, the role's session token on AWS, and for a
 * download the file name twice in response-content-disposition (ASCII fallback, and filename*
 * percent-encoded, then encoded again as a query value: up to 12 characters per character). A
 * 255-character CJK name with a 1,400-character session token gives about 6,200; S3 accepts
 * URLs up to 8 KiB.
 */
const presignedUrlLength = 8192;

/** 50 MiB: the largest document. */
export const maxDocumentBytes = 50 * 1024 * 1024;

/** A file name: the text rule, and no path separators. */
const fileName = /* @__PURE__ */ lazySchema(() => z
  .string()
  .min(1)
  .max(255)
  .check((ctx) => {
    const problem = textRuleProblem(ctx.value);
    if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
  })
  .refine((value) => !/[/\\]/.test(value), { message: 'must not contain path separators (/ or \\)' })
  .refine((value) => value.trim() !== '', { message: 'must not be blank' })
  .refine((value) => value !== '.' && value !== '..', { message: 'must be a file name' })
  .openapi({
    pattern: textPattern({ refuse: '/\\\\' }),
    description: 'The file name shown to people and given on download (1 to 255 characters, no / or \\, no control or bidirectional override characters)',
    example: 'kvittering-2026-03-14.pdf',
  }));

const sha256 = /* @__PURE__ */ lazySchema(() => z
  .string()
  .max(64)
  .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal digits')
  .transform((value) => value.toLowerCase())
  .openapi({ type: 'string', maxLength: 64, pattern: '^[0-9a-fA-F]{64}$', description: 'SHA-256 of the exact bytes, hexadecimal (answered in lower case)', example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' }));

const lineId = /* @__PURE__ */ lazySchema(() => identifier({ max: limits.integratorId }));
const transactionId = /* @__PURE__ */ lazySchema(() => identifier({ max: limits.integratorId }));

export const DocumentLinksSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    lineIds: z.array(lineId).max(maxLinks).optional().openapi({ description: 'GL lines (`lineId`) the document supports' }),
    transactionIds: z.array(transactionId).max(maxLinks).optional().openapi({ description: 'Vouchers (GL `transactionId`) the document supports' }),
  })
  .openapi('DocumentLinks', {
    description:
      'What the document belongs to in the books. Ids are stored as given and not checked against the ledger: a receipt is often attached before its voucher is imported. A GL line the document links is not deleted while the document is live (a soft-deleted one holds nothing): its deletion answers 409 lines_in_use.',
  }));

export const DeclareDocumentSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    fileName,
    contentType: z.enum(documentContentTypes).openapi({ description: 'The media type of the bytes; checked against their first bytes on completion', example: 'application/pdf' }),
    sizeBytes: z.number().int().min(1).max(maxDocumentBytes).openapi({ description: 'Exact size in bytes, 1 B to 50 MiB (52428800); the upload URL accepts only this length', example: 48213 }),
    sha256,
    description: text({ max: limits.description, multiline: true, blank: true }).optional().openapi({ example: 'Kvittering, lunsj med kunde' }),
    links: DocumentLinksSchema.optional(),
  })
  .openapi('DeclareDocument', { description: 'A declared upload: the file name, its content type, exact size and SHA-256; optional description and links to the books' }));

export const UploadInstructionsSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    method: z.literal('PUT').openapi({ description: 'Always PUT' }),
    url: textOut(presignedUrlLength).openapi({ format: 'uri', description: 'Presigned storage URL; PUT the bytes here (no bearer token). Valid until expiresAt (15 minutes).' }),
    headers: z
      .object({
        'Content-Type': z.enum(documentContentTypes).openapi({ description: 'The declared content type' }),
        'x-amz-checksum-sha256': textOut(44).openapi({ description: 'The SHA-256 of the bytes, base64' }),
      })
      .openapi({
        description:
          'Headers the PUT must carry exactly (Content-Type and x-amz-checksum-sha256, the base64 SHA-256); the signed Content-Length is the declared sizeBytes, so the body must be exactly that long',
        example: { 'Content-Type': 'application/pdf', 'x-amz-checksum-sha256': 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=' },
      }),
    expiresAt: TimestampSchema.openapi({ description: 'When the presigned URL stops working (15 minutes after the declaration); UTC timestamp (ISO 8601)' }),
  })
  .openapi('UploadInstructions', { description: 'How to send the bytes: the method, the presigned URL, the exact headers to send with it, and when the URL expires' }));

export const DeclaredUploadSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    documentId: UuidSchema.openapi({ description: 'Id the document will have once the upload is completed (GET answers 404 until then)' }),
    status: z.literal('pending_upload'),
    upload: UploadInstructionsSchema,
    completeBy: TimestampSchema.openapi({ description: 'Completion after this instant answers 410 upload_expired (declare again)' }),
  })
  .openapi('DeclaredUpload', {
    description: 'The document does not exist yet (GET answers 404): PUT the bytes to upload.url, then POST /v1/documents/{documentId}/complete',
  }));

export const DocumentSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    id: UuidSchema,
    companyId: UuidSchema,
    fileName: textOut(255).openapi({ description: 'The file name as declared (1 to 255 characters, no path separators)' }),
    contentType: z.enum(documentContentTypes).openapi({ description: 'The declared content type, checked against the stored bytes on completion' }),
    sizeBytes: z.number().int().min(1).max(maxDocumentBytes).openapi({ description: 'Exact size in bytes, checked on completion' }),
    sha256: textOut(64).openapi({ description: 'Hexadecimal, lower case; verified against the stored bytes' }),
    description: textOut(limits.description).nullable(),
    links: z.object({
      lineIds: z.array(textOut(limits.integratorId)).max(maxLinks).openapi({ description: 'GL line ids (lineId) the document documents' }),
      transactionIds: z.array(textOut(limits.integratorId)).max(maxLinks).openapi({ description: 'Voucher ids (the GL lines\' transactionId) the document documents' }),
    }).openapi({ description: 'GL lines and vouchers of the company the document belongs to' }),
    status: z.enum(['available', 'deleted']).openapi({ description: 'deleted only in the answer of a delete; a deleted document otherwise answers 404' }),
    createdAt: TimestampSchema.openapi({ description: 'When the upload was completed' }),
    createdBy: textOut(limits.serviceId).openapi({ description: 'Client id that declared the upload' }),
    deletedAt: TimestampSchema.nullable(),
  })
  .openapi('Document', { description: 'Metadata of a stored document (the bytes are reached through GET /v1/documents/{documentId}/download)' }));

export const DocumentPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(DocumentSchema, 'DocumentPage'));

export const DocumentDeletionSchema = /* @__PURE__ */ lazySchema(() => z
  .object({ id: UuidSchema, deleted: z.literal(true), deletedAt: TimestampSchema })
  .openapi('DocumentDeletion', { description: 'The answer to a soft delete: the document answers 404 until restored; the bytes stay' }));

export const DownloadSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    url: textOut(presignedUrlLength).openapi({ format: 'uri', description: 'Presigned GET URL; the answer carries Content-Disposition with the file name' }),
    expiresAt: TimestampSchema.openapi({ description: '5 minutes after the request' }),
  })
  .openapi('DocumentDownload', { description: 'A presigned GET URL of the document\'s bytes and when it expires' }));

/** A calendar date (2026-02-31 is refused). */
const date = /* @__PURE__ */ lazySchema(() => z.iso.date().max(limits.date).openapi({ format: 'date' }));

export const DocumentListQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject({
  ...PageQuerySchema.shape,
  linked_line_id: lineId.optional().openapi({ description: 'Only documents linked to this GL line' }),
  content_type: z.enum(documentContentTypes).optional(),
  from: date.optional().openapi({ description: 'Uploaded (completed) on or after this UTC date' }),
  to: date.optional().openapi({ description: 'Uploaded (completed) on or before this UTC date; not before from' }),
})
  .refine((query) => !query.from || !query.to || query.from <= query.to, { path: ['to'], message: 'must not be before from' }));

export const DocumentParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ documentId: UuidSchema }));

export type DeclareDocumentInput = z.infer<typeof DeclareDocumentSchema>;
export type Document = z.infer<typeof DocumentSchema>;
export type DocumentListQuery = z.infer<typeof DocumentListQuerySchema>;
