import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchPut } from '../db/batch';
import { bankRepository } from '../bank/repository';
import { importListPartition, ledgerStateKeys } from '../imports/keys';
import { outboxCompanyPartition } from '../outbox/keys';
import { dynamo, outboxTableName, tableName } from '../platform/aws';
import { accountContextKeys, companyContextKeys } from './keys';

/** A stored picture: its JSON text (amounts exact, as the API writes them) and what it was built from. */
export interface StoredPicture {
  /** JSON text written by stringifyJson. */
  picture: string;
  builtAt: string;
  /** The ledger's last-updated instant the picture was built from (null: the books had no fetch yet). */
  ledgerUpdatedAt: string | null;
}

const read = async (key: { PK: string; SK: string }): Promise<StoredPicture | undefined> => {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: key }));
  return Item ? { picture: String(Item.picture), builtAt: String(Item.builtAt), ledgerUpdatedAt: typeof Item.ledgerUpdatedAt === 'string' ? Item.ledgerUpdatedAt : null } : undefined;
};

export const contextRepository = {
  company: (companyId: string) => read(companyContextKeys(companyId)),

  account: (companyId: string, year: number, accountCode: string) => read(accountContextKeys(companyId, year, accountCode)),

  /** The company's picture and its accounts' in batches (each item replaced whole). */
  save: (companyId: string, company: StoredPicture, accounts: { year: number; accountCode: string; stored: StoredPicture }[]) =>
    batchPut([
      { ...companyContextKeys(companyId), ...company },
      ...accounts.map(({ year, accountCode, stored }) => ({ ...accountContextKeys(companyId, year, accountCode), ...stored })),
    ]),

  /** When the books last changed (the ledger state the import pipeline moves with each fetch run). */
  async ledgerUpdatedAt(companyId: string): Promise<string | null> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: ledgerStateKeys(companyId), ConsistentRead: true }));
    return typeof Item?.lastUpdatedAt === 'string' ? Item.lastUpdatedAt : null;
  },

  /**
   * When the company's books last changed as the pictures see them: the ledger's last fetch, the
   * newest event of the company's outbox (reconciliation groups, documents, imports: written in the
   * same transaction as the change; read from the outbox table) and the newest bank account
   * change (statements).
   */
  async latestChangeAt(companyId: string): Promise<string | null> {
    const [ledger, events, accounts] = await Promise.all([
      contextRepository.ledgerUpdatedAt(companyId),
      dynamo().send(
        new QueryCommand({
          TableName: outboxTableName(),
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :pk',
          ExpressionAttributeValues: { ':pk': outboxCompanyPartition(companyId) },
          ScanIndexForward: false,
          Limit: 1,
        }),
      ),
      bankRepository.listAccounts(companyId),
    ]);
    const instants = [ledger, ...(events.Items ?? []).map((item) => String(item.occurredAt)), ...accounts.flatMap((item) => [item.updatedAt, item.lastStatementAt])];
    return instants.filter((value): value is string => typeof value === 'string').sort().at(-1) ?? null;
  },

  /** The newest imports of the company (the import list's index), without a cursor. */
  async recentImports(companyId: string, limit: number): Promise<Record<string, unknown>[]> {
    const { Items } = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': importListPartition(companyId) },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return Items ?? [];
  },
};
