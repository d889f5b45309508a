import { keyId, storedInteger, textOrNull, type Item, type Key } from '../../db/attributes';
import { batchGet } from '../../db/batch';
import type { Page } from '../../db/query-page';
import { decodeCursor, encodeCursor, type CursorBinding, type CursorCaller } from '../../platform/cursor';
import { fromStoredNumber } from '../../platform/money';
import { problems } from '../../platform/problem';
import { currentAccountingYear } from '../chart/service';
import { glLineKeys, glLineVersionKeys, ledgerPartition, ledgerYearPrefix, openingBalanceKeys, openingBalanceVersionKeys } from '../keys';
import { queryAll, queryOnce } from './repository';
import { lineContent } from './service';
import type { GeneralLedgerLineVersion, LineVersionChange, OpeningBalanceVersion } from './schemas';

/**
 * The versions read of GL lines and opening balances. History is stored beside each row (see
 * shared/ledger/README.md): the current item holds the newest version (for a deleted row: the
 * deletion, a version of its own), and every earlier version is a copy of the item as it was,
 * keyed by its version number (GL lines `VERSION#<n>` in the line's partition, opening balances
 * `HISTORY#<id>#<n>` in the year's partition), with `supersededAt`. A page is one Query of the
 * history range after the cursor, then the current item: oldest first.
 */

export type ListCaller = CursorCaller;

interface VersionCursor {
  year: number;
  /** The last version answered. */
  after: number;
  /** Whether it was a deletion (the next version is then a re-creation). */
  afterDeleted: boolean;
}

const malformed = () => problems.invalidCursor('The cursor is malformed; restart from the first page without a cursor.');

const parseCursor = (value: Record<string, unknown>): VersionCursor => {
  const { year, after, afterDeleted } = value;
  if (!Number.isInteger(year) || !Number.isInteger(after) || (after as number) < 1 || typeof afterDeleted !== 'boolean') throw malformed();
  return { year: year as number, after: after as number, afterDeleted };
};

interface Row {
  item: Item;
  version: number;
  deleted: boolean;
  change: LineVersionChange;
  supersededAt: string | null;
}

/**
 * One page of the versions of a row whose current item is `current`: the history range after
 * `after` and below the current version (a copy at or above it is the leftover of a deletion that
 * failed and is not a version), then the current item once the history is exhausted.
 */
const versionRows = async (
  current: Item,
  versionKey: (version: number) => Key,
  pageSize: number,
  resumed: VersionCursor | undefined,
): Promise<{ rows: Row[]; hasMore: boolean }> => {
  const currentVersion = storedInteger(current.version);
  const after = resumed?.after ?? 0;
  const history: Item[] = [];
  let read: Item[] = [];
  if (after + 1 <= currentVersion - 1) {
    const from = versionKey(after + 1);
    const to = versionKey(currentVersion - 1);
    const result = await queryOnce({
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': from.PK, ':from': from.SK, ':to': to.SK },
      Limit: pageSize + 1,
      ConsistentRead: true,
    });
    read = result.Items ?? [];
    // Opening balances share a partition; an id containing '#' could sort into another id's range.
    history.push(...read.filter((item) => item.sourceLineId === current.sourceLineId));
  }
  const items = [
    ...history.map((item) => ({ item, supersededAt: textOrNull(item.supersededAt) })),
    ...(read.length <= pageSize && after < currentVersion ? [{ item: current, supersededAt: null }] : []),
  ];
  let previousDeleted = resumed?.afterDeleted ?? false;
  const rows = items.map(({ item, supersededAt }): Row => {
    const version = storedInteger(item.version);
    const deleted = item.deleted === true;
    const change: LineVersionChange = deleted ? 'deleted' : version === 1 || previousDeleted ? 'created' : 'updated';
    previousDeleted = deleted;
    return { item, version, deleted, change, supersededAt };
  });
  return { rows: rows.slice(0, pageSize), hasMore: rows.length > pageSize || read.length > pageSize };
};

const pageOfRows = async <T>(
  year: number,
  rows: { rows: Row[]; hasMore: boolean },
  binding: CursorBinding,
  toEntry: (row: Row) => T,
): Promise<Page<T>> => {
  const last = rows.rows.at(-1);
  const next = rows.hasMore && last ? await encodeCursor({ year, after: last.version, afterDeleted: last.deleted }, binding) : null;
  return { data: rows.rows.map(toEntry), pagination: { next_cursor: next, has_more: next !== null } };
};

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

