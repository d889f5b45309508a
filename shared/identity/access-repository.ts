import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { storedInteger } from '../db/attributes';
import { batchGet } from '../db/batch';
import { queryAll } from '../db/query-all';
import { queryPage, type Page, type PageRequest } from '../db/query-page';
import type { TransactionWrite } from '../db/unit-of-work';
import { dynamo, tableName } from '../platform/aws';
import type { EffectiveAccess } from './access-evaluator';
import {
  assignmentKeys,
  assignmentListKeys,
  assignmentPolicyPrefix,
  assignmentTreePartition,
  effectiveAccessKeys,
  policyKeys,
  policyListKeys,
  policyTreePartition,
  userAssignmentsPartition,
} from './access-keys';
import type { Assignment, Policy } from './access-schemas';

/** Where a policy (and its assignments) sits in the tree: reach and listing go by its owner's path. */
export interface Placement {
  rootOrganizationId: string;
  organizationPath: string;
}

/** recomputePending: replaced, and the effective access of some assignees not yet recomputed (shared/access/service.ts). */
export type PolicyRecord = Omit<Policy, 'recomputationPending'> & Placement & { assignmentCount: number; recomputePending?: true };
export type AssignmentRecord = Assignment & Placement;

const get = async (key: Record<string, string>, consistent = true) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: consistent }))).Item;

export const accessRepository = {
  async policy(policyId: string): Promise<PolicyRecord | undefined> {
    const item = await get(policyKeys(policyId));
    return item ? toPolicy(item) : undefined;
  },

  /** Policies by id (strongly consistent); unknown ids are left out. */
  async policies(policyIds: readonly string[]): Promise<PolicyRecord[]> {
    return [...(await batchGet(policyIds.map(policyKeys))).values()].map(toPolicy);
  },

  listPolicies(placement: Placement, page: PageRequest): Promise<Page<PolicyRecord>> {
    return queryPage(subtreeQuery(policyTreePartition(placement.rootOrganizationId), placement.organizationPath), page, toPolicy);
  },

  /** Every policy owned by the organization at this path or below it (an organization cascade). */
  async policiesInSubtree(placement: Placement): Promise<PolicyRecord[]> {
    return (await queryAll(subtreeQuery(policyTreePartition(placement.rootOrganizationId), placement.organizationPath))).map(toPolicy);
  },

  async assignment(assignmentId: string): Promise<AssignmentRecord | undefined> {
    const item = await get(assignmentKeys(assignmentId));
    return item ? toAssignment(item) : undefined;
  },

  listAssignments(placement: Placement, filters: { userId?: string; policyId?: string }, page: PageRequest): Promise<Page<AssignmentRecord>> {
    const conditions = [filters.userId && 'userId = :user', filters.policyId && 'policyId = :policy'].filter(Boolean);
    const query = subtreeQuery(assignmentTreePartition(placement.rootOrganizationId), placement.organizationPath);
    return queryPage(
      {
        ...query,
        ...(conditions.length && { FilterExpression: conditions.join(' AND ') }),
        ExpressionAttributeValues: { ...query.ExpressionAttributeValues, ...(filters.userId && { ':user': filters.userId }), ...(filters.policyId && { ':policy': filters.policyId }) },
      },
      page,
      toAssignment,
    );
  },

  /** Assignments by id (strongly consistent, from the base table); those gone are left out. */
  async assignments(assignmentIds: readonly string[]): Promise<AssignmentRecord[]> {
    return [...(await batchGet(assignmentIds.map(assignmentKeys))).values()].map(toAssignment);
  },

  /** The policy's assignments from its index (GSI1: eventually consistent, it may lag a write). */
  async assignmentsOfPolicy(policy: PolicyRecord): Promise<AssignmentRecord[]> {
    const items = await queryAll({
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :prefix)',
      ExpressionAttributeValues: { ':pk': assignmentTreePartition(policy.rootOrganizationId), ':prefix': assignmentPolicyPrefix(policy.organizationPath, policy.id) },
    });
    return items.map(toAssignment);
  },

  async assignmentsOfUser(userId: string): Promise<AssignmentRecord[]> {
    const items = await queryAll({ IndexName: 'GSI2', KeyConditionExpression: 'GSI2PK = :pk', ExpressionAttributeValues: { ':pk': userAssignmentsPartition(userId) } });
    return items.map(toAssignment);
  },

  /** The one small read of an access decision (strongly consistent: a revocation is never late). */
  async effectiveAccess(userId: string): Promise<EffectiveAccess | undefined> {
    const item = await get(effectiveAccessKeys(userId));
    return item ? toEffectiveAccess(item) : undefined;
  },
};

