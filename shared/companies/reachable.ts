import { organizationRepository, type Organization } from '../identity/organization-repository';
import { canReach, type ReachingPrincipal } from '../identity/reach';
import type { Scope } from '../identity/scopes';
import { companyRepository, type CompanyRecord } from './repository';

/**
 * The one entry services (and the runner's owner resolvers) find a resource within reach by: the
 * record when the principal reaches it with the action (canReach, shared/identity/reach.ts),
 * undefined when it is unknown, deleted or outside the reach (the caller answers 404, never 403).
 * `action` undefined: any action will do.
 */
export const reachable = {
  /** A live company (a deleted one too with `deleted: true`, for routes acting on deleted companies). */
  async company(principal: ReachingPrincipal, companyId: string, action?: Scope, options: { deleted?: boolean } = {}): Promise<CompanyRecord | undefined> {
    const company = await companyRepository.get(companyId);
    return reachableCompany(principal, company, action, options);
  },

  /** The live companies among these ids the principal reaches (one strongly consistent batch read), by id. */
  async companies(principal: ReachingPrincipal, companyIds: readonly string[], action?: Scope): Promise<Map<string, CompanyRecord>> {
    const companies = await companyRepository.many([...new Set(companyIds)]);
    return new Map(companies.filter((company) => reachableCompany(principal, company, action)).map((company) => [company.id, company]));
  },

  /** An active organization. */
  async organization(principal: ReachingPrincipal, organizationId: string, action?: Scope): Promise<Organization | undefined> {
    const organization = await organizationRepository.get(organizationId);
    if (!organization || organization.status !== 'active') return undefined;
    return canReach(principal, { organizationPath: organization.path, companyId: null }, action) ? organization : undefined;
  },

  /** A record that sits in an organization (a policy, an assignment, a subscription, a membership's organization). */
  placed<T extends { organizationPath: string }>(principal: ReachingPrincipal, record: T | undefined, action?: Scope): T | undefined {
    return record && canReach(principal, { organizationPath: record.organizationPath, companyId: null }, action) ? record : undefined;
  },
};

const reachableCompany = (principal: ReachingPrincipal, company: CompanyRecord | undefined, action: Scope | undefined, options: { deleted?: boolean } = {}) => {
  if (!company || (company.deletion && !options.deleted)) return undefined;
  return canReach(principal, { organizationPath: company.organizationPath, companyId: company.id }, action) ? company : undefined;
};
