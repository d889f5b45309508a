import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { companyRepository } from '../../shared/companies/repository';
import { importKind } from '../../shared/composition/import-kinds';
import { documentDeclarationKeys, documentObjectKey, pendingUploadObjectKey } from '../../shared/documents/keys';
import { documentRepository } from '../../shared/documents/repository';
import { completeUpload, declareUpload } from '../../shared/documents/service';
import { uploadWorker } from '../../shared/documents/worker';
import { acceptImport } from '../../shared/imports/pipeline';
import { laneLockKeys } from '../../shared/jobs/keys';
import { bucketName, dynamo, s3, tableName } from '../../shared/platform/aws';
import { logger } from '../../shared/platform/logger';
import { parseLosslessJson } from '../../shared/platform/lossless-json';
import { ProblemError } from '../../shared/platform/problem';
import { api, expectProblem } from '../support/api';
import { newApiCompany } from '../support/ledger';
import { eventually } from '../support/poll';
import { observingCalls } from '../support/sdk-calls';
import { sqsEventOf } from '../support/sqs-event';
import { testStack } from '../support/stack';

/**
 * Completion at its edges: the automatic completion while a GL-line deletion holds the lane, the
 * declaration's lifetime against its URL and inside the completion's transaction, the detail of a
 * mismatch, long non-ASCII file names in download URLs, and a completion refused at its last step.
 */
const as = 'a-system';
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const pdfBytes = () => Buffer.from(`%PDF-1.7\n% ${randomUUID()}\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n`);

const declare = async (companyId: string, bytes: Uint8Array, overrides: Record<string, unknown> = {}) => {
  const declared = await api('POST', `/v1/companies/${companyId}/documents`, {
    as,
    body: { fileName: 'kvittering.pdf', contentType: 'application/pdf', sizeBytes: bytes.length, sha256: sha256(bytes), ...overrides },
  });
  expect(declared.status).toBe(200);
  return declared.body as { documentId: string; completeBy: string; upload: { url: string; headers: Record<string, string>; expiresAt: string } };
};
const put = (upload: { url: string; headers: Record<string, string> }, bytes: Uint8Array) => fetch(upload.url, { method: 'PUT', headers: upload.headers, body: bytes });
const getDocument = (documentId: string) => api('GET', `/v1/documents/${documentId}`, { as });
/** Stored as expired, so that the stack's own completion (the S3 notification) refuses it and only the test's call runs. */
const storeExpired = (documentId: string, at = new Date(Date.now() - 1000)) =>
  dynamo().send(new UpdateCommand({ TableName: tableName(), Key: documentDeclarationKeys(documentId), UpdateExpression: 'SET completeBy = :at', ExpressionAttributeValues: { ':at': at.toISOString() } }));
const copied = (companyId: string, documentId: string) =>
  s3()
    .send(new HeadObjectCommand({ Bucket: bucketName(), Key: documentObjectKey(companyId, documentId) }))
    .then(
      () => true,
      () => false,
    );

beforeAll(() => {
  testStack();
  logger.setLogLevel('CRITICAL'); // refusals are logged as warnings by design
});

afterEach(() => {
  vi.restoreAllMocks();
  for (const name of ['DOCUMENT_COMPLETION_RETRY_SECONDS', 'DOCUMENT_DECLARATION_SECONDS', 'DOCUMENT_UPLOAD_URL_SECONDS']) delete process.env[name];
});

