import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestClient } from '../support/clients';
import { documentDeclarationKeys, documentObjectKey, pendingUploadObjectKey } from '../../shared/documents/keys';
import { commitUnlessCancelled } from '../../shared/db/unit-of-work';
import { documentRepository } from '../../shared/documents/repository';
import { completeUpload, declareUpload, deleteDocument, restoreDocument } from '../../shared/documents/service';
import { dynamo, tableName } from '../../shared/platform/aws';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { eventsOfCompany } from '../../shared/outbox/repository';
import { readOnlyScopes } from '../../shared/identity/scopes';
import { localS3Client } from '../../infra/local/s3';
import { api, expectProblem, tokenFor, type ApiResponse } from '../support/api';
import { eventually, queueWaitMs } from '../support/poll';
import { firstTransactionConflicted } from '../support/sdk-calls';
import { seededClient, testStack } from '../support/stack';

/**
 * Documents over HTTP against the local stack, with real presigned URLs and real bytes: the
 * uploads go to the S3 emulator (@20minutes/s3rver, which checks the URL's signature, its signed
 * headers and its expiry) with fetch PUT, as curl or a browser would.
 */
let systemToken: string;
let readOnlyToken: string;
let foreignToken: string;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const pdfBytes = (text: string = randomUUID()) => Buffer.from(`%PDF-1.7\n% ${text}\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n`);
const pngBytes = () => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(64)]);
const csvBytes = () => Buffer.from(`date,amount\n2026-03-14,${Math.floor(Math.random() * 1000)}.00\n`);

const newCompany = async (token: string): Promise<string> => {
  const response = await api('POST', '/v1/companies', { token, body: { displayName: `Dokumenter ${randomUUID().slice(0, 8)} AS`, accountingSystem: 'Api' } });
  expect(response.status).toBe(201);
  return response.body.id as string;
};

interface Declared {
  documentId: string;
  status: string;
  upload: { method: string; url: string; headers: Record<string, string>; expiresAt: string };
}

const declare = async (
  companyId: string,
  bytes: Uint8Array,
  overrides: Record<string, unknown> = {},
  token = systemToken,
): Promise<ApiResponse> =>
  api('POST', `/v1/companies/${companyId}/documents`, {
    token,
    body: { fileName: 'kvittering.pdf', contentType: 'application/pdf', sizeBytes: bytes.length, sha256: sha256(bytes), ...overrides },
  });

/** PUT to the presigned URL like curl: the headers the declaration answered, the bytes as the body. */
const put = (upload: Declared['upload'], bytes: Uint8Array, headers: Record<string, string> = {}) =>
  fetch(upload.url, { method: 'PUT', headers: { ...upload.headers, ...headers }, body: bytes });

const complete = (documentId: string, token = systemToken) => api('POST', `/v1/documents/${documentId}/complete`, { token });

/** Declare, upload and complete; answers the document. */
const upload = async (companyId: string, bytes: Uint8Array, overrides: Record<string, unknown> = {}, token = systemToken) => {
  const declared = await declare(companyId, bytes, overrides, token);
  expect(declared.status).toBe(200);
  const stored = await put(declared.body.upload, bytes);
  expect(stored.status).toBe(200);
  const completed = await complete(declared.body.documentId, token);
  expect(completed.status).toBe(200);
  return completed.body as { id: string; [field: string]: unknown };
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  testStack();
  const organizationId = seededClient('a-system').organizationId;
  // Clients of this file alone (premium plan), so no other file's requests use up their rate limit.
  const system = await createTestClient({ name: 'documents-system', organizationId, plan: 'premium' });
  const readOnly = await createTestClient({ name: 'documents-readonly', organizationId, plan: 'premium', scopes: [...readOnlyScopes] });
  const foreign = await createTestClient({ name: 'documents-b', organizationId: seededClient('b-system').organizationId, plan: 'premium' });
  systemToken = await tokenFor(system.client.clientId, system.clientSecret);
  readOnlyToken = await tokenFor(readOnly.client.clientId, readOnly.clientSecret);
  foreignToken = await tokenFor(foreign.client.clientId, foreign.clientSecret);
});

