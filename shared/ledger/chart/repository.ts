import { queryAll, queryCount } from '../../db/query-all';
import { queryPage, type Page, type PageRequest } from '../../db/query-page';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  GetCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../../platform/aws';
import {
  accountKeys,
  accountSortPrefix,
  balanceKeys,
  balancePartition,
  chartPartition,
  deletionReceiptKeys,
  dimensionKeys,
  dimensionPartition,
  ledgerPartition,
  ledgerYearKeys,
  ledgerYearPrefix,
  subLedgerKeys,
  subLedgerPartition,
  usagePartition,
  usagePrefix,
} from '../keys';
import type { AccountCategory, DimensionType, SubLedgerType } from './schemas';
import type { ImportLane } from '../../imports/kind';
import { jobRepository } from '../../jobs/repository';
import { storedInteger, storedIntegerOrNull, textOrNull } from '../../db/attributes';
import { batchGet } from '../../db/batch';
import type { TransactionWrite } from '../../db/unit-of-work';

/** The lanes whose imports write rows naming accounts: no account is deleted while one is in flight. */
export const accountWritingLanes: readonly ImportLane[] = ['general_ledger_lines', 'opening_balances', 'open_items'];

/**
 * DynamoDB access of the chart of accounts (one partition per company and year), dimensions and
 * sub-ledgers (one partition each per company). Every import write is conditional and stamps the
 * item with the import, the request row and the outcome, so a redelivered chunk finds what it did.
 */

export type Key = { PK: string; SK: string };
export type ImportOutcome = 'inserted' | 'updated';

/** What the last import that wrote an item did to it (absent on items no import wrote). */
export interface ImportStamp {
  lastImportId: string | null;
  lastImportRow: number | null;
  lastOutcome: ImportOutcome | null;
}

export interface AccountRecord extends ImportStamp {
  accountNumber: string;
  year: number;
  description: string;
  category: AccountCategory;
  currencyCode: string | null;
  hidden: boolean;
  standardAccount: string | null;
  createdAt: string;
  updatedAt: string;
  datasetId: string;
}

