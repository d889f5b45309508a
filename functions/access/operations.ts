import { accessContracts as contracts } from '../../shared/access/contracts';
import { defineOperations } from '../../shared/composition/operations';
import {
  createAssignment,
  createPolicy,
  deleteAssignment,
  deletePolicy,
  listAssignments,
  listPolicies,
  replacePolicy,
  toPolicy,
} from '../../shared/access/service';

/** Access policies and assignments (system clients, access:manage): the runner resolves {policyId} and {assignmentId} within reach. */
export const accessOperations = defineOperations('access', contracts, {
  createAccessPolicy: async ({ principal, body }) => {
    const policy = await createPolicy(principal, body);
    return { status: 201, body: policy, headers: { Location: `/v1/access/policies/${policy.id}`, ETag: `"${policy.version}"` } };
  },
  listAccessPolicies: async ({ principal, query }) => ({
    status: 200,
    body: await listPolicies(principal, { pageSize: query.page_size, ...(query.cursor && { cursor: query.cursor }) }),
  }),
  getAccessPolicy: async ({ owner }) => {
    const policy = toPolicy(owner);
    return { status: 200, body: policy, headers: { ETag: `"${policy.version}"` } };
  },
  replaceAccessPolicy: async ({ owner, ifMatch, body }) => {
    const policy = await replacePolicy(owner, ifMatch, body);
    return { status: 200, body: policy, headers: { ETag: `"${policy.version}"` } };
  },
  deleteAccessPolicy: async ({ owner }) => {
    await deletePolicy(owner);
    return { status: 200, body: { id: owner.id, deleted: true } };
  },
  createAccessAssignment: async ({ principal, body }) => {
    const assignment = await createAssignment(principal, body);
    return { status: 201, body: assignment, headers: { Location: `/v1/access/assignments/${assignment.id}` } };
  },
  listAccessAssignments: async ({ principal, query }) => ({ status: 200, body: await listAssignments(principal, query) }),
  deleteAccessAssignment: async ({ owner }) => {
    await deleteAssignment(owner);
    return { status: 200, body: { id: owner.id, deleted: true } };
  },
});
