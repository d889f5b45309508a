import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../platform/aws';
import { revokedOriginKeys } from './person-keys';

/**
 * Revoked token origins: the `origin_jti` a person's access tokens carry (one per grant, shared by
 * every token issued from it, as Cognito's). Kept until the last token of the origin has expired
 * (DynamoDB TTL deletes the item some time after `expiresAt`; a read checks it too).
 */
export const revocationRepository = {
  async revoke(userId: string, origin: string, tokensExpireBy: Date): Promise<void> {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...revokedOriginKeys(userId, origin), entity: 'revokedOrigin', revokedAt: new Date().toISOString(), expiresAt: Math.ceil(tokensExpireBy.getTime() / 1000) },
      }),
    );
  },

  async isRevoked(userId: string, origin: string): Promise<boolean> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: revokedOriginKeys(userId, origin), ConsistentRead: true }));
    return Item !== undefined && Number(Item.expiresAt) * 1000 > Date.now();
  },
};
