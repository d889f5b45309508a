import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { storedInteger } from '../db/attributes';
import { batchGet } from '../db/batch';
import { queryAll } from '../db/query-all';
import { dynamo, tableName } from '../platform/aws';
import type { TransactionWrite } from '../db/unit-of-work';
import { organizationKeys, organizationTreeKeys, organizationTreePartition } from './keys';

export interface Organization {
  id: string;
  name: string;
  parentId: string | null;
  /** Ancestor ids from the root down to this organization, joined by '/'. */
  path: string;
  rootId: string;
  status: 'active' | 'deleted';
  createdAt: string;
  deletedAt?: string;
}

export const organizationRepository = {
  async get(id: string): Promise<Organization | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: organizationKeys(id) }));
    return Item ? toOrganization(Item) : undefined;
  },

  /** Where organizations sit (strongly consistent; id, path and status only), by id; unknown ids are left out. */
  async placements(ids: readonly string[]): Promise<Map<string, Pick<Organization, 'id' | 'path' | 'status'>>> {
    const found = await batchGet(ids.map(organizationKeys), ['id', 'path', 'status']);
    return new Map([...found.values()].map((item) => [String(item.id), { id: String(item.id), path: String(item.path), status: item.status as Organization['status'] }]));
  },

  /** A new organization (a unit of work with its parent's childAddedWrite, when it has a parent). */
  createWrite(organization: Organization): TransactionWrite {
    return {
      Put: {
        TableName: tableName(),
        Item: {
          ...organizationKeys(organization.id),
          ...organizationTreeKeys(organization.rootId, organization.path),
          entity: 'organization',
          ...organization,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    };
  },

  /**
   * A child organization is created under this one, which must be active: the count lets a deletion
   * (which marks the organization first) tell when the eventually consistent tree index shows every child.
   */
  childAddedWrite(parentId: string): TransactionWrite {
    return {
      Update: {
        TableName: tableName(),
        Key: organizationKeys(parentId),
        UpdateExpression: 'ADD childrenListed :one',
        ConditionExpression: '#status = :active',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':one': 1, ':active': 'active' },
      },
    };
  },

  /** The organization and every descendant (paths are fixed-length ids joined by '/'), as the eventually consistent tree index shows them. */
  async subtree(organization: Organization): Promise<Organization[]> {
    const items = await queryAll({
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :pk AND begins_with(GSI2SK, :path)',
      ExpressionAttributeValues: { ':pk': organizationTreePartition(organization.rootId), ':path': organization.path },
    });
    return items.map(toOrganization);
  },

  /**
   * The subtree with every child its members count (strongly consistent counts): the tree index is
   * read until it shows them all. Organizations counted before the count existed count no children.
   */
  async settledSubtree(organization: Organization): Promise<Organization[]> {
    for (let attempt = 1; ; attempt++) {
      const members = await organizationRepository.subtree(organization);
      const counted = await batchGet(members.map((member) => organizationKeys(member.id)), ['id', 'childrenListed']);
      const shown = new Map<string, number>();
      for (const member of members) if (member.parentId) shown.set(member.parentId, (shown.get(member.parentId) ?? 0) + 1);
      const behind = [...counted.values()].some((item) => item.childrenListed !== undefined && storedInteger(item.childrenListed) > (shown.get(String(item.id)) ?? 0));
      if (!behind) return members;
      if (attempt >= 50) throw new Error(`The organization index does not show every child of organization ${organization.id} yet; run the deletion again`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  },

  /**
   * A write for a change of the organization's listed (live) companies: +1 when one is created or
   * restored (the organization must be active), -1 when one is deleted. Once the organization is
   * marked deleted the count can only fall, so its deletion can tell when the (eventually
   * consistent) company index shows every company it must delete.
   */
  companiesListedWrite(id: string, delta: 1 | -1): TransactionWrite {
    return {
      Update: {
        TableName: tableName(),
        Key: organizationKeys(id),
        UpdateExpression: 'ADD companiesListed :delta',
        ConditionExpression: delta > 0 ? '#status = :active' : 'attribute_exists(PK)',
        ...(delta > 0 && { ExpressionAttributeNames: { '#status': 'status' } }),
        ExpressionAttributeValues: { ':delta': delta, ...(delta > 0 && { ':active': 'active' }) },
      },
    };
  },

  /** Live companies of each organization by its count (strongly consistent); organizations never counted are left out. */
  async companiesListed(ids: readonly string[]): Promise<Map<string, number>> {
    const found = await batchGet(ids.map(organizationKeys), ['id', 'companiesListed']);
    return new Map([...found.values()].filter((item) => item.companiesListed !== undefined).map((item) => [String(item.id), storedInteger(item.companiesListed)]));
  },

  /** Marks it deleted; false when it was deleted already (a deletion marks each organization once). */
  async markDeleted(id: string, deletedAt: string): Promise<boolean> {
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: organizationKeys(id),
          UpdateExpression: 'SET #status = :deleted, deletedAt = :at',
          ConditionExpression: 'attribute_exists(PK) AND #status <> :deleted',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':deleted': 'deleted', ':at': deletedAt },
        }),
      );
      return true;
    } catch (error) {
      if ((error as { name?: string }).name === 'ConditionalCheckFailedException' && (await organizationRepository.placements([id])).get(id)?.status === 'deleted') return false;
      throw error;
    }
  },
};

const toOrganization = (item: Record<string, unknown>): Organization => ({
  id: item.id as string,
  name: item.name as string,
  parentId: (item.parentId as string | null) ?? null,
  path: item.path as string,
  rootId: item.rootId as string,
  status: item.status as Organization['status'],
  createdAt: item.createdAt as string,
  ...(item.deletedAt ? { deletedAt: item.deletedAt as string } : {}),
});
