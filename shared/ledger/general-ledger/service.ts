import { NumberValue } from '@aws-sdk/lib-dynamodb';
import type { ChunkPosition, ImportContext, ImportLane, RowOutcome } from '../../imports/kind';
import { decodeCursor, encodeCursor, type CursorCaller } from '../../platform/cursor';
import { Decimal, fromStoredNumber, fromStoredNumberOrNull, toStoredNumber } from '../../platform/money';
import { ProblemError, problems, type ProblemDetails } from '../../platform/problem';
import { chartRepository } from '../chart/repository';
import { currentAccountingYear } from '../chart/service';
import { applyDeltasOnce, putNewCounters, type CounterDelta } from '../deltas';
import {
  balanceKeys,
  glLineAccountIndexKeys,
  glLineKeys,
  glLinePeriodIndexKeys,
  glLineVersionKeys,
  ledgerYearKeys,
  openingBalanceKeys,
  openingBalanceVersionKeys,
  usageKeys,
  vatCellKeys,
} from '../keys';
import {
  balanceItems,
  claimForDeletion,
  claimUnreadChunk,
  deletionClaimAttributes,
  ensureKeysExist,
  getAccounts,
  lineIdOf,
  lineQuerySegments,
  queryOnce,
  releaseDeletionClaim,
  touchLedgerYear,
} from './repository';
import { ledgerHolds } from '../holds';
import { laneLeaseMilliseconds } from '../../jobs/repository';
import { keyId, storedInteger, type Item, type Key } from '../../db/attributes';
import { batchGet, batchPut, inParallel } from '../../db/batch';
import { indexWriteUnits } from '../../db/partition-pacer';
import { updateItem } from '../../db/update';
import {
  monthLabels,
  type GeneralLedgerLine,
  type GeneralLedgerLineInput,
  type GeneralLedgerLinePage,
  type GeneralLedgerLineQuery,
  type OpeningBalanceInput,
  type TrialBalance,
} from './schemas';
import { textOrNull } from '../../db/attributes';
import { timed } from '../../platform/stage-timing';

/** What a live row contributes to the counters: its aggregate cell and the keys it names. */
interface RowState {
  accountCode: string;
  /** 1..12 for GL lines, 0 for opening balances. */
  period: number;
  amount: Decimal;
  dimensionKeys: string[];
  subLedgerKeys: string[];
  /** GL lines: the VAT aggregate cell (a line without taxCode counts in none). */
  taxCode: string | null;
  taxAmount: Decimal | null;
}

/** One row's change: null before = it was not live, null after = it is no longer live. */
interface Transition {
  before: RowState | null;
  after: RowState | null;
}

/** What differs between GL lines and opening balances; merging, deleting and counting are shared. */
interface Book<Row extends { id: string; accountCode: string }> {
  lane: ImportLane;
  entity: 'glLine' | 'openingBalance';
  /** The count kept on the lane's year summary. */
  summaryField: 'generalLedgerLines' | 'openingBalances';
  /** How problems name a row: 'line' or 'opening balance'. */
  noun: string;
  currentKey(companyId: string, year: number, sourceId: string): Key;
  versionKey(companyId: string, year: number, sourceId: string, version: number): Key;
  /** Identity attributes of the current item. */
  identity(companyId: string, year: number, sourceId: string): Item;
  /** The stored fields of a row; undefined means absent (the attribute is removed). */
  fields(row: Row): Item;
  /** Attributes only a live row carries (GL lines: the period and account index keys). */
  indexKeys(companyId: string, year: number, sourceId: string, state: RowState): Item;
  indexNames: string[];
  state(row: Row): RowState;
  periodOf(item: Item): number;
  /** GL lines: the documents that hold each named row (by the integrator's id); rows held by none are left out. */
  documentsHolding?(companyId: string, year: number, sourceIds: readonly string[]): Promise<Map<string, string[]>>;
}

const distinct = (keys: readonly string[] | null | undefined): string[] => [...new Set(keys ?? [])];
const nonEmpty = (keys: readonly string[] | null | undefined) => (keys && keys.length > 0 ? [...keys] : undefined);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

