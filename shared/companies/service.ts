import { randomUUID } from 'node:crypto';
import type { Page } from '../db/query-page';
import { ConditionsFailed, unitOfWork, type TransactionWrite } from '../db/unit-of-work';
import { outboxEventWrite, type EventType } from '../outbox/repository';
import { organizationRepository, type Organization } from '../identity/organization-repository';
import { cursorCaller, type Principal } from '../identity/principal';
import type { ReachingPrincipal } from '../identity/reach';
import { noAccess } from '../identity/access-evaluator';
import { personCompanies } from './person-companies';
import { reachable } from './reachable';
import { problems } from '../platform/problem';
import { companyRepository, type CompanyDeletionRecord, type CompanyRecord } from './repository';
import type { Company, CompanyDeletion, CompanyStatus, CreateCompanyInput, UpdateCompanyInput } from './schemas';
import { defaultVatFrequency } from './values';

/** Company rules: reach, the status state table, soft delete and restore (spec: States and transitions). */
export const toCompany = (record: CompanyRecord): Company => ({
  id: record.id,
  name: record.name,
  status: record.status,
  organizationId: record.organizationId,
  organizationNumber: record.organizationNumber,
  accountingSystem: record.accountingSystem,
  vatFrequency: record.vatFrequency,
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
});

const toDeletion = (record: CompanyRecord): CompanyDeletion => ({
  id: record.id,
  deleted: true,
  deletedAt: record.deletion!.deletedAt,
  cause: record.deletion!.cause,
  reason: record.deletion!.reason,
});

const notFound = () => problems.notFound('company');

/**
 * Commits a company change together with its event in the outbox (one transaction); false when
 * the change's condition did not hold (the company is gone, or a concurrent change won).
 */
const commitWithEvent = async (
  change: TransactionWrite,
  type: Extract<EventType, `company.${string}`>,
  companyId: string,
  at: string,
  checks: Record<string, TransactionWrite> = {},
): Promise<boolean> => {
  try {
    const work = unitOfWork().add('company', change).add('event', outboxEventWrite(type, companyId, { companyId }, at));
    for (const [name, check] of Object.entries(checks)) work.add(name, check);
    await work.commit();
    return true;
  } catch (error) {
    if (error instanceof ConditionsFailed && error.names.includes('company')) return false;
    throw error;
  }
};

/** Companies of an organization; a deleted company "is not visible and answers 404" (the runner's reach step resolves it). */
export const getCompany = (company: CompanyRecord): Company => toCompany(company);

export const listCompanies = async (
  principal: Principal,
  page: { pageSize: number; cursor?: string },
): Promise<Page<Company>> => {
  if (principal.mode !== 'SYSTEM') {
    // A person's companies: the granted subtrees and companies, never a scan of the firm's.
    const access = (principal as ReachingPrincipal).access ?? noAccess(principal.userId ?? '');
    const result = await personCompanies(access, 'companies:read', principal.mode === 'USER' ? principal.organizationPath ?? '-' : null, {
      ...page,
      binding: { ...cursorCaller(principal, 'listCompanies'), filters: {} },
    });
    return { ...result, data: result.data.map(toCompany) };
  }
  if (!principal.organizationPath || !principal.organizationId) {
    return { data: [], pagination: { next_cursor: null, has_more: false } };
  }
  const rootId = principal.organizationPath.split('/')[0]!;
  const result = await companyRepository.listSubtree(rootId, principal.organizationPath, {
    ...page,
    binding: { ...cursorCaller(principal, 'listCompanies'), filters: {} },
  });
  return { ...result, data: result.data.map(toCompany) };
};

export const createCompany = async (principal: Principal, input: CreateCompanyInput): Promise<Company> => {
  const organizationId = input.organizationId ?? principal.organizationId;
  const organization = organizationId ? await reachable.organization(principal, organizationId, 'companies:write') : undefined;
  if (!organization) throw problems.notFound('organization');
  const now = new Date().toISOString();
  const record: CompanyRecord = {
    id: randomUUID(),
    name: input.displayName,
    status: 'active',
    organizationId: organization.id,
    organizationPath: organization.path,
    rootOrganizationId: organization.rootId,
    organizationNumber: input.organizationNumber ?? null,
    accountingSystem: input.accountingSystem,
    vatFrequency: input.vatFrequency ?? defaultVatFrequency,
    createdAt: now,
    updatedAt: now,
  };
  // The organization may be deleted meanwhile: its deletion marks it first, then deletes the
  // companies it lists, until it has listed as many as the organization counts.
  await commitWithEvent(companyRepository.createWrite(record), 'company.created', record.id, now, { organization: organizationRepository.companiesListedWrite(organization.id, 1) }).catch((error: unknown) => {
    if (error instanceof ConditionsFailed && error.names.includes('organization')) throw problems.notFound('organization');
    throw error;
  });
  return toCompany(record);
};

export const updateCompany = async (current: CompanyRecord, patch: UpdateCompanyInput): Promise<Company> => {
  const companyId = current.id;
  const changes = {
    name: patch.displayName,
    organizationNumber: patch.organizationNumber,
    accountingSystem: patch.accountingSystem,
    vatFrequency: patch.vatFrequency,
  };
  if (Object.values(changes).every((value) => value === undefined)) return toCompany(current);
  const at = new Date().toISOString();
  if (!(await commitWithEvent(companyRepository.updateWrite(companyId, changes, at), 'company.updated', companyId, at))) throw notFound();
  const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  return toCompany({ ...current, ...defined, updatedAt: at });
};

