import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectProblem, tokenFor, type ApiResponse } from '../support/api';
import { createTestClient } from '../support/clients';
import type { Json } from '../support/json';
import { newFirm } from '../support/people';
import { eventually, queueWaitMs } from '../support/poll';

/**
 * GET /v1/events pages with the shared signed cursor (bound to the client and the filters, null on
 * the last page); `after` is a resume position (a sequence the reader kept), good with any filters.
 * One organization of this file's own, so its feed holds only the events made here.
 */
let firm: Awaited<ReturnType<typeof newFirm>>;
let company: string;
let other: string;

const feed = (query: string, token = firm.systemToken): Promise<ApiResponse> => api('GET', `/v1/events?${query}`, { token });
const ids = (events: Json[]): string[] => events.map((event) => event.id as string);
const withCursor = (query: string, cursor: string) => `${query}&cursor=${encodeURIComponent(cursor)}`;

beforeAll(async () => {
  firm = await newFirm('Event feed');
  company = await firm.company();
  other = await firm.company(firm.root, 'Annet Selskap AS');
  for (const name of ['Feed One AS', 'Feed Two AS', 'Feed Three AS']) {
    expect((await api('PATCH', `/v1/companies/${company}`, { token: firm.systemToken, body: { displayName: name } })).status).toBe(200);
  }
  expect((await api('PATCH', `/v1/companies/${other}`, { token: firm.systemToken, body: { displayName: 'Annet Nytt AS' } })).status).toBe(200);
  // company.created and three company.updated of the company, two events of the other.
  await eventually(async () => (await feed(`company_id=${company}&page_size=200`)).body.data.length === 4, queueWaitMs, "the company's four events in the feed");
  await eventually(async () => (await feed(`company_id=${other}&page_size=200`)).body.data.length === 2, queueWaitMs, "the other company's two events in the feed");
});

describe('GET /v1/events: cursor and resume position', () => {
  it('pages with next_cursor sent back as cursor: a signed, opaque cursor, null on the last page', async () => {
    const all = await feed(`company_id=${company}&page_size=200`);
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ next_cursor: null, has_more: false });

    const query = `company_id=${company}&page_size=1`;
    const seen: Json[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const page: ApiResponse = await feed(cursor ? withCursor(query, cursor) : query);
      expect(page.status, page.text).toBe(200);
      seen.push(...page.body.data);
      const { next_cursor: next, has_more: more } = page.body.pagination;
      if (more) expect(next).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      else expect(next).toBeNull();
      cursor = next;
      if (!cursor) break;
    }
    expect(cursor).toBeNull();
    expect(ids(seen)).toEqual(ids(all.body.data));
  });

  it('a cursor is bound to the exact filters and the client: otherwise 400 invalid_cursor', async () => {
    const query = `company_id=${company}&page_size=1`;
    const cursor = (await feed(query)).body.pagination.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    expect(cursor).not.toMatch(/^\d+$/); // not a bare sequence number
    // The same filters (page_size is no filter) take it.
    expect((await feed(withCursor(`company_id=${company}&page_size=200`, cursor))).status).toBe(200);
    // A filter added, changed or dropped does not.
    expectProblem(await feed(withCursor(`company_id=${company}&type=company.updated&page_size=1`, cursor)), 400, 'invalid_cursor');
    expectProblem(await feed(withCursor(`company_id=${other}&page_size=1`, cursor)), 400, 'invalid_cursor');
    expectProblem(await feed(withCursor('page_size=1', cursor)), 400, 'invalid_cursor');
    // Nor does another client of the same organization, nor a tampered cursor.
    const { client, clientSecret } = await createTestClient({ name: 'event-feed-other', organizationId: firm.root.id, plan: 'premium' });
    expectProblem(await feed(withCursor(query, cursor), await tokenFor(client.clientId, clientSecret)), 400, 'invalid_cursor');
    const [payload, signature] = cursor.split('.');
    const tampered = `${Buffer.from(JSON.stringify({ after: 0 })).toString('base64url')}.${signature}`;
    expect(tampered).not.toBe(`${payload}.${signature}`);
    expectProblem(await feed(withCursor(query, tampered)), 400, 'invalid_cursor');
  });

  it('cursor and after together are refused, naming both', async () => {
    const cursor = (await feed(`company_id=${company}&page_size=1`)).body.pagination.next_cursor as string;
    const both = await feed(withCursor(`company_id=${company}&page_size=1&after=1`, cursor));
    expectProblem(both, 400, 'validation_failed');
    expect((both.body.errors as { field: string }[]).map((error) => error.field).sort()).toEqual(['after', 'cursor']);
  });

  it('after is a resume position: the sequence of the last event handled, with any filters', async () => {
    const all = (await feed(`company_id=${company}&page_size=200`)).body.data as Json[];
    for (const event of all) expect(event.sequence).toEqual(expect.any(Number));
    // Resumed after the second event: the rest, in order.
    expect(ids((await feed(`company_id=${company}&after=${all[1]!.sequence}`)).body.data)).toEqual(ids(all.slice(2)));
    // A position is no cursor: other filters than the reads it came from are fine.
    const updates = await feed(`company_id=${company}&type=company.updated&after=${all[0]!.sequence}`);
    expect(updates.status).toBe(200);
    expect(ids(updates.body.data)).toEqual(ids(all.filter((event) => event.type === 'company.updated' && event.sequence > all[0]!.sequence)));
    // Nothing after the last: an empty last page.
    expect((await feed(`company_id=${company}&after=${all.at(-1)!.sequence}`)).body).toEqual({ data: [], pagination: { next_cursor: null, has_more: false } });
    // A sequence in plain digits only.
    for (const notDigits of ['1e2', '007', '-1', '1.0']) expectProblem(await feed(`after=${notDigits}`), 400, 'validation_failed');
  });
});
