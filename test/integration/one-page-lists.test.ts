import { beforeAll, describe, expect, it } from 'vitest';
import { contracts } from '../../shared/openapi/document';
import { OnePageQuerySchema } from '../../shared/platform/schemas';
import { routes } from '../../shared/routes';
import { api, expectProblem } from '../support/api';
import { ingestOk, statementXml, validAccountNumber } from '../support/bank';
import { chartOf } from '../support/ledger';
import { newFirm, newPerson } from '../support/people';
import { eventually, queueWaitMs } from '../support/poll';
import { testStack } from '../support/stack';

/*
 * The lists answered whole, in one page (spec: small bounded lists), take the paging parameters a
 * generic pager sends to every list: page_size under the rule of every list (and ignored), a
 * cursor refused as invalid_cursor (they issue none), anything else refused as before.
 */

let firm: Awaited<ReturnType<typeof newFirm>>;
let companyId: string;
const as = () => ({ token: firm.systemToken });
const year = 2025;

interface OnePageList {
  operationId: string;
  path: () => string;
}

const onePageLists: OnePageList[] = [
  { operationId: 'listAccounts', path: () => `/v1/companies/${companyId}/accounts?year=${year}` },
  { operationId: 'listVatTerms', path: () => `/v1/companies/${companyId}/vat/terms?year=${year}` },
  { operationId: 'listBankAccounts', path: () => `/v1/companies/${companyId}/bank/accounts` },
  { operationId: 'listUsers', path: () => '/v1/users' },
  { operationId: 'listWebhookEventTypes', path: () => '/v1/webhooks/event-types' },
];

const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

beforeAll(async () => {
  testStack();
  firm = await newFirm('One-page lists');
  companyId = await firm.company();
  // Two of everything, so that page_size=1 shows the whole list is answered.
  const accepted = await api('POST', `/v1/companies/${companyId}/imports/accounts`, { ...as(), body: chartOf(year, ['1920', '1930', '3000']) });
  expect(accepted.status, accepted.text).toBe(202);
  await eventually(async () => (await api('GET', `/v1/companies/${companyId}/imports/${accepted.body.id}`, as())).body.status === 'succeeded', queueWaitMs, 'the chart import');
  for (const prefix of ['1208', '1209']) {
    const accountNumber = validAccountNumber(prefix + String(Math.floor(Math.random() * 1e6)).padStart(6, '0'));
    await ingestOk(companyId, statementXml(accountNumber, `ST-${accountNumber}-1`, [{ reference: 'R1', bookingDate: `${year}-01-15`, amount: '100.00', description: 'Innbetaling' }]), '--gl-account', prefix === '1208' ? '1920' : '1930');
  }
  await newPerson(firm.root.id);
  await newPerson(firm.root.id);
});

describe('the lists answered in one page', () => {
  it('are every list whose query takes the one-page paging parameters, and every list takes page_size', () => {
    const lists = routes.filter((route) => route.method === 'GET' && route.operationId.startsWith('list') && route.group !== 'openapi');
    const shapeOf = (operationId: string) => (contracts[operationId]?.query as { shape?: Record<string, unknown> } | undefined)?.shape ?? {};
    expect(lists.filter((route) => !('page_size' in shapeOf(route.operationId))).map((route) => route.operationId)).toEqual([]);
    const onePage = lists.filter((route) => shapeOf(route.operationId).page_size === OnePageQuerySchema.shape.page_size).map((route) => route.operationId);
    expect(onePage.sort()).toEqual(onePageLists.map((list) => list.operationId).sort());
  });

  it('answer the whole list for any page_size, refuse one out of range naming it, and refuse a cursor as invalid_cursor', async () => {
    // A cursor of a paged list (companies): issued to this caller, but not by these lists.
    await firm.company(firm.root, 'Second AS');
    const companies = await api('GET', '/v1/companies?page_size=1', as());
    expect(companies.body.pagination.has_more).toBe(true);
    const foreignCursor = encodeURIComponent(companies.body.pagination.next_cursor as string);
    // What a paged list answers a cursor it did not issue: the one-page lists answer the same.
    expectProblem(await api('GET', '/v1/companies?cursor=abc.def', as()), 400, 'invalid_cursor');

    for (const list of onePageLists) {
      const path = list.path();
      const whole = await api('GET', path, as());
      expect(whole.status, `${list.operationId}: ${whole.text}`).toBe(200);
      expect((whole.body.data as unknown[]).length, list.operationId).toBeGreaterThan(1);
      expect(whole.body.pagination, list.operationId).toEqual({ next_cursor: null, has_more: false });

      for (const pageSize of ['200', '1', '50']) {
        const answer = await api('GET', withQuery(path, `page_size=${pageSize}`), as());
        expect(answer.status, `${list.operationId} page_size=${pageSize}: ${answer.text}`).toBe(200);
        expect(answer.body, `${list.operationId} page_size=${pageSize}`).toEqual(whole.body);
      }

      for (const pageSize of ['0', '201', '1e2', '-1', '', 'many']) {
        const answer = await api('GET', withQuery(path, `page_size=${pageSize}`), as());
        expectProblem(answer, 400, 'validation_failed');
        expect(answer.body.errors, `${list.operationId} page_size=${pageSize}`).toEqual([expect.objectContaining({ field: 'page_size' })]);
      }

      for (const cursor of ['abc.def', 'not-a-cursor', foreignCursor]) {
        const answer = await api('GET', withQuery(path, `cursor=${cursor}`), as());
        expectProblem(answer, 400, 'invalid_cursor');
        expect(answer.body.detail, list.operationId).toMatch(/one page/);
        // With a valid page_size too: the cursor is still refused.
        expectProblem(await api('GET', withQuery(path, `page_size=200&cursor=${cursor}`), as()), 400, 'invalid_cursor');
      }

      // Other unknown parameters stay refused by name.
      const unknown = await api('GET', withQuery(path, 'page_size=200&colour=red'), as());
      expectProblem(unknown, 400, 'validation_failed');
      expect(unknown.body.errors, list.operationId).toEqual([expect.objectContaining({ field: 'colour', message: 'Unknown field' })]);
    }
  });
});
