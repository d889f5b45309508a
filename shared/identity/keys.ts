/** DynamoDB keys of organizations and API clients (the single table). */

/** Partition-key prefixes IAM conditions (`dynamodb:LeadingKeys`) name: the authorizer reads only these items. */
export const identityPartitionPrefixes = {
  organization: 'ORG#',
  apiClient: 'CLIENT#',
} as const;

export const organizationKeys = (organizationId: string) => ({ PK: `${identityPartitionPrefixes.organization}${organizationId}`, SK: 'ORG' });
/** Organizations of one tree by path on GSI2, so an organization's subtree is one begins_with Query. */
export const organizationTreeKeys = (rootOrganizationId: string, organizationPath: string) => ({
  GSI2PK: organizationTreePartition(rootOrganizationId),
  GSI2SK: organizationPath,
});
export const organizationTreePartition = (rootOrganizationId: string) => `ORGTREE#${rootOrganizationId}`;

export const apiClientKeys = (clientId: string) => ({ PK: `${identityPartitionPrefixes.apiClient}${clientId}`, SK: 'CLIENT' });
export const apiClientListKeys = (organizationId: string, clientId: string) => ({
  GSI1PK: apiClientListPartition(organizationId),
  GSI1SK: `CLIENT#${clientId}`,
});
export const apiClientListPartition = (organizationId: string) => `ORGCLIENTS#${organizationId}`;
