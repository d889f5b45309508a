import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowedActions, decide, type EffectiveAccess, type GrantedRule } from '../../shared/identity/access-evaluator';
import { actionWildcards } from '../../shared/identity/access-schemas';
import { allScopes } from '../../shared/identity/scopes';

/**
 * The evaluator against a reference written the other way round: expand every rule into the set
 * of (company, action) pairs it covers (organizations by path prefix, wildcards by resource name),
 * then allowed = member and allowed by some rule and denied by none.
 */
const organizations = { r: 'r', x: 'r/x', y: 'r/x/y', z: 'r/z', q: 'q' } as const;
type OrganizationId = keyof typeof organizations;
const companies = [
  { id: 'c-r', path: 'r' },
  { id: 'c-x', path: 'r/x' },
  { id: 'c-y', path: 'r/x/y' },
  { id: 'c-y2', path: 'r/x/y' },
  { id: 'c-z', path: 'r/z' },
  { id: 'c-q', path: 'q' },
];
const organizationIds = Object.keys(organizations) as OrganizationId[];

const rule = fc.record({
  effect: fc.constantFrom('allow' as const, 'deny' as const),
  actions: fc.uniqueArray(fc.constantFrom(...allScopes, ...actionWildcards), { minLength: 1, maxLength: 4 }),
  resources: fc.record(
    { organizations: fc.uniqueArray(fc.constantFrom(...organizationIds), { maxLength: 3 }), companies: fc.uniqueArray(fc.constantFrom(...companies.map((c) => c.id)), { maxLength: 3 }) },
    { requiredKeys: [] },
  ),
});

const within = (path: string, ancestor: string) => path === ancestor || path.startsWith(`${ancestor}/`);
const matchesAction = (pattern: string, action: string) => pattern === action || (pattern.endsWith(':*') && pattern.split(':')[0] === action.split(':')[0]);

const reference = (rules: GrantedRule[], memberships: OrganizationId[]) => {
  const pairs = (effect: 'allow' | 'deny') =>
    new Set(
      rules
        .filter((r) => r.effect === effect)
        .flatMap((r) =>
          companies
            .filter((c) => (r.resources.companies ?? []).includes(c.id) || (r.resources.organizations ?? []).some((o) => within(c.path, organizations[o as OrganizationId])))
            .flatMap((c) => allScopes.filter((a) => r.actions.some((p) => matchesAction(p, a))).map((a) => `${c.id} ${a}`)),
        ),
    );
  const allow = pairs('allow');
  const deny = pairs('deny');
  return (company: (typeof companies)[number], action: string) =>
    memberships.some((m) => within(company.path, organizations[m])) && allow.has(`${company.id} ${action}`) && !deny.has(`${company.id} ${action}`);
};

describe('access evaluator (property)', () => {
  it('agrees with the reference on every company and action; the deciding rule matches', () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 6 }), fc.uniqueArray(fc.constantFrom(...organizationIds), { maxLength: 3 }), (rules, memberships) => {
        const granted: GrantedRule[] = rules.map((r, ruleIndex) => ({ ...r, policyId: 'p', policyName: 'P', ruleIndex }));
        const access: EffectiveAccess = { userId: 'u', memberships, assignments: [], rules: granted, organizationPaths: { ...organizations }, revision: 1, computedAt: '' };
        const expected = reference(granted, memberships);
        for (const company of companies) {
          const target = { organizationPath: company.path, companyId: company.id };
          for (const action of allScopes) {
            const decision = decide(access, target, action);
            expect(decision.decision === 'allow').toBe(expected(company, action));
            if ('rule' in decision) expect(decision.rule.effect).toBe(decision.decision);
          }
          expect(allowedActions(access, target)).toEqual(allScopes.filter((action) => expected(company, action)));
        }
      }),
      { numRuns: 300 },
    );
  });
});
