/**
 * DynamoDB keys of companies. Companies are listed per organization tree: GSI1PK names the
 * tree's root and GSI1SK starts with the owning organization's path, so a subtree is one
 * begins_with Query. Deleted companies drop the GSI1 attributes (sparse index) and vanish from lists.
 */
export const companyKeys = (companyId: string) => ({ PK: `COMPANY#${companyId}`, SK: 'COMPANY' });
export const companyListKeys = (rootOrganizationId: string, organizationPath: string, companyId: string) => ({
  GSI1PK: companyTreePartition(rootOrganizationId),
  GSI1SK: `${organizationPath}/COMPANY#${companyId}`,
});
export const companyTreePartition = (rootOrganizationId: string) => `ORGTREE#${rootOrganizationId}`;
/** Prefix matching every company listed under an organization path (the organization and its descendants). */
export const companySubtreePrefix = (organizationPath: string) => `${organizationPath}/`;
