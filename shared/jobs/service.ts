import { reachable } from '../companies/reachable';
import type { Page } from '../db/query-page';
import type { Principal } from '../identity/principal';
import { decodeCursor, encodeCursor, type CursorBinding, type CursorCaller } from '../platform/cursor';
import { jobRepository, toJobRecord, type JobListFilter, type JobListSource, type JobRecord } from './repository';
import type { Job, JobListQuery } from './schemas';

/** The job as callers see it (the runner's reach step found it visible: its company live and within reach). */
export const toJob = (job: JobRecord): Job => {
  const { companyId: _companyId, ...visible } = job;
  return visible;
};

export type ListCaller = CursorCaller;

/** Query pages read while filling one page, before answering a shorter page with a cursor. */
const maxQueriesPerPage = 10;

const emptyPage: Page<Job> = { data: [], pagination: { next_cursor: null, has_more: false } };

const indexKeyOf = (item: Record<string, unknown>, source: JobListSource) =>
  'companyId' in source
    ? { PK: item.PK, SK: item.SK, GSI1PK: item.GSI1PK, GSI1SK: item.GSI1SK }
    : { PK: item.PK, SK: item.SK, GSI2PK: item.GSI2PK, GSI2SK: item.GSI2SK };

/**
 * Jobs within the caller's reach, newest first, with the visibility of GET /v1/jobs/{jobId}: only
 * jobs of live companies within reach. With `company_id`: that company's index partition (a
 * company outside the reach, unknown or deleted matches nothing). Without: the partition of the
 * caller's organization tree, narrowed to the caller's subtree by a filter when the caller is
 * below the root. `status` and `type` are filters. Each page's companies are then checked (one
 * BatchGet): jobs of deleted companies are left out. The page is filled across Query pages (at
 * most 10, then a shorter page with has_more true); the cursor is the last job read.
 */
export const listJobs = async (principal: Principal, query: JobListQuery, caller: ListCaller): Promise<Page<Job>> => {
  const binding: CursorBinding = {
    ...caller,
    filters: { status: query.status ?? null, type: query.type ?? null, company_id: query.company_id ?? null },
  };
  let startKey = query.cursor ? await decodeCursor(query.cursor, binding) : undefined;
  const own = principal.organizationPath;

  let source: JobListSource;
  const filter: JobListFilter = { ...(query.status && { status: query.status }), ...(query.type && { type: query.type }) };
  if (query.company_id) {
    const company = await reachable.company(principal, query.company_id);
    if (!company) return emptyPage;
    source = { companyId: company.id };
  } else {
    // An interactive session has no organization of its own: its jobs are listed per company (company_id).
    if (!own) return emptyPage;
    const root = own.split('/')[0]!;
    source = { rootOrganizationId: root };
    if (own !== root) filter.subtreePath = own;
  }

  const found: Record<string, unknown>[] = [];
  let exhausted = false;
  let lastRead: Record<string, unknown> | undefined;
  for (let queries = 0; found.length <= query.page_size && queries < maxQueriesPerPage; queries++) {
    const result = await jobRepository.queryList(source, filter, query.page_size + 1 - found.length, startKey);
    const items = result.Items ?? [];
    const companies = await reachable.companies(principal, items.map((item) => String(item.companyId)));
    for (const item of items) if (companies.has(String(item.companyId))) found.push(item);
    lastRead = result.LastEvaluatedKey;
    startKey = result.LastEvaluatedKey;
    if (!startKey) {
      exhausted = true;
      break;
    }
  }
  const page = found.slice(0, query.page_size);
  let nextKey: Record<string, unknown> | undefined;
  if (found.length > query.page_size) nextKey = indexKeyOf(page.at(-1)!, source);
  else if (!exhausted) nextKey = lastRead; // the query budget ran out before the page was full
  return {
    data: page.map((item) => toJob(toJobRecord(item))),
    pagination: { next_cursor: nextKey ? await encodeCursor(nextKey, binding) : null, has_more: nextKey !== undefined },
  };
};
