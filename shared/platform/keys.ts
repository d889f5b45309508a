/** Keys of the request-control table (not the single table): idempotency records and rate-limit state. */

/** Partition-key prefixes IAM conditions (`dynamodb:LeadingKeys`) name: groups without mutations touch only rate-limit items. */
export const controlPartitionPrefixes = {
  idempotency: 'IDEMPOTENCY#',
  rateLimit: 'RATE#',
} as const;

/** One item per (client, key): idempotency keys are scoped to the client that sent them. */
export const idempotencyKeys = (clientId: string, idempotencyKey: string) => ({
  PK: `${controlPartitionPrefixes.idempotency}${clientId}#${idempotencyKey}`,
  SK: 'IDEMPOTENCY',
});

/** One item per client. */
export const rateLimitKeys = (clientId: string) => ({ PK: `${controlPartitionPrefixes.rateLimit}${clientId}`, SK: 'RATE' });
