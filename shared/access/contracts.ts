import type { OperationContract } from '../api/operation';
import { UuidSchema } from '../platform/schemas';
import { z } from '../platform/zod';
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
import { PageQuerySchema } from '../platform/schemas';

const userParams = z.object({ userId: UuidSchema });
const policyParams = z.object({ policyId: UuidSchema });

export const userContracts = {
  listUsers: {
    query: UserListQuerySchema,
    responses: { 200: { description: 'The people who are members of your organization subtree, in one page (next_cursor is always null)', schema: UserPageSchema } },
  },
  getUser: { params: userParams, responses: { 200: { description: 'The person with their memberships within your reach', schema: UserSchema } } },
  getUserAccess: {
    params: userParams,
    query: UserAccessQuerySchema,
    responses: { 200: { description: 'A page of the companies within your reach the person holds actions on, with those actions', schema: UserAccessPageSchema } },
  },
  explainUserAccess: {
    params: userParams,
    query: ExplainQuerySchema,
    responses: { 200: { description: 'The decision for the company and action, and the policy rule that decided it', schema: AccessExplanationSchema } },
  },
} satisfies Record<string, OperationContract>;

export const accessContracts = {
  createAccessPolicy: {
    body: CreatePolicySchema,
    responses: { 201: { description: 'The policy, at version 1', schema: PolicySchema } },
    problems: { 404: 'not_found: organizationId names no organization within your reach', 422: 'resource_outside_organization: a rule names an organization or company outside the owning organization\'s subtree (errors[] names each)' },
  },
  listAccessPolicies: { query: z.strictObject({ ...PageQuerySchema.shape }), responses: { 200: { description: 'A page of the policies owned by organizations of your subtree', schema: PolicyPageSchema } } },
  getAccessPolicy: { params: policyParams, responses: { 200: { description: 'The policy', schema: PolicySchema } } },
  replaceAccessPolicy: {
    params: policyParams,
    headers: z.object({ 'If-Match': z.string().max(32).regex(/^\s*(W\/)?"?\d{1,9}"?\s*$/).openapi({ description: 'The policy\'s current version (e.g. `3` or `"3"`); required; anything else answers 412', example: '1' }) }),
    body: ReplacePolicySchema,
    responses: { 200: { description: 'The policy with its new version; everyone it is assigned to holds the new rules from their next request', schema: PolicySchema } },
    problems: {
      412: 'version_mismatch: If-Match is missing or names another version than the current one (read the policy again)',
      422: 'resource_outside_organization: a rule names an organization or company outside the owning organization\'s subtree',
    },
  },
  deleteAccessPolicy: {
    params: policyParams,
    responses: { 200: { description: 'Deleted', schema: DeletedSchema } },
    problems: { 409: 'policy_in_use: the policy is assigned; inUse lists the assignments (id, userId). conflict: it changed meanwhile' },
  },
  createAccessAssignment: {
    body: CreateAssignmentSchema,
    responses: { 201: { description: 'The assignment; the person holds the policy\'s rules from their next request', schema: AssignmentSchema } },
    problems: { 404: 'not_found: the policy or the person is not within your reach', 409: 'conflict (reason already_assigned): the person holds this policy already' },
  },
  listAccessAssignments: { query: AssignmentListQuerySchema, responses: { 200: { description: 'A page of the assignments of policies owned within your subtree', schema: AssignmentPageSchema } } },
  deleteAccessAssignment: {
    params: z.object({ assignmentId: UuidSchema }),
    responses: { 200: { description: 'Revoked: the person\'s very next request is decided without it', schema: DeletedSchema } },
  },
} satisfies Record<string, OperationContract>;
