import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureQueue, localSqsClient } from '../../infra/local/sqs';
import { companyRepository } from '../../shared/companies/repository';
import { importKind, importKinds } from '../../shared/composition/import-kinds';
import { postFetchEngineNames } from '../../shared/composition/post-fetch-engines';
import type { Principal } from '../../shared/identity/principal';
import type { ImportKind } from '../../shared/imports/kind';
import { acceptImport, submitImport as acceptSubmission } from '../../shared/imports/pipeline';
import { importRepository } from '../../shared/imports/repository';
import { processImport } from '../../shared/imports/worker';
import { jobRepository } from '../../shared/jobs/repository';
import { parseLosslessJson } from '../../shared/platform/lossless-json';
import { logger } from '../../shared/platform/logger';
import { ProblemError } from '../../shared/platform/problem';
import { queues } from '../../shared/queues';
import { saftRepository } from '../../shared/saft/repository';
import { saftLane, startSaftImport } from '../../shared/saft/service';
import { createSaftProcessor } from '../../shared/saft/worker';
import { api } from '../support/api';
import { chartOf, importAndWait, newApiCompany } from '../support/ledger';
import { testStack } from '../support/stack';

/**
 * An import or SAF-T import on a company moved off the Api accounting system while it was being
 * accepted or waited for its worker: refused at the commit as the check up front refuses it (409
 * company_not_api_managed), and failed company_not_api_managed by the worker, writing nothing more.
 * The interleavings are made as test/integration/company-deleted-work.test.ts makes them: the
 * request's company read is a record read before the change, the worker's step runs in the test.
 */
const as = 'a-system';
const kindsByName = (kinds: readonly ImportKind[] = importKinds) => new Map(kinds.map((kind) => [kind.name, kind]));

beforeAll(() => {
  testStack();
  logger.setLogLevel('CRITICAL');
});

afterEach(() => {
  vi.restoreAllMocks();
});

const moveTo = async (companyId: string, accountingSystem: string) =>
  expect((await api('PATCH', `/v1/companies/${companyId}`, { as, body: { accountingSystem } })).status).toBe(200);

const problemOf = async (work: Promise<unknown>) => {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ProblemError);
  return (error as ProblemError).problem;
};

/** Accepted but not queued: the test runs the worker's step itself. */
const acceptAccounts = async (companyId: string, codes: string[]) => {
  const kind = importKind('accounts');
  const body = chartOf(2025, codes);
  return acceptImport(companyId, (await companyRepository.get(companyId))!, kind, kind.bodySchema.parse(parseLosslessJson(JSON.stringify(body))), body, { enqueue: false });
};

describe('an import whose company is moved off Api', () => {
  it('while the request is accepted (company read as Api, PATCHed to Tripletex before the commit): 409 company_not_api_managed, nothing accepted, the lane free', async () => {
    const companyId = await newApiCompany();
    const readByTheRequest = (await companyRepository.get(companyId))!;
    await moveTo(companyId, 'Tripletex');
    const problem = await problemOf(acceptSubmission({} as Principal, readByTheRequest, importKind('accounts'), chartOf(2025, ['1920'])));
    expect(problem).toMatchObject({ status: 409, reason: 'company_not_api_managed' });
    expect((await api('GET', `/v1/companies/${companyId}/imports`, { as })).body.data).toEqual([]);
    expect(await jobRepository.laneHolder(companyId, 'accounts')).toBeUndefined();
    // Deleted instead: 404, as the check up front answers.
    await moveTo(companyId, 'Api');
    expect((await api('DELETE', `/v1/companies/${companyId}`, { as })).status).toBe(200);
    expect(await problemOf(acceptSubmission({} as Principal, readByTheRequest, importKind('accounts'), chartOf(2025, ['1920'])))).toMatchObject({ status: 404 });
  });

  it('after 202, before the worker runs: the import fails company_not_api_managed and writes nothing; its job fails and the lane is free', async () => {
    const companyId = await newApiCompany();
    const accepted = await acceptAccounts(companyId, ['1920', '3000']);
    await moveTo(companyId, 'Tripletex');
    await processImport(accepted.id, kindsByName(), postFetchEngineNames);
    const read = await api('GET', `/v1/companies/${companyId}/imports/${accepted.id}`, { as });
    expect(read.body).toMatchObject({ status: 'failed', failureReason: 'company_not_api_managed', rowsInserted: 0 });
    expect(await jobRepository.get(accepted.jobId)).toMatchObject({ status: 'failed', error: { code: 'company_not_api_managed', message: expect.stringContaining('moved off the Api') } });
    await moveTo(companyId, 'Api');
    expect((await api('GET', `/v1/companies/${companyId}/accounts?year=2025`, { as })).body.data).toEqual([]);
    expect((await importAndWait(companyId, 'accounts', chartOf(2025, ['1920']))).body.status).toBe('succeeded');
  });

  it('after the worker last read it: the terminal step fails it company_not_api_managed, not succeeded', async () => {
    const companyId = await newApiCompany();
    const asApi = (await companyRepository.get(companyId))!;
    const accepted = await acceptAccounts(companyId, ['1920', '3000']);
    await moveTo(companyId, 'Fiken');
    // Every read of the worker still sees the company bound to Api (as one taken just before the change).
    vi.spyOn(companyRepository, 'get').mockResolvedValue(asApi);
    await processImport(accepted.id, kindsByName(), postFetchEngineNames);
    vi.restoreAllMocks();
    expect(await importRepository.get(accepted.id)).toMatchObject({ status: 'failed', failureReason: 'company_not_api_managed' });
    expect(await jobRepository.get(accepted.jobId)).toMatchObject({ status: 'failed', error: { code: 'company_not_api_managed' } });
  });
});

