import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Page } from '../db/query-page';
import { inParallel } from '../db/batch';
import { backoff, commitWithRetry } from '../db/retry';
import { ConditionsFailed, unitOfWork, type TransactionWrite } from '../db/unit-of-work';
import { companyRepository, type CompanyRecord } from '../companies/repository';
import { reachable } from '../companies/reachable';
import { organizationRepository } from '../identity/organization-repository';
import { cursorCaller, type Principal } from '../identity/principal';
import { within } from '../identity/reach';
import { personCompanies, reachTargetOf as target } from '../companies/person-companies';
import type { Scope } from '../identity/scopes';
import { ProblemError, problems, type FieldError } from '../platform/problem';
import { logger } from '../platform/logger';
import { limits } from '../platform/schemas';
import { personRepository } from '../identity/person-repository';
import { allowedActions, decide, noAccess, type EffectiveAccess, type GrantedRule } from '../identity/access-evaluator';
import { accessRepository, accessWrites, type AssignmentRecord, type Placement, type PolicyRecord } from '../identity/access-repository';
import { policyActions, type Assignment, type CreatePolicyInput, type Policy, type PolicyDocument } from '../identity/access-schemas';

/**
 * Access policies, their assignments and each person's materialized effective access. Every
 * change that alters what a person may do rewrites that person's effective access in the same
 * transaction (a policy replaced while assigned to more people than one transaction holds: the
 * first ones in its transaction, the rest before the request answers), so a revocation is in
 * force for the person's very next request.
 */

/** Persons recomputed in the transaction of a policy replacement (DynamoDB: 100 writes a transaction). */
export const personsPerTransaction = 98;
/** Bytes of effective access in one such transaction (DynamoDB: 4 MB a transaction). */
const accessBytesPerTransaction = 3_000_000;
/** The most a person's effective access may take (DynamoDB: 400 KB an item). */
export const maxAccessBytes = 300_000;

const accessBytes = (access: EffectiveAccess): number => Buffer.byteLength(JSON.stringify(access));

/** The effective access to store, refused (409 access_too_large) when it would not fit in its item. */
export const storable = (access: EffectiveAccess): EffectiveAccess => {
  const bytes = accessBytes(access);
  if (bytes > maxAccessBytes) {
    throw problems.conflict(
      `The effective access of person ${access.userId} would take ${Math.ceil(bytes / 1000)} KB, over the ${maxAccessBytes / 1000} KB it may hold: assign fewer or smaller policies (or name organizations rather than their companies).`,
      { reason: 'access_too_large' },
    );
  }
  return access;
};

export interface AccessChange {
  addAssignment?: { id: string; policyId: string };
  removeAssignment?: string;
  /** A policy document about to be committed, used instead of the stored one. */
  policy?: PolicyRecord;
  /** The person's memberships after the change. */
  memberships?: string[];
}

/**
 * The person's effective access after a change, as the write that stores it over the revision it
 * was computed from (a concurrent recomputation makes the transaction fail; the caller retries).
 * Undefined when none is stored: the person is deleted (delete-user dropped it), nothing is written back.
 */
export const effectiveAccessWrite = async (userId: string, change: AccessChange = {}): Promise<TransactionWrite | undefined> => {
  const access = await recomputedAccess(userId, change);
  return access && accessWrites.putEffectiveAccess(storable(access));
};

/** The person's stored effective access recomputed after a change; undefined when none is stored (a deleted person). */
export const recomputedAccess = async (userId: string, change: AccessChange = {}): Promise<EffectiveAccess | undefined> => {
  const previous = await accessRepository.effectiveAccess(userId);
  return previous && accessAfter(userId, previous, change);
};

/** A new person's effective access (revision 1), or the stored one recomputed after a change. */
export const computeEffectiveAccess = async (userId: string, change: AccessChange = {}): Promise<EffectiveAccess> =>
  accessAfter(userId, await accessRepository.effectiveAccess(userId), change);

