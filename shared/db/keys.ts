/**
 * Every DynamoDB key of the single table is built here, one small function per entity,
 * so no key string is written twice. Layout and scale reasoning: docs in README (Architecture).
 */
/**
 * Partition-key prefixes that IAM conditions (`dynamodb:LeadingKeys`) name: the authorizer may
 * read only clients and organizations; on the control table, groups without mutations may touch
 * only rate-limit items (infra/stacks/permissions.ts).
 */
export const partitionPrefixes = {
  organization: 'ORG#',
  apiClient: 'CLIENT#',
  idempotency: 'IDEMPOTENCY#',
  rateLimit: 'RATE#',
} as const;

export const organizationKeys = (organizationId: string) => ({ PK: `${partitionPrefixes.organization}${organizationId}`, SK: 'ORG' });
/** Organizations of one tree by path on GSI2, so an organization's subtree is one begins_with Query. */
export const organizationTreeKeys = (rootOrganizationId: string, organizationPath: string) => ({
  GSI2PK: organizationTreePartition(rootOrganizationId),
  GSI2SK: organizationPath,
});
export const organizationTreePartition = (rootOrganizationId: string) => `ORGTREE#${rootOrganizationId}`;

/**
 * Companies are listed per organization tree: GSI1PK names the tree's root and GSI1SK starts
 * with the owning organization's path, so a subtree is one begins_with Query.
 * Deleted companies drop the GSI1 attributes (sparse index) and vanish from lists.
 */
export const companyKeys = (companyId: string) => ({ PK: `COMPANY#${companyId}`, SK: 'COMPANY' });
export const companyListKeys = (rootOrganizationId: string, organizationPath: string, companyId: string) => ({
  GSI1PK: companyTreePartition(rootOrganizationId),
  GSI1SK: `${organizationPath}/COMPANY#${companyId}`,
});
export const companyTreePartition = (rootOrganizationId: string) => `ORGTREE#${rootOrganizationId}`;
/** Prefix matching every company listed under an organization path (the organization and its descendants). */
export const companySubtreePrefix = (organizationPath: string) => `${organizationPath}/`;

export const apiClientKeys = (clientId: string) => ({ PK: `${partitionPrefixes.apiClient}${clientId}`, SK: 'CLIENT' });
export const apiClientListKeys = (organizationId: string, clientId: string) => ({
  GSI1PK: apiClientListPartition(organizationId),
  GSI1SK: `CLIENT#${clientId}`,
});
export const apiClientListPartition = (organizationId: string) => `ORGCLIENTS#${organizationId}`;

/** Control table (not the single table). One item per (client, key): idempotency keys are scoped to the client that sent them. */
export const idempotencyKeys = (clientId: string, idempotencyKey: string) => ({
  PK: `${partitionPrefixes.idempotency}${clientId}#${idempotencyKey}`,
  SK: 'IDEMPOTENCY',
});

/** Control table (not the single table): one item per client. */
export const rateLimitKeys = (clientId: string) => ({ PK: `${partitionPrefixes.rateLimit}${clientId}`, SK: 'RATE' });
