import { randomUUID } from 'node:crypto';
import { companyRepository } from '../companies/repository';
import { importRepository } from '../imports/repository';
import { jobRepository } from '../jobs/repository';
import type { CursorBinding } from '../platform/cursor';
import type { Page } from '../db/query-page';
import { backoff } from '../db/retry';
import { commitUnlessCancelled } from '../db/unit-of-work';
import { outboxEventWrite } from '../outbox/repository';
import { logger } from '../platform/logger';
import { ProblemError, problems } from '../platform/problem';
import { matchesContentType } from './content-type';
import { documentObjectKey, pendingUploadObjectKey } from './keys';
import { documentRepository, type DeclarationRecord, type DocumentRecord } from './repository';
import type { DeclareDocumentInput, Document, DocumentListQuery } from './schemas';
import { copyObject, deleteObject, presignDownload, presignUpload, readUpload } from './storage';

/**
 * Lifetimes, from the environment at each call so that a test can shorten them: the presigned
 * PUT (default 15 minutes), the declaration (completion accepted for 24 hours, as long as the
 * bucket keeps an uncompleted upload), the presigned GET (5 minutes).
 */
const seconds = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};
export const uploadUrlSeconds = () => seconds('DOCUMENT_UPLOAD_URL_SECONDS', 15 * 60);
export const declarationSeconds = () => seconds('DOCUMENT_DECLARATION_SECONDS', 24 * 3600);
export const downloadUrlSeconds = () => seconds('DOCUMENT_DOWNLOAD_URL_SECONDS', 5 * 60);
/**
 * How long after `completeBy` a declaration still holds its lines (a completion checks the time
 * before its transaction, which may commit later; the transaction is refused past it).
 */
const completionGraceMilliseconds = 5 * 60 * 1000;
/** Commits of one change of a document before it gives up (a concurrent transaction may cancel it without writing anything). */
const changeAttempts = 3;

const documentProblems = {
  uploadMissing: () =>
    new ProblemError({
      status: 409,
      error: 'upload_missing',
      title: 'Upload missing',
      detail: 'Nothing has been uploaded to the upload URL yet. PUT the bytes to it, then complete again.',
    }),
  uploadExpired: (completeBy: string) =>
    new ProblemError({
      status: 410,
      error: 'upload_expired',
      title: 'Upload expired',
      detail: `The declaration expired at ${completeBy} without completion. Declare the document again.`,
    }),
  uploadMismatch: (field: 'sizeBytes' | 'sha256' | 'contentType', message: string) =>
    new ProblemError({
      status: 422,
      error: 'upload_mismatch',
      title: 'Upload does not match the declaration',
      // The upload URL binds the declared type, length and checksum: bytes of another type cannot
      // be PUT to it as the declared bytes, so only a new declaration helps then.
      detail:
        field === 'contentType'
          ? `The uploaded bytes do not match the declaration: ${field} ${message}. Nothing was created; declare the document again with the content type of its bytes.`
          : `The uploaded bytes do not match the declaration: ${field} ${message}. Nothing was created; PUT the declared bytes to the upload URL (while it is valid) and complete again, or declare the document again.`,
      errors: [{ field, message }],
    }),
};

export const toDocument = (record: DocumentRecord): Document => ({
  id: record.id,
  companyId: record.companyId,
  fileName: record.fileName,
  contentType: record.contentType,
  sizeBytes: record.sizeBytes,
  sha256: record.sha256,
  description: record.description,
  links: record.links,
  status: record.deletedAt ? 'deleted' : 'available',
  createdAt: record.createdAt,
  createdBy: record.createdBy,
  deletedAt: record.deletedAt,
});

const plusSeconds = (from: Date, value: number) => new Date(from.getTime() + value * 1000).toISOString();

