import { lazySchema } from '../platform/lazy-schema';
import { clip } from '../platform/text';
import { actionMatches } from './access-evaluator';
import { allScopes, interactiveScopes, systemOnlyScopes, type Scope } from './scopes';
import { identifier, limits, pageOf, PageQuerySchema, text, textOut, TimestampSchema, UuidSchema } from '../platform/schemas';
import * as z from '../platform/zod';

const instant = TimestampSchema;
const exampleOrganization = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const exampleCompany = '3f2b8c1e-5d4a-4e7b-9c0d-1a2b3c4d5e6f';

/**
 * The scopes a policy may grant: what a person can hold (spec, Authentication 5 and 6). Users,
 * access management, webhooks and imports are for system clients only, so no policy grants them.
 */
export const policyScopes = interactiveScopes;
/** "resource:*" for every resource of the grantable scopes ("ledger:*", "companies:*"; not "imports:*"). */
export const actionWildcards = [...new Set(policyScopes.map((scope) => `${scope.split(':')[0]}:*`))];
export const policyActions = [...policyScopes, ...actionWildcards] as const;

/** The message of an action a policy cannot grant, naming it. */
const refusedAction = (input: unknown): string =>
  typeof input === 'string' && systemOnlyScopes.some((scope) => actionMatches(input, scope))
    ? `${JSON.stringify(input)} is for system clients only: a policy cannot grant it`
    : `${clip(JSON.stringify(input) ?? String(input), limits.code)} is not an action: a scope name or "resource:*"`;

/** Rules of one policy. */
const maxRules = 50;
/** Organizations and companies one policy names in all its rules (its item, and each holder's access, stay well below DynamoDB's 400 KB). */
export const maxPolicyResources = 2000;
const policyDescriptionLength = 2000;

export const PolicyRuleSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    effect: z.enum(['allow', 'deny']).openapi({ description: 'deny wins over any allow that matches the same company and action' }),
    actions: z
      .array(z.enum(policyActions as unknown as [string, ...string[]], { error: (issue) => (issue.input === undefined ? undefined : refusedAction(issue.input)) }))
      .min(1)
      .max(30)
      .openapi({
        description: `Scope names, or "resource:*" for every action of a resource. Only what a person can hold: ${systemOnlyScopes.join(', ')} (and their "resource:*") are for system clients only and answer 400 validation_failed naming the action`,
        example: ['ledger:read', 'bank:*'],
      }),
    resources: z
      .strictObject({
        organizations: z.array(UuidSchema).max(100).optional().openapi({ description: 'Organizations: each covers its whole subtree, companies added later included', example: [exampleOrganization] }),
        companies: z.array(UuidSchema).max(500).optional().openapi({ description: 'Single companies', example: [exampleCompany] }),
      })
      .refine((resources) => (resources.organizations?.length ?? 0) + (resources.companies?.length ?? 0) > 0, { message: 'A rule names at least one organization or company' })
      .openapi({ description: 'Inside the subtree of the organization that owns the policy (else 422 resource_outside_organization)' }),
  })
  .openapi('PolicyRule', { description: 'One rule of an access policy: allow or deny actions on organizations (subtrees) and companies' }));

export const PolicyDocumentSchema = /* @__PURE__ */ lazySchema(() => z.strictObject({
  name: text({ max: limits.name }).openapi({ example: 'Accountant: full access to two clients' }).openapi({ description: 'Name of the policy' }).openapi({ description: 'Name of the policy' }),
  description: text({ max: policyDescriptionLength, multiline: true, blank: true }).default('').openapi({ example: 'Bookkeeping of Bakeriet Solsiden and Havbris Fiskeri' }),
  rules: z
    .array(PolicyRuleSchema)
    .min(1)
    .max(maxRules)
    .refine((rules) => rules.reduce((count, rule) => count + (rule.resources.organizations?.length ?? 0) + (rule.resources.companies?.length ?? 0), 0) <= maxPolicyResources, {
      message: `The rules name at most ${maxPolicyResources} organizations and companies in all`,
    })
    .openapi({ description: `The rules (1 to 50); a deny wins over any allow. At most ${maxPolicyResources} organizations and companies in all.` }),
}));

export const CreatePolicySchema = /* @__PURE__ */ lazySchema(() => PolicyDocumentSchema.extend({
  organizationId: UuidSchema.optional().openapi({ description: 'The organization that owns the policy (default: your client\'s); within your reach' }),
}).openapi('CreatePolicy', { description: 'A new access policy' }));

export const ReplacePolicySchema = /* @__PURE__ */ lazySchema(() => PolicyDocumentSchema.openapi('ReplacePolicy', { description: 'The new document of an access policy (replaces name, description and rules)' }));

export const PolicySchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    id: UuidSchema,
    organizationId: UuidSchema.openapi({ description: 'The organization that owns the policy; its rules stay inside its subtree' }),
    name: textOut(limits.name).openapi({ description: 'Name of the policy' }),
    description: textOut(policyDescriptionLength),
    rules: z.array(PolicyRuleSchema).max(maxRules).openapi({ description: 'The rules; a deny wins over any allow' }),
    version: z.number().int().min(1).max(limits.count).openapi({ description: 'Starts at 1, +1 on every replacement; send it in If-Match to replace the policy', example: 1 }),
    recomputationPending: z.boolean().openapi({
      description:
        'True while the effective access of some people the policy is assigned to is not yet recomputed after a replacement that answered 503 recomputation_incomplete (they still hold the previous version): send the same PUT again (the same If-Match and document) to finish it',
      example: false,
    }),
    createdAt: instant,
    updatedAt: instant,
  })
  .openapi('Policy', { description: 'An access policy: named rules owned by an organization, versioned' }));

