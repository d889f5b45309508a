import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchPut } from '../db/batch';
import { bankRepository } from '../bank/repository';
import { importRepository } from '../imports/repository';
import { latestEventAtOfCompany } from '../outbox/repository';
import { dynamo, tableName } from '../platform/aws';
import { accountContextKeys, companyContextKeys } from './keys';

/** A stored picture: its JSON text (amounts exact, as the API writes them) and what it was built from. */
export interface StoredPicture {
  /** JSON text written by stringifyJson. */
  picture: string;
  builtAt: string;
  /** The ledger's last-updated instant the picture was built from (null: the books had no fetch yet). */
  ledgerUpdatedAt: string | null;
}

/**
 * A rebuild a read asked for and that has not finished yet, kept on the company's context item:
 * when it was queued (the message carries the same instant) and the years the readers asked for.
 */
export interface RefreshRequest {
  requestedAt: string;
  years: number[];
}

const toPicture = (Item: Record<string, unknown> | undefined): StoredPicture | undefined =>
  typeof Item?.picture === 'string'
    ? { picture: Item.picture, builtAt: String(Item.builtAt), ledgerUpdatedAt: typeof Item.ledgerUpdatedAt === 'string' ? Item.ledgerUpdatedAt : null }
    : undefined;

const read = async (key: { PK: string; SK: string }, consistent = false) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: consistent }))).Item;

const isConditionFailure = (error: unknown) => error instanceof ConditionalCheckFailedException || (error as { name?: string })?.name === 'ConditionalCheckFailedException';

export const contextRepository = {
  /** The company's picture (an item holding only a pending request has none yet). */
  company: async (companyId: string) => toPicture(await read(companyContextKeys(companyId))),

  account: async (companyId: string, year: number, accountCode: string) => toPicture(await read(accountContextKeys(companyId, year, accountCode))),

  /**
   * The pending rebuild request of the company, if any, and when the stored company picture's
   * rebuild started (read strongly: a rebuild starts from them).
   */
  async refreshState(companyId: string): Promise<{ pending?: RefreshRequest; builtAt?: string }> {
    const item = await read(companyContextKeys(companyId), true);
    const builtAt = typeof item?.picture === 'string' ? String(item.builtAt) : undefined;
    if (typeof item?.refreshRequestedAt !== 'string') return { ...(builtAt && { builtAt }) };
    const years = item.refreshYears instanceof Set ? [...(item.refreshYears as Set<number>)].map(Number) : [];
    return { pending: { requestedAt: item.refreshRequestedAt, years: years.sort((a, b) => a - b) }, ...(builtAt && { builtAt }) };
  },

  /** The pending rebuild request of the company, if any (read strongly). */
  async refreshRequest(companyId: string): Promise<RefreshRequest | undefined> {
    return (await contextRepository.refreshState(companyId)).pending;
  },

  /** How many rebuilds reads have queued for the company, ever (`refreshQueued`). */
  async refreshesQueued(companyId: string): Promise<number> {
    return Number((await read(companyContextKeys(companyId), true))?.refreshQueued ?? 0);
  },

  /**
   * Records a read's request for a rebuild of the year, and answers whether this request is the one
   * to queue it: only when none is pending, or the pending one is older than `expiredBefore` (its
   * message lost). Otherwise the year joins the pending request (a rebuild that has not read it yet
   * builds it too).
   */
  async claimRefresh(companyId: string, year: number | undefined, requestedAt: string, expiredBefore: string): Promise<boolean> {
    const years = year === undefined ? {} : { ':years': new Set([year]) };
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: companyContextKeys(companyId),
          UpdateExpression: `SET refreshRequestedAt = :at ADD refreshQueued :one${year === undefined ? '' : ', refreshYears :years'}`,
          ConditionExpression: 'attribute_not_exists(refreshRequestedAt) OR refreshRequestedAt < :expired',
          ExpressionAttributeValues: { ':at': requestedAt, ':one': 1, ':expired': expiredBefore, ...years },
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    if (year === undefined) return false;
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: companyContextKeys(companyId),
          UpdateExpression: 'ADD refreshYears :years',
          ConditionExpression: 'attribute_exists(refreshRequestedAt)',
          ExpressionAttributeValues: { ':years': new Set([year]) },
        }),
      );
    } catch (error) {
      // Finished meanwhile: the next read judges the new pictures.
      if (!isConditionFailure(error)) throw error;
    }
    return false;
  },

  /** Ends a pending request when it is one of these (a rebuild that served it, or a request whose message could not be sent). */
  async releaseRefresh(companyId: string, requestedAt: readonly string[]): Promise<void> {
    if (!requestedAt.length) return;
    const values = Object.fromEntries(requestedAt.slice(0, 100).map((at, index) => [`:at${index}`, at]));
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: companyContextKeys(companyId),
          UpdateExpression: 'REMOVE refreshRequestedAt, refreshYears',
          ConditionExpression: `refreshRequestedAt IN (${Object.keys(values).join(', ')})`,
          ExpressionAttributeValues: values,
        }),
      );
    } catch (error) {
      // Another request took its place (queued again after the bound): that one's rebuild ends it.
      if (!isConditionFailure(error)) throw error;
    }
  },

  /** The account pictures of a rebuild, in batches (each item replaced whole). */
  saveAccounts: (companyId: string, accounts: { year: number; accountCode: string; stored: StoredPicture }[]) =>
    batchPut(accounts.map(({ year, accountCode, stored }) => ({ ...accountContextKeys(companyId, year, accountCode), ...stored }))),

  /**
   * The company's picture, beside whatever request is pending on its item, unless a rebuild that
   * started later saved its own already (false: the newer picture stays).
   */
  async saveCompany(companyId: string, stored: StoredPicture): Promise<boolean> {
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: companyContextKeys(companyId),
          UpdateExpression: 'SET picture = :picture, builtAt = :builtAt, ledgerUpdatedAt = :ledgerUpdatedAt',
          ConditionExpression: 'attribute_not_exists(builtAt) OR builtAt <= :builtAt',
          ExpressionAttributeValues: { ':picture': stored.picture, ':builtAt': stored.builtAt, ':ledgerUpdatedAt': stored.ledgerUpdatedAt },
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return false;
    }
  },

  /**
   * When the company's books last changed as the pictures see them: the ledger's last fetch, the
   * newest event of the company's outbox (reconciliation groups, documents, imports: written in the
   * same transaction as the change; read from the outbox table) and the newest bank account
   * change (statements).
   */
  async latestChangeAt(companyId: string): Promise<string | null> {
    const [ledger, event, accounts] = await Promise.all([importRepository.ledgerUpdatedAt(companyId), latestEventAtOfCompany(companyId), bankRepository.listAccounts(companyId)]);
    const instants = [ledger, event, ...accounts.flatMap((item) => [item.updatedAt, item.lastStatementAt])];
    return instants.filter((value): value is string => typeof value === 'string').sort().at(-1) ?? null;
  },
};
