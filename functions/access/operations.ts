import { defineOperation } from '../../shared/api/operation';
import { accessContracts as contracts } from '../../shared/access/contracts';
import type { AssignmentRecord, PolicyRecord } from '../../shared/identity/access-repository';
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
export const accessOperations = {
  createAccessPolicy: defineOperation(contracts.createAccessPolicy, async ({ principal, body }) => {
    const policy = await createPolicy(principal, body);
    return { status: 201, body: policy, headers: { Location: `/v1/access/policies/${policy.id}`, ETag: `"${policy.version}"` } };
  }),
  listAccessPolicies: defineOperation(contracts.listAccessPolicies, async ({ principal, query }) => ({
    status: 200,
    body: await listPolicies(principal, { pageSize: query.page_size, ...(query.cursor && { cursor: query.cursor }) }),
  })),
  getAccessPolicy: defineOperation(contracts.getAccessPolicy, async ({ owner }) => {
    const policy = toPolicy(owner as PolicyRecord);
    return { status: 200, body: policy, headers: { ETag: `"${policy.version}"` } };
  }),
  replaceAccessPolicy: defineOperation(contracts.replaceAccessPolicy, async ({ owner, ifMatch, body }) => {
    const policy = await replacePolicy(owner as PolicyRecord, ifMatch, body);
    return { status: 200, body: policy, headers: { ETag: `"${policy.version}"` } };
  }),
  deleteAccessPolicy: defineOperation(contracts.deleteAccessPolicy, async ({ owner }) => {
    await deletePolicy(owner as PolicyRecord);
    return { status: 200, body: { id: (owner as PolicyRecord).id, deleted: true } };
  }),
  createAccessAssignment: defineOperation(contracts.createAccessAssignment, async ({ principal, body }) => {
    const assignment = await createAssignment(principal, body);
    return { status: 201, body: assignment, headers: { Location: `/v1/access/assignments/${assignment.id}` } };
  }),
  listAccessAssignments: defineOperation(contracts.listAccessAssignments, async ({ principal, query }) => ({ status: 200, body: await listAssignments(principal, query) })),
  deleteAccessAssignment: defineOperation(contracts.deleteAccessAssignment, async ({ owner }) => {
    await deleteAssignment(owner as AssignmentRecord);
    return { status: 200, body: { id: (owner as AssignmentRecord).id, deleted: true } };
  }),
};
