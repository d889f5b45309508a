import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, deleteOrganization } from '../../shared/administration/service';
import { createTestClient } from '../support/clients';
import { localCredentialIssuer } from '../../shared/identity/credential-issuers';
import { localPersonDirectory } from '../../shared/identity/person-directories';
import { api, expectProblem, tokenFor, type ApiResponse } from '../support/api';
import { chartOf, importAndWait, newApiCompany } from '../support/ledger';
import { eventually, queueWaitMs } from '../support/poll';
import { testStack } from '../support/stack';

/** Jobs over HTTP: their timestamps (GET /v1/jobs/{jobId}) and the job list (GET /v1/jobs). */
describe('job timestamps', () => {
  it('a succeeded import job shows when it was created, started and finished, in that order', async () => {
    const companyId = await newApiCompany();
    const done = await importAndWait(companyId, 'accounts', chartOf(2025, ['1920', '3000']));
    expect(done.body.status).toBe('succeeded');
    const job = await api('GET', `/v1/jobs/${done.body.jobId}`, { as: 'a-system' });
    expect(job.status).toBe(200);
    expect(job.body).toMatchObject({ status: 'succeeded', error: null });
    const { createdAt, startedAt, finishedAt } = job.body as { createdAt: string; startedAt: string | null; finishedAt: string | null };
    expect(startedAt).not.toBeNull();
    expect(finishedAt).not.toBeNull();
    expect(Date.parse(createdAt)).toBeLessThanOrEqual(Date.parse(startedAt!));
    expect(Date.parse(startedAt!)).toBeLessThanOrEqual(Date.parse(finishedAt!));
  });

  it('a failed import job has its start and finish too', async () => {
    const companyId = await newApiCompany();
    // An open-items import with an invalid item fails as a whole (all or nothing) once the worker ran it.
    const failed = await importAndWait(companyId, 'open-items', {
      subLedgerType: 'customer',
      mode: 'incremental',
      items: [{ itemKey: 'X', subLedgerKey: 'C1', subLedgerType: 'customer', accountCode: '1500', documentId: 'D', entryCategory: 'invoice', documentDate: '2025-01-01', dueDate: '2025-01-31', amount: '100', amountOpen: '1000.01', settlementStatus: 'open' }],
    });
    expect(failed.body.status).toBe('failed');
    const job = await api('GET', `/v1/jobs/${failed.body.jobId}`, { as: 'a-system' });
    expect(job.body).toMatchObject({ status: 'failed', startedAt: expect.any(String), finishedAt: expect.any(String) });
    expect(Date.parse(job.body.startedAt)).toBeLessThanOrEqual(Date.parse(job.body.finishedAt));
  });
});

/**
 * The job list runs on an organization tree of this file's own (X with children X1 and X2, one
 * client each), so every job in it is known and the assertions are exact, whatever the other test
 * files do meanwhile in the seeded organizations.
 */
