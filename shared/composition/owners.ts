import { companyRepository, type CompanyRecord } from '../companies/repository';
import { canReach } from '../identity/reach';
import { jobRepository, type JobRecord } from '../jobs/repository';
import type { OwnerResolvers } from '../api/runner';

/**
 * What each owned path parameter names and how it is found, for the runner's reach step. Adding an
 * owned resource (documents, subscriptions, policies) is one entry here; what reach decides is
 * `canReach` (shared/identity/reach.ts).
 */
export const owners: OwnerResolvers = {
  companyId: {
    noun: 'company',
    resolve: async (id, principal, route): Promise<CompanyRecord | undefined> => {
      const company = await companyRepository.get(id);
      if (!company || (company.deletion && !route.ownerMayBeDeleted)) return undefined;
      return canReach(principal, { organizationPath: company.organizationPath, companyId: company.id }, route.scope) ? company : undefined;
    },
  },
  /** A job is visible where its company is: within reach, company not deleted. */
  jobId: {
    noun: 'job',
    resolve: async (id, principal, route): Promise<JobRecord | undefined> => {
      const job = await jobRepository.get(id);
      const company = job ? await companyRepository.get(job.companyId) : undefined;
      if (!job || !company || company.deletion) return undefined;
      return canReach(principal, { organizationPath: company.organizationPath, companyId: company.id }, route.scope) ? job : undefined;
    },
  },
};