const glLineBook: Book<GeneralLedgerLineInput> = {
  lane: 'general_ledger_lines',
  entity: 'glLine',
  summaryField: 'generalLedgerLines',
  noun: 'line',
  currentKey: (companyId, year, sourceId) => glLineKeys(companyId, year, lineIdOf(companyId, year, sourceId)),
  versionKey: (companyId, year, sourceId, version) => glLineVersionKeys(companyId, year, lineIdOf(companyId, year, sourceId), version),
  identity: (companyId, year, sourceId) => ({ lineId: lineIdOf(companyId, year, sourceId), sourceLineId: sourceId }),
  fields: (row) => ({
    accountCode: row.accountCode,
    amount: toStoredNumber(row.amount),
    period: row.period,
    transactionId: row.transactionId ?? undefined,
    transactionNo: row.transactionNo ?? undefined,
    description: row.description ?? undefined,
    transactionDate: row.transactionDate ?? undefined,
    taxCode: row.taxCode ?? undefined,
    taxAmount: row.taxAmount ? toStoredNumber(row.taxAmount) : undefined,
    taxPercentage: row.taxPercentage ? toStoredNumber(row.taxPercentage) : undefined,
    dimensionKeys: nonEmpty(row.dimensionKeys),
    subLedgerKeys: nonEmpty(row.subLedgerKeys),
  }),
  indexKeys: (companyId, year, sourceId, state) => {
    const lineId = lineIdOf(companyId, year, sourceId);
    return {
      ...glLinePeriodIndexKeys(companyId, year, state.period, lineId),
      ...glLineAccountIndexKeys(companyId, year, state.accountCode, state.period, lineId),
    };
  },
  indexNames: ['GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK'],
  state: (row) => ({
    accountCode: row.accountCode,
    period: row.period,
    amount: row.amount,
    dimensionKeys: distinct(row.dimensionKeys),
    subLedgerKeys: distinct(row.subLedgerKeys),
    taxCode: row.taxCode ?? null,
    taxAmount: row.taxAmount ?? null,
  }),
  periodOf: (item) => storedInteger(item.period),
  documentsHolding: async (companyId, year, sourceIds) => {
    const held = await ledgerHolds().documentsHoldingLines(companyId, sourceIds.map((id) => lineIdOf(companyId, year, id)));
    return new Map(sourceIds.flatMap((id) => {
      const documentIds = held.get(lineIdOf(companyId, year, id));
      return documentIds ? [[id, documentIds] as const] : [];
    }));
  },
};

const openingBalanceBook: Book<OpeningBalanceInput> = {
  lane: 'opening_balances',
  entity: 'openingBalance',
  summaryField: 'openingBalances',
  noun: 'opening balance',
  currentKey: openingBalanceKeys,
  versionKey: openingBalanceVersionKeys,
  identity: (_companyId, _year, sourceId) => ({ sourceLineId: sourceId }),
  fields: (row) => ({ accountCode: row.accountCode, amount: toStoredNumber(row.amount), subLedgerKeys: nonEmpty(row.subLedgerKeys) }),
  indexKeys: () => ({}),
  indexNames: [],
  state: (row) => ({
    accountCode: row.accountCode,
    period: 0,
    amount: row.amount,
    dimensionKeys: [],
    subLedgerKeys: distinct(row.subLedgerKeys),
    taxCode: null,
    taxAmount: null,
  }),
  periodOf: () => 0,
};

const itemState = <Row extends { id: string; accountCode: string }>(book: Book<Row>, item: Item): RowState => ({
  accountCode: String(item.accountCode),
  period: book.periodOf(item),
  amount: fromStoredNumber(item.amount),
  dimensionKeys: distinct(strings(item.dimensionKeys)),
  subLedgerKeys: distinct(strings(item.subLedgerKeys)),
  taxCode: textOrNull(item.taxCode),
  taxAmount: fromStoredNumberOrNull(item.taxAmount),
});

/**
 * The state a write replaced, kept on the current item (`previousState`), so a redelivered chunk
 * recomputes exactly the counter deltas of its first delivery without reading history.
 */
const toStoredState = (state: RowState): Item => ({
  accountCode: state.accountCode,
  period: state.period,
  amount: toStoredNumber(state.amount),
  dimensionKeys: state.dimensionKeys,
  subLedgerKeys: state.subLedgerKeys,
  taxCode: state.taxCode ?? undefined,
  taxAmount: state.taxAmount ? toStoredNumber(state.taxAmount) : undefined,
});

const fromStoredState = (value: unknown): RowState | null => {
  if (!value || typeof value !== 'object') return null;
  const stored = value as Item;
  return {
    accountCode: String(stored.accountCode),
    period: storedInteger(stored.period),
    amount: fromStoredNumber(stored.amount),
    dimensionKeys: strings(stored.dimensionKeys),
    subLedgerKeys: strings(stored.subLedgerKeys),
    taxCode: textOrNull(stored.taxCode),
    taxAmount: fromStoredNumberOrNull(stored.taxAmount),
  };
};

/** The transition an earlier delivery of this chunk already wrote. */
const storedTransition = <Row extends { id: string; accountCode: string }>(book: Book<Row>, item: Item): Transition => ({
  before: fromStoredState(item.previousState),
  after: item.deleted === true ? null : itemState(book, item),
});

/** Comparable text of a stored or about-to-be-stored attribute value. */
const canonical = (value: unknown): string => {
  if (value === undefined || value === null) return '';
  if (value instanceof NumberValue || typeof value === 'number') return new Decimal(value.toString()).toString();
  if (Array.isArray(value)) return JSON.stringify(value.map(String));
  return String(value);
};

const sameFields = (item: Item, fields: Item) => Object.entries(fields).every(([name, value]) => canonical(item[name]) === canonical(value));

