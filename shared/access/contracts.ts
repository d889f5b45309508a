import { lazySchema } from '../platform/lazy-schema';
import type { OperationContract } from '../api/operation';
import { UuidSchema } from '../platform/schemas';
import * as z from '../platform/zod';
import {
  AccessExplanationSchema,
  AssignmentListQuerySchema,
  AssignmentPageSchema,
  AssignmentSchema,
  CreateAssignmentSchema,
  CreatePolicySchema,
  DeletedSchema,
  ExplainQuerySchema,
  PolicyPageSchema,
  PolicySchema,
  ReplacePolicySchema,
  UserAccessPageSchema,
  UserAccessQuerySchema,
  UserListQuerySchema,
  UserPageSchema,
  UserSchema,
} from '../identity/access-schemas';
import { OnePageQuerySchema, PageQuerySchema } from '../platform/schemas';

const userParams = /* @__PURE__ */ lazySchema(() => z.object({ userId: UuidSchema }));
const policyParams = /* @__PURE__ */ lazySchema(() => z.object({ policyId: UuidSchema }));

export const userContracts = {
  listUsers: {
    description:
      'The people who are members of an organization of your subtree, with those memberships, sorted by e-mail, in **one page** (`next_cursor` always null: the spec counts users among the small bounded lists). Deleted organizations are not part of the subtree. Filters `organization_id` (members of that organization only; each still shows all memberships within your reach) and `email`. System clients only: per-user and interactive principals get **403** `system_client_required`.',
    query: /* @__PURE__ */ lazySchema(() => z.strictObject({ ...UserListQuerySchema.shape, ...OnePageQuerySchema.shape })),
    responses: { 200: { description: 'The people who are members of your organization subtree, in one page (next_cursor is always null)', schema: UserPageSchema } },
  },
  getUser: {
    description: 'One person with their memberships within your reach (memberships in deleted organizations are not shown). **404** when no organization of the person is within your reach. System clients only (**403** `system_client_required`).',
    params: userParams,
    responses: { 200: { description: 'The person with their memberships within your reach', schema: UserSchema } },
  },
  getUserAccess: {
    description:
      'The person\'s effective access, company by company: the live companies within your reach on which the person holds at least one action, with those actions (scope names). It is the evaluator\'s own answer from the person\'s materialized access (deny wins; only companies within the person\'s organizations). Filter `company_id`; paginated by cursor.',
    params: userParams,
    query: UserAccessQuerySchema,
    responses: { 200: { description: 'A page of the companies within your reach the person holds actions on, with those actions', schema: UserAccessPageSchema } },
  },
  explainUserAccess: {
    description:
      'Why the person may or may not do `action` on `company_id`: `decision` allow or deny, `reason` (`allow_rule`, `deny_rule`, `no_matching_rule`, `not_a_member`) and the policy and rule (0-based `ruleIndex`) that decided; those are null when the policy is not within your reach (owned by an organization above yours). **404** when the company is not within your reach.',
    params: userParams,
    query: ExplainQuerySchema,
    responses: { 200: { description: 'The decision for the company and action, and the policy rule that decided it', schema: AccessExplanationSchema } },
  },
} satisfies Record<string, OperationContract>;