/** Step 1: the declaration and a presigned PUT URL bound to its type, length and checksum. */
export const declareUpload = async (companyId: string, input: DeclareDocumentInput, declaredBy: string) => {
  const now = new Date();
  const documentId = randomUUID();
  const urlSeconds = uploadUrlSeconds();
  const declaration: DeclarationRecord = {
    documentId,
    companyId,
    fileName: input.fileName,
    contentType: input.contentType,
    sizeBytes: input.sizeBytes,
    sha256: input.sha256,
    description: input.description ?? null,
    links: { lineIds: [...new Set(input.links?.lineIds ?? [])], transactionIds: [...new Set(input.links?.transactionIds ?? [])] },
    declaredAt: now.toISOString(),
    declaredBy,
    uploadUrlExpiresAt: plusSeconds(now, urlSeconds),
    // Never shorter than its upload URL: bytes PUT while the URL is valid can still be completed.
    completeBy: plusSeconds(now, Math.max(declarationSeconds(), urlSeconds)),
  };
  // Sign first: a declaration is only stored with a URL to upload to.
  const { url, headers } = await presignUpload(pendingUploadObjectKey(companyId, documentId), declaration, urlSeconds);
  await documentRepository.declare(declaration);
  return {
    documentId,
    status: 'pending_upload' as const,
    upload: { method: 'PUT' as const, url, headers, expiresAt: declaration.uploadUrlExpiresAt },
    completeBy: declaration.completeBy,
  };
};

/**
 * Commits a change of a document; when the transaction is cancelled, reads the document again:
 * `settled` answers what it is now if another request made the change meanwhile, undefined when
 * not; then `refused` may name a condition that will not hold again (thrown), else (both cancelled
 * by a conflict, nothing written) the change is committed again.
 */
const commitDocumentChange = async <T>(
  documentId: string,
  writes: Parameters<typeof commitUnlessCancelled>[0],
  done: () => T,
  settled: (current: DocumentRecord) => T | undefined,
  refused: () => Promise<Error | undefined> = async () => undefined,
): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    if (await commitUnlessCancelled(writes)) return done();
    const current = await documentRepository.get(documentId);
    const answer = current && settled(current);
    if (answer !== undefined) return answer;
    const refusal = await refused();
    if (refusal) throw refusal;
    if (attempt >= changeAttempts) throw new Error(`A change of document ${documentId} lost its transaction ${attempt} times`);
    await backoff(attempt);
  }
};

/**
 * Step 2: checks the uploaded object (exists; size and SHA-256 equal the declaration; its first
 * bytes match the declared type), copies it to its permanent key and creates the document with
 * its outbox event in one transaction. Nothing is created on any failure. A second completion
 * (the explicit call after the automatic one, or the other way round) answers the same document.
 * The company must not be deleted (404; the automatic completion runs outside a request): read
 * first, nothing copied, and checked again in the transaction.
 */
