import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureQueue, localSqsClient } from '../../infra/local/sqs';
import { companyRepository } from '../../shared/companies/repository';
import { importKind, importKinds } from '../../shared/composition/import-kinds';
import { postFetchEngineNames } from '../../shared/composition/post-fetch-engines';
import { documentDeclarationKeys, documentObjectKey } from '../../shared/documents/keys';
import { documentRepository } from '../../shared/documents/repository';
import { completeUpload, completeUploadFromNotification } from '../../shared/documents/service';
import type { ImportKind } from '../../shared/imports/kind';
import { acceptImport } from '../../shared/imports/pipeline';
import { createPostFetchRun, type PostFetchEngine } from '../../shared/imports/post-fetch';
import { importRepository } from '../../shared/imports/repository';
import { processImport } from '../../shared/imports/worker';
import { jobRepository } from '../../shared/jobs/repository';
import { eventsOfCompany } from '../../shared/outbox/repository';
import { bucketName, dynamo, s3, sqs, tableName } from '../../shared/platform/aws';
import { parseLosslessJson } from '../../shared/platform/lossless-json';
import { logger } from '../../shared/platform/logger';
import { ProblemError } from '../../shared/platform/problem';
import { queues } from '../../shared/queues';
import { createSaftProcessor } from '../../shared/saft/worker';
import { startSaftImport } from '../../shared/saft/service';
import { api } from '../support/api';
import { chartOf, importAndWait, newApiCompany, submitImport } from '../support/ledger';
import { eventually, queueWaitMs } from '../support/poll';
import { testStack } from '../support/stack';

/**
 * Work in flight for a company that is then deleted (directly, or with its organization) writes
 * nothing more and emits nothing for it after company.deleted: an import fails company_deleted
 * (its job failed, never job.succeeded), an upload is not completed, a post-fetch run is skipped.
 */
const as = 'a-system';
const kindsByName = (kinds: readonly ImportKind[] = importKinds) => new Map(kinds.map((kind) => [kind.name, kind]));

beforeAll(() => {
  testStack();
  logger.setLogLevel('CRITICAL'); // refusals are logged as warnings by design
});

afterEach(() => {
  vi.restoreAllMocks();
});

const deleteCompany = async (companyId: string) => expect((await api('DELETE', `/v1/companies/${companyId}`, { as })).status).toBe(200);

/** The company's event types in order, and those after its company.deleted. */
const eventTypes = async (companyId: string) => {
  const events = [...(await eventsOfCompany(companyId))].sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
  const deletedAt = events.find((event) => event.type === 'company.deleted')?.occurredAt;
  return { all: events.map((event) => event.type), afterDeletion: deletedAt ? events.filter((event) => event.occurredAt > deletedAt).map((event) => event.type) : [] };
};

/** Accepted but not queued: the test runs the worker's step itself. */
const acceptAccounts = async (companyId: string, codes: string[]) => {
  const kind = importKind('accounts');
  const body = chartOf(2025, codes);
  return acceptImport(companyId, (await companyRepository.get(companyId))!, kind, kind.bodySchema.parse(parseLosslessJson(JSON.stringify(body))), body, { enqueue: false });
};

const codes = (count: number) => Array.from({ length: count }, (_, i) => String(1000 + i));