describe('automatic completion while a GL-line deletion holds the lane', () => {
  it('the worker puts the notification back with a delay (no batch item failure, no receive used); once the lane is free the document completes by itself', async () => {
    const companyId = await newApiCompany();
    // A GL-line deletion accepted (it takes the company's general_ledger_lines lane), its message to no queue.
    const kind = importKind('general_ledger_line_deletions');
    const body = { year: 2026, ids: ['X1'] };
    await acceptImport(companyId, (await companyRepository.get(companyId))!, kind, kind.bodySchema.parse(parseLosslessJson(JSON.stringify(body))), body, { enqueue: false });

    const bytes = pdfBytes();
    const declared = await declare(companyId, bytes, { links: { lineIds: ['line-1'] } });
    expect((await put(declared.upload, bytes)).status).toBe(200);
    // The explicit completion is refused meanwhile.
    const refused = await api('POST', `/v1/documents/${declared.documentId}/complete`, { as });
    expectProblem(refused, 409, 'conflict');
    expect(refused.body.reason).toBe('job_in_flight');

    // The worker's step for the S3 notification, with delays of seconds (the stack's worker runs it too, with the default minutes).
    // The deletion ends (its lane released) well within the delay, so that whichever worker takes the
    // message put back (the stack's, which would defer again by minutes) finds the lane free.
    process.env.DOCUMENT_COMPLETION_RETRY_SECONDS = '5';
    const notification = { Records: [{ eventName: 'ObjectCreated:Put', s3: { object: { key: pendingUploadObjectKey(companyId, declared.documentId) } } }] };
    expect(await uploadWorker(sqsEventOf(notification))).toEqual({ batchItemFailures: [] });
    expectProblem(await getDocument(declared.documentId), 404, 'not_found');
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: laneLockKeys(companyId, 'general_ledger_lines') }));

    // The notification put back completes the upload, nobody calls complete.
    const completed = await eventually(async () => {
      const read = await getDocument(declared.documentId);
      return read.status === 200 && read;
    }, 60_000, 'the document completed by the deferred notification');
    expect(completed.body).toMatchObject({ id: declared.documentId, links: { lineIds: ['line-1'] }, status: 'available' });
  });
});

describe('the declaration lifetime', () => {
  it('lives at least as long as its upload URL when DOCUMENT_DECLARATION_SECONDS is shorter than DOCUMENT_UPLOAD_URL_SECONDS', async () => {
    const companyId = await newApiCompany();
    process.env.DOCUMENT_UPLOAD_URL_SECONDS = '600';
    process.env.DOCUMENT_DECLARATION_SECONDS = '60';
    const bytes = pdfBytes();
    const declared = await declareUpload(companyId, { fileName: 'a.pdf', contentType: 'application/pdf', sizeBytes: bytes.length, sha256: sha256(bytes) }, 'test');
    expect(Date.parse(declared.completeBy)).toBeGreaterThanOrEqual(Date.parse(declared.upload.expiresAt));
    expect(Date.parse(declared.upload.expiresAt) - Date.now()).toBeGreaterThan(590_000);
  });

  /**
   * A declaration uploaded and stored as expired (so the stack's own completion leaves it), and the
   * copy of it a completion that started in time holds.
   */
  const uploadedButStoredExpired = async () => {
    const companyId = await newApiCompany();
    const bytes = pdfBytes();
    const declared = await declare(companyId, bytes);
    await storeExpired(declared.documentId);
    expect((await put(declared.upload, bytes)).status).toBe(200);
    const declaration = { ...(await documentRepository.getDeclaration(declared.documentId))!, completeBy: new Date(Date.now() + 60_000).toISOString() };
    return { declared, declaration };
  };

  it('a completion whose declaration is past completeBy and its grace by the time it commits is refused in the transaction: 410 upload_expired, nothing created', async () => {
    // The completion started in time (its copy of the declaration says so) ...
    const { declared, declaration } = await uploadedButStoredExpired();
    let moved = false;
    const refused = await observingCalls(
      dynamo(),
      async (commandName, input) => {
        if (moved || commandName !== 'TransactWriteItemsCommand' || !JSON.stringify(input).includes(declared.documentId)) return;
        moved = true;
        // ... but commits after completeBy plus the 5 minutes a GL-line deletion still counts the declaration's links.
        await storeExpired(declared.documentId, new Date(Date.now() - 6 * 60_000));
      },
      () => completeUpload(declaration).then(() => undefined, (error: unknown) => error),
    );
    expect(moved).toBe(true);
    expect(refused).toBeInstanceOf(ProblemError);
    expect((refused as ProblemError).problem).toMatchObject({ status: 410, error: 'upload_expired' });
    expect(await documentRepository.get(declared.documentId)).toBeUndefined();
    expectProblem(await api('POST', `/v1/documents/${declared.documentId}/complete`, { as }), 410, 'upload_expired');
  });

  it('within the grace the transaction still commits (a completion checked in time)', async () => {
    const { declared, declaration } = await uploadedButStoredExpired();
    expect((await completeUpload(declaration)).id).toBe(declared.documentId);
  });
});