const accessAfter = async (userId: string, previous: EffectiveAccess | undefined, change: AccessChange): Promise<EffectiveAccess> => {
  let assignments = previous?.assignments ?? [];
  if (change.addAssignment) assignments = [...assignments, change.addAssignment];
  if (change.removeAssignment) assignments = assignments.filter((assignment) => assignment.id !== change.removeAssignment);
  const memberships = change.memberships ?? (await personRepository.memberships(userId)).map((membership) => membership.organizationId);
  const policyIds = [...new Set(assignments.map((assignment) => assignment.policyId))];
  const stored = await accessRepository.policies(policyIds.filter((id) => id !== change.policy?.id));
  const policies = new Map<string, { id: string; name: string; rules: PolicyDocument['rules'] }>(stored.map((policy) => [policy.id, policy]));
  if (change.policy && policyIds.includes(change.policy.id)) policies.set(change.policy.id, change.policy);
  const rules: GrantedRule[] = policyIds.flatMap((id) => {
    const policy = policies.get(id);
    return policy ? policy.rules.map((rule, ruleIndex) => ({ ...rule, policyId: policy.id, policyName: policy.name, ruleIndex })) : [];
  });
  const organizationIds = [...new Set([...memberships, ...rules.flatMap((rule) => rule.resources.organizations ?? [])])];
  const organizations = await organizationRepository.placements(organizationIds);
  return {
    userId,
    memberships,
    assignments,
    rules,
    organizationPaths: Object.fromEntries([...organizations.values()].map((organization) => [organization.id, organization.path])),
    revision: (previous?.revision ?? 0) + 1,
    computedAt: new Date().toISOString(),
  };
};

const placementOf = (principal: Principal): Placement => {
  const path = principal.organizationPath;
  if (!path) throw problems.notFound();
  return { rootOrganizationId: path.split('/')[0]!, organizationPath: path };
};


const versionMismatch = (detail: string) => new ProblemError({ status: 412, error: 'version_mismatch', title: 'Version mismatch', detail });

/**
 * Rules may only name organizations and companies inside the subtree of the organization that owns
 * the policy: 422 naming each offending rule and resource.
 */
const checkResources = async (owner: { path: string }, document: PolicyDocument): Promise<void> => {
  const errors: FieldError[] = [];
  const organizationIds = [...new Set(document.rules.flatMap((rule) => rule.resources.organizations ?? []))];
  const companyIds = [...new Set(document.rules.flatMap((rule) => rule.resources.companies ?? []))];
  const organizations = await organizationRepository.placements(organizationIds);
  const companies = new Map((await companyRepository.many(companyIds)).map((company) => [company.id, company]));
  document.rules.forEach((rule, index) => {
    (rule.resources.organizations ?? []).forEach((id, position) => {
      const organization = organizations.get(id);
      if (!organization || organization.status !== 'active' || !within(organization.path, owner.path)) {
        errors.push({ index, field: `rules[${index}].resources.organizations[${position}]`, message: `Organization ${id} is not inside the subtree of the organization that owns the policy` });
      }
    });
    (rule.resources.companies ?? []).forEach((id, position) => {
      const company = companies.get(id);
      if (!company || company.deletion || !within(company.organizationPath, owner.path)) {
        errors.push({ index, field: `rules[${index}].resources.companies[${position}]`, message: `Company ${id} is not inside the subtree of the organization that owns the policy` });
      }
    });
  });
  if (errors.length) {
    const first = errors[0]!;
    throw new ProblemError({
      status: 422,
      error: 'resource_outside_organization',
      title: 'Resource outside the organization',
      detail: `Rule ${first.index} names a resource outside the subtree of the organization that owns the policy (${first.field}).`,
      errors: errors.slice(0, 100),
    });
  }
};

/**
 * The policy as answered. An action no policy can grant (a policy stored before that rule) is left
 * out, and so a rule left without actions: they were never held.
 */
export const toPolicy = ({ rootOrganizationId: _root, organizationPath: _path, assignmentCount: _count, recomputePending, ...policy }: PolicyRecord): Policy => ({
  ...policy,
  recomputationPending: recomputePending === true,
  rules: policy.rules.map((rule) => ({ ...rule, actions: grantableOf(rule.actions) })).filter((rule) => rule.actions.length > 0),
});
/** What a policy can grant; a system-only action a policy stored before that rule names is never held. */
const grantableActions = new Set<string>(policyActions);
const grantableOf = (actions: readonly string[]) => actions.filter((action) => grantableActions.has(action));
/** A stored rule's index among the rules toPolicy answers (those left with an action). */
const answeredRuleIndex = (rules: PolicyRecord['rules'], storedIndex: number): number => rules.slice(0, storedIndex).filter((rule) => grantableOf(rule.actions).length > 0).length;
export const toAssignment = ({ rootOrganizationId: _root, organizationPath: _path, ...assignment }: AssignmentRecord): Assignment => assignment;