describe('an import whose company is deleted', () => {
  it('over HTTP: 2,000 accounts, then DELETE at once: the import ends failed company_deleted, its job failed, no job.succeeded', async () => {
    const companyId = await newApiCompany();
    const accepted = await submitImport(companyId, 'accounts', chartOf(2025, codes(2000)));
    expect(accepted.status).toBe(202);
    await deleteCompany(companyId);
    const ended = await eventually(async () => {
      const item = await importRepository.get(accepted.body.id);
      return item && item.status !== 'queued' && item;
    }, queueWaitMs, 'the import to end');
    expect(ended).toMatchObject({ status: 'failed', failureReason: 'company_deleted' });
    expect(await jobRepository.get(accepted.body.jobId)).toMatchObject({ status: 'failed', error: { code: 'company_deleted', message: expect.stringContaining('company was deleted') } });
    const { all, afterDeletion } = await eventTypes(companyId);
    expect(all).not.toContain('job.succeeded');
    expect(afterDeletion.filter((type) => type !== 'job.failed')).toEqual([]);
  });

  it('deleted before the worker runs: fails company_deleted and writes nothing; its lane is free again', async () => {
    const companyId = await newApiCompany();
    const accepted = await acceptAccounts(companyId, ['1920', '3000']);
    await deleteCompany(companyId);
    await processImport(accepted.id, kindsByName(), postFetchEngineNames);
    expect(await importRepository.get(accepted.id)).toMatchObject({ status: 'failed', failureReason: 'company_deleted', progress: expect.objectContaining({ rowsInserted: 0 }) });
    expect((await eventTypes(companyId)).afterDeletion).toEqual(['job.failed']);
    // Restored, the company shows that nothing was written, and takes the next import of the kind.
    expect((await api('POST', `/v1/companies/${companyId}/restore`, { as })).status).toBe(200);
    expect((await api('GET', `/v1/companies/${companyId}/accounts?year=2025`, { as })).body.data).toEqual([]);
    expect((await importAndWait(companyId, 'accounts', chartOf(2025, ['1920']))).body.status).toBe('succeeded');
  });

  it('deleted between chunks: the chunks after it are not written, and the import fails company_deleted', async () => {
    const companyId = await newApiCompany();
    const accounts = importKind('accounts');
    // The company is deleted right after the first chunk's writes.
    const deletingAfterFirstChunk: ImportKind = {
      ...accounts,
      async applyChunk(context, rows, chunk) {
        const outcomes = await accounts.applyChunk(context, rows, chunk);
        if (chunk.index === 0) await deleteCompany(companyId);
        return outcomes;
      },
    };
    const accepted = await acceptAccounts(companyId, codes(accounts.chunkSize * 2 + 1));
    await processImport(accepted.id, kindsByName([deletingAfterFirstChunk]), postFetchEngineNames);
    expect(await importRepository.get(accepted.id)).toMatchObject({ status: 'failed', failureReason: 'company_deleted', progress: expect.objectContaining({ rowsInserted: accounts.chunkSize, nextChunk: 1 }) });
    expect((await eventTypes(companyId)).afterDeletion).toEqual(['job.failed']);
    expect((await api('POST', `/v1/companies/${companyId}/restore`, { as })).status).toBe(200);
    expect((await api('GET', `/v1/companies/${companyId}/accounts?year=2025`, { as })).body.data).toHaveLength(accounts.chunkSize);
  });

  it('deleted after the worker last read it: the terminal step\'s company check fails it company_deleted, not succeeded', async () => {
    const companyId = await newApiCompany();
    const live = (await companyRepository.get(companyId))!;
    const accepted = await acceptAccounts(companyId, ['1920', '3000']);
    await deleteCompany(companyId);
    // Every read of the worker still sees the company live (as one taken just before the deletion).
    vi.spyOn(companyRepository, 'get').mockResolvedValue(live);
    await processImport(accepted.id, kindsByName(), postFetchEngineNames);
    vi.restoreAllMocks();
    expect(await importRepository.get(accepted.id)).toMatchObject({ status: 'failed', failureReason: 'company_deleted' });
    expect(await jobRepository.get(accepted.jobId)).toMatchObject({ status: 'failed', error: { code: 'company_deleted' } });
    expect((await eventTypes(companyId)).afterDeletion).toEqual(['job.failed']);
  });

  it('GL lines deleted after the worker last read the company: no fetch run is recorded, and the import fails company_deleted', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    const live = (await companyRepository.get(companyId))!;
    const kind = importKind('general_ledger_lines');
    const body = { year: 2025, lines: [{ id: 'a', accountCode: '1920', amount: '5.00', period: 1 }, { id: 'b', accountCode: '3000', amount: '-5.00', period: 1 }] };
    const accepted = await acceptImport(companyId, live, kind, kind.bodySchema.parse(parseLosslessJson(JSON.stringify(body))), body, { enqueue: false });
    await deleteCompany(companyId);
    vi.spyOn(companyRepository, 'get').mockResolvedValue(live);
    await processImport(accepted.id, kindsByName(), postFetchEngineNames);
    vi.restoreAllMocks();
    expect(await importRepository.get(accepted.id)).toMatchObject({ status: 'failed', failureReason: 'company_deleted' });
    expect(await importRepository.findFetchRun(companyId, accepted.id)).toBeUndefined();
    expect((await eventTypes(companyId)).afterDeletion).toEqual(['job.failed']);
  });
});