describe('the detail of upload_mismatch', () => {
  it('names what helps: a contentType mismatch asks for a new declaration, a checksum mismatch for the declared bytes', async () => {
    const companyId = await newApiCompany();
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(64)]);
    const spoofed = await declare(companyId, png);
    expect((await put(spoofed.upload, png)).status).toBe(200);
    const typeMismatch = await api('POST', `/v1/documents/${spoofed.documentId}/complete`, { as });
    expectProblem(typeMismatch, 422, 'upload_mismatch');
    expect(typeMismatch.body.errors[0].field).toBe('contentType');
    expect(typeMismatch.body.detail).toMatch(/declare the document again with the content type/);
    expect(typeMismatch.body.detail).not.toMatch(/PUT the declared bytes/);

    // Other bytes of the same length, put past the URL (it binds the checksum).
    const bytes = pdfBytes();
    const other = pdfBytes();
    const declared = await declare(companyId, bytes);
    await s3().send(new PutObjectCommand({ Bucket: bucketName(), Key: pendingUploadObjectKey(companyId, declared.documentId), Body: other, ContentType: 'application/pdf' }));
    const checksumMismatch = await api('POST', `/v1/documents/${declared.documentId}/complete`, { as });
    expectProblem(checksumMismatch, 422, 'upload_mismatch');
    expect(checksumMismatch.body.errors[0].field).toBe('sha256');
    expect(checksumMismatch.body.detail).toMatch(/PUT the declared bytes to the upload URL .* and complete again, or declare the document again/);
  });
});

describe('download URLs of long non-ASCII file names', () => {
  it('a 255-character CJK name (its percent-encoding encoded again in the signed query) gives a URL the response schema accepts, and it downloads', async () => {
    const companyId = await newApiCompany();
    const bytes = pdfBytes();
    const fileName = '領'.repeat(251) + '.pdf';
    expect(fileName).toHaveLength(255);
    const declared = await declare(companyId, bytes, { fileName });
    expect((await put(declared.upload, bytes)).status).toBe(200);
    expect((await api('POST', `/v1/documents/${declared.documentId}/complete`, { as })).status).toBe(200);
    // api() validates the answer against the OpenAPI document (test/support/openapi-validator.ts): url's maxLength.
    const download = await api('GET', `/v1/documents/${declared.documentId}/download`, { as });
    expect(download.status).toBe(200);
    expect(download.body.url.length).toBeGreaterThan(4096);
    expect(download.body.url.length).toBeLessThanOrEqual(8192);
    const fetched = await fetch(download.body.url);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(bytes)).toBe(true);
    expect(fetched.headers.get('content-disposition')).toBe(`attachment; filename="${'_'.repeat(251)}.pdf"; filename*=UTF-8''${encodeURIComponent(fileName)}`);
  });
});

describe('a completion refused at its last step', () => {
  it('the company deleted after the completion read it: 404, no document, and no futile delete under companies/ (the verified copy stays, never served)', async () => {
    const companyId = await newApiCompany();
    const live = (await companyRepository.get(companyId))!;
    const bytes = pdfBytes();
    const declared = await declare(companyId, bytes);
    await storeExpired(declared.documentId);
    expect((await put(declared.upload, bytes)).status).toBe(200);
    const declaration = { ...(await documentRepository.getDeclaration(declared.documentId))!, completeBy: new Date(Date.now() + 60_000).toISOString() };
    expect((await api('DELETE', `/v1/companies/${companyId}`, { as })).status).toBe(200);
    // The completion's first read still sees the company live (taken just before the deletion).
    vi.spyOn(companyRepository, 'get').mockResolvedValueOnce(live);
    const deletes: string[] = [];
    const refused = await observingCalls(
      s3(),
      (commandName, input) => {
        if (commandName === 'DeleteObjectCommand') deletes.push(String(input.Key));
      },
      () => completeUpload(declaration).then(() => undefined, (error: unknown) => error),
    );
    expect((refused as ProblemError).problem).toMatchObject({ status: 404, error: 'not_found' });
    expect(await documentRepository.get(declared.documentId)).toBeUndefined();
    expect(deletes.filter((key) => key.startsWith('companies/'))).toEqual([]);
    expect(await copied(companyId, declared.documentId)).toBe(true);
  });
});