export const accessContracts = {
  createAccessPolicy: {
    description:
      'Creates an access policy owned by your organization (or by `organizationId`, an organization of your subtree). Each rule allows or denies `actions` (scope names, or `resource:*` such as `ledger:*`; only what a person can hold: `users:read`, `access:manage`, `webhooks:manage`, `imports:write` and their `resource:*` are for system clients only and answer **400** `validation_failed` naming the action) on `resources`: `organizations` (each with its whole subtree, companies created later included) and/or single `companies`. **A deny wins** over any allow for the same company and action. Rules may only name resources inside the owning organization\'s subtree: **422** `resource_outside_organization` names each offending rule and resource. A policy does nothing until assigned.',
    requestExample: {
      name: 'Accountant: full access to two clients',
      description: 'Bookkeeping of Bakeriet Solsiden and Havbris Fiskeri',
      rules: [
        { effect: 'allow', actions: ['companies:*', 'ledger:*', 'bank:*', 'reconciliation:*', 'documents:*'], resources: { companies: ['3f2b8c1e-5d4a-4e7b-9c0d-1a2b3c4d5e6f', '7a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d'] } },
        { effect: 'deny', actions: ['documents:write'], resources: { companies: ['7a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d'] } },
      ],
    },
    body: CreatePolicySchema,
    responses: { 201: { description: 'The policy, at version 1', schema: PolicySchema } },
    problems: { 400: 'validation_failed (detail and errors name the fields; an action a policy cannot grant, a system-only scope, is named in its message), malformed_json', 404: 'not_found: organizationId names no organization within your reach (a deleted one included)', 422: 'resource_outside_organization: a rule names an organization or company outside the owning organization\'s subtree (errors[] names each)' },
  },
  listAccessPolicies: {
    description: 'The access policies owned by organizations of your subtree, paginated by cursor. Policies of deleted organizations are left out (a page may then hold fewer than `page_size`).',
    query: /* @__PURE__ */ lazySchema(() => z.strictObject({ ...PageQuerySchema.shape })),
    responses: { 200: { description: 'A page of the policies owned by organizations of your subtree', schema: PolicyPageSchema } },
  },
  getAccessPolicy: {
    description: 'One access policy with its `version` (also in `ETag`): send that version in `If-Match` to replace it. A policy of a deleted organization answers **404**, here and on replace, delete and assignment.',
    params: policyParams,
    responses: { 200: { description: 'The policy', schema: PolicySchema } },
  },
  replaceAccessPolicy: {
    description:
      'Replaces the policy\'s document (name, description, rules) and increments `version`. Needs `If-Match` with the current version: **428** `precondition_required` without it, **412** `version_mismatch` with another version (read it again; a 412 is not stored under the `Idempotency-Key`). The effective access of everyone the policy is assigned to is recomputed before the answer (with the policy in one transaction for up to 98 people, the rest right after it), so the new rules decide their very next request. If some of the rest could not be recomputed, the answer is **503** `recomputation_incomplete` (the policy is stored): send the same request again, with the same `If-Match` and document, and it finishes the recomputation and answers 200.',
    requestExample: {
      name: 'Auditor: read one client',
      description: 'Reads the books of Bakeriet Solsiden',
      rules: [{ effect: 'allow', actions: ['companies:read', 'ledger:read', 'bank:read'], resources: { companies: ['3f2b8c1e-5d4a-4e7b-9c0d-1a2b3c4d5e6f'] } }],
    },
    params: policyParams,
    headers: /* @__PURE__ */ lazySchema(() => z.object({ 'If-Match': z.string().max(32).regex(/^\s*(W\/)?"?\d{1,9}"?\s*$/).openapi({ description: 'The policy\'s current version (e.g. `3` or `"3"`); required (428 without it); another version answers 412', example: '1' }) })),
    body: ReplacePolicySchema,
    responses: { 200: { description: 'The policy with its new version; everyone it is assigned to holds the new rules from their next request', schema: PolicySchema } },
    problems: {
      400: 'validation_failed (detail and errors name the fields; an action a policy cannot grant, a system-only scope, is named in its message), malformed_json',
      409: "conflict (reason access_too_large): a person it is assigned to would hold more effective access than one person's access may (300 KB); or the policy's assignments are changing (send it again); nothing is replaced",
      503: 'recomputation_incomplete: the policy is stored, but the effective access of some people it is assigned to is not yet recomputed; the same request again finishes it (Retry-After); or service_unavailable: a store the request needs is busy or failing (Retry-After)',
      412: 'version_mismatch: If-Match names another version than the current one (read the policy again)',
      428: 'precondition_required: If-Match is missing',
      422: 'resource_outside_organization: a rule names an organization or company outside the owning organization\'s subtree',
    },
  },
  deleteAccessPolicy: {
    description: 'Deletes a policy that is not assigned. While assigned: **409** `policy_in_use` with `inUse` listing the assignments (`id`, `userId`): delete them first.',
    params: policyParams,
    responses: { 200: { description: 'Deleted', schema: DeletedSchema } },
    problems: { 409: 'policy_in_use: the policy is assigned; inUse lists the assignments (id, userId). conflict: it changed meanwhile' },
  },
  createAccessAssignment: {
    description:
      'Assigns a policy to a person; both must be within your reach (else **404**; also when the person is deleted while the assignment is made). The person\'s effective access is recomputed in the same transaction: their next request is decided with the policy. **409** `conflict` (`reason` `already_assigned`) when the person holds the policy already.',
    requestExample: { policyId: '5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e', userId: '0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b' },
    body: CreateAssignmentSchema,
    responses: { 201: { description: 'The assignment; the person holds the policy\'s rules from their next request', schema: AssignmentSchema } },
    problems: {
      404: 'not_found: the policy or the person is not within your reach (deleted, or the policy\'s organization deleted)',
      409: "conflict (reason already_assigned): the person holds this policy already; (reason access_too_large): with it the person would hold more effective access than one person's access may (300 KB)",
    },
  },
  listAccessAssignments: {
    description: 'The assignments of policies owned within your subtree; filters `user_id` and `policy_id`; paginated by cursor.',
    query: AssignmentListQuerySchema,
    responses: { 200: { description: 'A page of the assignments of policies owned within your subtree', schema: AssignmentPageSchema } },
  },
  deleteAccessAssignment: {
    description: 'Revokes an assignment: the assignment goes and the person\'s effective access is recomputed in the same transaction, so their very next request is decided without it (no cache to expire).',
    params: /* @__PURE__ */ lazySchema(() => z.object({ assignmentId: UuidSchema })),
    responses: { 200: { description: 'Revoked: the person\'s very next request is decided without it', schema: DeletedSchema } },
  },
} satisfies Record<string, OperationContract>;