export const PolicyPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(PolicySchema, 'PolicyPage'));

export const CreateAssignmentSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({ policyId: UuidSchema.openapi({ description: 'The policy to assign (UUID), within your reach' }), userId: UuidSchema.openapi({ description: 'The person (UUID), within your reach' }) })
  .openapi('CreateAssignment', { description: 'Assign a policy to a person' }));

export const AssignmentSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    id: UuidSchema,
    policyId: UuidSchema.openapi({ description: 'The policy (UUID)' }),
    userId: UuidSchema.openapi({ description: 'The person (UUID)' }),
    organizationId: UuidSchema.openapi({ description: 'The organization that owns the policy' }),
    createdAt: instant,
    createdBy: textOut(limits.serviceId).openapi({ description: 'The client that made the assignment' }),
  })
  .openapi('Assignment', { description: 'A policy assigned to a person' }));

export const AssignmentPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(AssignmentSchema, 'AssignmentPage'));

export const AssignmentListQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject({
  user_id: UuidSchema.optional().openapi({ description: 'Only the assignments of this person' }),
  policy_id: UuidSchema.optional().openapi({ description: 'Only the assignments of this policy' }),
  ...PageQuerySchema.shape,
}));

export const MembershipSchema = /* @__PURE__ */ lazySchema(() => z.object({ organizationId: UuidSchema.openapi({ description: 'The organization (UUID)' }), createdAt: instant }).openapi('Membership', { description: 'A membership of the person in an organization' }));

export const UserSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    id: UuidSchema,
    email: textOut(limits.email).openapi({ example: 'kari.nordmann@nordlys.example' }).openapi({ description: 'E-mail address (unique, lower case); the login name' }),
    name: textOut(limits.name).openapi({ example: 'Kari Nordmann' }).openapi({ description: 'Display name' }),
    status: z.enum(['active']),
    createdAt: instant,
    memberships: z.array(MembershipSchema).openapi({ description: 'The organizations the person is a member of (within your reach)' }),
  })
  .openapi('User', { description: 'A person of the firm: signs in interactively and may own per-user API clients' }));

export const UserPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(UserSchema, 'UserPage', null));

export const UserListQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject({
  organization_id: UuidSchema.optional().openapi({ description: 'Only members of this organization (not of its descendants)' }),
  email: identifier({ max: limits.email })
    .optional()
    .openapi({ description: 'Only the person with this e-mail address (case-insensitive)' }),
}));

export const UserAccessSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    companyId: UuidSchema,
    actions: z.array(z.enum(policyScopes as unknown as [Scope, ...Scope[]])).max(policyScopes.length).openapi({ description: 'The scopes the person holds on the company (never a system-only scope)', example: ['companies:read', 'ledger:read'] }),
  })
  .openapi('UserAccess', { description: 'What the person holds on one company' }));

export const UserAccessPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(UserAccessSchema, 'UserAccessPage'));

export const UserAccessQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject({
  company_id: UuidSchema.optional().openapi({ description: 'Only this company (an empty page when the person holds nothing on it)' }),
  ...PageQuerySchema.shape,
}));

export const ExplainQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject({
  company_id: UuidSchema.openapi({ description: 'The company asked about', example: exampleCompany }),
  action: z.enum(allScopes).openapi({ description: 'The action (a scope name) asked about', example: 'ledger:read' }),
}));

export const AccessExplanationSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    userId: UuidSchema.openapi({ description: 'The person (UUID)' }),
    companyId: UuidSchema,
    action: z.enum(allScopes).openapi({ description: 'The action asked about' }),
    decision: z.enum(['allow', 'deny']).openapi({ description: 'allow or deny (deny wins; no matching rule denies)' }),
    reason: z.enum(['allow_rule', 'deny_rule', 'no_matching_rule', 'not_a_member']).openapi({
      description:
        'allow_rule / deny_rule: the rule named decided (a deny wins over any allow); no_matching_rule: no rule of the person\'s policies covers the company and action; not_a_member: the company lies outside every organization the person is a member of',
    }),
    policy: z.object({ id: UuidSchema, name: textOut(limits.name).openapi({ description: 'Name of the policy' }) }).nullable().openapi({ description: 'The policy of the deciding rule; null when no rule decided' }),
    ruleIndex: z.number().int().min(0).max(maxRules - 1).openapi({ description: '0-based index of the deciding rule in the policy\'s rules' }).nullable(),
    rule: PolicyRuleSchema.nullable(),
  })
  .openapi('AccessExplanation', { description: 'The decision for one company and action, and what decided it' }));

export type PolicyDocument = z.infer<typeof PolicyDocumentSchema>;
export type CreatePolicyInput = z.infer<typeof CreatePolicySchema>;
export type Policy = z.infer<typeof PolicySchema>;
export type Assignment = z.infer<typeof AssignmentSchema>;
export type User = z.infer<typeof UserSchema>;

export const DeletedSchema = /* @__PURE__ */ lazySchema(() => z.object({ id: UuidSchema, deleted: z.literal(true) }).openapi('Deleted', { description: 'What was deleted' }));
