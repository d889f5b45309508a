import { allScopes, type Scope } from './scopes';

/** One rule of an access policy document (the API's shape). */
export interface AccessRule {
  effect: 'allow' | 'deny';
  /** Scope names ("ledger:read") or "<resource>:*" ("ledger:*"). */
  actions: string[];
  /** Organization subtrees (by id) and single companies the rule covers. */
  resources: { organizations?: string[]; companies?: string[] };
}

/** A rule as materialized in a person's effective access: where it came from. */
export interface GrantedRule extends AccessRule {
  policyId: string;
  policyName: string;
  /** 0-based index into the policy's rules. */
  ruleIndex: number;
}

/** What the evaluator decides on: the person's organizations and the rules of their assigned policies. */
export interface EffectiveAccess {
  userId: string;
  /** Organizations the person is a member of: only companies within their subtrees can be allowed. */
  memberships: string[];
  /** The person's assignments: kept here, read consistently, so a recomputation never misses one. */
  assignments: { id: string; policyId: string }[];
  rules: GrantedRule[];
  /** Paths of the organizations the rules and memberships name (paths never change): lists query these subtrees. */
  organizationPaths: Record<string, string>;
  /** Bumped on every recomputation (optimistic concurrency of recomputations). */
  revision: number;
  computedAt: string;
}

/** What a decision is about: where a company (or an organization, companyId null) sits in the tree. */
export interface AccessTarget {
  organizationPath: string;
  companyId: string | null;
}

export type AccessDecision =
  | { decision: 'allow'; reason: 'allow_rule'; rule: GrantedRule }
  | { decision: 'deny'; reason: 'deny_rule'; rule: GrantedRule }
  | { decision: 'deny'; reason: 'no_matching_rule' | 'not_a_member' };

/** No access at all: a person without effective access (none computed yet, or deleted) holds nothing. */
export const noAccess = (userId: string): EffectiveAccess => ({ userId, memberships: [], assignments: [], rules: [], organizationPaths: {}, revision: 0, computedAt: '' });

export const actionMatches = (pattern: string, action: string): boolean =>
  pattern === action || (pattern.endsWith(':*') && action.startsWith(pattern.slice(0, -1)));

const ruleCovers = (rule: AccessRule, segments: readonly string[], companyId: string | null): boolean =>
  (rule.resources.organizations ?? []).some((id) => segments.includes(id)) || (companyId !== null && (rule.resources.companies ?? []).includes(companyId));

/**
 * The decision for one action on one target: only within the person's organizations; a matching
 * deny wins over any allow; nothing matching is a deny. Organizations match by id among the
 * target's ancestors, so the tree growing changes nothing here.
 */
export const decide = (access: EffectiveAccess, target: AccessTarget, action: string): AccessDecision => {
  const segments = target.organizationPath.split('/');
  if (!access.memberships.some((id) => segments.includes(id))) return { decision: 'deny', reason: 'not_a_member' };
  let allow: GrantedRule | undefined;
  for (const rule of access.rules) {
    if (!rule.actions.some((pattern) => actionMatches(pattern, action)) || !ruleCovers(rule, segments, target.companyId)) continue;
    if (rule.effect === 'deny') return { decision: 'deny', reason: 'deny_rule', rule };
    allow ??= rule;
  }
  return allow ? { decision: 'allow', reason: 'allow_rule', rule: allow } : { decision: 'deny', reason: 'no_matching_rule' };
};

/** The actions (scopes) the person holds on a target, in scope order. */
export const allowedActions = (access: EffectiveAccess, target: AccessTarget): Scope[] =>
  allScopes.filter((scope) => decide(access, target, scope).decision === 'allow');

/** May the person act on the target: with this action, or (action undefined) with any action at all. */
export const isAllowed = (access: EffectiveAccess, target: AccessTarget, action: Scope | undefined): boolean =>
  action ? decide(access, target, action).decision === 'allow' : allowedActions(access, target).length > 0;

/** The organizations whose subtrees can hold companies the person may act on with the action (undefined: any). */
export const grantedOrganizations = (access: EffectiveAccess, action: Scope | undefined): string[] =>
  [...new Set(access.rules.filter((rule) => rule.effect === 'allow' && (!action || rule.actions.some((p) => actionMatches(p, action)))).flatMap((rule) => rule.resources.organizations ?? []))];

export const grantedCompanies = (access: EffectiveAccess, action: Scope | undefined): string[] =>
  [...new Set(access.rules.filter((rule) => rule.effect === 'allow' && (!action || rule.actions.some((p) => actionMatches(p, action)))).flatMap((rule) => rule.resources.companies ?? []))];