describe('a SAF-T import whose company is moved off Api', () => {
  const fixture = readFileSync(new URL('../fixtures/saft/example-1.10-999999999.xml', import.meta.url));

  /** Declared and uploaded, not started. */
  const uploadedSaft = async () => {
    const response = await api('POST', '/v1/companies', { as, body: { displayName: `SAF-T ${randomUUID().slice(0, 8)} AS`, accountingSystem: 'Api', organizationNumber: '999999999' } });
    const companyId = response.body.id as string;
    const sha256 = createHash('sha256').update(fixture).digest('hex');
    const created = await api('POST', `/v1/companies/${companyId}/imports/saft`, { as, body: { fileName: 'saft.xml', sizeBytes: fixture.length, sha256 } });
    expect((await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: fixture })).status).toBe(200);
    return { companyId, saftImportId: created.body.id as string };
  };

  /** Started with its message on a queue of this test (the stack's worker does not run it). */
  const start = async (companyId: string, saftImportId: string, company = companyRepository.get(companyId)) => {
    const importsQueue = queues.find((queue) => queue.name === 'imports')!;
    const original = process.env[importsQueue.urlEnv];
    const client = localSqsClient(testStack().internal.sqsEndpoint);
    process.env[importsQueue.urlEnv] = (await ensureQueue(client, { name: `saft-held-${randomUUID().slice(0, 8)}`, visibilityTimeoutSeconds: 30, maxReceiveCount: 5 })).url;
    try {
      return await startSaftImport((await company)!, saftImportId, {});
    } finally {
      process.env[importsQueue.urlEnv] = original;
      client.destroy();
    }
  };

  it('while it is started (company read as Api, PATCHed before the commit): 409 company_not_api_managed; the file waits, no lane is taken', async () => {
    const { companyId, saftImportId } = await uploadedSaft();
    const readByTheRequest = companyRepository.get(companyId);
    await readByTheRequest;
    await moveTo(companyId, 'Visma');
    expect(await problemOf(start(companyId, saftImportId, readByTheRequest))).toMatchObject({ status: 409, reason: 'company_not_api_managed' });
    expect(await saftRepository.get(saftImportId)).toMatchObject({ status: 'awaiting_upload', jobId: null });
    expect(await jobRepository.laneHolder(companyId, saftLane)).toBeUndefined();
  });

  it('before its job runs: fails company_not_api_managed and imports nothing', async () => {
    const { companyId, saftImportId } = await uploadedSaft();
    const started = await start(companyId, saftImportId);
    await moveTo(companyId, 'Xledger');
    await createSaftProcessor(importKinds, postFetchEngineNames)(saftImportId, 1);
    expect(await saftRepository.get(saftImportId)).toMatchObject({ status: 'failed', failureReason: 'company_not_api_managed', importIds: [] });
    expect(await jobRepository.get(started.jobId!)).toMatchObject({ status: 'failed', error: { code: 'company_not_api_managed' } });
  });
});