export const completeUpload = async (declaration: DeclarationRecord): Promise<DocumentRecord> => {
  const { documentId, companyId } = declaration;
  if (!(await companyRepository.getLive(companyId))) throw problems.notFound('company');
  if (Date.now() > Date.parse(declaration.completeBy)) throw documentProblems.uploadExpired(declaration.completeBy);
  const pendingKey = pendingUploadObjectKey(companyId, documentId);
  const upload = await readUpload(pendingKey, declaration.sizeBytes);
  if (!upload) {
    // The other completion may have finished meanwhile (it removes the pending object).
    const completed = await documentRepository.get(documentId);
    if (completed) return completed;
    throw documentProblems.uploadMissing();
  }
  if (upload.size !== declaration.sizeBytes) {
    throw documentProblems.uploadMismatch('sizeBytes', `is ${upload.size} bytes, declared ${declaration.sizeBytes}`);
  }
  if (upload.sha256 !== declaration.sha256) {
    throw documentProblems.uploadMismatch('sha256', `of the stored bytes is ${upload.sha256}, declared ${declaration.sha256}`);
  }
  if (!matchesContentType(declaration.contentType, upload.firstBytes)) {
    throw documentProblems.uploadMismatch('contentType', `is declared ${declaration.contentType}, but the first bytes are not of that type`);
  }
  await linkLines(declaration);
  try {
    await copyObject(pendingKey, documentObjectKey(companyId, documentId), upload.etag);
  } catch (error) {
    // The other completion finished between our read and our copy (it removes the pending object).
    const completed = await documentRepository.get(documentId);
    if (completed) return completed;
    throw error;
  }
  const document: DocumentRecord = {
    id: documentId,
    companyId,
    fileName: declaration.fileName,
    contentType: declaration.contentType,
    sizeBytes: declaration.sizeBytes,
    sha256: declaration.sha256,
    description: declaration.description,
    links: declaration.links,
    createdAt: new Date().toISOString(),
    createdBy: declaration.declaredBy,
    deletedAt: null,
  };
  // The document, the declaration's removal and the outbox event in one transaction; cancelled when
  // another completion got there first, when the two conflicted (then neither may have written:
  // look again, then commit again), when the company was deleted meanwhile, or when the
  // declaration is past completeBy and its grace (a GL-line deletion may then have treated its
  // lines as free: see documentsHoldingLines), so it commits only while the declaration holds them.
  const result = await commitDocumentChange(
    documentId,
    [
      ...documentRepository.completeWrites(document, new Date(Date.now() - completionGraceMilliseconds).toISOString()),
      outboxEventWrite('document.created', document.companyId, { documentId: document.id }, document.createdAt),
      companyRepository.liveCheck(companyId),
    ],
    () => document,
    (current) => current,
    async () => {
      // Deleted after the read above: no document. The copy stays under the deleted company's
      // prefix, never served (no role may delete there); the pending object stays, as on any refusal.
      if (!(await companyRepository.getLive(companyId))) return problems.notFound('company');
      const stored = await documentRepository.getDeclaration(documentId);
      if (stored && Date.now() > Date.parse(stored.completeBy) + completionGraceMilliseconds) return documentProblems.uploadExpired(stored.completeBy);
      return undefined;
    },
  );
  // The verified copy is the document; the pending object would otherwise wait for the lifecycle rule.
  await deleteObject(pendingKey).catch((error: unknown) => logger.warn('Could not remove a completed pending upload', { key: pendingKey, error: String(error) }));
  return result;
};

/** The lane GL-line deletions hold from acceptance to their end (as GL-line imports do). */
const glLinesLane = 'general_ledger_lines';
const glLineDeletionKind = 'general_ledger_line_deletions';

/**
 * Before the document is created: its links go on the lines' link items, then the GL-lines lane is
 * read. A deletion takes the lane before it reads the link items (documentsHoldingLines), so either
 * it sees these links (the declaration, then the document, holds the lines) or this completion sees
 * it and is refused: 409 job_in_flight, nothing created, and the links left hold as long as the
 * declaration could still be completed.
 */
const linkLines = async (declaration: DeclarationRecord): Promise<void> => {
  const { companyId, documentId, links } = declaration;
  if (links.lineIds.length === 0) return;
  await documentRepository.addLineLinks(companyId, links.lineIds, documentId);
  const holder = await jobRepository.laneHolder(companyId, glLinesLane);
  if (!holder || holder.leaseExpiresAt <= Date.now()) return;
  if ((await importRepository.get(holder.importId))?.kind !== glLineDeletionKind) return;
  throw problems.conflict(`A deletion of GL lines (job ${holder.jobId}) is in flight for this company; a document linking GL lines is not created meanwhile. Complete again once it has finished.`, {
    reason: 'job_in_flight',
    jobId: holder.jobId,
  });
};

/**
 * Which documents hold these GL lines (by lineId) from deletion: every live document on the line's
 * link item, and a declaration on it whose completion has begun and may still commit. A
 * soft-deleted document holds nothing (else a line it ever linked could never be deleted); restored
 * after the line's deletion, it still names the line, whose history stays readable. Read
 * declarations first: completion removes the declaration in the transaction that creates the
 * document, so one of the two is seen.
 */