const failed = (message: string): RowOutcome => ({ outcome: 'failed', message });

const duplicate = (id: string, firstRow: number) => failed(`duplicate id "${id}" in this request (first at line ${firstRow + 1})`);

const yearOf = (context: ImportContext): number => {
  if (context.year === null) throw new Error(`Import ${context.importId} of lane ${context.lane} has no year`);
  return context.year;
};

const definedOnly = (item: Item): Item => Object.fromEntries(Object.entries(item).filter(([, value]) => value !== undefined));

interface PlannedWrite {
  key: Key;
  set: Item;
  remove: string[];
}

/** Waits until the import's index writes of these items fit the pacer's budget (no pacer: at once). Each entry: one item's versions (before, after). */
const paceIndexWrites = async (context: ImportContext, writes: readonly (readonly (Item | undefined)[])[]): Promise<void> => {
  if (!context.indexPacer) return;
  const units = indexWriteUnits(writes);
  if (units.size > 0) await context.indexPacer.take(units);
};

/**
 * Import rule 9: merge by id. A new id is inserted (version 1); a known id is updated in place
 * after its previous version is written to history; an unchanged re-send is stamped (dataset,
 * import, outcome) without a new version. Rows failing (duplicate id, account missing, a new row
 * on a hidden account or a row moved onto one) are skipped; a row already on a hidden account is
 * corrected like any other. Idempotent per (import, chunk): a row this import already wrote answers its stored
 * outcome, and the counters are applied once per (import, chunk).
 */
const applyMerge = async <Row extends { id: string; accountCode: string }>(
  book: Book<Row>,
  context: ImportContext,
  rows: Row[],
  chunk: ChunkPosition,
): Promise<RowOutcome[]> => {
  const { companyId, importId, appliedAt } = context;
  const year = yearOf(context);
  const keys = rows.map((row) => book.currentKey(companyId, year, row.id));
  // A year that holds only this import's rows needs no read of them, except of ids that an earlier
  // chunk of the import had (the only ones that can exist); any other chunk reads every row.
  let unread = false;
  const readAll = async () => {
    const earlier = chunk.firstRowOfId;
    unread = earlier !== undefined && (await claimUnreadChunk(companyId, year, book.lane, importId, chunk.index));
    return batchGet(unread ? keys.filter((_, i) => earlier!.get(rows[i]!.id)! < chunk.firstRow) : keys);
  };
  const [current, accounts] = await timed('import: chunk read (claim, current rows, accounts)', () =>
    Promise.all([readAll(), getAccounts(companyId, year, rows.map((row) => row.accountCode))]),
  );

  const outcomes: RowOutcome[] = [];
  const transitions: Transition[] = [];
  const history: Item[] = [];
  const inserts: Item[] = [];
  const updates: PlannedWrite[] = [];
  const firstRowOf = new Map<string, number>();

  rows.forEach((row, i) => {
    const rowIndex = chunk.firstRow + i;
    const key = keys[i]!;
    const item = current.get(keyId(key));
    const earlier = firstRowOf.get(row.id);
    if (earlier !== undefined) return void outcomes.push(duplicate(row.id, earlier));
    firstRowOf.set(row.id, rowIndex);

    if (item?.lastImportId === importId) {
      const writtenBy = storedInteger(item.lastRow);
      if (writtenBy !== rowIndex) return void outcomes.push(duplicate(row.id, writtenBy)); // an earlier chunk had the id
      transitions.push(storedTransition(book, item)); // a redelivery: written before, answer the same
      return void outcomes.push({ outcome: item.lastOutcome as 'inserted' | 'updated' });
    }

    const live = item !== undefined && item.deleted !== true;
    const account = accounts.get(row.accountCode);
    if (!account) return void outcomes.push(failed(`account ${row.accountCode} is not in the chart of ${year}`));
    // A hidden account takes no new rows, but a row already on it is corrected in place (rule 9).
    if (account.hidden && !live) return void outcomes.push(failed(`account ${row.accountCode} is hidden in ${year}`));
    if (account.hidden && String(item!.accountCode) !== row.accountCode) {
      return void outcomes.push(failed(`account ${row.accountCode} is hidden in ${year}; a ${book.noun} cannot be moved onto it`));
    }

    const before = live ? itemState(book, item) : null;
    const after = book.state(row);
    const outcome = live ? 'updated' : 'inserted';
    const fields = book.fields(row);
    const stamps = { datasetId: context.datasetId, lastImportId: importId, lastRow: rowIndex, lastOutcome: outcome };
    transitions.push({ before, after });
    outcomes.push({ outcome });

    if (live && sameFields(item, fields)) {
      updates.push({ key, set: { ...stamps, previousState: toStoredState(before!) }, remove: [] });
      return;
    }
    if (item) {
      const { GSI1PK, GSI1SK, GSI2PK, GSI2SK, previousState, deletingBy, deletingUntil, ...kept } = item;
      history.push({ ...kept, ...book.versionKey(companyId, year, row.id, storedInteger(item.version)), entity: `${book.entity}Version`, supersededAt: appliedAt });
    }
    const version = {
      entity: book.entity,
      companyId,
      year,
      ...book.identity(companyId, year, row.id),
      ...definedOnly(fields),
      ...book.indexKeys(companyId, year, row.id, after),
      version: item ? storedInteger(item.version) + 1 : 1,
      createdAt: typeof item?.createdAt === 'string' ? item.createdAt : appliedAt,
      updatedAt: appliedAt,
      ...stamps,
    };
    // A new or deleted line carries no other feature's attributes (only live lines can be
    // reconciled), so it is written whole in a batch; a live line is updated in place, which
    // keeps attributes such as reconciliationGroupId even when they are set meanwhile.
    if (!live) inserts.push({ ...key, ...version });
    else {
      const absent = Object.keys(fields).filter((name) => fields[name] === undefined);
      updates.push({ key, set: { ...version, previousState: toStoredState(before!) }, remove: absent });
    }
  });

  await timed('import: chunk keys (dimensions, sub-ledgers)', () => createMissingKeys(context, transitions));
  await timed('import: chunk history', () => batchPut(history)); // the previous versions first: an interrupted chunk never loses one
  // Then lines and counters together: a redelivery rebuilds the same deltas from previousState
  // and the counters' chunk markers skip what was applied, so their order does not matter.
  await Promise.all([
    timed('import: chunk rows', () =>
      Promise.all([
        batchPut(inserts, (batch) => paceIndexWrites(context, batch.map((item) => [item]))),
        inParallel(updates, 16, async (write) => {
          await paceIndexWrites(context, [[current.get(keyId(write.key)), write.set]]);
          return updateItem(write.key, write.set, write.remove);
        }),
      ]),
    ),
    timed('import: chunk counters', () => applyCounters(book, context, year, transitions, chunk, unread ? cellsNamedBefore(book, companyId, year, chunk) : undefined)),
  ]);
  return outcomes;
};

