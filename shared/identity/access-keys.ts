/** DynamoDB keys of access policies, their assignments and each person's materialized effective access. */

export const accessPartitionPrefixes = {
  policy: 'POLICY#',
  assignment: 'ASSIGNMENT#',
} as const;

export const policyKeys = (policyId: string) => ({ PK: `${accessPartitionPrefixes.policy}${policyId}`, SK: 'POLICY' });
/** Policies of one organization tree by the owner's path, so a subtree is one begins_with Query (as companies). */
export const policyListKeys = (rootOrganizationId: string, organizationPath: string, policyId: string) => ({
  GSI1PK: policyTreePartition(rootOrganizationId),
  GSI1SK: `${organizationPath}/POLICY#${policyId}`,
});
export const policyTreePartition = (rootOrganizationId: string) => `POLICIES#${rootOrganizationId}`;

export const assignmentKeys = (assignmentId: string) => ({ PK: `${accessPartitionPrefixes.assignment}${assignmentId}`, SK: 'ASSIGNMENT' });
/** Assignments sort under their policy's owner path and policy: the subtree's and one policy's are each one Query. */
export const assignmentListKeys = (rootOrganizationId: string, organizationPath: string, policyId: string, userId: string, assignmentId: string) => ({
  GSI1PK: assignmentTreePartition(rootOrganizationId),
  GSI1SK: `${assignmentPolicyPrefix(organizationPath, policyId)}${assignmentId}`,
  GSI2PK: userAssignmentsPartition(userId),
  GSI2SK: assignmentId,
});
export const assignmentTreePartition = (rootOrganizationId: string) => `ASSIGNMENTS#${rootOrganizationId}`;
export const assignmentPolicyPrefix = (organizationPath: string, policyId: string) => `${organizationPath}/POLICY#${policyId}/ASSIGN#`;
/** A person's assignments on GSI2 (what recomputing their effective access reads). */
export const userAssignmentsPartition = (userId: string) => `USERASSIGN#${userId}`;

/** The person's effective access sits in their partition: the one read of an access decision. */
export const effectiveAccessKeys = (userId: string) => ({ PK: `USER#${userId}`, SK: 'ACCESS' });