export const documentsHoldingLines = async (companyId: string, lineIds: readonly string[]): Promise<Map<string, string[]>> => {
  const links = await documentRepository.lineLinks(companyId, lineIds);
  if (links.size === 0) return links;
  const { declarations, documents } = await documentRepository.declarationsThenDocuments([...new Set([...links.values()].flat())]);
  const holds = (documentId: string) => {
    const document = documents.get(documentId);
    if (document?.companyId === companyId) return document.deletedAt === null;
    const declaration = declarations.get(documentId);
    return declaration?.companyId === companyId && Date.now() <= Date.parse(declaration.completeBy) + completionGraceMilliseconds;
  };
  const held = new Map<string, string[]>();
  for (const [lineId, documentIds] of links) {
    const holding = documentIds.filter(holds);
    if (holding.length > 0) held.set(lineId, holding);
  }
  return held;
};

/**
 * The completion worker's entry: an S3 ObjectCreated notification for a pending upload. Answers
 * what happened; problems of the upload itself (mismatch, expired) are final and not retried;
 * `job_in_flight`: a GL-line deletion holds the company's lane, the worker tries again later
 * (shared/documents/worker.ts).
 */
export const completeUploadFromNotification = async (documentId: string): Promise<'completed' | 'already_completed' | 'no_declaration' | 'refused' | 'job_in_flight'> => {
  const declaration = await documentRepository.getDeclaration(documentId);
  if (!declaration) return (await documentRepository.get(documentId)) ? 'already_completed' : 'no_declaration';
  try {
    await completeUpload(declaration);
    return 'completed';
  } catch (error) {
    if (error instanceof ProblemError && error.problem.reason === 'job_in_flight') return 'job_in_flight';
    if (error instanceof ProblemError && error.problem.status < 500) {
      logger.warn('Upload not completed automatically', { documentId, error: error.problem.error, detail: error.problem.detail });
      return 'refused';
    }
    throw error;
  }
};

export const listDocuments = async (companyId: string, query: DocumentListQuery, binding: Omit<CursorBinding, 'filters'>): Promise<Page<Document>> => {
  const page = await documentRepository.list(
    companyId,
    { from: query.from, to: query.to, contentType: query.content_type, linkedLineId: query.linked_line_id },
    {
      pageSize: query.page_size,
      cursor: query.cursor,
      binding: {
        ...binding,
        filters: { companyId, from: query.from ?? null, to: query.to ?? null, content_type: query.content_type ?? null, linked_line_id: query.linked_line_id ?? null },
      },
    },
  );
  return { data: page.data.map(toDocument), pagination: page.pagination };
};

export const downloadDocument = async (document: DocumentRecord) => {
  const urlSeconds = downloadUrlSeconds();
  const url = await presignDownload(documentObjectKey(document.companyId, document.id), document.fileName, document.contentType, urlSeconds);
  return { url, expiresAt: plusSeconds(new Date(), urlSeconds) };
};

/** Soft delete, idempotent: a deleted document answers its deletion again. */
export const deleteDocument = async (document: DocumentRecord, deletedBy: string) => {
  if (document.deletedAt) return { id: document.id, deleted: true as const, deletedAt: document.deletedAt };
  const deletedAt = new Date().toISOString();
  return commitDocumentChange(
    document.id,
    [documentRepository.softDeleteWrite(document, deletedAt, deletedBy), outboxEventWrite('document.deleted', document.companyId, { documentId: document.id }, deletedAt)],
    () => ({ id: document.id, deleted: true as const, deletedAt }),
    (current) => (current.deletedAt ? { id: document.id, deleted: true as const, deletedAt: current.deletedAt } : undefined),
  );
};

/** Restore, idempotent: a document that is not deleted is answered unchanged. */
export const restoreDocument = async (document: DocumentRecord): Promise<Document> => {
  if (!document.deletedAt) return toDocument(document);
  const restoredAt = new Date().toISOString();
  return commitDocumentChange(
    document.id,
    [documentRepository.restoreWrite(document), outboxEventWrite('document.restored', document.companyId, { documentId: document.id }, restoredAt)],
    () => toDocument({ ...document, deletedAt: null }),
    (current) => (current.deletedAt ? undefined : toDocument(current)),
  );
};