describe('job list (GET /v1/jobs)', () => {
  const tokens = { x: '', x1: '', x2: '' };
  const companies = { x: '', x1: '', x2: '' };
  /** Every job made here, oldest first. */
  const jobs: { id: string; companyId: string; type: string; status: string }[] = [];
  let rootId = '';

  const push = async (who: keyof typeof tokens, path: string, body: unknown) => {
    const companyId = companies[who];
    const accepted = await api('POST', `/v1/companies/${companyId}/imports/${path}`, { token: tokens[who], body });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const done = await eventually(async () => {
      const read = await api('GET', `/v1/companies/${companyId}/imports/${accepted.body.id}`, { token: tokens[who] });
      return read.body.status !== 'queued' && read;
    }, queueWaitMs, `import ${accepted.body.id} to leave the queue`);
    // the kinds pushed here run in the lane of their own name
    jobs.push({ id: done.body.jobId, companyId, type: `import:${done.body.kind}`, status: done.body.status });
  };

  const idsNewestFirst = (keep: (job: (typeof jobs)[number]) => boolean) => jobs.filter(keep).map((job) => job.id).reverse();

  const list = (query: string, token = tokens.x) => api('GET', `/v1/jobs${query}`, { token });

  /** Every job of a listing, following the cursor. */
  const follow = async (query: string, token = tokens.x) => {
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const separator: string = query ? '&' : '?';
      const page: ApiResponse = await list(`${query}${cursor ? `${separator}cursor=${encodeURIComponent(cursor)}` : ''}`, token);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      pages.push(page.body.data.map((job: { id: string }) => job.id));
      cursor = page.body.pagination.next_cursor;
      expect(page.body.pagination.has_more).toBe(cursor !== null);
    } while (cursor);
    return pages;
  };

  beforeAll(async () => {
    testStack();
    const root = await createOrganization({ name: `Jobs ${randomUUID().slice(0, 8)}` });
    const child1 = await createOrganization({ name: 'Jobs child 1', parentId: root.id });
    const child2 = await createOrganization({ name: 'Jobs child 2', parentId: root.id });
    rootId = root.id;
    for (const [who, organization] of [['x', root], ['x1', child1], ['x2', child2]] as const) {
      const { client, clientSecret } = await createTestClient({ name: `jobs-${who}`, organizationId: organization.id, plan: 'premium' });
      tokens[who] = await tokenFor(client.clientId, clientSecret);
      const company = await api('POST', '/v1/companies', { token: tokens[who], body: { displayName: `Jobs ${who} AS`, accountingSystem: 'Api' } });
      expect(company.status).toBe(201);
      companies[who] = company.body.id;
    }
    await push('x', 'accounts', chartOf(2025, ['1920']));
    await push('x1', 'accounts', chartOf(2025, ['1920']));
    await push('x', 'dimensions', { dimensions: [{ key: 'D1', value: 'Sales', type: 'department' }] });
    await push('x2', 'accounts', chartOf(2025, ['1920']));
    await push('x', 'open-items', {
      subLedgerType: 'customer',
      mode: 'incremental',
      items: [{ itemKey: 'X', subLedgerKey: 'C1', subLedgerType: 'customer', accountCode: '1920', documentId: 'D', entryCategory: 'invoice', documentDate: '2025-01-01', dueDate: '2025-01-31', amount: '100', amountOpen: '1000.01', settlementStatus: 'open' }],
    });
    await push('x1', 'sub-ledgers', { subLedgers: [{ key: 'C1', value: 'Kunde', type: 'customer' }] });
    await push('x', 'accounts', chartOf(2026, ['1920']));
    expect(jobs.map((job) => job.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'failed', 'succeeded', 'succeeded']);
  });

  afterAll(async () => {
    if (rootId) await deleteOrganization(rootId, 'jobs-test', { issuer: localCredentialIssuer, directory: localPersonDirectory });
  });

  it('lists the jobs of the companies within reach, newest first: the root sees its whole tree, a child only its own', async () => {
    const all = await list('?page_size=200');
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ next_cursor: null, has_more: false });
    expect(all.body.data.map((job: { id: string }) => job.id)).toEqual(idsNewestFirst(() => true));
    const newest = all.body.data[0];
    expect(newest).toMatchObject({ type: 'import:accounts', status: 'succeeded', scope: { companyId: companies.x, lane: 'accounts' }, startedAt: expect.any(String), finishedAt: expect.any(String) });
    expect(newest).not.toHaveProperty('companyId');
    expect(newest).toEqual((await api('GET', `/v1/jobs/${newest.id}`, { token: tokens.x })).body);
    const createdAt = all.body.data.map((job: { createdAt: string }) => job.createdAt);
    expect([...createdAt].sort().reverse()).toEqual(createdAt);

    expect((await follow('?page_size=200', tokens.x1)).flat()).toEqual(idsNewestFirst((job) => job.companyId === companies.x1));
    expect((await follow('', tokens.x2)).flat()).toEqual(idsNewestFirst((job) => job.companyId === companies.x2));
  });

  it('never shows another organization\'s jobs', async () => {
    const mine = new Set(jobs.map((job) => job.id));
    for (const client of ['b-system', 'a-system']) {
      const first = await api('GET', '/v1/jobs?page_size=200', { as: client });
      expect(first.status).toBe(200);
      expect(first.body.data.filter((job: { id: string }) => mine.has(job.id))).toEqual([]);
      // naming a company outside the reach matches nothing
      expect((await api('GET', `/v1/jobs?company_id=${companies.x}`, { as: client })).body).toEqual({ data: [], pagination: { next_cursor: null, has_more: false } });
    }
    expect((await list(`?company_id=${companies.x}`, tokens.x1)).body.data).toEqual([]);
    expect((await list(`?company_id=${companies.x2}`, tokens.x1)).body.data).toEqual([]);
    expect((await list(`?company_id=${randomUUID()}`)).body.data).toEqual([]);
    // any valid token may list (no scope), a missing or invalid one may not
    expect((await api('GET', '/v1/jobs', { as: 'a-readonly' })).status).toBe(200);
    expectProblem(await api('GET', '/v1/jobs'), 401, 'invalid_token');
    expectProblem(await api('GET', '/v1/jobs', { token: 'not-a-jwt' }), 401, 'invalid_token');
  });

  it('filters by status, type and company_id (together too)', async () => {
    const ids = async (query: string, token = tokens.x) => (await follow(query, token)).flat();
    expect(await ids('?status=failed')).toEqual(idsNewestFirst((job) => job.status === 'failed'));
    expect(await ids('?status=succeeded')).toEqual(idsNewestFirst((job) => job.status === 'succeeded'));
    expect(await ids('?status=running')).toEqual([]);
    expect(await ids('?type=import:accounts')).toEqual(idsNewestFirst((job) => job.type === 'import:accounts'));
    expect(await ids(`?company_id=${companies.x1}`)).toEqual(idsNewestFirst((job) => job.companyId === companies.x1));
    expect(await ids(`?company_id=${companies.x}&status=succeeded&type=import:accounts`)).toEqual(
      idsNewestFirst((job) => job.companyId === companies.x && job.status === 'succeeded' && job.type === 'import:accounts'),
    );
    expect(await ids('?type=import:accounts', tokens.x1)).toEqual(idsNewestFirst((job) => job.companyId === companies.x1 && job.type === 'import:accounts'));
    for (const bad of ['status=done', 'type=export:everything', 'company_id=nope', 'page_size=0', 'page_size=201', 'color=red']) {
      expectProblem(await list(`?${bad}`), 400, 'validation_failed');
    }
  });

  it('pages with signed cursors bound to the client and the filters', async () => {
    const pages = await follow('?page_size=2');
    expect(pages.map((page) => page.length)).toEqual([2, 2, 2, 1]);
    expect(pages.flat()).toEqual(idsNewestFirst(() => true));
    const filtered = await follow('?type=import:accounts&page_size=1');
    expect(filtered.flat()).toEqual(idsNewestFirst((job) => job.type === 'import:accounts'));
    // a child sees short pages of its subtree too (the tree's other jobs are filtered out)
    expect(await follow('?page_size=1', tokens.x1)).toEqual(idsNewestFirst((job) => job.companyId === companies.x1).map((id) => [id]));

    const first = await list('?page_size=2');
    const cursor = encodeURIComponent(first.body.pagination.next_cursor);
    expect((await list(`?page_size=5&cursor=${cursor}`)).body.data.map((job: { id: string }) => job.id)).toEqual(idsNewestFirst(() => true).slice(2));
    expectProblem(await list(`?page_size=2&status=succeeded&cursor=${cursor}`), 400, 'invalid_cursor');
    expectProblem(await list(`?page_size=2&company_id=${companies.x}&cursor=${cursor}`), 400, 'invalid_cursor');
    expectProblem(await list(`?page_size=2&cursor=${cursor}`, tokens.x1), 400, 'invalid_cursor');
    expectProblem(await list('?cursor=abc.def'), 400, 'invalid_cursor');
  });

  it('leaves out the jobs of a deleted company, and shows them again once it is restored', async () => {
    const ofX2 = idsNewestFirst((job) => job.companyId === companies.x2);
    expect((await api('DELETE', `/v1/companies/${companies.x2}`, { token: tokens.x })).status).toBe(200);
    expect((await follow('?page_size=200')).flat()).toEqual(idsNewestFirst((job) => job.companyId !== companies.x2));
    expect((await follow('', tokens.x2)).flat()).toEqual([]);
    expect((await list(`?company_id=${companies.x2}`)).body.data).toEqual([]);
    expectProblem(await api('GET', `/v1/jobs/${ofX2[0]}`, { token: tokens.x }), 404, 'not_found');
    expect((await api('POST', `/v1/companies/${companies.x2}/restore`, { token: tokens.x })).status).toBe(200);
    expect((await follow('', tokens.x2)).flat()).toEqual(ofX2);
  });
});
