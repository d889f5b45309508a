import { companyRepository } from '../companies/repository';
import type { Principal } from '../identity/principal';
import { isWithinReach } from '../identity/reach';
import { problems } from '../platform/problem';
import { jobRepository } from './repository';
import type { Job } from './schemas';

/** A job is visible where its company is: within the caller's reach, company not deleted. */
export const getJob = async (principal: Principal, jobId: string): Promise<Job> => {
  const job = await jobRepository.get(jobId);
  const company = job ? await companyRepository.get(job.companyId) : undefined;
  if (!job || !company || company.deletion || !isWithinReach(principal, company.organizationPath)) throw problems.notFound('job');
  const { companyId: _companyId, ...visible } = job;
  return visible;
};
