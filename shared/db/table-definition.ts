/** The single table's physical shape; CDK and the local stack create it from this. Entity keys live in keys.ts. */
export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  timeToLiveAttribute: 'expiresAt',
  globalSecondaryIndexes: [
    { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    { indexName: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
  ],
} as const;