describe('a SAF-T import whose company is deleted', () => {
  const fixture = readFileSync(new URL('../fixtures/saft/example-1.10-999999999.xml', import.meta.url));

  /** Declared, uploaded and started, its message on a queue of this test: the test runs its job. */
  const startedSaft = async () => {
    const response = await api('POST', '/v1/companies', { as, body: { displayName: `SAF-T ${randomUUID().slice(0, 8)} AS`, accountingSystem: 'Api', organizationNumber: '999999999' } });
    const companyId = response.body.id as string;
    const sha256 = createHash('sha256').update(fixture).digest('hex');
    const created = await api('POST', `/v1/companies/${companyId}/imports/saft`, { as, body: { fileName: 'saft.xml', sizeBytes: fixture.length, sha256 } });
    expect((await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: fixture })).status).toBe(200);
    const importsQueue = queues.find((queue) => queue.name === 'imports')!;
    const original = process.env[importsQueue.urlEnv];
    const client = localSqsClient(testStack().internal.sqsEndpoint);
    process.env[importsQueue.urlEnv] = (await ensureQueue(client, { name: `saft-held-${randomUUID().slice(0, 8)}`, visibilityTimeoutSeconds: 30, maxReceiveCount: 5 })).url;
    try {
      const started = await startSaftImport((await companyRepository.get(companyId))!, created.body.id, {});
      return { companyId, saftImportId: started.id, jobId: started.jobId! };
    } finally {
      process.env[importsQueue.urlEnv] = original;
      client.destroy();
    }
  };

  it('deleted before its job runs: fails company_deleted, imports nothing, no job.succeeded', async () => {
    const { companyId, saftImportId, jobId } = await startedSaft();
    await deleteCompany(companyId);
    await createSaftProcessor(importKinds, postFetchEngineNames)(saftImportId, 1);
    const { saftRepository } = await import('../../shared/saft/repository');
    expect(await saftRepository.get(saftImportId)).toMatchObject({ status: 'failed', failureReason: 'company_deleted', importIds: [] });
    expect(await jobRepository.get(jobId)).toMatchObject({ status: 'failed', error: { code: 'company_deleted' } });
    expect((await eventTypes(companyId)).afterDeletion).toEqual(['job.failed']);
  });

  it('deleted while its first per-kind import runs: that import and the SAF-T import fail company_deleted; no later import is made', async () => {
    const { companyId, saftImportId } = await startedSaft();
    const accounts = importKind('accounts');
    const deleting: ImportKind = {
      ...accounts,
      async applyChunk(context, rows, chunk) {
        const outcomes = await accounts.applyChunk(context, rows, chunk);
        if (chunk.index === 0) await deleteCompany(companyId);
        return outcomes;
      },
    };
    await createSaftProcessor(importKinds.map((kind) => (kind.name === 'accounts' ? deleting : kind)), postFetchEngineNames)(saftImportId, 1);
    const { saftRepository } = await import('../../shared/saft/repository');
    const saft = (await saftRepository.get(saftImportId))!;
    expect(saft).toMatchObject({ status: 'failed', failureReason: 'company_deleted' });
    expect(saft.importIds).toHaveLength(1);
    expect(await importRepository.get(saft.importIds[0]!)).toMatchObject({ status: 'failed', failureReason: 'company_deleted' });
    // After the deletion: the per-kind import's job.failed and the SAF-T job's, nothing else.
    expect((await eventTypes(companyId)).afterDeletion).toEqual(['job.failed', 'job.failed']);
  });
});