/** disable/enable: idempotent, a company already in the target status is answered as it is. */
export const setCompanyStatus = async (current: CompanyRecord, status: CompanyStatus): Promise<Company> => {
  if (current.status === status) return toCompany(current);
  const at = new Date().toISOString();
  const type = status === 'disabled' ? 'company.disabled' : 'company.enabled';
  if (await commitWithEvent(companyRepository.statusWrite(current.id, current.status, status, at), type, current.id, at)) return toCompany({ ...current, status, updatedAt: at });
  // Another request changed it meanwhile (one event, one change): answer the company as it is now.
  const now = await companyRepository.get(current.id);
  if (!now || now.deletion) throw notFound();
  return toCompany(now);
};

/** Soft delete, idempotent: deleting a deleted company answers its existing deletion. */
export const deleteCompany = async (principal: Principal, current: CompanyRecord, reason: string | undefined): Promise<CompanyDeletion> => {
  const { company } = await markDeleted(current, { deletedAt: new Date().toISOString(), cause: 'direct', reason: reason ?? null, deletedBy: principal.clientId });
  return toDeletion(company);
};

/**
 * Marks the company deleted with the status it has when the deletion commits (a disable or enable
 * that commits first is what a restore brings back). `deleted` is false when another deletion won.
 */
const markDeleted = async (company: CompanyRecord, deletion: Omit<CompanyDeletionRecord, 'priorStatus'>): Promise<{ company: CompanyRecord & Required<Pick<CompanyRecord, 'deletion'>>; deleted: boolean }> => {
  let current = company;
  for (let attempt = 0; attempt < maxDeletionAttempts; attempt++) {
    if (current.deletion) return { company: { ...current, deletion: current.deletion }, deleted: false };
    const record: CompanyDeletionRecord = { ...deletion, priorStatus: current.status };
    const change = companyRepository.markDeletedWrite(current.id, record);
    if (await commitWithEvent(change, 'company.deleted', current.id, record.deletedAt, { organization: organizationRepository.companiesListedWrite(current.organizationId, -1) })) {
      return { company: { ...current, deletion: record }, deleted: true };
    }
    const now = await companyRepository.get(current.id); // deleted meanwhile, or its status changed
    if (!now) throw notFound();
    current = now;
  }
  throw problems.conflict('The company changed status while it was being deleted; send the request again.', { reason: 'concurrent_change' });
};
const maxDeletionAttempts = 5;

/**
 * Restore brings back the prior status. A company deleted by its organization's deletion cannot
 * be restored on its own: 409. Restoring a company that is not deleted answers it unchanged.
 */
export const restoreCompany = async (current: CompanyRecord): Promise<Company> => {
  if (!current.deletion) return toCompany(current);
  const deletedWithOrganization = () =>
    problems.conflict('The company was deleted together with its organization and cannot be restored on its own.', { reason: 'deleted_by_organization_cascade' });
  if (current.deletion.cause === 'organization_cascade') throw deletedWithOrganization();
  const at = new Date().toISOString();
  // Its organization may have been deleted after it (the cascade passes over deleted companies).
  const restored = await commitWithEvent(companyRepository.restoreWrite(current, at), 'company.restored', current.id, at, {
    organization: organizationRepository.companiesListedWrite(current.organizationId, 1),
  }).catch((error: unknown) => {
    if (error instanceof ConditionsFailed && error.names.includes('organization')) throw deletedWithOrganization();
    throw error;
  });
  if (restored) {
    const { deletion, ...rest } = current;
    return toCompany({ ...rest, status: deletion.priorStatus, updatedAt: at });
  }
  const winner = await companyRepository.get(current.id); // a concurrent restore won
  if (!winner || winner.deletion) throw notFound();
  return toCompany(winner);
};

/** Part of deleting an organization: every live company of its subtree is deleted, marked as a cascade. */
export const deleteCompaniesOfOrganization = async (organization: Organization, deletedBy: string): Promise<number> => {
  const companies = await everyCompanyOf(organization);
  const deletedAt = new Date().toISOString();
  let deleted = 0;
  for (const company of companies) {
    if ((await markDeleted(company, { deletedAt, cause: 'organization_cascade', reason: null, deletedBy })).deleted) deleted++;
  }
  return deleted;
};

/**
 * Every live company of the (deleted) organization's subtree: the company index is eventually
 * consistent, so it is read until it shows as many per organization as each counts.
 */
const everyCompanyOf = async (organization: Organization): Promise<CompanyRecord[]> => {
  const organizations = await organizationRepository.subtree(organization);
  const counted = await organizationRepository.companiesListed(organizations.map((member) => member.id));
  for (let attempt = 1; ; attempt++) {
    const companies = await companyRepository.allInSubtree(organization.rootId, organization.path);
    const listed = new Map<string, number>();
    for (const company of companies) listed.set(company.organizationId, (listed.get(company.organizationId) ?? 0) + 1);
    if ([...counted].every(([id, count]) => (listed.get(id) ?? 0) >= count)) return companies;
    if (attempt >= 50) throw new Error(`The company index does not show every company of organization ${organization.id} yet; run the deletion again`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};