/** Rule 2: keys named by live rows and not pushed yet become plain values. */
const createMissingKeys = async (context: ImportContext, transitions: Transition[]) => {
  const live = transitions.flatMap((transition) => (transition.after ? [transition.after] : []));
  await ensureKeysExist(context.companyId, 'dimension', distinct(live.flatMap((state) => state.dimensionKeys)), context.appliedAt);
  await ensureKeysExist(context.companyId, 'subLedger', distinct(live.flatMap((state) => state.subLedgerKeys)), context.appliedAt);
};

/**
 * Import rule 11, applied after the precheck found nothing in use: every named row the ledger has
 * is marked deleted (content and history stay; it leaves the read indexes). Ids it does not have
 * answer `unknown`. The import claimed its rows first (rowsHeld), so none is reconciled meanwhile;
 * should one be all the same (a claim that lapsed), it is not deleted (outcome failed).
 *
 * The deletion is a version of its own: the live version goes to history whole (with its dataset,
 * import and time, as a re-send would put it there), and the current item becomes version N + 1,
 * marked deleted, stamped with the deletion's dataset and import. So a deleted line's history is
 * every version it had, then the deletion (the versions read).
 */
const applyDeletion = async <Row extends { id: string; accountCode: string }>(
  book: Book<Row>,
  context: ImportContext,
  ids: string[],
  chunk: ChunkPosition,
): Promise<RowOutcome[]> => {
  const { companyId, importId, appliedAt } = context;
  const year = yearOf(context);
  const keys = ids.map((id) => book.currentKey(companyId, year, id));
  const current = await batchGet(keys);
  const outcomes: RowOutcome[] = [];
  const transitions: Transition[] = [];
  const pending: (PlannedWrite & { index: number; before: RowState; version: number })[] = [];
  const history: Item[] = [];
  const firstRowOf = new Map<string, number>();

  ids.forEach((id, i) => {
    const rowIndex = chunk.firstRow + i;
    const key = keys[i]!;
    const item = current.get(keyId(key));
    const earlier = firstRowOf.get(id);
    if (earlier !== undefined) return void outcomes.push(duplicate(id, earlier));
    firstRowOf.set(id, rowIndex);
    if (item?.lastImportId === importId && storedInteger(item.lastRow) === rowIndex) {
      transitions.push(storedTransition(book, item));
      return void outcomes.push({ outcome: 'deleted' });
    }
    if (!item || item.deleted === true) return void outcomes.push({ outcome: 'unknown' });
    const before = itemState(book, item);
    const version = storedInteger(item.version);
    const { GSI1PK, GSI1SK, GSI2PK, GSI2SK, previousState, deletingBy, deletingUntil, ...kept } = item;
    history.push({ ...kept, ...book.versionKey(companyId, year, id, version), entity: `${book.entity}Version`, supersededAt: appliedAt });
    pending.push({
      index: i,
      before,
      version,
      key,
      set: {
        version: version + 1,
        deleted: true,
        deletedAt: appliedAt,
        datasetId: context.datasetId,
        lastImportId: importId,
        lastRow: rowIndex,
        lastOutcome: 'deleted',
        previousState: toStoredState(before),
      },
      remove: [...book.indexNames, ...deletionClaimAttributes],
    });
    outcomes.push({ outcome: 'deleted' });
  });

  // The live versions to history first, as a re-send does: an interrupted chunk never loses one. A
  // row that then fails (reconciled meanwhile) leaves a copy of its live version in history, which
  // the versions read ignores (it reads history below the current version only).
  await batchPut(history);
  const written = await inParallel(pending, 25, async (write) => {
    await paceIndexWrites(context, [[current.get(keyId(write.key))]]); // the entries leave the indexes
    return updateItem(write.key, write.set, write.remove, {
      expression: 'attribute_not_exists(#group) AND #version = :version',
      names: { '#group': 'reconciliationGroupId', '#version': 'version' },
      values: { ':version': write.version },
    });
  });
  pending.forEach((write, i) => {
    if (written[i]) transitions.push({ before: write.before, after: null });
    else outcomes[write.index] = failed(`the ${book.noun} was reconciled meanwhile and is not deleted`);
  });
  await applyCounters(book, context, year, transitions, chunk);
  return outcomes;
};