/** What every version entry says about itself: number, kind of change, when, and which import. */
const versionMeta = (row: Row) => ({
  version: row.version,
  change: row.change,
  recordedAt: String(row.deleted ? (row.item.deletedAt ?? row.item.updatedAt) : row.item.updatedAt),
  supersededAt: row.supersededAt,
  datasetId: String(row.item.datasetId),
  importId: String(row.item.lastImportId),
});

// ---------------------------------------------------------------------------------------------
// GL lines
// ---------------------------------------------------------------------------------------------

/** The years in which the company has (or had) GL lines: the GL lane's year summaries (read strongly: the versions of a line of a year's first import, read right after it). */
const generalLedgerYears = async (companyId: string): Promise<number[]> => {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': ledgerPartition(companyId), ':prefix': ledgerYearPrefix },
    ConsistentRead: true,
  });
  return items
    .map((item) => String(item.SK).split('#'))
    .filter((parts) => parts[2] === 'general_ledger_lines')
    .map((parts) => Number(parts[1]));
};

/**
 * The current item of a line by its lineId alone. The id is unique across years (it is derived
 * from company, year and the integrator's id), so the line is looked up in every year that has
 * GL lines with one BatchGet: the caller needs no year.
 */
const findLine = async (companyId: string, lineId: string, year?: number): Promise<Item | undefined> => {
  const years = year !== undefined ? [year] : await generalLedgerYears(companyId);
  if (years.length === 0) return undefined;
  const keys = years.map((y) => glLineKeys(companyId, y, lineId));
  const found = await batchGet(keys);
  return keys.map((key) => found.get(keyId(key))).find((item) => item !== undefined);
};

const toLineVersion = (row: Row): GeneralLedgerLineVersion => ({ ...lineContent(row.item), ...versionMeta(row) });

/** Every version of a GL line, oldest first; a deleted line ends with its deletion. 404 for an unknown line. */
export const listGeneralLedgerLineVersions = async (
  companyId: string,
  lineId: string,
  query: { cursor?: string; page_size: number },
  caller: ListCaller,
): Promise<Page<GeneralLedgerLineVersion>> => {
  const binding: CursorBinding = { ...caller, filters: { companyId, lineId } };
  const resumed = query.cursor ? parseCursor(await decodeCursor(query.cursor, binding)) : undefined;
  const current = await findLine(companyId, lineId, resumed?.year);
  if (!current) throw problems.notFound('GL line');
  const year = storedInteger(current.year);
  const rows = await versionRows(current, (version) => glLineVersionKeys(companyId, year, lineId, version), query.page_size, resumed);
  return pageOfRows(year, rows, binding, toLineVersion);
};

// ---------------------------------------------------------------------------------------------
// Opening balances
// ---------------------------------------------------------------------------------------------

const toOpeningBalanceVersion = (year: number) => (row: Row): OpeningBalanceVersion => {
  const { item } = row;
  return {
    openingBalanceId: String(item.sourceLineId),
    year,
    ...versionMeta(row),
    accountCode: String(item.accountCode),
    amount: fromStoredNumber(item.amount),
    subLedgerKeys: strings(item.subLedgerKeys),
  };
};

/**
 * Every version of one opening balance of a year (the integrator's id; `year` omitted: the current
 * accounting year), oldest first; a deleted one ends with its deletion. 404 when the year has no
 * opening balance with that id.
 */
export const listOpeningBalanceVersions = async (
  companyId: string,
  openingBalanceId: string,
  query: { year?: number; cursor?: string; page_size: number },
  caller: ListCaller,
): Promise<Page<OpeningBalanceVersion>> => {
  const binding: CursorBinding = { ...caller, filters: { companyId, openingBalanceId, year: query.year ?? null } };
  const resumed = query.cursor ? parseCursor(await decodeCursor(query.cursor, binding)) : undefined;
  const year = query.year ?? resumed?.year ?? (await currentAccountingYear(companyId));
  const key = openingBalanceKeys(companyId, year, openingBalanceId);
  const current = (await batchGet([key])).get(keyId(key));
  if (!current) throw problems.notFound('opening balance');
  const rows = await versionRows(current, (version) => openingBalanceVersionKeys(companyId, year, openingBalanceId, version), query.page_size, resumed);
  return pageOfRows(year, rows, binding, toOpeningBalanceVersion(year));
};
