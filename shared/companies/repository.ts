import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../db/batch';
import { queryAll } from '../db/query-all';
import type { TransactionWrite } from '../db/unit-of-work';
import { companyKeys, companyListKeys, companySubtreePrefix, companyTreePartition } from './keys';
import { queryPage, type Page, type PageRequest } from '../db/query-page';
import { dynamo, tableName } from '../platform/aws';
import type { DeletionCause } from './schemas';
import { defaultVatFrequency, type AccountingSystem, type CompanyStatus, type VatFrequency } from './values';

export interface CompanyDeletionRecord {
  deletedAt: string;
  cause: DeletionCause;
  reason: string | null;
  priorStatus: CompanyStatus;
  deletedBy: string;
}

export interface CompanyRecord {
  id: string;
  name: string;
  status: CompanyStatus;
  organizationId: string;
  organizationPath: string;
  rootOrganizationId: string;
  organizationNumber: string | null;
  accountingSystem: AccountingSystem;
  vatFrequency: VatFrequency;
  createdAt: string;
  updatedAt: string;
  deletion?: CompanyDeletionRecord;
}

export type CompanyChanges = Partial<Pick<CompanyRecord, 'name' | 'organizationNumber' | 'accountingSystem' | 'vatFrequency' | 'status'>>;

const notDeleted = 'attribute_exists(PK) AND attribute_not_exists(deletion)';

