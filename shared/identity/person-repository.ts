import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../db/batch';
import { queryAll } from '../db/query-all';
import type { TransactionWrite } from '../db/unit-of-work';
import { dynamo, tableName } from '../platform/aws';
import { membershipKeys, membershipListKeys, membershipSortKeyPrefix, normalizeEmail, organizationMembersPartition, personEmailKeys, personKeys } from './person-keys';

export { normalizeEmail };

/** A person of the firm: signs in interactively and may own per-user API clients. */
export interface Person {
  userId: string;
  email: string;
  name: string;
  status: 'active' | 'deleted';
  createdAt: string;
  /** scrypt hash (shared/identity/client-secrets.ts) where this service checks passwords itself (the local identity provider). */
  passwordHash?: string;
}

export interface Membership {
  userId: string;
  organizationId: string;
  createdAt: string;
}

export const personRepository = {
  /** A check for a unit of work: the person exists and is not deleted (nothing is written). */
  activeCheck(userId: string): TransactionWrite {
    return {
      ConditionCheck: {
        TableName: tableName(),
        Key: personKeys(userId),
        ConditionExpression: '#status = :active',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':active': 'active' },
      },
    };
  },

  async get(userId: string): Promise<Person | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: personKeys(userId) }));
    return Item ? toPerson(Item) : undefined;
  },

  async findByEmail(email: string): Promise<Person | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: personEmailKeys(email) }));
    return Item ? this.get(Item.userId as string) : undefined;
  },

  /** People by id (strongly consistent); unknown ids are left out. */
  async many(userIds: readonly string[]): Promise<Person[]> {
    return [...(await batchGet(userIds.map(personKeys))).values()].map(toPerson);
  },

  async memberships(userId: string): Promise<Membership[]> {
    const { Items = [] } = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        ConsistentRead: true,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :member)',
        ExpressionAttributeValues: { ':pk': personKeys(userId).PK, ':member': membershipSortKeyPrefix },
      }),
    );
    return Items.map(toMembership);
  },

  async membersOf(organizationId: string): Promise<Membership[]> {
    const items = await queryAll({
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': organizationMembersPartition(organizationId) },
    });
    return items.map(toMembership);
  },
};

/** The writes of a person's changes, for the unit of work of the use case (shared/people/service.ts commits them). */
export const personWrites = {
  /** The person, the e-mail claim (refused when the address is taken: an address is unique) and the first membership. */
  create(person: Person, organizationId: string): { person: TransactionWrite; email: TransactionWrite; membership: TransactionWrite } {
    return {
      person: { Put: { TableName: tableName(), Item: { ...personKeys(person.userId), entity: 'person', ...person, email: normalizeEmail(person.email) }, ConditionExpression: 'attribute_not_exists(PK)' } },
      email: { Put: { TableName: tableName(), Item: { ...personEmailKeys(person.email), entity: 'personEmail', userId: person.userId }, ConditionExpression: 'attribute_not_exists(PK)' } },
      membership: { Put: { TableName: tableName(), Item: membershipItem({ userId: person.userId, organizationId, createdAt: person.createdAt }) } },
    };
  },

  /** A further membership (refused when the person is a member already). */
  addMembership(membership: Membership): TransactionWrite {
    return { Put: { TableName: tableName(), Item: membershipItem(membership), ConditionExpression: 'attribute_not_exists(PK)' } };
  },

  /** Ends a membership (refused when there is none); `mustExist` false deletes it whether or not it is there. */
  removeMembership(userId: string, organizationId: string, mustExist = true): TransactionWrite {
    return { Delete: { TableName: tableName(), Key: membershipKeys(userId, organizationId), ...(mustExist && { ConditionExpression: 'attribute_exists(PK)' }) } };
  },

  /** Marks the person deleted and drops their password (they can no longer sign in). */
  markDeleted(userId: string): TransactionWrite {
    return {
      Update: {
        TableName: tableName(),
        Key: personKeys(userId),
        UpdateExpression: 'SET #status = :deleted REMOVE passwordHash',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':deleted': 'deleted' },
      },
    };
  },

  /** Frees the person's e-mail address for another person (refused when another person holds the claim). */
  releaseEmail(email: string, userId: string): TransactionWrite {
    return {
      Delete: {
        TableName: tableName(),
        Key: personEmailKeys(email),
        ConditionExpression: 'attribute_not_exists(PK) OR userId = :user',
        ExpressionAttributeValues: { ':user': userId },
      },
    };
  },
};

/** The membership item, for repositories and services that add it to their own unit of work. */
export const membershipItem = (membership: Membership) => ({
  ...membershipKeys(membership.userId, membership.organizationId),
  ...membershipListKeys(membership.organizationId, membership.userId),
  entity: 'membership',
  ...membership,
});

const toPerson = (item: Record<string, unknown>): Person => ({
  userId: item.userId as string,
  email: item.email as string,
  name: item.name as string,
  status: item.status as Person['status'],
  createdAt: item.createdAt as string,
  ...(typeof item.passwordHash === 'string' ? { passwordHash: item.passwordHash } : {}),
});

const toMembership = (item: Record<string, unknown>): Membership => ({
  userId: item.userId as string,
  organizationId: item.organizationId as string,
  createdAt: item.createdAt as string,
});