/** Counter items kept per year and lane (usage counts are not per year). */
const yearCellEntities = new Set(['trialBalanceCell', 'vatCell']);

/**
 * In a year the import has to itself (claimUnreadChunk), the year's cells that rows before this
 * chunk named: only those can exist. Undefined when the import's rows are not at hand.
 */
const cellsNamedBefore = <Row extends { id: string; accountCode: string }>(book: Book<Row>, companyId: string, year: number, chunk: ChunkPosition): Set<string> | undefined => {
  if (!chunk.rows) return undefined;
  const named = new Set<string>();
  for (const row of (chunk.rows as readonly Row[]).slice(0, chunk.firstRow)) {
    const state = book.state(row);
    named.add(keyId(balanceKeys(companyId, year, state.accountCode, state.period)));
    if (state.taxCode !== null) named.add(keyId(vatCellKeys(companyId, year, state.taxCode, state.period)));
  }
  return named;
};

/**
 * Counter deltas of a chunk's transitions: the trial-balance aggregate per (account, period), the
 * VAT aggregate per (tax code, period) of GL lines with a tax code, the usage of every dimension
 * and sub-ledger key (in this lane's items), and the lane's year count. Applied exactly once per
 * (import, chunk).
 */
const applyCounters = async <Row extends { id: string; accountCode: string }>(
  book: Book<Row>,
  context: ImportContext,
  year: number,
  transitions: Transition[],
  chunk: ChunkPosition,
  /** Only when the import has the year to itself: the year's cells rows before this chunk named. */
  namedBefore?: ReadonlySet<string>,
) => {
  if (transitions.length === 0) return;
  const { companyId } = context;
  const deltas: CounterDelta[] = [];
  let liveRows = 0;
  const count = (state: RowState, sign: 1 | -1) => {
    liveRows += sign;
    deltas.push({
      key: balanceKeys(companyId, year, state.accountCode, state.period),
      add: { amount: sign === 1 ? state.amount : state.amount.negated(), lineCount: sign },
      set: { entity: 'trialBalanceCell', accountCode: state.accountCode, period: state.period, year },
    });
    if (state.taxCode !== null) {
      const taxAmount = state.taxAmount ?? new Decimal(0);
      deltas.push({
        key: vatCellKeys(companyId, year, state.taxCode, state.period),
        add: {
          basis: sign === 1 ? state.amount : state.amount.negated(),
          taxAmount: sign === 1 ? taxAmount : taxAmount.negated(),
          lineCount: sign,
        },
        set: { entity: 'vatCell', taxCode: state.taxCode, period: state.period, year },
      });
    }
    for (const key of state.dimensionKeys) {
      deltas.push({ key: usageKeys(companyId, 'dimension', key, book.lane), add: { count: sign }, set: { entity: 'usage', kind: 'dimension', key, lane: book.lane } });
    }
    for (const key of state.subLedgerKeys) {
      deltas.push({ key: usageKeys(companyId, 'subLedger', key, book.lane), add: { count: sign }, set: { entity: 'usage', kind: 'subLedger', key, lane: book.lane } });
    }
  };
  for (const { before, after } of transitions) {
    if (before) count(before, -1);
    if (after) count(after, 1);
  }
  deltas.push({ key: ledgerYearKeys(companyId, year, book.lane), add: { [book.summaryField]: liveRows }, set: { entity: 'ledgerYear', year, lane: book.lane } });
  // A year cell nothing before this chunk named cannot exist yet: written whole, not added to.
  const isNew = (delta: CounterDelta) => namedBefore !== undefined && yearCellEntities.has(String(delta.set?.entity)) && !namedBefore.has(keyId(delta.key));
  const marker = { importId: context.importId, chunk: chunk.index };
  await Promise.all([putNewCounters(deltas.filter(isNew), marker), applyDeltasOnce(deltas.filter((delta) => !isNew(delta)), marker)]);
  await touchLedgerYear(companyId, year, book.lane, context.appliedAt);
};