export const companyRepository = {
  /**
   * Read strongly: every company-scoped request reads its company here (reach, status), often right
   * after the caller changed it (disable then enable, delete then restore, delete then read).
   */
  async get(id: string): Promise<CompanyRecord | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: companyKeys(id), ConsistentRead: true }));
    return Item ? toRecord(Item) : undefined;
  },

  /** The company when it exists and is not deleted (read strongly, as get). */
  async getLive(id: string): Promise<CompanyRecord | undefined> {
    const company = await companyRepository.get(id);
    return company && !company.deletion ? company : undefined;
  },

  /**
   * The writes of each change, for a unit of work that also writes the change's event to the
   * outbox (shared/companies/service.ts commits them together).
   */
  createWrite(company: CompanyRecord): TransactionWrite {
    return {
      Put: {
        TableName: tableName(),
        Item: { ...companyKeys(company.id), ...listKeys(company), entity: 'company', ...company },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    };
  },

  /**
   * A check for a unit of work: the company exists and is not deleted (a disabled one is live);
   * nothing is written. Work that ran while the company was deleted fails on it.
   */
  liveCheck(id: string): TransactionWrite {
    return { ConditionCheck: { TableName: tableName(), Key: companyKeys(id), ConditionExpression: notDeleted } };
  },

  /**
   * A check for a unit of work that pushes books: the company is live and bound to Api. A change
   * of accountingSystem committed after the caller read the company fails it.
   */
  apiManagedCheck(id: string): TransactionWrite {
    return {
      ConditionCheck: {
        TableName: tableName(),
        Key: companyKeys(id),
        ConditionExpression: `${notDeleted} AND accountingSystem = :api`,
        ExpressionAttributeValues: { ':api': 'Api' },
      },
    };
  },

  /** A check for a unit of work: the company is deleted (or does not exist); nothing is written. */
  deletedCheck(id: string): TransactionWrite {
    return { ConditionCheck: { TableName: tableName(), Key: companyKeys(id), ConditionExpression: 'attribute_not_exists(PK) OR attribute_exists(deletion)' } };
  },

  /** Applies changes to a live company (the condition fails when it does not exist or is deleted). */
  updateWrite(id: string, changes: CompanyChanges, updatedAt: string): TransactionWrite {
    const entries = Object.entries({ ...changes, updatedAt }).filter(([, value]) => value !== undefined);
    return {
      Update: {
        TableName: tableName(),
        Key: companyKeys(id),
        UpdateExpression: `SET ${entries.map(([name]) => `#${name} = :${name}`).join(', ')}`,
        ConditionExpression: notDeleted,
        ExpressionAttributeNames: Object.fromEntries(entries.map(([name]) => [`#${name}`, name])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([name, value]) => [`:${name}`, value])),
      },
    };
  },

  /** disable/enable: only from the status read (of two side by side, one changes it). */
  statusWrite(id: string, from: CompanyStatus, to: CompanyStatus, updatedAt: string): TransactionWrite {
    return {
      Update: {
        TableName: tableName(),
        Key: companyKeys(id),
        UpdateExpression: 'SET #status = :to, updatedAt = :at',
        ConditionExpression: `${notDeleted} AND #status = :from`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':to': to, ':from': from, ':at': updatedAt },
      },
    };
  },

  /** Soft delete: keeps the item, drops it from list indexes (the condition fails when it is already deleted or its status is no longer the prior one). */
  markDeletedWrite(id: string, deletion: CompanyDeletionRecord): TransactionWrite {
    return {
      Update: {
        TableName: tableName(),
        Key: companyKeys(id),
        UpdateExpression: 'SET deletion = :deletion, updatedAt = :at REMOVE GSI1PK, GSI1SK',
        ConditionExpression: `${notDeleted} AND #status = :prior`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':deletion': deletion, ':at': deletion.deletedAt, ':prior': deletion.priorStatus },
      },
    };
  },

  /** Undoes exactly the given deletion (the condition fails when the company is no longer in that deletion). */
  restoreWrite(company: CompanyRecord, restoredAt: string): TransactionWrite {
    const deletion = company.deletion!;
    const keys = listKeys(company);
    return {
      Update: {
        TableName: tableName(),
        Key: companyKeys(company.id),
        UpdateExpression: 'SET #status = :status, updatedAt = :at, GSI1PK = :gsi1pk, GSI1SK = :gsi1sk REMOVE deletion',
        ConditionExpression: 'deletion.deletedAt = :deletedAt',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':status': deletion.priorStatus,
          ':at': restoredAt,
          ':gsi1pk': keys.GSI1PK,
          ':gsi1sk': keys.GSI1SK,
          ':deletedAt': deletion.deletedAt,
        },
      },
    };
  },

  /** Live companies of an organization and its descendants, in key order. */
  listSubtree(rootOrganizationId: string, organizationPath: string, page: PageRequest): Promise<Page<CompanyRecord>> {
    return queryPage(subtreeQuery(rootOrganizationId, organizationPath), page, toRecord);
  },

  /**
   * Up to `limit` live companies of a subtree whose list key sorts after `after` (a companyListKey
   * GSI1SK), in key order; `more` when the subtree holds further ones. Lists that merge several
   * subtrees (a person's companies) page with it.
   */
  async subtreeAfter(rootOrganizationId: string, organizationPath: string, after: string | undefined, limit: number, startKey?: Record<string, unknown>) {
    const prefix = companySubtreePrefix(organizationPath);
    const upper = `${prefix}\uffff`;
    const lower = after && after >= prefix ? `${after}\u0000` : prefix;
    // Past the end of this subtree (the cursor is in a later one): nothing here, and DynamoDB refuses a BETWEEN whose bounds are reversed.
    if (lower > upper) return { companies: [], lastKey: undefined };
    const result = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK BETWEEN :lower AND :upper',
        ExpressionAttributeValues: { ':pk': companyTreePartition(rootOrganizationId), ':lower': lower, ':upper': upper },
        Limit: limit,
        ExclusiveStartKey: startKey,
      }),
    );
    return { companies: (result.Items ?? []).map(toRecord), lastKey: result.LastEvaluatedKey };
  },

  /** Companies by id (strongly consistent), deleted ones included. */
  async many(ids: readonly string[]): Promise<CompanyRecord[]> {
    const found = await batchGet(ids.map(companyKeys));
    return [...found.values()].map(toRecord);
  },

  async allInSubtree(rootOrganizationId: string, organizationPath: string): Promise<CompanyRecord[]> {
    const { TableName: _table, ...query } = subtreeQuery(rootOrganizationId, organizationPath);
    return (await queryAll(query)).map(toRecord);
  },
};

const listKeys = (company: CompanyRecord) => companyListKeys(company.rootOrganizationId, company.organizationPath, company.id);

const subtreeQuery = (rootOrganizationId: string, organizationPath: string) => ({
  TableName: tableName(),
  IndexName: 'GSI1',
  KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :prefix)',
  ExpressionAttributeValues: { ':pk': companyTreePartition(rootOrganizationId), ':prefix': companySubtreePrefix(organizationPath) },
});

const toRecord = (item: Record<string, unknown>): CompanyRecord => ({
  id: item.id as string,
  name: item.name as string,
  status: item.status as CompanyStatus,
  organizationId: item.organizationId as string,
  organizationPath: item.organizationPath as string,
  rootOrganizationId: item.rootOrganizationId as string,
  organizationNumber: (item.organizationNumber as string | null | undefined) ?? null,
  accountingSystem: item.accountingSystem as AccountingSystem,
  // Companies created before the field existed file bimonthly, the default.
  vatFrequency: (item.vatFrequency as VatFrequency | undefined) ?? defaultVatFrequency,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
  ...(item.deletion ? { deletion: item.deletion as CompanyDeletionRecord } : {}),
});