export interface DimensionRecord extends ImportStamp {
  key: string;
  value: string;
  type: DimensionType | null;
  parentKey: string | null;
  autoCreated: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface SubLedgerRecord extends ImportStamp {
  key: string;
  value: string;
  type: SubLedgerType | null;
  autoCreated: boolean;
  createdAt: string;
  updatedAt: string;
}

/** One import's write of one row: who writes it and what the outcome is. */
export interface RowStamp {
  importId: string;
  row: number;
  outcome: ImportOutcome;
  datasetId: string;
  appliedAt: string;
}

/** SK prefixes of the items listed in the dimension and sub-ledger partitions (dimensionKeys, subLedgerKeys). */
const dimensionSortPrefix = 'DIMENSION#';
const subLedgerSortPrefix = 'SUBLEDGER#';

const receiptRetentionSeconds = 14 * 24 * 3600;

/** Usage counters (usageKeys) hold the number of live rows naming the key in `count` (GL lines, opening balances, open items). */
export const usageCountAttributes = ['count'] as const;
/** Lanes whose usage items a deletion re-checks atomically even when none was found by the Query. */
export const usageLanes = ['general_ledger_lines', 'opening_balances', 'open_items'] as const;
/** Periods of the trial-balance aggregates: 00 is the opening balance, 01..12 the movements. */
const balancePeriods = Array.from({ length: 13 }, (_, period) => period);

// ---------------------------------------------------------------------------------------------
// Low-level helpers
// ---------------------------------------------------------------------------------------------

/** Numbers come back as NumberValue (wrapNumbers); counters and years are small integers. */

/** Placeholders for one expression: every attribute name goes through #names (many are reserved words). */
class Expression {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  name(attribute: string): string {
    const placeholder = `#${attribute}`;
    this.names[placeholder] = attribute;
    return placeholder;
  }
  value(value: unknown): string {
    const placeholder = `:v${Object.keys(this.values).length}`;
    this.values[placeholder] = value;
    return placeholder;
  }
  /** SET a = :a for each entry; `keep` entries only when the attribute is absent (if_not_exists). */
  set(values: Record<string, unknown>, keep: Record<string, unknown> = {}): string {
    const parts = Object.entries(values).map(([attribute, value]) => `${this.name(attribute)} = ${this.value(value)}`);
    for (const [attribute, value] of Object.entries(keep)) {
      const name = this.name(attribute);
      parts.push(`${name} = if_not_exists(${name}, ${this.value(value)})`);
    }
    return `SET ${parts.join(', ')}`;
  }
  /** ExpressionAttributeValues must not be empty when given. */
  get attributeValues(): Record<string, unknown> | undefined {
    return Object.keys(this.values).length ? this.values : undefined;
  }
}


const getItem = async (key: Key): Promise<Record<string, unknown> | undefined> =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

const countAll = (partition: string, prefix: string): Promise<number> =>
  queryCount({ KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)', ExpressionAttributeValues: { ':pk': partition, ':prefix': prefix } });

const inPartition = (partition: string, prefix: string) => ({
  KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
  ExpressionAttributeValues: { ':pk': partition, ':prefix': prefix },
  ConsistentRead: true,
});

/** True when written; false when the condition failed (the caller re-reads and decides again). */
const conditionalUpdate = async (key: Key, expression: Expression, update: string, condition: string): Promise<boolean> => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeNames: expression.names,
        ExpressionAttributeValues: expression.attributeValues,
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
};


const stampOf = (item: Record<string, unknown>): ImportStamp => ({
  lastImportId: textOrNull(item.lastImportId),
  lastImportRow: storedIntegerOrNull(item.lastImportRow),
  lastOutcome: (textOrNull(item.lastOutcome) as ImportOutcome | null) ?? null,
});

const stampValues = (stamp: RowStamp) => ({
  updatedAt: stamp.appliedAt,
  datasetId: stamp.datasetId,
  lastImportId: stamp.importId,
  lastImportRow: stamp.row,
  lastOutcome: stamp.outcome,
});

/** Insert: the item must be absent. Update: present and not yet written by this import. */
const importCondition = (expression: Expression, stamp: RowStamp): string =>
  stamp.outcome === 'inserted'
    ? 'attribute_not_exists(PK)'
    : `attribute_exists(PK) AND (attribute_not_exists(${expression.name('lastImportId')}) OR ${expression.name('lastImportId')} <> ${expression.value(stamp.importId)})`;

// ---------------------------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------------------------

export const toAccountRecord = (item: Record<string, unknown>): AccountRecord => ({
  accountNumber: item.accountNumber as string,
  year: storedInteger(item.year),
  description: item.description as string,
  category: item.category as AccountCategory,
  currencyCode: textOrNull(item.currencyCode),
  hidden: item.hidden === true,
  standardAccount: textOrNull(item.standardAccount),
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
  datasetId: item.datasetId as string,
  ...stampOf(item),
});

/** Items auto-created from GL lines carry only key, value, type null, autoCreated and createdAt. */
export const toDimensionRecord = (item: Record<string, unknown>): DimensionRecord => ({
  key: item.key as string,
  value: (textOrNull(item.value) ?? item.key) as string,
  type: (textOrNull(item.type) as DimensionType | null) ?? null,
  parentKey: textOrNull(item.parentKey),
  autoCreated: item.autoCreated === true,
  createdAt: item.createdAt as string,
  updatedAt: (textOrNull(item.updatedAt) ?? item.createdAt) as string,
  ...stampOf(item),
});

export const toSubLedgerRecord = (item: Record<string, unknown>): SubLedgerRecord => ({
  key: item.key as string,
  value: (textOrNull(item.value) ?? item.key) as string,
  type: (textOrNull(item.type) as SubLedgerType | null) ?? null,
  autoCreated: item.autoCreated === true,
  createdAt: item.createdAt as string,
  updatedAt: (textOrNull(item.updatedAt) ?? item.createdAt) as string,
  ...stampOf(item),
});

export interface AccountWrite {
  accountNumber: string;
  description: string;
  category: AccountCategory;
  currencyCode: string | null;
  /** undefined keeps the stored flag (new accounts: false). */
  hidden: boolean | undefined;
}

export interface DimensionWrite {
  key: string;
  value: string;
  type: DimensionType;
  parentKey: string | null;
}

export interface SubLedgerWrite {
  key: string;
  value: string;
  type: SubLedgerType;
}

export interface YearSummary {
  year: number;
  accounts: number;
  mappedAccounts: number;
  lastImportAt: string | null;
}

export interface KeyUsage {
  total: number;
  /** Live rows naming the key, per lane that counts them. */
  byLane: Record<string, number>;
  /** The usage items that exist (for the atomic re-check at deletion). */
  keys: Key[];
}

const receiptItem = (companyId: string, importId: string, row: number, id: string, extra: Record<string, unknown>) => ({
  ...deletionReceiptKeys(companyId, importId, row),
  entity: 'deletionReceipt',
  importId,
  row,
  id,
  outcome: 'deleted',
  ...extra,
  expiresAt: Math.floor(Date.now() / 1000) + receiptRetentionSeconds,
});

/** A ConditionCheck that the counter item is absent or holds no positive count under any of the names. */
const zeroCountCheck = (key: Key, attributes: readonly string[]) => {
  const expression = new Expression();
  const zero = expression.value(0);
  const condition = attributes
    .map((attribute) => `(attribute_not_exists(${expression.name(attribute)}) OR ${expression.name(attribute)} <= ${zero})`)
    .join(' AND ');
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: key,
      ConditionExpression: condition,
      ExpressionAttributeNames: expression.names,
      ExpressionAttributeValues: expression.values,
    },
  };
};