describe('documents: two-step signed upload', () => {
  it('happy path: declare, PUT the bytes to the signed URL, complete, read, download the same bytes', async () => {
    const companyId = await newCompany(systemToken);
    const bytes = pdfBytes();
    const declared = await declare(companyId, bytes, { fileName: 'Faktura 2026-03 (kopi) æøå.pdf', description: 'Faktura fra Bakeriet', links: { lineIds: ['L-1'], transactionIds: ['T-9'] } });
    expect(declared.status).toBe(200);
    const { documentId, upload: instructions } = declared.body;
    expect(declared.body.status).toBe('pending_upload');
    expect(instructions.method).toBe('PUT');
    expect(instructions.headers).toEqual({ 'Content-Type': 'application/pdf', 'x-amz-checksum-sha256': Buffer.from(sha256(bytes), 'hex').toString('base64') });
    expect(Date.parse(instructions.expiresAt) - Date.now()).toBeGreaterThan(14 * 60 * 1000);
    expect(Date.parse(instructions.expiresAt) - Date.now()).toBeLessThanOrEqual(15 * 60 * 1000);
    const signed = new URL(instructions.url);
    expect(signed.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(signed.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual(expect.arrayContaining(['content-length', 'content-type', 'host', 'x-amz-checksum-sha256']));
    expect(signed.searchParams.get('x-amz-checksum-sha256')).toBeNull(); // kept a signed header, never hoisted

    // The document does not exist before completion.
    expectProblem(await api('GET', `/v1/documents/${documentId}`, { token: systemToken }), 404, 'not_found');

    const stored = await put(instructions, bytes);
    expect(stored.status).toBe(200);
    const completed = await complete(documentId);
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({
      id: documentId,
      companyId,
      fileName: 'Faktura 2026-03 (kopi) æøå.pdf',
      contentType: 'application/pdf',
      sizeBytes: bytes.length,
      sha256: sha256(bytes),
      description: 'Faktura fra Bakeriet',
      links: { lineIds: ['L-1'], transactionIds: ['T-9'] },
      status: 'available',
      createdAt: expect.any(String),
      createdBy: expect.any(String),
      deletedAt: null,
    });

    const read = await api('GET', `/v1/documents/${documentId}`, { token: readOnlyToken });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(completed.body);

    const download = await api('GET', `/v1/documents/${documentId}/download`, { token: readOnlyToken });
    expect(download.status).toBe(200);
    expect(Date.parse(download.body.expiresAt) - Date.now()).toBeLessThanOrEqual(5 * 60 * 1000);
    expect(new URL(download.body.url).searchParams.get('X-Amz-Expires')).toBe('300');
    const fetched = await fetch(download.body.url);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(bytes)).toBe(true);
    expect(fetched.headers.get('content-disposition')).toBe(
      `attachment; filename="Faktura 2026-03 (kopi) ___.pdf"; filename*=UTF-8''${encodeURIComponent('Faktura 2026-03 (kopi) æøå.pdf').replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`,
    );
    expect(fetched.headers.get('content-type')).toBe('application/pdf');

    // Completing twice answers the same document.
    const again = await complete(documentId);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(completed.body);

    const events = (await eventsOfCompany(companyId)).filter((event) => event.type.startsWith('document.'));
    expect(events.map((event) => [event.type, event.data.documentId])).toEqual([['document.created', documentId]]);
  });

  it('the same Idempotency-Key replays the declaration (one document id, one URL)', async () => {
    const companyId = await newCompany(systemToken);
    const bytes = pdfBytes();
    const body = { fileName: 'a.pdf', contentType: 'application/pdf', sizeBytes: bytes.length, sha256: sha256(bytes) };
    const key = randomUUID();
    const first = await api('POST', `/v1/companies/${companyId}/documents`, { token: systemToken, body, idempotencyKey: key });
    const second = await api('POST', `/v1/companies/${companyId}/documents`, { token: systemToken, body, idempotencyKey: key });
    expect(second.headers.get('idempotency-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
  });

  it('validates the declaration: file name, content type allow-list, size limits, sha256, links', async () => {
    const companyId = await newCompany(systemToken);
    const bytes = pdfBytes();
    const cases: [Record<string, unknown>, string][] = [
      [{ fileName: '' }, 'fileName'],
      [{ fileName: 'a/b.pdf' }, 'fileName'],
      [{ fileName: 'a\\b.pdf' }, 'fileName'],
      [{ fileName: 'a\nb.pdf' }, 'fileName'],
      [{ fileName: 'x'.repeat(256) }, 'fileName'],
      [{ contentType: 'application/zip' }, 'contentType'],
      [{ sizeBytes: 0 }, 'sizeBytes'],
      [{ sizeBytes: 50 * 1024 * 1024 + 1 }, 'sizeBytes'],
      [{ sha256: 'abc' }, 'sha256'],
      [{ sha256: undefined }, 'sha256'],
      [{ links: { lineIds: 'L-1' } }, 'links.lineIds'],
    ];
    for (const [override, field] of cases) {
      const response = await declare(companyId, bytes, override);
      expectProblem(response, 400, 'validation_failed');
      expect(response.body.errors.map((error: { field: string }) => error.field), JSON.stringify(override)).toContain(field);
    }
    expect((await declare(companyId, bytes, { sizeBytes: 50 * 1024 * 1024 })).status).toBe(200);
  });

  it('the signed URL binds the length and the content type; the checksum must be sent', async () => {
    const companyId = await newCompany(systemToken);
    const bytes = pdfBytes();
    const declared = await declare(companyId, bytes);
    const longer = Buffer.concat([bytes, Buffer.from('x')]);
    expect((await put(declared.body.upload, longer)).status).toBe(403);
    expect((await put(declared.body.upload, bytes, { 'Content-Type': 'image/png' })).status).toBe(403);
    expect((await fetch(declared.body.upload.url, { method: 'PUT', headers: { 'Content-Type': 'application/pdf' }, body: bytes })).status).toBe(403);
    expectProblem(await complete(declared.body.documentId), 409, 'upload_missing');
  });

  it('completion without an upload answers 409 upload_missing and creates nothing', async () => {
    const companyId = await newCompany(systemToken);
    const declared = await declare(companyId, pdfBytes());
    const response = await complete(declared.body.documentId);
    expectProblem(response, 409, 'upload_missing');
    expectProblem(await api('GET', `/v1/documents/${declared.body.documentId}`, { token: systemToken }), 404, 'not_found');
  });

  it('wrong size: an object of another length (put past the URL) answers 422 upload_mismatch on sizeBytes', async () => {
    const companyId = await newCompany(systemToken);
    const bytes = pdfBytes();
    const declared = await declare(companyId, bytes);
    // The URL itself refuses another length (above); a store that did not would be caught here.
    const client = localS3Client(testStack().internal.s3Endpoint);
    try {
      await client.send(
        new PutObjectCommand({ Bucket: testStack().internal.bucketName, Key: pendingUploadObjectKey(companyId, declared.body.documentId), Body: Buffer.concat([bytes, bytes]), ContentType: 'application/pdf' }),
      );
    } finally {
      client.destroy();
    }
    const response = await complete(declared.body.documentId);
    expectProblem(response, 422, 'upload_mismatch');
    expect(response.body.errors).toEqual([{ field: 'sizeBytes', message: expect.stringContaining(`declared ${bytes.length}`) }]);
    expectProblem(await api('GET', `/v1/documents/${declared.body.documentId}`, { token: systemToken }), 404, 'not_found');
  });

  it('wrong checksum: other bytes of the same length answer 422 upload_mismatch on sha256', async () => {
    const companyId = await newCompany(systemToken);
    const declaredBytes = pdfBytes('a'.repeat(36));
    const otherBytes = pdfBytes('b'.repeat(36));
    expect(otherBytes.length).toBe(declaredBytes.length);
    const declared = await declare(companyId, declaredBytes);
    // The emulator does not check x-amz-checksum-sha256 (real S3 answers BadDigest): completion does.
    expect((await put(declared.body.upload, otherBytes)).status).toBe(200);
    const response = await complete(declared.body.documentId);
    expectProblem(response, 422, 'upload_mismatch');
    expect(response.body.errors).toEqual([{ field: 'sha256', message: expect.stringContaining(sha256(otherBytes)) }]);
    expectProblem(await api('GET', `/v1/documents/${declared.body.documentId}`, { token: systemToken }), 404, 'not_found');
    expect((await api('GET', `/v1/companies/${companyId}/documents`, { token: systemToken })).body.data).toEqual([]);

    // The right bytes to the same URL, then completion succeeds.
    expect((await put(declared.body.upload, declaredBytes)).status).toBe(200);
    expect((await complete(declared.body.documentId)).status).toBe(200);
  });

  it('spoofed type: a PNG declared as PDF answers 422 upload_mismatch on contentType', async () => {
    const companyId = await newCompany(systemToken);
    const bytes = pngBytes();
    const declared = await declare(companyId, bytes, { fileName: 'faktura.pdf', contentType: 'application/pdf' });
    expect((await put(declared.body.upload, bytes)).status).toBe(200);
    const response = await complete(declared.body.documentId);
    expectProblem(response, 422, 'upload_mismatch');
    expect(response.body.errors).toEqual([{ field: 'contentType', message: expect.any(String) }]);
    expectProblem(await api('GET', `/v1/documents/${declared.body.documentId}`, { token: systemToken }), 404, 'not_found');
  });

  it('expiry: the URL refuses a PUT after its lifetime, and completion after the declaration lifetime answers 410', async () => {
    const companyId = await newCompany(systemToken);
    const bytes = pdfBytes();
    // Lifetimes come from the environment (DOCUMENT_UPLOAD_URL_SECONDS, DOCUMENT_DECLARATION_SECONDS):
    // declared here, in this process, with 1 s lifetimes; the stack's handler then completes it.
    process.env.DOCUMENT_UPLOAD_URL_SECONDS = '1';
    process.env.DOCUMENT_DECLARATION_SECONDS = '1';
    let declared: Awaited<ReturnType<typeof declareUpload>>;
    try {
      declared = await declareUpload(companyId, { fileName: 'late.pdf', contentType: 'application/pdf', sizeBytes: bytes.length, sha256: sha256(bytes) }, 'documents-test');
    } finally {
      delete process.env.DOCUMENT_UPLOAD_URL_SECONDS;
      delete process.env.DOCUMENT_DECLARATION_SECONDS;
    }
    expect(new URL(declared.upload.url).searchParams.get('X-Amz-Expires')).toBe('1');
    await sleep(2100);
    const late = await put(declared.upload, bytes);
    expect(late.status).toBe(403);
    expect(await late.text()).toContain('Request has expired');
    expectProblem(await complete(declared.documentId), 410, 'upload_expired');
    expectProblem(await api('GET', `/v1/documents/${declared.documentId}`, { token: systemToken }), 404, 'not_found');
  });

  it('a completion whose transaction a concurrent one cancelled without either writing commits again: the document is created, once', async () => {
    const companyId = await newCompany(systemToken);
    const bytes = pdfBytes();
    const declared = await declare(companyId, bytes);
    // Stored as expired, so the stack's own completion (the S3 notification) refuses it and only this test's call completes it.
    const expiredAt = new Date(Date.now() - 1000).toISOString();
    await dynamo().send(new UpdateCommand({ TableName: tableName(), Key: documentDeclarationKeys(declared.body.documentId), UpdateExpression: 'SET completeBy = :at', ExpressionAttributeValues: { ':at': expiredAt } }));
    expect((await put(declared.body.upload, bytes)).status).toBe(200);
    const declaration = { ...(await documentRepository.getDeclaration(declared.body.documentId))!, completeBy: new Date(Date.now() + 60_000).toISOString() };
    // DynamoDB cancels both of two racing completions with TransactionConflict now and then; here the first commit of this one.
    const { answer: completed, cancelled } = await firstTransactionConflicted(dynamo(), declared.body.documentId, () => completeUpload(declaration));
    expect(cancelled).toBe(1);
    expect(completed.id).toBe(declared.body.documentId);
    expect((await api('GET', `/v1/documents/${declared.body.documentId}`, { token: systemToken })).status).toBe(200);
    expect((await complete(declared.body.documentId)).body.id).toBe(declared.body.documentId);
    const created = (await eventsOfCompany(companyId)).filter((event) => event.type === 'document.created');
    expect(created).toHaveLength(1);
  });

  it('automatic completion: the S3 notification completes an upload nobody completes; the explicit call then answers the same document', async () => {
    const companyId = await newCompany(systemToken);
    const bytes = csvBytes();
    const declared = await declare(companyId, bytes, { fileName: 'bank.csv', contentType: 'text/csv' });
    expect((await put(declared.body.upload, bytes)).status).toBe(200);
    const document = await eventually(async () => {
      const read = await api('GET', `/v1/documents/${declared.body.documentId}`, { token: systemToken });
      return read.status === 200 && read;
    }, queueWaitMs, 'the upload worker to complete the document');
    expect(document?.status).toBe(200);
    expect(document?.body).toMatchObject({ id: declared.body.documentId, contentType: 'text/csv', sizeBytes: bytes.length, sha256: sha256(bytes), status: 'available' });
    const explicit = await complete(declared.body.documentId);
    expect(explicit.status).toBe(200);
    expect(explicit.body).toEqual(document?.body);
    const created = (await eventsOfCompany(companyId)).filter((event) => event.type === 'document.created');
    expect(created).toHaveLength(1);
  });
});

describe('documents: list, delete, restore', () => {
  it('lists newest first with cursor and page_size, and filters by linked_line_id, content_type, from and to', async () => {
    const companyId = await newCompany(systemToken);
    const first = await upload(companyId, pdfBytes(), { links: { lineIds: ['L-7'] } });
    const second = await upload(companyId, pngBytes(), { fileName: 'foto.png', contentType: 'image/png' });
    const third = await upload(companyId, csvBytes(), { fileName: 'kontoutskrift.csv', contentType: 'text/csv', links: { lineIds: ['L-7', 'L-8'] } });
    const list = (query = '') => api('GET', `/v1/companies/${companyId}/documents${query}`, { token: readOnlyToken });

    const all = await list();
    expect(all.status).toBe(200);
    expect(all.body.data.map((d: { id: string }) => d.id)).toEqual([third.id, second.id, first.id]);
    expect(all.body.pagination).toEqual({ next_cursor: null, has_more: false });

    const page1 = await list('?page_size=2');
    expect(page1.body.data.map((d: { id: string }) => d.id)).toEqual([third.id, second.id]);
    expect(page1.body.pagination.has_more).toBe(true);
    const page2 = await list(`?page_size=2&cursor=${encodeURIComponent(page1.body.pagination.next_cursor)}`);
    expect(page2.body.data.map((d: { id: string }) => d.id)).toEqual([first.id]);
    expect(page2.body.pagination).toEqual({ next_cursor: null, has_more: false });
    // A cursor is bound to its filters.
    expectProblem(await list(`?page_size=2&content_type=text/csv&cursor=${encodeURIComponent(page1.body.pagination.next_cursor)}`), 400, 'invalid_cursor');

    expect((await list('?linked_line_id=L-7')).body.data.map((d: { id: string }) => d.id)).toEqual([third.id, first.id]);
    expect((await list('?linked_line_id=L-8')).body.data.map((d: { id: string }) => d.id)).toEqual([third.id]);
    expect((await list(`?content_type=${encodeURIComponent('image/png')}`)).body.data.map((d: { id: string }) => d.id)).toEqual([second.id]);
    // A filtered page reads on past DynamoDB's Limit: full, and has_more only when a match follows.
    const sparse = await list(`?content_type=${encodeURIComponent('image/png')}&page_size=1`);
    expect(sparse.body.data.map((d: { id: string }) => d.id)).toEqual([second.id]);
    expect(sparse.body.pagination).toEqual({ next_cursor: null, has_more: false });
    const linked = await list('?linked_line_id=L-7&page_size=1');
    expect(linked.body.data.map((d: { id: string }) => d.id)).toEqual([third.id]);
    expect(linked.body.pagination.has_more).toBe(true);
    const rest = await list(`?linked_line_id=L-7&page_size=1&cursor=${encodeURIComponent(linked.body.pagination.next_cursor)}`);
    expect(rest.body.data.map((d: { id: string }) => d.id)).toEqual([first.id]);
    expect(rest.body.pagination).toEqual({ next_cursor: null, has_more: false });
    // The days of the uploads themselves (UTC dates), not today's: the test may run across midnight.
    const dayOf = (document: { [field: string]: unknown }) => String(document.createdAt).slice(0, 10);
    const dayAfter = (day: string) => new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
    const dayBefore = (day: string) => new Date(Date.parse(day) - 86_400_000).toISOString().slice(0, 10);
    expect((await list(`?from=${dayOf(first)}&to=${dayOf(third)}`)).body.data).toHaveLength(3);
    expect((await list(`?from=${dayAfter(dayOf(third))}`)).body.data).toEqual([]);
    expect((await list(`?to=${dayBefore(dayOf(first))}`)).body.data).toEqual([]);
    expectProblem(await list('?content_type=application/zip'), 400, 'validation_failed');
    expectProblem(await list('?from=14.03.2026'), 400, 'validation_failed');
    for (const impossible of ['?from=2026-02-31', '?to=2026-99-99', '?from=2025-02-29']) {
      const refused = await list(impossible);
      expectProblem(refused, 400, 'validation_failed');
      expect(refused.body.errors).toEqual([{ field: impossible.slice(1, impossible.indexOf('=')), message: expect.stringMatching(/must be a date in ISO 8601/) }]);
    }
    expect((await list('?from=2024-02-29')).status).toBe(200);
    const reversed = await list('?from=2026-03-20&to=2026-03-01');
    expectProblem(reversed, 400, 'validation_failed');
    expect(JSON.stringify(reversed.body)).toContain('must not be before from');
  });

  it('a delete or restore whose transaction a conflict cancelled without writing commits again: done once, with one event', async () => {
    const companyId = await newCompany(systemToken);
    const { id } = await upload(companyId, pdfBytes());
    const firstCancelled = async <T>(change: () => Promise<T>) => {
      const { answer, cancelled } = await firstTransactionConflicted(dynamo(), id, change);
      expect(cancelled).toBe(1);
      return answer;
    };
    const deleted = await firstCancelled(async () => deleteDocument((await documentRepository.get(id))!, 'test'));
    expect(deleted).toEqual({ id, deleted: true, deletedAt: expect.any(String) });
    expect((await documentRepository.get(id))?.deletedAt).toBe(deleted.deletedAt);
    expectProblem(await api('GET', `/v1/documents/${id}`, { token: systemToken }), 404, 'not_found');
    const restored = await firstCancelled(async () => restoreDocument((await documentRepository.get(id))!));
    expect(restored).toMatchObject({ id, status: 'available', deletedAt: null });
    expect((await api('GET', `/v1/documents/${id}`, { token: systemToken })).status).toBe(200);
    const types = (await eventsOfCompany(companyId)).map((event) => event.type).filter((type) => type.startsWith('document.'));
    expect(types).toEqual(['document.created', 'document.deleted', 'document.restored']);
  });

  it('delete: 404 everywhere afterwards, the bytes stay; idempotent; restore brings it back, idempotent', async () => {
    const companyId = await newCompany(systemToken);
    const bytes = pdfBytes();
    const document = await upload(companyId, bytes);
    const id = document.id;

    const deleted = await api('DELETE', `/v1/documents/${id}`, { token: systemToken });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id, deleted: true, deletedAt: expect.any(String) });
    expectProblem(await api('GET', `/v1/documents/${id}`, { token: systemToken }), 404, 'not_found');
    expectProblem(await api('GET', `/v1/documents/${id}/download`, { token: systemToken }), 404, 'not_found');
    expectProblem(await complete(id), 404, 'not_found');
    expect((await api('GET', `/v1/companies/${companyId}/documents`, { token: systemToken })).body.data).toEqual([]);
    const again = await api('DELETE', `/v1/documents/${id}`, { token: systemToken });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(deleted.body);

    const restored = await api('POST', `/v1/documents/${id}/restore`, { token: systemToken });
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual({ ...document, status: 'available', deletedAt: null });
    const restoredAgain = await api('POST', `/v1/documents/${id}/restore`, { token: systemToken });
    expect(restoredAgain.body).toEqual(restored.body);
    expect((await api('GET', `/v1/documents/${id}`, { token: systemToken })).body).toEqual(restored.body);
    expect((await api('GET', `/v1/companies/${companyId}/documents`, { token: systemToken })).body.data.map((d: { id: string }) => d.id)).toEqual([id]);
    // The bytes stayed through the deletion.
    const download = await api('GET', `/v1/documents/${id}/download`, { token: systemToken });
    expect(Buffer.from(await (await fetch(download.body.url)).arrayBuffer()).equals(bytes)).toBe(true);

    expectProblem(await api('POST', `/v1/documents/${randomUUID()}/restore`, { token: systemToken }), 404, 'not_found');
    expectProblem(await api('DELETE', `/v1/documents/${randomUUID()}`, { token: systemToken }), 404, 'not_found');

    const events = (await eventsOfCompany(companyId)).filter((event) => event.type.startsWith('document.'));
    expect(events.map((event) => event.type)).toEqual(['document.created', 'document.deleted', 'document.restored']);
    expect(events.every((event) => event.data.documentId === id)).toBe(true);
  });

  it("another organization's documents answer 404 on every path, pending or complete", async () => {
    const foreignCompany = await newCompany(foreignToken);
    const document = await upload(foreignCompany, pdfBytes(), {}, foreignToken);
    const pending = await declare(foreignCompany, pdfBytes(), {}, foreignToken);
    const paths: [string, string][] = [
      ['GET', `/v1/documents/${document.id}`],
      ['GET', `/v1/documents/${document.id}/download`],
      ['POST', `/v1/documents/${document.id}/complete`],
      ['DELETE', `/v1/documents/${document.id}`],
      ['POST', `/v1/documents/${document.id}/restore`],
      ['POST', `/v1/documents/${pending.body.documentId}/complete`],
      ['GET', `/v1/companies/${foreignCompany}/documents`],
      ['POST', `/v1/companies/${foreignCompany}/documents`],
    ];
    for (const token of [systemToken, readOnlyToken]) {
      for (const [method, path] of paths) {
        const response = await api(method, path, { token, ...(path.endsWith('/documents') && method === 'POST' && { body: {} }) });
        expect({ method, path, status: response.status, error: response.body?.error }).toEqual({ method, path, status: 404, error: 'not_found' });
      }
    }
    // Still there for its own organization.
    expect((await api('GET', `/v1/documents/${document.id}`, { token: foreignToken })).status).toBe(200);
  });

  it('a read-only client reads but gets 403 on every write', async () => {
    const companyId = await newCompany(systemToken);
    const document = await upload(companyId, pdfBytes());
    const pending = await declare(companyId, pdfBytes());
    const bytes = pdfBytes();
    expectProblem(await declare(companyId, bytes, {}, readOnlyToken), 403, 'insufficient_scope');
    expectProblem(await complete(pending.body.documentId, readOnlyToken), 403, 'insufficient_scope');
    expectProblem(await api('DELETE', `/v1/documents/${document.id}`, { token: readOnlyToken }), 403, 'insufficient_scope');
    expectProblem(await api('POST', `/v1/documents/${document.id}/restore`, { token: readOnlyToken }), 403, 'insufficient_scope');
    expect((await api('GET', `/v1/documents/${document.id}`, { token: readOnlyToken })).status).toBe(200);
    expect((await api('GET', `/v1/documents/${document.id}/download`, { token: readOnlyToken })).status).toBe(200);
    expect((await api('GET', `/v1/companies/${companyId}/documents`, { token: readOnlyToken })).status).toBe(200);
  });
});

describe('documents: file names that are not well-formed Unicode', () => {
  it('a declared name with a lone surrogate answers 400 naming fileName', async () => {
    const companyId = await newCompany(systemToken);
    const bytes = pdfBytes();
    for (const fileName of ['a\ud800b.txt', 'kvittering\udfff.pdf', '\ud83d']) {
      const response = await declare(companyId, bytes, { fileName });
      expectProblem(response, 400, 'validation_failed');
      expect(response.body.errors).toEqual([{ field: 'fileName', message: expect.stringContaining('lone surrogate') }]);
    }
    // A surrogate pair is a character like any other.
    expect((await declare(companyId, bytes, { fileName: 'kvittering 😀.pdf' })).status).toBe(200);
  });

  it('a stored name with a lone surrogate (written before the rule) still downloads: U+FFFD in filename*, _ in the ASCII fallback', async () => {
    const companyId = await newCompany(systemToken);
    const bytes = pdfBytes();
    const id = randomUUID();
    const now = new Date();
    const file = { companyId, fileName: 'a\ud800b.txt', contentType: 'text/plain' as const, sizeBytes: bytes.length, sha256: sha256(bytes), description: null, links: { lineIds: [], transactionIds: [] } };
    await documentRepository.declare({
      documentId: id,
      ...file,
      declaredAt: now.toISOString(),
      declaredBy: 'test',
      uploadUrlExpiresAt: now.toISOString(),
      completeBy: new Date(now.getTime() + 60_000).toISOString(),
    });
    expect(await commitUnlessCancelled(documentRepository.completeWrites({ id, ...file, createdAt: now.toISOString(), createdBy: 'test', deletedAt: null }, now.toISOString()))).toBe(true);
    await localS3Client(testStack().internal.s3Endpoint).send(new PutObjectCommand({ Bucket: testStack().internal.bucketName, Key: documentObjectKey(companyId, id), Body: bytes, ContentType: 'text/plain' }));

    const read = await api('GET', `/v1/documents/${id}`, { token: readOnlyToken });
    expect(read.status).toBe(200);
    expect(read.body.fileName).toBe('a\ud800b.txt');
    for (let attempt = 0; attempt < 2; attempt++) {
      const download = await api('GET', `/v1/documents/${id}/download`, { token: readOnlyToken });
      expect(download.status).toBe(200);
      const fetched = await fetch(download.body.url);
      expect(fetched.status).toBe(200);
      expect(Buffer.from(await fetched.arrayBuffer()).equals(bytes)).toBe(true);
      expect(fetched.headers.get('content-disposition')).toBe(`attachment; filename="a_b.txt"; filename*=UTF-8''a%EF%BF%BDb.txt`);
    }
  });
});