/** The writes, for services that put them into their own unit of work. */
export const accessWrites = {
  putPolicy: (policy: PolicyRecord, expectedVersion: number | null): TransactionWrite => ({
    Put: {
      TableName: tableName(),
      Item: { ...policyKeys(policy.id), ...policyListKeys(policy.rootOrganizationId, policy.organizationPath, policy.id), entity: 'accessPolicy', ...policy },
      ...(expectedVersion === null
        ? { ConditionExpression: 'attribute_not_exists(PK)' }
        : { ConditionExpression: 'version = :version AND assignmentCount = :count', ExpressionAttributeValues: { ':version': expectedVersion, ':count': policy.assignmentCount } }),
    },
  }),
  /** The recomputation of a replaced policy's assignees is done (a later replacement makes this a no-op: its condition fails). */
  policyRecomputed: (policy: PolicyRecord): TransactionWrite => ({
    Update: {
      TableName: tableName(),
      Key: policyKeys(policy.id),
      UpdateExpression: 'REMOVE recomputePending',
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': policy.version },
    },
  }),
  deletePolicy: (policy: PolicyRecord): TransactionWrite => ({
    Delete: { TableName: tableName(), Key: policyKeys(policy.id), ConditionExpression: 'version = :version AND assignmentCount = :zero', ExpressionAttributeValues: { ':version': policy.version, ':zero': 0 } },
  }),
  /** Counts the policy's assignments (a policy in use cannot be deleted) and pins the version the recomputation read. */
  countAssignment: (policy: PolicyRecord, delta: 1 | -1): TransactionWrite => ({
    Update: {
      TableName: tableName(),
      Key: policyKeys(policy.id),
      UpdateExpression: 'ADD assignmentCount :delta',
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':delta': delta, ':version': policy.version },
    },
  }),
  putAssignment: (assignment: AssignmentRecord): TransactionWrite => ({
    Put: {
      TableName: tableName(),
      Item: {
        ...assignmentKeys(assignment.id),
        ...assignmentListKeys(assignment.rootOrganizationId, assignment.organizationPath, assignment.policyId, assignment.userId, assignment.id),
        entity: 'accessAssignment',
        ...assignment,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  }),
  deleteAssignment: (assignment: AssignmentRecord): TransactionWrite => ({
    Delete: { TableName: tableName(), Key: assignmentKeys(assignment.id), ConditionExpression: 'attribute_exists(PK)' },
  }),
  /**
   * The person's effective access, written only over the revision it was computed from: revision 1
   * only where there is none yet (a new person), any later one only over the revision before it
   * (refused when delete-user dropped the record meanwhile: a deleted person's access never comes back).
   */
  putEffectiveAccess: (access: EffectiveAccess): TransactionWrite => ({
    Put: {
      TableName: tableName(),
      Item: { ...effectiveAccessKeys(access.userId), entity: 'effectiveAccess', ...access },
      ...(access.revision <= 1
        ? { ConditionExpression: 'attribute_not_exists(PK)' }
        : { ConditionExpression: 'revision = :previous', ExpressionAttributeValues: { ':previous': access.revision - 1 } }),
    },
  }),
  deleteEffectiveAccess: (userId: string): TransactionWrite => ({ Delete: { TableName: tableName(), Key: effectiveAccessKeys(userId) } }),
};

const subtreeQuery = (partition: string, organizationPath: string) => ({
  TableName: tableName(),
  IndexName: 'GSI1',
  KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :prefix)',
  ExpressionAttributeValues: { ':pk': partition, ':prefix': `${organizationPath}/` } as Record<string, unknown>,
});

const toPolicy = (item: Record<string, unknown>): PolicyRecord => ({
  id: item.id as string,
  organizationId: item.organizationId as string,
  name: item.name as string,
  description: item.description as string,
  rules: item.rules as Policy['rules'],
  version: storedInteger(item.version),
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
  rootOrganizationId: item.rootOrganizationId as string,
  organizationPath: item.organizationPath as string,
  assignmentCount: storedInteger(item.assignmentCount),
  ...(item.recomputePending === true && { recomputePending: true }),
});

const toAssignment = (item: Record<string, unknown>): AssignmentRecord => ({
  id: item.id as string,
  policyId: item.policyId as string,
  userId: item.userId as string,
  organizationId: item.organizationId as string,
  createdAt: item.createdAt as string,
  createdBy: item.createdBy as string,
  rootOrganizationId: item.rootOrganizationId as string,
  organizationPath: item.organizationPath as string,
});

const toEffectiveAccess = (item: Record<string, unknown>): EffectiveAccess => ({
  userId: item.userId as string,
  memberships: (item.memberships as string[]) ?? [],
  assignments: (item.assignments as EffectiveAccess['assignments']) ?? [],
  rules: ((item.rules as EffectiveAccess['rules']) ?? []).map((rule) => ({ ...rule, ruleIndex: storedInteger(rule.ruleIndex) })),
  organizationPaths: (item.organizationPaths as Record<string, string>) ?? {},
  revision: storedInteger(item.revision),
  computedAt: item.computedAt as string,
});
