import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { TransactionWrite } from '../db/unit-of-work';
import { batchGet } from '../db/batch';
import { queryAll } from '../db/query-all';
import { keyId, type Item, type Key } from '../db/attributes';
import { putIfAbsent, updateItem } from '../db/update';
import { dynamo, tableName } from '../platform/aws';
import {
  bankAccountKeys,
  bankAccountPrefix,
  bankPartition,
  bankStatementKeys,
  bankTransactionDateIndexKeys,
  bankTransactionDatePartition,
  bankTransactionKeys,
  periodApprovalKeys,
  periodApprovalPartition,
  reconciliationKeys,
  reconciliationListPartition,
  reconciliationListPrefix,
} from './keys';

/** DynamoDB access of bank data, reconciliation groups and period approvals. */

export { keyId, type Item, type Key };

/** A bank transaction as reconciliation names it. */
export interface TransactionRef {
  companyId: string;
  bankAccountId: string;
  id: string;
}

export const getItem = async (key: Key): Promise<Item | undefined> =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

export const bankRepository = {
  getAccount: (companyId: string, bankAccountId: string) => getItem(bankAccountKeys(companyId, bankAccountId)),

  listAccounts: (companyId: string): Promise<Item[]> =>
    queryAll({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': bankPartition(companyId), ':prefix': bankAccountPrefix },
      ConsistentRead: true,
    }),

  /** The company's bank accounts mapped to a GL account (the chart refuses to delete that account). */
  accountsMappedTo: (companyId: string, glAccountCode: string): Promise<Item[]> =>
    queryAll({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      FilterExpression: 'glAccountCode = :code',
      ExpressionAttributeValues: { ':pk': bankPartition(companyId), ':prefix': bankAccountPrefix, ':code': glAccountCode },
      ConsistentRead: true,
    }),

  /** Creates the account, or refreshes the bank's descriptive fields (and the GL mapping when given). */
  saveAccount: async (account: Item, glAccountCode: string | undefined, at: string): Promise<{ created: boolean }> => {
    const key = bankAccountKeys(String(account.companyId), String(account.id));
    try {
      await dynamo().send(
        new PutCommand({ TableName: tableName(), Item: { ...key, ...account, createdAt: at, updatedAt: at }, ConditionExpression: 'attribute_not_exists(PK)' }),
      );
      return { created: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    const { glAccountCode: _default, id: _id, companyId: _companyId, entity: _entity, ...descriptive } = account;
    const set = Object.fromEntries(
      Object.entries({ ...descriptive, ...(glAccountCode !== undefined && { glAccountCode }), updatedAt: at }).filter(([, value]) => value !== undefined),
    );
    const names = Object.fromEntries(Object.keys(set).map((name, i) => [`#f${i}`, name]));
    const values = Object.fromEntries(Object.values(set).map((value, i) => [`:f${i}`, value]));
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: `SET ${Object.keys(set).map((_, i) => `#f${i} = :f${i}`).join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return { created: false };
  },

  /** The statement record as a write of a unit of work (ingestion commits it with its bank.statement.ingested event). */
  /** The statement's record; with `sourceCreatedAt`, only over a record of a message created no later (false condition: an older message). */
  statementWrite: (companyId: string, bankAccountId: string, statementKey: string, statement: Item): TransactionWrite => ({
    Put: {
      TableName: tableName(),
      Item: { ...bankStatementKeys(companyId, bankAccountId, statementKey), entity: 'bankStatement', ...statement },
      ...(typeof statement.sourceCreatedAt === 'string' && {
        ConditionExpression: 'attribute_not_exists(sourceCreatedAt) OR sourceCreatedAt <= :sourceCreatedAt',
        ExpressionAttributeValues: { ':sourceCreatedAt': statement.sourceCreatedAt },
      }),
    },
  }),

  /** Inserts a transaction unless it exists; false when it already did. */
  insertTransaction: (item: Item): Promise<boolean> => putIfAbsent(item),

  /** An amendment: new content and version in place (a reconciliation marker on the item stays); false when the version moved. */
  /** One transaction as stored now (strongly consistent). */
  getTransaction: (key: Key) => getItem(key),

  amendTransaction: (key: Key, set: Item, remove: string[], expectedVersion: unknown): Promise<boolean> =>
    updateItem(key, set, remove, { expression: '#version = :expected', names: { '#version': 'version' }, values: { ':expected': expectedVersion } }),

  transactionKeys: bankTransactionKeys,
  transactionIndexKeys: bankTransactionDateIndexKeys,

  /**
   * One Query page over a bank account's transactions by booking date (GSI1). `reconciled` narrows
   * with a filter on the reconciliation marker (true: in a group; false: in none), so a page may
   * hold fewer items than Limit (the caller goes on from LastEvaluatedKey).
   */
  queryTransactions: (
    companyId: string,
    bankAccountId: string,
    range: { from?: string; to?: string },
    options: Pick<QueryCommandInput, 'Limit' | 'ExclusiveStartKey' | 'ScanIndexForward'> & { reconciled?: boolean },
  ) => {
    // GSI1SK is `${bookingDate}#${id}`: '#' sorts before any uuid character and '$' after '#'.
    const lower = range.from ? `${range.from}#` : undefined;
    const upper = range.to ? `${range.to}$` : undefined;
    const condition =
      lower && upper ? 'GSI1PK = :pk AND GSI1SK BETWEEN :lower AND :upper' : lower ? 'GSI1PK = :pk AND GSI1SK >= :lower' : upper ? 'GSI1PK = :pk AND GSI1SK <= :upper' : 'GSI1PK = :pk';
    const { reconciled, ...rest } = options;
    const filter =
      reconciled === undefined
        ? {}
        : { FilterExpression: reconciled ? 'attribute_exists(#group)' : 'attribute_not_exists(#group)', ExpressionAttributeNames: { '#group': 'reconciliationGroupId' } };
    return dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: condition,
        ExpressionAttributeValues: { ':pk': bankTransactionDatePartition(companyId, bankAccountId), ...(lower && { ':lower': lower }), ...(upper && { ':upper': upper }) },
        ...filter,
        ...rest,
      }),
    );
  },

  /** Every transaction of a bank account booked in [from, to] (bounded by a year), selected attributes only. */
  transactionsBetween: async (companyId: string, bankAccountId: string, from: string, to: string): Promise<Item[]> => {
    const items: Item[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await bankRepository.queryTransactions(companyId, bankAccountId, { from, to }, { ExclusiveStartKey: startKey, ScanIndexForward: true });
      items.push(...(result.Items ?? []));
      startKey = result.LastEvaluatedKey;
    } while (startKey);
    return items;
  },

  /** Transactions by reference (strongly consistent; `projection` limits the attributes read): a lookup that answers undefined for one not found. */
  transactions: async (refs: readonly TransactionRef[], projection?: readonly string[]): Promise<(ref: TransactionRef) => Item | undefined> => {
    const found = await batchGet(
      refs.map((ref) => bankTransactionKeys(ref.companyId, ref.bankAccountId, ref.id)),
      projection,
    );
    return (ref) => found.get(keyId(bankTransactionKeys(ref.companyId, ref.bankAccountId, ref.id)));
  },

  getGroup: (companyId: string, groupId: string) => getItem(reconciliationKeys(companyId, groupId)),

  groupKeys: reconciliationKeys,

  /** Reconciliation groups by id (strongly consistent), deleted ones included; unknown ids are left out. */
  groups: async (companyId: string, groupIds: readonly string[]): Promise<Item[]> => [...(await batchGet(groupIds.map((id) => reconciliationKeys(companyId, id)))).values()],

  /** Groups of a bank account in (year, period, creation) order; whole year when period is omitted. */
  groupsOf: (companyId: string, bankAccountId: string, year: number, period?: number): Promise<Item[]> =>
    queryAll({
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :prefix)',
      ExpressionAttributeValues: { ':pk': reconciliationListPartition(companyId, bankAccountId), ':prefix': reconciliationListPrefix(year, period) },
    }),

  /** Groups of a bank account, newest first: all of them, or those of a year (and period). */
  groupListQuery: (companyId: string, bankAccountId: string, year: number | undefined, period: number | undefined): QueryCommandInput => ({
    TableName: tableName(),
    IndexName: 'GSI1',
    ...(year === undefined
      ? { KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': reconciliationListPartition(companyId, bankAccountId) } }
      : {
          KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :prefix)',
          ExpressionAttributeValues: { ':pk': reconciliationListPartition(companyId, bankAccountId), ':prefix': reconciliationListPrefix(year, period) },
        }),
  }),

  /** Writes for a unit of work: a new group (never overwrites one). */
  createGroupWrite: (item: Item): TransactionWrite => ({ Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' } }),

  /**
   * Marks a bank transaction as in the group, only if it exists, is in no group and is still at
   * the version that was read (GL lines: glLineRepository.markReconciledWrite).
   */
  markMemberWrite: (ref: TransactionRef, groupId: string, version: unknown): TransactionWrite => ({
    Update: {
      TableName: tableName(),
      Key: bankTransactionKeys(ref.companyId, ref.bankAccountId, ref.id),
      UpdateExpression: 'SET reconciliationGroupId = :group',
      ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(reconciliationGroupId) AND #version = :version',
      ExpressionAttributeNames: { '#version': 'version' },
      ExpressionAttributeValues: { ':group': groupId, ':version': version },
    },
  }),

  /** Releases a bank transaction from the group it is in (only from that group). */
  releaseMemberWrite: (ref: TransactionRef, groupId: string): TransactionWrite => ({
    Update: {
      TableName: tableName(),
      Key: bankTransactionKeys(ref.companyId, ref.bankAccountId, ref.id),
      UpdateExpression: 'REMOVE reconciliationGroupId',
      ConditionExpression: 'reconciliationGroupId = :group',
      ExpressionAttributeValues: { ':group': groupId },
    },
  }),

  /** The group's tombstone: it leaves the lists (GSI1 removed) and answers 404 on reads. */
  dissolveGroupWrite: (companyId: string, groupId: string, deletedAt: string): TransactionWrite => ({
    Update: {
      TableName: tableName(),
      Key: reconciliationKeys(companyId, groupId),
      UpdateExpression: 'SET deletedAt = :at REMOVE GSI1PK, GSI1SK',
      ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(deletedAt)',
      ExpressionAttributeValues: { ':at': deletedAt },
    },
  }),

  approvalsOf: (companyId: string, year: number, glAccountCode: string): Promise<Item[]> =>
    queryAll({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': periodApprovalPartition(companyId, year), ':prefix': `${glAccountCode}#` },
      ConsistentRead: true,
    }),

  getApproval: (companyId: string, year: number, glAccountCode: string, period: number) => getItem(periodApprovalKeys(companyId, year, glAccountCode, period)),

  /**
   * Records on a period's approval that a group of the period was created or dissolved after it
   * (`groupsChangedAt`), in the group's transaction: only while the approval read is still in
   * place (approved at `approvedAt`), so a re-approval or withdrawal meanwhile cancels the
   * transaction and the group's write decides again on a fresh read.
   */
  periodChangedWrite: (companyId: string, year: number, glAccountCode: string, period: number, approvedAt: string, changedAt: string): TransactionWrite => ({
    Update: {
      TableName: tableName(),
      Key: periodApprovalKeys(companyId, year, glAccountCode, period),
      UpdateExpression: 'SET groupsChangedAt = :changed',
      ConditionExpression: '#status = :approved AND approvedAt = :approvedAt',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':changed': changedAt, ':approved': 'approved', ':approvedAt': approvedAt },
    },
  }),

  /** periodChangedWrite on its own (a group whose transaction is full); an approval changed meanwhile is left as it is. */
  markPeriodChanged: async (write: TransactionWrite): Promise<void> => {
    try {
      await dynamo().send(new UpdateCommand(write.Update!));
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  },

  /** Replaces the approval whole: a new approval starts without `groupsChangedAt`. */
  putApproval: (companyId: string, year: number, glAccountCode: string, period: number, approval: Item) =>
    dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...periodApprovalKeys(companyId, year, glAccountCode, period), entity: 'periodApproval', companyId, year, glAccountCode, period, ...approval },
      }),
    ),
};