export const applyGeneralLedgerLines = (context: ImportContext, rows: GeneralLedgerLineInput[], chunk: ChunkPosition) =>
  applyMerge(glLineBook, context, rows, chunk);

export const applyOpeningBalances = (context: ImportContext, rows: OpeningBalanceInput[], chunk: ChunkPosition) =>
  applyMerge(openingBalanceBook, context, rows, chunk);

export const deleteGeneralLedgerLines = (context: ImportContext, ids: string[], chunk: ChunkPosition) =>
  applyDeletion(glLineBook, context, ids, chunk);

export const deleteOpeningBalances = (context: ImportContext, ids: string[], chunk: ChunkPosition) =>
  applyDeletion(openingBalanceBook, context, ids, chunk);

/**
 * Import rule 7: every account code must be in that year's chart (hidden accounts are in it; new
 * rows on them fail one by one, corrections of rows already on them apply). Otherwise 422 unknown_account_codes listing the codes, with one error per
 * code at its first occurrence.
 */
export const checkAccountCodes = async (companyId: string, year: number, rows: { accountCode: string }[]): Promise<void> => {
  const accounts = await getAccounts(companyId, year, rows.map((row) => row.accountCode));
  const firstIndex = new Map<string, number>();
  rows.forEach((row, index) => {
    if (!accounts.has(row.accountCode) && !firstIndex.has(row.accountCode)) firstIndex.set(row.accountCode, index);
  });
  if (firstIndex.size === 0) return;
  const codes = [...firstIndex.keys()];
  const shown = codes.slice(0, 20).join(', ') + (codes.length > 20 ? `, and ${codes.length - 20} more` : '');
  const problem: ProblemDetails = {
    status: 422,
    error: 'validation_failed',
    title: 'Unknown account codes',
    detail: `The chart of ${year} has no account ${shown}. Import the accounts first; nothing was accepted.`,
    reason: 'unknown_account_codes',
    errors: [...firstIndex].slice(0, 100).map(([code, index]) => ({ index, field: 'accountCode', message: `account code ${code} is not in the chart of ${year}` })),
    accountCodes: codes,
  };
  throw new ProblemError(problem);
};

/** What holds a row from deletion (rule 11): its reconciliation group, the documents that link it. */
interface RowInUse {
  [detail: string]: unknown;
  id: string;
  reconciliationGroupId?: string;
  documentIds?: string[];
}

/** Document ids named per row in `inUse` and in row errors. */
const shownDocuments = 10;

const inUseOf = (id: string, groupId: unknown, documentIds: readonly string[] | undefined): RowInUse | undefined =>
  typeof groupId === 'string' || documentIds
    ? { id, ...(typeof groupId === 'string' && { reconciliationGroupId: groupId }), ...(documentIds && { documentIds: documentIds.slice(0, shownDocuments) }) }
    : undefined;

/** The named rows that are live and reconciled or linked by documents, with what holds each. */
const rowsInUse = async <Row extends { id: string; accountCode: string }>(book: Book<Row>, companyId: string, year: number, ids: readonly string[]): Promise<RowInUse[]> => {
  const [items, documents] = await Promise.all([
    batchGet(
      ids.map((id) => book.currentKey(companyId, year, id)),
      ['reconciliationGroupId', 'deleted'],
    ),
    book.documentsHolding ? book.documentsHolding(companyId, year, distinct(ids)) : new Map<string, string[]>(),
  ]);
  return distinct(ids).flatMap((id) => {
    const item = items.get(keyId(book.currentKey(companyId, year, id)));
    if (!item || item.deleted === true) return [];
    return inUseOf(id, item.reconciliationGroupId, documents.get(id)) ?? [];
  });
};

const heldMessage = (noun: string, held: RowInUse) =>
  [
    held.reconciliationGroupId && `in reconciliation group ${held.reconciliationGroupId}`,
    held.documentIds && `linked by document${held.documentIds.length === 1 ? '' : 's'} ${held.documentIds.join(', ')}`,
  ]
    .filter(Boolean)
    .map((what) => `${noun} ${held.id} is ${what}`)
    .join(' and ') + ': nothing was deleted';

/**
 * Rule 11 when a deletion import is applied (validateRows, before any row is deleted): the import
 * claims every named live row, so from then on no reconciliation takes one, and a document
 * completion sees the deletion's lane (documents/service.ts linkLines). What holds the rows now is
 * then final: each held row is a row error, the import fails whole (`reason`), the claims end and
 * nothing is deleted. Otherwise the claims stay until each row's deletion removes them.
 */