export const createPolicy = async (principal: Principal, input: CreatePolicyInput): Promise<Policy> => {
  const organizationId = input.organizationId ?? principal.organizationId;
  const organization = organizationId ? await reachable.organization(principal, organizationId) : undefined;
  if (!organization) throw problems.notFound('organization');
  const { organizationId: _owner, ...document } = input;
  await checkResources(organization, document);
  const now = new Date().toISOString();
  const record: PolicyRecord = {
    id: randomUUID(),
    organizationId: organization.id,
    ...document,
    version: 1,
    createdAt: now,
    updatedAt: now,
    rootOrganizationId: organization.rootId,
    organizationPath: organization.path,
    assignmentCount: 0,
  };
  await unitOfWork().add('policy', accessWrites.putPolicy(record, null)).commit();
  return toPolicy(record);
};

/** The version an If-Match header names: `3`, `"3"` or `W/"3"`. */
export const parseIfMatch = (header: string | undefined): number | undefined => {
  const match = /^(?:W\/)?"?(\d{1,9})"?$/.exec(header?.trim() ?? '');
  return match ? Number(match[1]) : undefined;
};

/** Persons whose effective access is computed or recomputed at once while a policy is replaced. */
const recomputeInFlight = 8;

/**
 * Replaces a policy's document (If-Match: its current version) and recomputes the effective
 * access of everyone it is assigned to: the first ones in the policy's own transaction, the rest
 * right after it. If any of the rest could not be recomputed, the policy stays marked
 * `recomputePending` and the answer is 503 `recomputation_incomplete`: the same request again (same
 * If-Match and document) finishes the recomputation instead of answering 412.
 */
export const replacePolicy = async (current: PolicyRecord, ifMatch: string | undefined, document: PolicyDocument): Promise<Policy> => {
  const expected = parseIfMatch(ifMatch);
  if (expected === undefined) throw new ProblemError({ status: 428, error: 'precondition_required', title: 'Precondition required', detail: `Send If-Match with the policy's current version (${current.version}) to replace it.` });
  await checkResources({ path: current.organizationPath }, document);
  const stored = await accessRepository.policy(current.id);
  if (stored?.recomputePending && stored.version === expected + 1 && sameDocument(stored, document)) {
    return finishRecomputation(stored, [...new Set((await assignmentsToRecompute(stored)).map((assignment) => assignment.userId))]);
  }
  let replaced: PolicyRecord | undefined;
  let later: string[] = [];
  await commitWithRetry(
    async () => {
      const policy = await accessRepository.policy(current.id);
      if (!policy) throw problems.notFound('policy');
      if (policy.version !== expected) throw versionMismatch(`If-Match names version ${expected}; the policy is at version ${policy.version}.`);
      const assignments = await assignmentsToRecompute(policy);
      const next: PolicyRecord = { ...policy, ...document, version: policy.version + 1, updatedAt: new Date().toISOString() };
      delete next.recomputePending;
      const persons = [...new Set(assignments.map((assignment) => assignment.userId))];
      // Everyone's new access is computed (and its size checked) before anything is written; the
      // transaction takes as many as its item count and size allow, the rest follow it.
      // A person without a stored effective access is deleted (delete-user dropped it first): nothing to recompute.
      const accesses = (await inParallel(persons, recomputeInFlight, async (userId) => {
        const access = await recomputedAccess(userId, { policy: next });
        return access && storable(access);
      })).filter((access) => access !== undefined);
      let bytes = 0;
      let taken = 0;
      for (const access of accesses) {
        bytes += accessBytes(access);
        if (taken === personsPerTransaction || bytes > accessBytesPerTransaction) break;
        taken++;
      }
      later = accesses.slice(taken).map((access) => access.userId);
      replaced = later.length ? { ...next, recomputePending: true } : next;
      const work = unitOfWork().add('policy', accessWrites.putPolicy(replaced, policy.version));
      for (const access of accesses.slice(0, taken)) work.add(`access ${access.userId}`, accessWrites.putEffectiveAccess(access));
      return work;
    },
    () => undefined,
  );
  return later.length ? finishRecomputation(replaced!, later) : toPolicy(replaced!);
};

