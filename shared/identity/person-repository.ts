import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll } from '../db/query-all';
import { unitOfWork, type TransactionWrite } from '../db/unit-of-work';
import { dynamo, tableName } from '../platform/aws';
import { membershipKeys, membershipListKeys, membershipSortKeyPrefix, normalizeEmail, organizationMembersPartition, personEmailKeys, personKeys } from './person-keys';

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
  async get(userId: string): Promise<Person | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: personKeys(userId) }));
    return Item ? toPerson(Item) : undefined;
  },

  async findByEmail(email: string): Promise<Person | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: personEmailKeys(email) }));
    return Item ? this.get(Item.userId as string) : undefined;
  },

  /** The person, the e-mail claim and the first membership in one transaction (an address is unique), with the caller's further writes. */
  async create(person: Person, organizationId: string, writes: TransactionWrite[] = []): Promise<void> {
    const work = unitOfWork();
    writes.forEach((write, index) => work.add(`write ${index}`, write));
    await work
      .add('person', { Put: { TableName: tableName(), Item: { ...personKeys(person.userId), entity: 'person', ...person, email: normalizeEmail(person.email) }, ConditionExpression: 'attribute_not_exists(PK)' } })
      .add('email', { Put: { TableName: tableName(), Item: { ...personEmailKeys(person.email), entity: 'personEmail', userId: person.userId }, ConditionExpression: 'attribute_not_exists(PK)' } })
      .add('membership', { Put: { TableName: tableName(), Item: membershipItem({ userId: person.userId, organizationId, createdAt: person.createdAt }) } })
      .commit();
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