const rowsHeld = <Row extends { id: string; accountCode: string }>(book: Book<Row>) => async (context: ImportContext, ids: string[]) => {
  const { companyId, importId } = context;
  const year = yearOf(context);
  const unique = distinct(ids);
  const until = Date.now() + laneLeaseMilliseconds;
  const claimed = (await inParallel(unique, 25, async (id) => ({ id, item: await claimForDeletion(book.currentKey(companyId, year, id), importId, until) }))).filter(
    (row): row is { id: string; item: Item } => row.item !== undefined,
  );
  const release = () => inParallel(claimed, 25, ({ id }) => releaseDeletionClaim(book.currentKey(companyId, year, id), importId));
  try {
    const documents = book.documentsHolding ? await book.documentsHolding(companyId, year, claimed.map(({ id }) => id)) : new Map<string, string[]>();
    const held = claimed.flatMap(({ id, item }) => inUseOf(id, item.reconciliationGroupId, documents.get(id)) ?? []);
    if (held.length > 0) await release();
    return held.map((row) => ({ index: ids.indexOf(row.id), message: heldMessage(book.noun, row) }));
  } catch (error) {
    await release();
    throw error;
  }
};
export const linesHeld = rowsHeld(glLineBook);
export const openingBalancesHeld = rowsHeld(openingBalanceBook);

/**
 * Ends the claims (rowsHeld) that are still this import's on the rows it names, when the deletion
 * ended without succeeding (ImportKind.releaseClaims): the rows it did not delete are reconciled
 * again at once, not when the claims lapse. One strongly consistent BatchGet per 100 rows, then a
 * conditional update (deletingBy = this import) per row still claimed; idempotent.
 */
const releaseClaims = <Row extends { id: string; accountCode: string }>(book: Book<Row>) => async (context: ImportContext, ids: string[]): Promise<void> => {
  const { companyId, importId } = context;
  const year = yearOf(context);
  const keys = distinct(ids).map((id) => book.currentKey(companyId, year, id));
  const items = await batchGet(keys, ['deletingBy']);
  const claimed = keys.filter((key) => items.get(keyId(key))?.deletingBy === importId);
  await inParallel(claimed, 25, (key) => releaseDeletionClaim(key, importId));
};
export const releaseLineClaims = releaseClaims(glLineBook);
export const releaseOpeningBalanceClaims = releaseClaims(openingBalanceBook);

/** Rule 11: a deletion naming a row in use is refused as a whole (409, inUse lists at most 100). */
const checkNotInUse = async <Row extends { id: string; accountCode: string }>(
  book: Book<Row>,
  reason: string,
  companyId: string,
  year: number,
  ids: string[],
): Promise<void> => {
  const inUse = await rowsInUse(book, companyId, year, ids);
  if (inUse.length === 0) return;
  const what = book.documentsHolding ? 'reconciled or linked by documents' : 'reconciled';
  throw problems.conflict(
    `${inUse.length} of the named ${book.noun}s ${inUse.length === 1 ? 'is' : 'are'} ${what}; nothing was deleted. ${inUse.length === 1 ? 'It stays' : 'They stay'} while reconciled or linked (inUse names what holds each).`,
    { reason, inUse: inUse.slice(0, 100) },
  );
};

export const checkLinesNotInUse = (companyId: string, year: number, ids: string[]) =>
  checkNotInUse(glLineBook, 'lines_in_use', companyId, year, ids);

export const checkOpeningBalancesNotInUse = (companyId: string, year: number, ids: string[]) =>
  checkNotInUse(openingBalanceBook, 'opening_balances_in_use', companyId, year, ids);

/** Years default to the current accounting year as the chart defines it (currentAccountingYear). */
const currentYear = currentAccountingYear;

export type ListCaller = CursorCaller;

/** What a stored GL line says (its content), as the line read and its versions show it. */
export const lineContent = (item: Item) => ({
  lineId: String(item.lineId),
  sourceLineId: String(item.sourceLineId),
  year: storedInteger(item.year),
  period: storedInteger(item.period),
  accountCode: String(item.accountCode),
  amount: fromStoredNumber(item.amount),
  transactionId: textOrNull(item.transactionId),
  transactionNo: textOrNull(item.transactionNo),
  description: textOrNull(item.description),
  transactionDate: textOrNull(item.transactionDate),
  taxCode: textOrNull(item.taxCode),
  taxAmount: fromStoredNumberOrNull(item.taxAmount),
  taxPercentage: fromStoredNumberOrNull(item.taxPercentage),
  dimensionKeys: strings(item.dimensionKeys),
  subLedgerKeys: strings(item.subLedgerKeys),
});

const toLine = (item: Item): GeneralLedgerLine => ({
  ...lineContent(item),
  datasetId: String(item.datasetId),
  version: storedInteger(item.version),
  updatedAt: String(item.updatedAt),
});