describe('a post-fetch run of a deleted company', () => {
  it('is skipped: no engine runs, nothing is recorded on the run', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    const kind = importKind('general_ledger_lines');
    const body = { year: 2025, lines: [{ id: 'a', accountCode: '1920', amount: '5.00', period: 1 }, { id: 'b', accountCode: '3000', amount: '-5.00', period: 1 }] };
    const accepted = await acceptImport(companyId, (await companyRepository.get(companyId))!, kind, kind.bodySchema.parse(parseLosslessJson(JSON.stringify(body))), body, { enqueue: false });
    // The run is recorded, its message not sent (the stack's worker must not run it): this test delivers it.
    vi.spyOn(sqs(), 'send').mockResolvedValue({} as never);
    await processImport(accepted.id, kindsByName(), postFetchEngineNames);
    vi.restoreAllMocks();
    const run = (await importRepository.findFetchRun(companyId, accepted.id))!;
    expect(run.engines.every((engine) => engine.status === 'queued')).toBe(true);
    await deleteCompany(companyId);

    const ran = vi.fn(async () => 'ran');
    const engine: PostFetchEngine = { name: 'probe', run: ran };
    const message = { companyId, fetchRunId: run.id, importId: accepted.id, year: 2025, completedAt: run.completedAt };
    await createPostFetchRun([engine])({ body: JSON.stringify(message) } as SQSRecord);
    expect(ran).not.toHaveBeenCalled();
    expect((await importRepository.findFetchRun(companyId, accepted.id))!.engines).toEqual(run.engines);
    expect((await eventTypes(companyId)).afterDeletion).toEqual([]);
  });
});

describe('an upload whose company is deleted before the bytes arrive', () => {
  const pdf = () => Buffer.from(`%PDF-1.7\n% ${randomUUID()}\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n`);
  const declare = async (companyId: string, bytes: Buffer) => {
    const declared = await api('POST', `/v1/companies/${companyId}/documents`, {
      as,
      body: { fileName: 'kvittering.pdf', contentType: 'application/pdf', sizeBytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') },
    });
    expect(declared.status).toBe(200);
    return declared.body as { documentId: string; upload: { url: string; headers: Record<string, string> } };
  };
  const put = (upload: { url: string; headers: Record<string, string> }, bytes: Buffer) => fetch(upload.url, { method: 'PUT', headers: upload.headers, body: bytes });
  const copied = async (companyId: string, documentId: string) =>
    s3()
      .send(new HeadObjectCommand({ Bucket: bucketName(), Key: documentObjectKey(companyId, documentId) }))
      .then(
        () => true,
        () => false,
      );

  it('the automatic completion refuses it: no document, no copy, no document.created; the declaration stays pending', async () => {
    const companyId = await newApiCompany();
    const bytes = pdf();
    const declared = await declare(companyId, bytes);
    await deleteCompany(companyId);
    expect((await put(declared.upload, bytes)).status).toBe(200); // the URL is still valid
    // The upload worker's step, as the S3 notification runs it (the stack's worker runs it too).
    expect(await completeUploadFromNotification(declared.documentId)).toBe('refused');
    expect(await documentRepository.get(declared.documentId)).toBeUndefined();
    expect(await documentRepository.getDeclaration(declared.documentId)).toBeDefined();
    expect(await copied(companyId, declared.documentId)).toBe(false);
    expect((await eventTypes(companyId)).all).not.toContain('document.created');
  });

  it('deleted after the completion read it: the transaction\'s company check refuses it (404); the verified copy stays under the deleted company, never served', async () => {
    const companyId = await newApiCompany();
    const live = (await companyRepository.get(companyId))!;
    const bytes = pdf();
    const declared = await declare(companyId, bytes);
    // Stored as expired, so the stack's own completion refuses it and only this test's call runs.
    await dynamo().send(new UpdateCommand({ TableName: tableName(), Key: documentDeclarationKeys(declared.documentId), UpdateExpression: 'SET completeBy = :at', ExpressionAttributeValues: { ':at': new Date(Date.now() - 1000).toISOString() } }));
    expect((await put(declared.upload, bytes)).status).toBe(200);
    const declaration = { ...(await documentRepository.getDeclaration(declared.documentId))!, completeBy: new Date(Date.now() + 60_000).toISOString() };
    await deleteCompany(companyId);
    // The completion's first read still sees the company live (taken just before the deletion).
    vi.spyOn(companyRepository, 'get').mockResolvedValueOnce(live);
    const refused = await completeUpload(declaration).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ProblemError);
    expect((refused as ProblemError).problem).toMatchObject({ status: 404, error: 'not_found' });
    expect(await documentRepository.get(declared.documentId)).toBeUndefined();
    expect(await copied(companyId, declared.documentId)).toBe(true);
    expect((await eventTypes(companyId)).all).not.toContain('document.created');
  });
});
