import type { Page } from '../db/query-page';
import { grantedCompanies, grantedOrganizations, isAllowed, type EffectiveAccess } from '../identity/access-evaluator';
import { within } from '../identity/reach';
import type { Scope } from '../identity/scopes';
import { decodeCursor, encodeCursor, type CursorBinding } from '../platform/cursor';
import { companyListKeys } from './keys';
import { companyRepository, type CompanyRecord } from './repository';

/** A person's companies (USER and INTERACTIVE lists): read from the person's grants, never by scanning the firm. */

const deepest = (a: string, b: string): string | undefined => (within(a, b) ? a : within(b, a) ? b : undefined);

/**
 * The subtrees whose companies the person may hold the action on: each granted organization
 * within one of the person's organizations (and within `limit`, a per-user client's organization),
 * nested ones dropped.
 */
const grantedSubtrees = (access: EffectiveAccess, action: Scope | undefined, limit: string | null): string[] => {
  const paths = (ids: string[]) => ids.map((id) => access.organizationPaths[id]).filter((path): path is string => Boolean(path));
  const members = paths(access.memberships);
  const found = new Set<string>();
  for (const granted of paths(grantedOrganizations(access, action))) {
    for (const member of members) {
      const inner = deepest(granted, member);
      const bounded = inner && (limit ? deepest(inner, limit) : inner);
      if (bounded) found.add(bounded);
    }
  }
  return [...found].filter((path) => ![...found].some((other) => other !== path && within(path, other))).sort();
};

export const reachTargetOf = (company: CompanyRecord) => ({ organizationPath: company.organizationPath, companyId: company.id });

const sortKey = (company: CompanyRecord) => companyListKeys(company.rootOrganizationId, company.organizationPath, company.id).GSI1SK;

/**
 * A page of the live companies a person may act on with the action (undefined: any action), in
 * list-key order, optionally within an organization path. It reads the granted subtrees (a begins_with
 * Query each) and the granted single companies, never the firm's other companies.
 */
export const personCompanies = async (
  access: EffectiveAccess,
  action: Scope | undefined,
  limit: string | null,
  page: { pageSize: number; cursor?: string; binding: CursorBinding },
): Promise<Page<CompanyRecord>> => {
  const after = page.cursor ? String((await decodeCursor(page.cursor, page.binding)).after ?? '') : undefined;
  const admits = (company: CompanyRecord) =>
    !company.deletion && (!limit || within(company.organizationPath, limit)) && isAllowed(access, reachTargetOf(company), action) && (!after || sortKey(company) > after);
  const found: CompanyRecord[] = [];
  for (const path of grantedSubtrees(access, action, limit)) {
    let startKey: Record<string, unknown> | undefined;
    let taken = 0;
    do {
      const result = await companyRepository.subtreeAfter(path.split('/')[0]!, path, after, page.pageSize + 1, startKey);
      for (const company of result.companies) {
        if (!admits(company)) continue;
        found.push(company);
        taken++;
      }
      startKey = result.lastKey;
    } while (startKey && taken <= page.pageSize);
  }
  const singles = grantedCompanies(access, action).filter((id) => !found.some((company) => company.id === id));
  found.push(...(await companyRepository.many(singles)).filter(admits));
  const unique = [...new Map(found.map((company) => [company.id, company])).values()].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1));
  const data = unique.slice(0, page.pageSize);
  const more = unique.length > page.pageSize;
  return { data, pagination: { next_cursor: more ? await encodeCursor({ after: sortKey(data.at(-1)!) }, page.binding) : null, has_more: more } };
};