interface LineCursor {
  year: number;
  segment: number;
  key: Record<string, unknown>;
}

/**
 * GL lines ordered by period, then line id. With an account: one Query of that account's index
 * partition (already in period, line id order). Otherwise one Query per period (1 to 12, or the
 * one asked for); a page may span periods and its cursor names the period and the key to go on
 * from. Deleted lines are not in the indexes; zero amounts are.
 */
export const listGeneralLedgerLines = async (
  companyId: string,
  query: GeneralLedgerLineQuery,
  caller: ListCaller,
): Promise<GeneralLedgerLinePage> => {
  const binding = { ...caller, filters: { companyId, year: query.year, account: query.account, period: query.period } };
  const resumed = query.cursor ? parseLineCursor(await decodeCursor(query.cursor, binding)) : undefined;
  const year = query.year ?? resumed?.year ?? (await currentYear(companyId));
  const segments = lineQuerySegments(companyId, year, query);
  if (resumed && resumed.segment >= segments.length) throw problems.invalidCursor('The cursor is malformed; restart from the first page without a cursor.');

  const found: { item: Item; segment: number }[] = [];
  let segment = resumed?.segment ?? 0;
  let startKey: Record<string, unknown> | undefined = resumed?.key;
  while (segment < segments.length && found.length <= query.page_size) {
    const result = await queryOnce({ ...segments[segment]!, Limit: query.page_size + 1 - found.length, ExclusiveStartKey: startKey });
    for (const item of result.Items ?? []) found.push({ item, segment });
    startKey = result.LastEvaluatedKey;
    if (!startKey) segment += 1;
  }

  const page = found.slice(0, query.page_size);
  const last = page.at(-1);
  let next: LineCursor | undefined;
  if (found.length > query.page_size && last) {
    const index = segments[last.segment]!.IndexName === 'GSI2' ? ['GSI2PK', 'GSI2SK'] : ['GSI1PK', 'GSI1SK'];
    next = { year, segment: last.segment, key: Object.fromEntries(['PK', 'SK', ...index].map((name) => [name, last.item[name]])) };
  }
  return {
    data: page.map(({ item }) => toLine(item)),
    pagination: { next_cursor: next ? await encodeCursor({ ...next }, binding) : null, has_more: next !== undefined },
  };
};

const parseLineCursor = (value: Record<string, unknown>): LineCursor => {
  const { year, segment, key } = value;
  if (!Number.isInteger(year) || !Number.isInteger(segment) || (segment as number) < 0 || !key || typeof key !== 'object') {
    throw problems.invalidCursor('The cursor is malformed; restart from the first page without a cursor.');
  }
  return { year: year as number, segment: segment as number, key: key as Record<string, unknown> };
};

/**
 * The trial balance of a year from its aggregates (one Query, O(accounts)): per account the
 * opening balance (period 0), the twelve movements and the closing balance after each period,
 * closing at N = opening + movements 1..N, in exact decimals. Accounts without any opening
 * balance or line are left out.
 */
export const getTrialBalance = async (companyId: string, requestedYear: number | undefined): Promise<TrialBalance> => {
  const year = requestedYear ?? (await currentYear(companyId));
  const byAccount = new Map<string, { cells: Decimal[]; lines: number }>();
  // The chart is read beside the aggregates, so the answer names each account (no second call for descriptions).
  const [items, chart] = await Promise.all([balanceItems(companyId, year), chartRepository.listAccounts(companyId, year)]);
  const descriptions = new Map(chart.map((account) => [account.accountNumber, account.description]));
  for (const item of items) {
    const code = String(item.accountCode);
    const account = byAccount.get(code) ?? { cells: Array.from({ length: 13 }, () => new Decimal(0)), lines: 0 };
    const period = storedInteger(item.period);
    if (period < 0 || period > 12) continue;
    account.cells[period] = account.cells[period]!.plus(fromStoredNumber(item.amount));
    account.lines += storedInteger(item.lineCount ?? 0);
    byAccount.set(code, account);
  }
  const accounts = [...byAccount.entries()]
    .filter(([, account]) => account.lines > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([accountCode, account]) => ({ accountCode, description: descriptions.get(accountCode) ?? null, ...balancesOf(account.cells) }));
  const totals = Array.from({ length: 13 }, () => new Decimal(0));
  for (const [, account] of byAccount) {
    if (account.lines > 0) account.cells.forEach((cell, period) => (totals[period] = totals[period]!.plus(cell)));
  }
  return { year, accounts, totals: balancesOf(totals) };
};

/** cells[0] is the opening balance, cells[1..12] the movements. */
const balancesOf = (cells: Decimal[]) => {
  let running = cells[0]!;
  const movements = monthLabels.map((label, i) => {
    running = running.plus(cells[i + 1]!);
    return { period: i + 1, label, amount: cells[i + 1]!, closingBalance: running };
  });
  return { openingBalance: cells[0]!, movements, closingBalance: running };
};
