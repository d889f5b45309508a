/** DynamoDB keys of people (users), their memberships and the e-mail index (the single table). */

export const peoplePartitionPrefixes = {
  person: 'USER#',
  email: 'EMAIL#',
} as const;

export const personKeys = (userId: string) => ({ PK: `${peoplePartitionPrefixes.person}${userId}`, SK: 'USER' });

/** One item per e-mail address: makes an address unique across the service and finds its person at sign-in. */
export const personEmailKeys = (email: string) => ({ PK: `${peoplePartitionPrefixes.email}${normalizeEmail(email)}`, SK: 'EMAIL' });

/** A membership sits in the person's partition (their organizations in one Query) and on GSI1 by organization. */
export const membershipKeys = (userId: string, organizationId: string) => ({ PK: `${peoplePartitionPrefixes.person}${userId}`, SK: `MEMBER#${organizationId}` });
export const membershipListKeys = (organizationId: string, userId: string) => ({ GSI1PK: organizationMembersPartition(organizationId), GSI1SK: `USER#${userId}` });
export const organizationMembersPartition = (organizationId: string) => `ORGMEMBERS#${organizationId}`;
export const membershipSortKeyPrefix = 'MEMBER#';

/** A revoked token origin (a grant whose tokens stop working) sits in the person's partition, which the authorizer reads anyway. */
export const revokedOriginKeys = (userId: string, origin: string) => ({ PK: `${peoplePartitionPrefixes.person}${userId}`, SK: `REVOKED#${origin}` });

export const normalizeEmail = (email: string) => email.trim().toLowerCase();