/** The same name, description and rules (a stored map's keys come back in any order). */
const sameDocument = (policy: PolicyRecord, document: PolicyDocument): boolean =>
  isDeepStrictEqual({ name: policy.name, description: policy.description, rules: policy.rules }, { name: document.name, description: document.description, rules: document.rules });

/** Recomputes these assignees of a replaced policy from what is stored, then clears its mark; 503 if any could not be. */
const finishRecomputation = async (policy: PolicyRecord, persons: readonly string[]): Promise<Policy> => {
  const recomputed = await inParallel(persons, recomputeInFlight, async (userId) => {
    try {
      await recompute(userId);
      return true;
    } catch (error) {
      logger.warn('Effective access not recomputed', { userId, policyId: policy.id, error });
      return false;
    }
  });
  const failed = recomputed.filter((done) => !done).length;
  if (failed > 0) {
    throw new ProblemError(
      {
        status: 503,
        error: 'recomputation_incomplete',
        title: 'Access not yet recomputed',
        detail: `The policy is stored as version ${policy.version}, but the effective access of ${failed} of the ${persons.length} people recomputed after its transaction could not be recomputed yet. Send the same request again (If-Match ${policy.version - 1}, the same document): it finishes the recomputation.`,
      },
      { 'Retry-After': '1' },
    );
  }
  try {
    await unitOfWork().add('policy', accessWrites.policyRecomputed(policy)).commit();
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error; // replaced again meanwhile: that replacement recomputes everyone
  }
  const { recomputePending: _done, ...settled } = policy;
  return toPolicy(settled);
};

/** Recomputes one person's effective access from what is stored now (nothing, for a deleted person: none is stored). */
export const recompute = async (userId: string, attempts = 5): Promise<void> => {
  for (let attempt = 1; ; attempt++) {
    const write = await effectiveAccessWrite(userId);
    if (!write) return;
    try {
      return await unitOfWork().add('access', write).commit();
    } catch (error) {
      if (!(error instanceof ConditionsFailed) || attempt >= attempts) throw error;
      await backoff(attempt);
    }
  }
};

/**
 * The policy's assignments, once they are as many as the policy counts; undefined if not soon. The
 * index (GSI1) is eventually consistent: it may still list an assignment deleted and miss one just
 * made, the count matching all the same. So the rows it lists are read again from the table
 * (strongly consistent), those gone are dropped, and only as many as the count settle the list:
 * existing, distinct assignments as many as there are, so every one of them.
 */