export const chartRepository = {
  // -------------------------------------------------------------------------------------------
  // Accounts
  // -------------------------------------------------------------------------------------------

  async getAccount(companyId: string, year: number, code: string): Promise<AccountRecord | undefined> {
    const item = await getItem(accountKeys(companyId, year, code));
    return item ? toAccountRecord(item) : undefined;
  },

  async getAccounts(companyId: string, year: number, codes: string[]): Promise<Map<string, AccountRecord>> {
    const items = await batchGet(codes.map((code) => accountKeys(companyId, year, code)));
    return new Map([...items.values()].map((item) => [item.accountNumber as string, toAccountRecord(item)]));
  },

  /** The chart of one year in account-number order (string order of the codes). */
  async listAccounts(companyId: string, year: number): Promise<AccountRecord[]> {
    return (await queryAll(inPartition(chartPartition(companyId, year), accountSortPrefix))).map(toAccountRecord);
  },

  /** Writes one imported account: insert or update in place; never touches standardAccount of an existing account. */
  async writeAccount(companyId: string, year: number, account: AccountWrite, stamp: RowStamp): Promise<boolean> {
    const expression = new Expression();
    const update = expression.set(
      {
        entity: 'account',
        companyId,
        accountNumber: account.accountNumber,
        year,
        description: account.description,
        category: account.category,
        currencyCode: account.currencyCode,
        ...(account.hidden !== undefined && { hidden: account.hidden }),
        ...stampValues(stamp),
      },
      { standardAccount: null, createdAt: stamp.appliedAt, ...(account.hidden === undefined && { hidden: false }) },
    );
    return conditionalUpdate(accountKeys(companyId, year, account.accountNumber), expression, update, importCondition(expression, stamp));
  },

  /**
   * The writes that delete an account and leave a receipt, refused unless it is unchanged in its
   * mapping and no trial-balance aggregate of that year counts lines on it (checked in the same transaction).
   */
  deleteAccountWrites(companyId: string, year: number, account: AccountRecord, importId: string, row: number): TransactionWrite[] {
    const expression = new Expression();
    const mapping = expression.name('standardAccount');
    const condition =
      account.standardAccount === null
        ? `attribute_exists(PK) AND (attribute_not_exists(${mapping}) OR ${mapping} = ${expression.value(null)})`
        : `attribute_exists(PK) AND ${mapping} = ${expression.value(account.standardAccount)}`;
    return [
      {
        Delete: {
          TableName: tableName(),
          Key: accountKeys(companyId, year, account.accountNumber),
          ConditionExpression: condition,
          ExpressionAttributeNames: expression.names,
          ExpressionAttributeValues: expression.values,
        },
      },
      ...balancePeriods.map((period) => zeroCountCheck(balanceKeys(companyId, year, account.accountNumber, period), ['lineCount'])),
      // No import that writes rows naming accounts may be in flight (it may have read the account already).
      ...accountWritingLanes.map((lane) => jobRepository.laneFreeCheck(companyId, lane, Date.now())),
      {
        Put: {
          TableName: tableName(),
          Item: receiptItem(companyId, importId, row, account.accountNumber, { mapped: account.standardAccount !== null }),
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
    ];
  },

  /**
   * Sets (or clears, with null) the standard-account mapping and keeps the year summary's
   * mappedAccounts in step, in one transaction conditioned on the mapping read before.
   */
  setStandardAccountWrites(companyId: string, year: number, current: AccountRecord, standardAccount: string | null, at: string): TransactionWrite[] {
    const expression = new Expression();
    const mapping = expression.name('standardAccount');
    const condition =
      current.standardAccount === null
        ? `attribute_exists(PK) AND (attribute_not_exists(${mapping}) OR ${mapping} = ${expression.value(null)})`
        : `attribute_exists(PK) AND ${mapping} = ${expression.value(current.standardAccount)}`;
    const update = expression.set({ standardAccount, updatedAt: at });
    const delta = (standardAccount !== null ? 1 : 0) - (current.standardAccount !== null ? 1 : 0);
    return [
      {
        Update: {
          TableName: tableName(),
          Key: accountKeys(companyId, year, current.accountNumber),
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeNames: expression.names,
          ExpressionAttributeValues: expression.values,
        },
      },
      ...(delta !== 0
        ? [
            {
              Update: {
                TableName: tableName(),
                Key: ledgerYearKeys(companyId, year, 'accounts'),
                // A plain addition, outside the lane's exactly-once markers (it is not an import step).
                UpdateExpression: 'ADD mappedAccounts :delta',
                ExpressionAttributeValues: { ':delta': delta },
              },
            },
          ]
        : []),
    ];
  },

  /** Lines counted on an account in a year's trial-balance aggregates: period 00 (opening balances) and 01..12. */
  async accountLineCounts(companyId: string, year: number, code: string): Promise<{ openingBalances: number; generalLedgerLines: number }> {
    const items = await queryAll(inPartition(balancePartition(companyId, year), `${code}#`));
    let openingBalances = 0;
    let generalLedgerLines = 0;
    for (const item of items) {
      const count = Math.max(0, storedInteger(item.lineCount));
      if ((item.SK as string).endsWith('#00')) openingBalances += count;
      else generalLedgerLines += count;
    }
    return { openingBalances, generalLedgerLines };
  },

  /** The accounts-lane summary item of every year of the company. */
  async yearSummaries(companyId: string): Promise<YearSummary[]> {
    const items = await queryAll(inPartition(ledgerPartition(companyId), ledgerYearPrefix));
    return items
      .filter((item) => (item.SK as string).endsWith('#accounts'))
      .map((item) => ({
        year: Number((item.SK as string).split('#')[1]),
        accounts: storedInteger(item.accounts),
        mappedAccounts: storedInteger(item.mappedAccounts),
        lastImportAt: textOrNull(item.lastImportAt),
      }));
  },

  // -------------------------------------------------------------------------------------------
  // Dimensions
  // -------------------------------------------------------------------------------------------

  async getDimension(companyId: string, key: string): Promise<DimensionRecord | undefined> {
    const item = await getItem(dimensionKeys(companyId, key));
    return item ? toDimensionRecord(item) : undefined;
  },

  async getDimensions(companyId: string, keys: string[]): Promise<Map<string, DimensionRecord>> {
    const items = await batchGet(keys.map((key) => dimensionKeys(companyId, key)));
    return new Map([...items.values()].map((item) => [item.key as string, toDimensionRecord(item)]));
  },

  async listDimensions(companyId: string): Promise<DimensionRecord[]> {
    return (await queryAll(inPartition(dimensionPartition(companyId), dimensionSortPrefix))).map(toDimensionRecord);
  },

  /** One page of the dimensions in key order (the list read). */
  pageDimensions(companyId: string, page: PageRequest): Promise<Page<DimensionRecord>> {
    return queryPage({ TableName: tableName(), ...inPartition(dimensionPartition(companyId), dimensionSortPrefix) }, page, toDimensionRecord);
  },

  countDimensions: (companyId: string): Promise<number> => countAll(dimensionPartition(companyId), dimensionSortPrefix),

  /** Insert or update in place; an auto-created item gets value and type and loses autoCreated. */
  async writeDimension(companyId: string, dimension: DimensionWrite, stamp: RowStamp): Promise<boolean> {
    const expression = new Expression();
    const update = expression.set(
      {
        entity: 'dimension',
        companyId,
        key: dimension.key,
        value: dimension.value,
        type: dimension.type,
        parentKey: dimension.parentKey,
        autoCreated: false,
        ...stampValues(stamp),
      },
      { createdAt: stamp.appliedAt },
    );
    return conditionalUpdate(dimensionKeys(companyId, dimension.key), expression, update, importCondition(expression, stamp));
  },

  /** The writes that delete a dimension with a receipt, re-checking in the same transaction that no usage item counts it. */
  deleteDimensionWrites(companyId: string, key: string, usageKeysToCheck: Key[], importId: string, row: number): TransactionWrite[] {
    return [
      { Delete: { TableName: tableName(), Key: dimensionKeys(companyId, key), ConditionExpression: 'attribute_exists(PK)' } },
      ...usageKeysToCheck.map((usageKey) => zeroCountCheck(usageKey, usageCountAttributes)),
      // No import that may name it may be in flight (it may have read it already).
      ...usageLanes.map((lane) => jobRepository.laneFreeCheck(companyId, lane, Date.now())),
      { Put: { TableName: tableName(), Item: receiptItem(companyId, importId, row, key, {}), ConditionExpression: 'attribute_not_exists(PK)' } },
    ];
  },

  // -------------------------------------------------------------------------------------------
  // Sub-ledgers
  // -------------------------------------------------------------------------------------------

  async getSubLedger(companyId: string, key: string): Promise<SubLedgerRecord | undefined> {
    const item = await getItem(subLedgerKeys(companyId, key));
    return item ? toSubLedgerRecord(item) : undefined;
  },

  async getSubLedgers(companyId: string, keys: string[]): Promise<Map<string, SubLedgerRecord>> {
    const items = await batchGet(keys.map((key) => subLedgerKeys(companyId, key)));
    return new Map([...items.values()].map((item) => [item.key as string, toSubLedgerRecord(item)]));
  },

  async listSubLedgers(companyId: string): Promise<SubLedgerRecord[]> {
    return (await queryAll(inPartition(subLedgerPartition(companyId), subLedgerSortPrefix))).map(toSubLedgerRecord);
  },

  /** One page of the sub-ledgers in key order (the list read). */
  pageSubLedgers(companyId: string, page: PageRequest): Promise<Page<SubLedgerRecord>> {
    return queryPage({ TableName: tableName(), ...inPartition(subLedgerPartition(companyId), subLedgerSortPrefix) }, page, toSubLedgerRecord);
  },

  countSubLedgers: (companyId: string): Promise<number> => countAll(subLedgerPartition(companyId), subLedgerSortPrefix),

  /** Insert or update in place; an update also requires the stored type to be unset or the same. */
  async writeSubLedger(companyId: string, subLedger: SubLedgerWrite, stamp: RowStamp): Promise<boolean> {
    const expression = new Expression();
    const update = expression.set(
      {
        entity: 'subLedger',
        companyId,
        key: subLedger.key,
        value: subLedger.value,
        type: subLedger.type,
        autoCreated: false,
        ...stampValues(stamp),
      },
      { createdAt: stamp.appliedAt },
    );
    let condition = importCondition(expression, stamp);
    if (stamp.outcome === 'updated') {
      const type = expression.name('type');
      condition += ` AND (attribute_not_exists(${type}) OR ${type} = ${expression.value(null)} OR ${type} = ${expression.value(subLedger.type)})`;
    }
    return conditionalUpdate(subLedgerKeys(companyId, subLedger.key), expression, update, condition);
  },

  deleteSubLedgerWrites(companyId: string, key: string, usageKeysToCheck: Key[], importId: string, row: number): TransactionWrite[] {
    return [
      { Delete: { TableName: tableName(), Key: subLedgerKeys(companyId, key), ConditionExpression: 'attribute_exists(PK)' } },
      ...usageKeysToCheck.map((usageKey) => zeroCountCheck(usageKey, usageCountAttributes)),
      // No import that may name it may be in flight (it may have read it already).
      ...usageLanes.map((lane) => jobRepository.laneFreeCheck(companyId, lane, Date.now())),
      { Put: { TableName: tableName(), Item: receiptItem(companyId, importId, row, key, {}), ConditionExpression: 'attribute_not_exists(PK)' } },
    ];
  },

  // -------------------------------------------------------------------------------------------
  // Usage and receipts
  // -------------------------------------------------------------------------------------------

  /**
   * How many live rows name a dimension or sub-ledger key: the sum over its usage items (one per
   * lane). Only items whose SK is exactly the prefix plus a lane count, so key `A` does not pick up
   * the usage of key `A#B` (keys may contain '#').
   */
  async keyUsage(companyId: string, kind: 'dimension' | 'subLedger', key: string): Promise<KeyUsage> {
    const prefix = usagePrefix(kind, key);
    const items = await queryAll(inPartition(usagePartition(companyId), prefix));
    const byLane: Record<string, number> = {};
    const keys: Key[] = [];
    for (const item of items) {
      const lane = (item.SK as string).slice(prefix.length);
      if (!lane || lane.includes('#')) continue;
      keys.push({ PK: item.PK as string, SK: item.SK as string });
      const count = usageCountAttributes.reduce((sum, attribute) => sum + Math.max(0, storedInteger(item[attribute])), 0);
      if (count > 0) byLane[lane] = (byLane[lane] ?? 0) + count;
    }
    return { total: Object.values(byLane).reduce((sum, count) => sum + count, 0), byLane, keys };
  },

  async getReceipt(companyId: string, importId: string, row: number): Promise<Record<string, unknown> | undefined> {
    return getItem(deletionReceiptKeys(companyId, importId, row));
  },
};