const settledAssignments = async (policy: PolicyRecord): Promise<AssignmentRecord[] | undefined> => {
  for (let attempt = 0; attempt <= 20; attempt++) {
    const listed = await accessRepository.assignmentsOfPolicy(policy);
    if (listed.length >= policy.assignmentCount) {
      const current = (await accessRepository.assignments(listed.map((assignment) => assignment.id))).filter((assignment) => assignment.policyId === policy.id);
      if (current.length === policy.assignmentCount) return current;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
};

/** Every assignment of the policy, or 409 before anything is written: recomputing from a partial list would leave someone on the old rules. */
const assignmentsToRecompute = async (policy: PolicyRecord): Promise<AssignmentRecord[]> => {
  const assignments = await settledAssignments(policy);
  if (!assignments) throw problems.conflict("The policy's assignments are changing; send the request again.");
  return assignments;
};

export const deletePolicy = async (policy: PolicyRecord): Promise<void> => {
  if (policy.assignmentCount > 0) {
    const assignments = (await settledAssignments(policy)) ?? (await accessRepository.assignmentsOfPolicy(policy));
    throw new ProblemError({
      status: 409,
      error: 'policy_in_use',
      title: 'Policy in use',
      detail: `The policy is assigned ${policy.assignmentCount} time${policy.assignmentCount === 1 ? '' : 's'}; delete its assignments first.`,
      inUse: assignments.slice(0, limits.inUse).map((assignment) => ({ id: assignment.id, userId: assignment.userId })),
    });
  }
  try {
    await unitOfWork().add('policy', accessWrites.deletePolicy(policy)).commit();
  } catch (error) {
    if (error instanceof ConditionsFailed) throw problems.conflict('The policy changed or was assigned meanwhile; read it again.');
    throw error;
  }
};

/**
 * An organization cascade: every policy owned at this path or below goes, its assignments first
 * (each person's effective access recomputed with it, as DELETE of the assignment does).
 */
export const deletePoliciesInSubtree = async (placement: Placement): Promise<number> => {
  let deleted = 0;
  for (const policy of await accessRepository.policiesInSubtree(placement)) {
    for (const assignment of (await settledAssignments(policy)) ?? (await accessRepository.assignmentsOfPolicy(policy))) {
      try {
        await deleteAssignment(assignment);
      } catch (error) {
        if (!(error instanceof ProblemError && error.problem.status === 404)) throw error; // deleted meanwhile
      }
    }
    const current = await accessRepository.policy(policy.id);
    if (!current) continue;
    try {
      await unitOfWork().add('policy', accessWrites.deletePolicy(current)).commit();
    } catch (error) {
      if (error instanceof ConditionsFailed) throw new Error(`Policy ${policy.id} was changed or assigned meanwhile; run the deletion again`);
      throw error;
    }
    deleted++;
  }
  return deleted;
};

/** The ids among these whose organization is active (a deleted organization's policies are gone, as its companies are). */
const activeOrganizations = async (organizationIds: readonly string[]): Promise<Set<string>> => {
  const organizations = await organizationRepository.placements([...new Set(organizationIds)]);
  return new Set([...organizations.values()].filter((organization) => organization.status === 'active').map((organization) => organization.id));
};

/** A policy within reach whose owning organization is not deleted; undefined answers 404. */
export const reachablePolicy = async (principal: Principal, policyId: string): Promise<PolicyRecord | undefined> => {
  const policy = reachable.placed(principal, await accessRepository.policy(policyId));
  return policy && (await activeOrganizations([policy.organizationId])).has(policy.organizationId) ? policy : undefined;
};

/** A page of the policies within reach; those of deleted organizations are left out (the page may be short). */
export const listPolicies = async (principal: Principal, page: { pageSize: number; cursor?: string }): Promise<Page<Policy>> => {
  const result = await accessRepository.listPolicies(placementOf(principal), { ...page, binding: { ...cursorCaller(principal, 'listAccessPolicies'), filters: {} } });
  const active = await activeOrganizations(result.data.map((policy) => policy.organizationId));
  return { ...result, data: result.data.filter((policy) => active.has(policy.organizationId)).map(toPolicy) };
};

/** A person is within a system client's reach when one of their organizations is (deleted organizations count for nothing). */
export const personWithinReach = async (principal: Principal, userId: string) => {
  const person = await personRepository.get(userId);
  if (!person || person.status !== 'active') return undefined;
  const memberships = await personRepository.memberships(userId);
  const organizations = await organizationRepository.placements(memberships.map((membership) => membership.organizationId));
  const reached = memberships.filter((membership) => {
    const organization = organizations.get(membership.organizationId);
    return organization?.status === 'active' && reachable.placed(principal, { organizationPath: organization.path });
  });
  return reached.length ? { person, memberships: reached } : undefined;
};

/** The transaction holds only while the person is active (a concurrent delete-user answers 404). */
export const createAssignment = async (principal: Principal, input: { policyId: string; userId: string }): Promise<Assignment> => {
  const policy = await reachablePolicy(principal, input.policyId);
  if (!policy) throw problems.notFound('policy');
  if (!(await personWithinReach(principal, input.userId))) throw problems.notFound('user');
  const assignment: AssignmentRecord = {
    id: randomUUID(),
    policyId: policy.id,
    userId: input.userId,
    organizationId: policy.organizationId,
    createdAt: new Date().toISOString(),
    createdBy: principal.clientId,
    rootOrganizationId: policy.rootOrganizationId,
    organizationPath: policy.organizationPath,
  };
  await commitWithRetry(
    async () => {
      const current = await accessRepository.policy(policy.id);
      if (!current) throw problems.notFound('policy');
      const access = await computeEffectiveAccess(input.userId, { addAssignment: { id: assignment.id, policyId: policy.id } });
      if (access.assignments.filter((existing) => existing.policyId === policy.id).length > 1) {
        throw problems.conflict('The policy is already assigned to this person.', { reason: 'already_assigned' });
      }
      return unitOfWork()
        .add('assignment', accessWrites.putAssignment(assignment))
        .add('policy', accessWrites.countAssignment(current, 1))
        .add('access', accessWrites.putEffectiveAccess(storable(access)))
        .add('person', personRepository.activeCheck(input.userId));
    },
    (failed) => (failed.includes('person') ? problems.notFound('user') : undefined),
  );
  return toAssignment(assignment);
};

/** Revocation: the assignment goes and the person's effective access is recomputed in the same transaction. */
export const deleteAssignment = async (assignment: AssignmentRecord): Promise<void> => {
  await commitWithRetry(
    async () => {
      const policy = await accessRepository.policy(assignment.policyId);
      const access = await effectiveAccessWrite(assignment.userId, { removeAssignment: assignment.id });
      const work = unitOfWork().add('assignment', accessWrites.deleteAssignment(assignment));
      if (access) work.add('access', access); // none for a deleted person
      if (policy) work.add('policy', accessWrites.countAssignment(policy, -1));
      return work;
    },
    (failed) => (failed.includes('assignment') ? problems.notFound('assignment') : undefined),
  );
};

export const listAssignments = async (principal: Principal, query: { user_id?: string; policy_id?: string; page_size: number; cursor?: string }): Promise<Page<Assignment>> => {
  const filters = { ...(query.user_id && { userId: query.user_id }), ...(query.policy_id && { policyId: query.policy_id }) };
  const result = await accessRepository.listAssignments(placementOf(principal), filters, {
    pageSize: query.page_size,
    ...(query.cursor && { cursor: query.cursor }),
    binding: { ...cursorCaller(principal, 'listAccessAssignments'), filters: { user_id: query.user_id ?? null, policy_id: query.policy_id ?? null } },
  });
  return { ...result, data: result.data.map(toAssignment) };
};



/** GET /v1/users/{userId}/access: what the person holds, company by company, within the caller's reach. */
export const userAccess = async (
  principal: Principal,
  userId: string,
  query: { company_id?: string; page_size: number; cursor?: string },
): Promise<Page<{ companyId: string; actions: Scope[] }>> => {
  const access = (await accessRepository.effectiveAccess(userId)) ?? noAccess(userId);
  const entry = (company: CompanyRecord) => ({ companyId: company.id, actions: allowedActions(access, target(company)).filter((action) => grantableActions.has(action)) });
  if (query.company_id) {
    const company = await reachable.company(principal, query.company_id);
    const held = company ? entry(company) : undefined;
    return { data: held?.actions.length ? [held] : [], pagination: { next_cursor: null, has_more: false } };
  }
  const page = await personCompanies(access, undefined, principal.organizationPath, {
    pageSize: query.page_size,
    ...(query.cursor && { cursor: query.cursor }),
    binding: { ...cursorCaller(principal, 'getUserAccess'), filters: { userId } },
  });
  return { ...page, data: page.data.map(entry) };
};

/** GET /v1/users/{userId}/access/explain: the decision and the policy rule that made it. */
export const explainAccess = async (principal: Principal, userId: string, companyId: string, action: Scope) => {
  const company = await reachable.company(principal, companyId);
  if (!company) throw problems.notFound('company');
  const access = (await accessRepository.effectiveAccess(userId)) ?? noAccess(userId);
  const decision = grantableActions.has(action) ? decide(access, target(company), action) : ({ decision: 'deny', reason: 'no_matching_rule' } as const);
  const decidingRule = 'rule' in decision ? decision.rule : undefined;
  // The deciding policy is shown only where the caller could read it (GET /v1/access/policies/{id}).
  const policy = decidingRule && (await reachablePolicy(principal, decidingRule.policyId));
  const rule = policy ? decidingRule : undefined;
  // As GET of the policy answers it: its actions that a policy can grant, its index among the rules shown.
  return {
    userId,
    companyId,
    action,
    decision: decision.decision,
    reason: decision.reason,
    policy: rule ? { id: rule.policyId, name: rule.policyName } : null,
    ruleIndex: rule && policy ? answeredRuleIndex(policy.rules, rule.ruleIndex) : null,
    rule: rule ? { effect: rule.effect, actions: grantableOf(rule.actions), resources: rule.resources } : null,
  };
};
