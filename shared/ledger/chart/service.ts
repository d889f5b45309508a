import type { CursorCaller } from '../../platform/cursor';
import type { Page } from '../../db/query-page';
import type { ChunkPosition, ImportContext, RowOutcome } from '../../imports/kind';
import { problems, type ProblemDetails } from '../../platform/problem';
import { applyDeltasOnce, type CounterDelta } from '../deltas';
import { commitUnlessCancelled } from '../../db/unit-of-work';
import { jobRepository } from '../../jobs/repository';
import { ledgerYearKeys, usageKeys } from '../keys';
import { norwegianYear } from '../../platform/norway-time';
import { ledgerHolds } from '../holds';
import { openItemRepository } from '../open-items/repository';
import {
  accountWritingLanes,
  chartRepository as repository,
  usageLanes,
  type AccountRecord,
  type DimensionRecord,
  type ImportOutcome,
  type ImportStamp,
  type Key,
  type KeyUsage,
  type RowStamp,
  type SubLedgerRecord,
  type YearSummary,
} from './repository';
import type {
  AccountImportLine,
  Dimension,
  DimensionImportLine,
  LedgerAccount,
  SubLedger,
  SubLedgerImportLine,
} from './schemas';

/**
 * Rules of the chart of accounts, dimensions and sub-ledgers: imports merged in place (rule 8),
 * deletions refused while anything depends on what they delete (rule 11), reads, and the
 * counts and years the readiness endpoint and other features use.
 */

// ---------------------------------------------------------------------------------------------
// Rows
// ---------------------------------------------------------------------------------------------

/** A request row, with the 0-based request index of the first row of the same key when it repeats one. */
export type WithDuplicate<T> = T & { duplicateOf?: number };
export type AccountRow = WithDuplicate<AccountImportLine>;
export type DimensionRow = WithDuplicate<DimensionImportLine>;
export type SubLedgerRow = WithDuplicate<SubLedgerImportLine>;

/**
 * Marks every later occurrence of a key in the whole request (across chunks), so that the first
 * occurrence applies and later ones fail as rows, the same on every delivery.
 */
export const markDuplicates = <T extends object>(lines: T[], keyOf: (line: T) => string): WithDuplicate<T>[] => {
  const first = new Map<string, number>();
  return lines.map((line, index) => {
    const key = keyOf(line);
    const earlier = first.get(key);
    if (earlier === undefined) {
      first.set(key, index);
      return { ...line };
    }
    return { ...line, duplicateOf: earlier };
  });
};

const failed = (message: string): RowOutcome => ({ outcome: 'failed', message });
const duplicate = (field: string, id: string, firstIndex: number) =>
  failed(`duplicate ${field} ${id}: it first appears at line ${firstIndex + 1}, which is the one applied`);

/** Rows of a chunk are applied with this much concurrency (each is one conditional write). */
const parallelism = 16;
/** Re-reads of one item whose condition failed because something else wrote it in between. */
const maxAttempts = 5;

const mapInParallel = async <T, R>(items: T[], run: (item: T, index: number) => Promise<R>): Promise<R[]> => {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallelism, items.length) }, worker));
  return results;
};

const rowStamp = (context: ImportContext, row: number, outcome: ImportOutcome): RowStamp => ({
  importId: context.importId,
  row,
  outcome,
  datasetId: context.datasetId,
  appliedAt: context.appliedAt,
});

/** The item was written by this import already (a redelivered chunk): its stored outcome. */
const storedOutcome = (record: ImportStamp, row: number, what: string): RowOutcome =>
  record.lastImportRow === row && record.lastOutcome
    ? { outcome: record.lastOutcome }
    : failed(`${what} was already written by another row of this import`);

const writtenByThisImport = (record: ImportStamp | undefined | null, context: ImportContext): boolean =>
  !!record && record.lastImportId === context.importId;

/** An item inserted by this import at a later row did not exist yet for `row` (matters only on redelivery). */
const existedAt = (record: ImportStamp, context: ImportContext, row: number) =>
  !(record.lastImportId === context.importId && record.lastOutcome === 'inserted' && (record.lastImportRow ?? -1) > row);

const requireYear = (context: ImportContext): number => {
  if (context.year === null) throw new Error(`Import ${context.importId}: the chart of accounts needs a year`);
  return context.year;
};

const stillChanging = (what: string) => new Error(`${what}: the item kept changing while it was written; the chunk will be retried`);

// ---------------------------------------------------------------------------------------------
// Accounts import
// ---------------------------------------------------------------------------------------------

/**
 * Accounts of one year, merged by accountCode: an existing account is updated in place (its
 * standardAccount is never touched; `hidden` omitted keeps the flag; `currencyCode` omitted
 * clears it), a new one is inserted unmapped and visible. The year summary counts inserted
 * accounts exactly once per chunk.
 */
export const applyAccountRows = async (context: ImportContext, rows: AccountRow[], chunk: ChunkPosition): Promise<RowOutcome[]> => {
  const year = requireYear(context);
  const existing = await repository.getAccounts(
    context.companyId,
    year,
    rows.filter((row) => row.duplicateOf === undefined).map((row) => row.accountCode),
  );
  const outcomes = await mapInParallel(rows, async (row, index) => {
    if (row.duplicateOf !== undefined) return duplicate('accountCode', row.accountCode, row.duplicateOf);
    return applyAccount(context, year, row, chunk.firstRow + index, existing.get(row.accountCode));
  });
  const inserted = outcomes.filter((o) => o.outcome === 'inserted').length;
  const updated = outcomes.filter((o) => o.outcome === 'updated').length;
  await applyDeltasOnce(
    [
      {
        key: ledgerYearKeys(context.companyId, year, 'accounts'),
        add: { accounts: inserted, mappedAccounts: 0, rowsImported: inserted + updated },
        set: { entity: 'ledgerYear', year, lane: 'accounts', lastImportAt: context.appliedAt },
      },
    ],
    { importId: context.importId, chunk: chunk.index },
  );
  return outcomes;
};

const applyAccount = async (
  context: ImportContext,
  year: number,
  row: AccountRow,
  rowIndex: number,
  found: AccountRecord | undefined,
): Promise<RowOutcome> => {
  let current = found;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    if (writtenByThisImport(current, context)) return storedOutcome(current!, rowIndex, `accountCode ${row.accountCode}`);
    const stamp = rowStamp(context, rowIndex, current ? 'updated' : 'inserted');
    const written = await repository.writeAccount(
      context.companyId,
      year,
      {
        accountNumber: row.accountCode,
        description: row.accountDescription,
        category: row.accountCategory,
        currencyCode: row.currencyCode ?? null,
        hidden: row.hidden,
      },
      stamp,
    );
    if (written) return { outcome: stamp.outcome };
    current = await repository.getAccount(context.companyId, year, row.accountCode);
  }
  throw stillChanging(`account ${row.accountCode}`);
};

// ---------------------------------------------------------------------------------------------
// Dimensions import
// ---------------------------------------------------------------------------------------------

/** Deeper parent chains are refused (they are certainly a data error). */
const maxDimensionDepth = 100;

/**
 * Dimensions merged by key. A parentKey must name a dimension that exists or comes earlier in
 * the request (and was applied), and must not make a cycle. Rows are judged in request order
 * against the state so far; the writes then run concurrently.
 */
export const applyDimensionRows = async (context: ImportContext, rows: DimensionRow[], chunk: ChunkPosition): Promise<RowOutcome[]> => {
  const { companyId } = context;
  const state = new Map<string, DimensionRecord | null>();
  const wanted = [...new Set(rows.flatMap((row) => [row.key, ...(row.parentKey ? [row.parentKey] : [])]))];
  const found = await repository.getDimensions(companyId, wanted);
  for (const key of wanted) state.set(key, found.get(key) ?? null);
  const lookup = async (key: string): Promise<DimensionRecord | null> => {
    if (!state.has(key)) state.set(key, (await repository.getDimension(companyId, key)) ?? null);
    return state.get(key)!;
  };

  const outcomes: (RowOutcome | undefined)[] = new Array(rows.length);
  const writes: { index: number; row: DimensionRow; rowIndex: number; current: DimensionRecord | null }[] = [];
  for (const [index, row] of rows.entries()) {
    const rowIndex = chunk.firstRow + index;
    if (row.duplicateOf !== undefined) {
      outcomes[index] = duplicate('key', row.key, row.duplicateOf);
      continue;
    }
    const current = await lookup(row.key);
    if (writtenByThisImport(current, context)) {
      outcomes[index] = storedOutcome(current!, rowIndex, `key ${row.key}`);
      continue;
    }
    const parentKey = row.parentKey ?? null;
    if (parentKey !== null) {
      const problem = await parentProblem(context, row.key, parentKey, rowIndex, lookup);
      if (problem) {
        outcomes[index] = failed(problem);
        continue;
      }
    }
    writes.push({ index, row, rowIndex, current });
    state.set(row.key, {
      key: row.key,
      value: row.value,
      type: row.type,
      parentKey,
      autoCreated: false,
      createdAt: current?.createdAt ?? context.appliedAt,
      updatedAt: context.appliedAt,
      lastImportId: context.importId,
      lastImportRow: rowIndex,
      lastOutcome: current ? 'updated' : 'inserted',
    });
  }

  await mapInParallel(writes, async ({ index, row, rowIndex, current }) => {
    outcomes[index] = await writeDimension(context, row, rowIndex, current ?? undefined);
  });
  return outcomes.map((outcome) => outcome!);
};

const parentProblem = async (
  context: ImportContext,
  key: string,
  parentKey: string,
  rowIndex: number,
  lookup: (key: string) => Promise<DimensionRecord | null>,
): Promise<string | undefined> => {
  const parent = await lookup(parentKey);
  if (!parent || !existedAt(parent, context, rowIndex)) {
    return `parentKey ${parentKey} names no dimension (neither an existing one nor one earlier in this request)`;
  }
  const seen = new Set<string>();
  let ancestor: string | null = parentKey;
  for (let depth = 0; ancestor !== null; depth++) {
    if (ancestor === key) return `parentKey ${parentKey} would make a cycle: ${key} is its own ancestor`;
    if (depth >= maxDimensionDepth) return `parentKey ${parentKey}: the dimension hierarchy would be deeper than ${maxDimensionDepth} levels`;
    if (seen.has(ancestor)) return undefined; // a cycle above that does not include this key (cannot arise through imports)
    seen.add(ancestor);
    const record = await lookup(ancestor);
    ancestor = record && existedAt(record, context, rowIndex) ? record.parentKey : null;
  }
  return undefined;
};

const writeDimension = async (context: ImportContext, row: DimensionRow, rowIndex: number, found: DimensionRecord | undefined): Promise<RowOutcome> => {
  let current = found;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    if (writtenByThisImport(current, context)) return storedOutcome(current!, rowIndex, `key ${row.key}`);
    const stamp = rowStamp(context, rowIndex, current ? 'updated' : 'inserted');
    const written = await repository.writeDimension(
      context.companyId,
      { key: row.key, value: row.value, type: row.type, parentKey: row.parentKey ?? null },
      stamp,
    );
    if (written) return { outcome: stamp.outcome };
    // Created meanwhile (e.g. auto-created from a GL line) or deleted: decide again.
    current = await repository.getDimension(context.companyId, row.key);
  }
  throw stillChanging(`dimension ${row.key}`);
};

// ---------------------------------------------------------------------------------------------
// Sub-ledgers import
// ---------------------------------------------------------------------------------------------

/** Sub-ledgers merged by key; a key keeps its type (customer or supplier) once it has one. */
export const applySubLedgerRows = async (context: ImportContext, rows: SubLedgerRow[], chunk: ChunkPosition): Promise<RowOutcome[]> => {
  const existing = await repository.getSubLedgers(
    context.companyId,
    rows.filter((row) => row.duplicateOf === undefined).map((row) => row.key),
  );
  return mapInParallel(rows, async (row, index) => {
    if (row.duplicateOf !== undefined) return duplicate('key', row.key, row.duplicateOf);
    return applySubLedger(context, row, chunk.firstRow + index, existing.get(row.key));
  });
};

const applySubLedger = async (context: ImportContext, row: SubLedgerRow, rowIndex: number, found: SubLedgerRecord | undefined): Promise<RowOutcome> => {
  let current = found;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    if (writtenByThisImport(current, context)) return storedOutcome(current!, rowIndex, `key ${row.key}`);
    if (current && current.type !== null && current.type !== row.type) {
      return failed(`sub-ledger ${row.key} exists with type ${current.type}; a key cannot change its type`);
    }
    const stamp = rowStamp(context, rowIndex, current ? 'updated' : 'inserted');
    if (await repository.writeSubLedger(context.companyId, { key: row.key, value: row.value, type: row.type }, stamp)) {
      return { outcome: stamp.outcome };
    }
    current = await repository.getSubLedger(context.companyId, row.key);
  }
  throw stillChanging(`sub-ledger ${row.key}`);
};

// ---------------------------------------------------------------------------------------------
// Deletions (rule 11: all or nothing, nothing cascades)
// ---------------------------------------------------------------------------------------------

export type InUse = NonNullable<ProblemDetails['inUse']>[number];

/** Usage per lane under the names the API uses elsewhere (generalLedgerLines, openingBalances, openItems). */
const laneField = (lane: string) => lane.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
const usageDetail = (usage: KeyUsage) => ({
  lines: usage.total,
  ...Object.fromEntries(Object.entries(usage.byLane).map(([lane, count]) => [laneField(lane), count])),
});

/**
 * What depends on an account in a year: lines and opening balances counted in the trial-balance
 * aggregates, live open items naming it dated that year or before (still open, they are on it),
 * and bank accounts mapped to it (reconciliation and approvals follow the mapping). `openItems`
 * and `bankAccounts` (ids) are listed only when present.
 */
export const accountInUse = async (companyId: string, year: number, code: string): Promise<InUse | undefined> => {
  const [{ openingBalances, generalLedgerLines }, openItems, mapped] = await Promise.all([
    repository.accountLineCounts(companyId, year, code),
    openItemRepository.countLiveOnAccount(companyId, code, `${year}-12-31`),
    ledgerHolds().bankAccountsMappedTo(companyId, code),
  ]);
  const lines = openingBalances + generalLedgerLines;
  const bankAccounts = [...mapped].sort();
  if (lines === 0 && openItems === 0 && bankAccounts.length === 0) return undefined;
  return {
    id: code,
    lines,
    generalLedgerLines,
    openingBalances,
    ...(openItems > 0 && { openItems }),
    ...(bankAccounts.length > 0 && { bankAccounts }),
  };
};

/** What depends on a dimension: rows naming it (usage counters) and child dimensions. */
export const dimensionInUse = async (companyId: string, key: string): Promise<InUse | undefined> => {
  const [usage, dimensions] = await Promise.all([repository.keyUsage(companyId, 'dimension', key), repository.listDimensions(companyId)]);
  const childDimensions = dimensions.filter((dimension) => dimension.parentKey === key).map((dimension) => dimension.key);
  return usage.total > 0 || childDimensions.length > 0 ? { id: key, ...usageDetail(usage), childDimensions } : undefined;
};

/** What depends on a sub-ledger: rows naming it (usage counters of every lane). */
export const subLedgerInUse = async (companyId: string, key: string): Promise<InUse | undefined> => {
  const usage = await repository.keyUsage(companyId, 'subLedger', key);
  return usage.total > 0 ? { id: key, ...usageDetail(usage) } : undefined;
};

const refuse = (inUse: InUse[], reason: string, subject: (ids: string, many: boolean) => string, hint = '') => {
  if (inUse.length === 0) return;
  const ids = inUse.map((entry) => entry.id).join(', ');
  throw problems.conflict(`${subject(ids, inUse.length > 1)} in use; nothing was deleted.${hint}`, { reason, inUse });
};

const inUseOfAll = async (ids: string[], check: (id: string) => Promise<InUse | undefined>): Promise<InUse[]> => {
  const results = await mapInParallel(ids, (id) => check(id));
  return results.filter((entry): entry is InUse => entry !== undefined);
};

/**
 * An import of GL lines, opening balances or open items in flight (queued or running) may already
 * have read an account it is about to write rows on, or write open items naming it, so no account
 * is deleted meanwhile. The deletion's transaction checks the same lane locks, which closes the
 * race with one accepted later.
 */
const writerInFlight = async (companyId: string, lanes: readonly string[]) => {
  const holders = await Promise.all(lanes.map(async (lane) => ({ lane, holder: await jobRepository.laneHolder(companyId, lane) })));
  return holders.find(({ holder }) => holder !== undefined && holder.leaseExpiresAt > Date.now());
};
const accountWriterInFlight = (companyId: string) => writerInFlight(companyId, accountWritingLanes);
/** The same for dimensions and sub-ledgers: an import of rows that may name them (the lanes that count their usage). */
const keyWriterInFlight = (companyId: string) => writerInFlight(companyId, usageLanes);

const writerNoun = (lane: string) => ({ opening_balances: 'opening balances', open_items: 'open items' })[lane] ?? 'GL lines';

/** 409 job_in_flight while such an import is in flight: `what` is not deleted meanwhile. */
const refuseWhileWriting = async (writer: Awaited<ReturnType<typeof writerInFlight>>, what: string): Promise<void> => {
  if (!writer) return;
  throw problems.conflict(
    `An import of ${writerNoun(writer.lane)} (job ${writer.holder!.jobId}) is in flight for this company; ${what} are not deleted meanwhile. Retry once it has finished.`,
    { reason: 'job_in_flight', jobId: writer.holder!.jobId },
  );
};

export const precheckAccountDeletion = async (companyId: string, body: { year: number; ids: string[] }): Promise<void> => {
  await refuseWhileWriting(await accountWriterInFlight(companyId), 'accounts');
  return refuse(
    await inUseOfAll(body.ids, (code) => accountInUse(companyId, body.year, code)),
    'account_in_use',
    (ids, many) => `${many ? 'Accounts' : 'Account'} ${ids} of ${body.year} ${many ? 'are' : 'is'}`,
    ' To retire an account with history, import it with hidden true.',
  );
};

export const precheckDimensionDeletion = async (companyId: string, body: { ids: string[] }): Promise<void> => {
  await refuseWhileWriting(await keyWriterInFlight(companyId), 'dimensions');
  return refuse(await inUseOfAll(body.ids, (key) => dimensionInUse(companyId, key)), 'dimension_in_use', (ids, many) =>
    many ? `Dimensions ${ids} are` : `Dimension ${ids} is`,
  );
};

export const precheckSubLedgerDeletion = async (companyId: string, body: { ids: string[] }): Promise<void> => {
  await refuseWhileWriting(await keyWriterInFlight(companyId), 'sub-ledgers');
  return refuse(await inUseOfAll(body.ids, (key) => subLedgerInUse(companyId, key)), 'sub_ledger_in_use', (ids, many) =>
    many ? `Sub-ledgers ${ids} are` : `Sub-ledger ${ids} is`,
  );
};

/** At apply time (something came to depend on it after the import was accepted): the row fails, nothing is deleted. */
const inUseFailure = (what: string, entry: InUse) => {
  const details = Object.entries(entry)
    .filter(([name, value]) => name !== 'id' && !(Array.isArray(value) && value.length === 0))
    .map(([name, value]) => `${name} ${Array.isArray(value) ? value.join(', ') : String(value)}`);
  return failed(`${what} is in use and was not deleted (${details.join('; ')})`);
};

/**
 * Deletes accounts of a year. Each deletion leaves a receipt (so a redelivered chunk answers
 * `deleted` again, not `unknown`) and re-checks in the same transaction that no line counts on the
 * account and no import of the writing lanes is in flight; open items and bank accounts are
 * re-read just before. The year summary loses the deleted accounts exactly once per chunk.
 */
export const applyAccountDeletions = async (context: ImportContext, ids: string[], chunk: ChunkPosition): Promise<RowOutcome[]> => {
  const year = requireYear(context);
  const results = [];
  for (const [index, code] of ids.entries()) results.push(await deleteAccountRow(context, year, code, chunk.firstRow + index));
  const deleted = results.filter((result) => result.outcome.outcome === 'deleted');
  const deltas: CounterDelta[] = [
    {
      key: ledgerYearKeys(context.companyId, year, 'accounts'),
      add: { accounts: -deleted.length, mappedAccounts: -deleted.filter((result) => result.mapped).length },
    },
  ];
  await applyDeltasOnce(deltas, { importId: context.importId, chunk: chunk.index });
  return results.map((result) => result.outcome);
};

const deleteAccountRow = async (
  context: ImportContext,
  year: number,
  code: string,
  row: number,
): Promise<{ outcome: RowOutcome; mapped?: boolean }> => {
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const receipt = await repository.getReceipt(context.companyId, context.importId, row);
    if (receipt) return { outcome: { outcome: 'deleted' }, mapped: receipt.mapped === true };
    const account = await repository.getAccount(context.companyId, year, code);
    if (!account) return { outcome: { outcome: 'unknown' } };
    const inUse = await accountInUse(context.companyId, year, code);
    if (inUse) return { outcome: inUseFailure(`account ${code}`, inUse) };
    const writer = await accountWriterInFlight(context.companyId);
    if (writer) {
      return { outcome: failed(`account ${code} was not deleted: an import of ${writerNoun(writer.lane)} (job ${writer.holder!.jobId}) is in flight; retry once it has finished`) };
    }
    if (await commitUnlessCancelled(repository.deleteAccountWrites(context.companyId, year, account, context.importId, row))) {
      return { outcome: { outcome: 'deleted' }, mapped: account.standardAccount !== null };
    }
  }
  throw stillChanging(`account ${code}`);
};

/** The usage items to re-check atomically: those found plus each known lane's (absent ones pass). */
const usageKeysToCheck = (companyId: string, kind: 'dimension' | 'subLedger', key: string, usage: KeyUsage): Key[] => {
  const all = [...usage.keys, ...usageLanes.map((lane) => usageKeys(companyId, kind, key, lane))];
  return [...new Map(all.map((k) => [k.SK, k])).values()];
};

export const applyDimensionDeletions = async (context: ImportContext, ids: string[], chunk: ChunkPosition): Promise<RowOutcome[]> => {
  const outcomes: RowOutcome[] = [];
  for (const [index, key] of ids.entries()) {
    const row = chunk.firstRow + index;
    outcomes.push(
      await deleteKeyRow(context, row, {
        exists: async () => !!(await repository.getDimension(context.companyId, key)),
        inUse: () => dimensionInUse(context.companyId, key),
        remove: async () => {
          const usage = await repository.keyUsage(context.companyId, 'dimension', key);
          const checks = usageKeysToCheck(context.companyId, 'dimension', key, usage);
          return commitUnlessCancelled(repository.deleteDimensionWrites(context.companyId, key, checks, context.importId, row));
        },
        what: `dimension ${key}`,
      }),
    );
  }
  return outcomes;
};

export const applySubLedgerDeletions = async (context: ImportContext, ids: string[], chunk: ChunkPosition): Promise<RowOutcome[]> => {
  const outcomes: RowOutcome[] = [];
  for (const [index, key] of ids.entries()) {
    const row = chunk.firstRow + index;
    outcomes.push(
      await deleteKeyRow(context, row, {
        exists: async () => !!(await repository.getSubLedger(context.companyId, key)),
        inUse: () => subLedgerInUse(context.companyId, key),
        remove: async () => {
          const usage = await repository.keyUsage(context.companyId, 'subLedger', key);
          const checks = usageKeysToCheck(context.companyId, 'subLedger', key, usage);
          return commitUnlessCancelled(repository.deleteSubLedgerWrites(context.companyId, key, checks, context.importId, row));
        },
        what: `sub-ledger ${key}`,
      }),
    );
  }
  return outcomes;
};

const deleteKeyRow = async (
  context: ImportContext,
  row: number,
  target: { exists: () => Promise<boolean>; inUse: () => Promise<InUse | undefined>; remove: () => Promise<boolean>; what: string },
): Promise<RowOutcome> => {
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    if (await repository.getReceipt(context.companyId, context.importId, row)) return { outcome: 'deleted' };
    if (!(await target.exists())) return { outcome: 'unknown' };
    const inUse = await target.inUse();
    if (inUse) return inUseFailure(target.what, inUse);
    const writer = await keyWriterInFlight(context.companyId);
    if (writer) return failed(`${target.what} was not deleted: an import of ${writerNoun(writer.lane)} (job ${writer.holder!.jobId}) is in flight; retry once it has finished`);
    if (await target.remove()) return { outcome: 'deleted' };
  }
  throw stillChanging(target.what);
};

// ---------------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------------

export const toLedgerAccount = (record: AccountRecord): LedgerAccount => ({
  accountNumber: record.accountNumber,
  year: record.year,
  description: record.description,
  category: record.category,
  currencyCode: record.currencyCode,
  hidden: record.hidden,
  standardAccount: record.standardAccount,
  mapped: record.standardAccount !== null,
  updatedAt: record.updatedAt,
  datasetId: record.datasetId,
});

export const toDimension = (record: DimensionRecord): Dimension => ({
  key: record.key,
  value: record.value,
  type: record.type,
  parentKey: record.parentKey,
  autoCreated: record.autoCreated,
  updatedAt: record.updatedAt,
});

export const toSubLedger = (record: SubLedgerRecord): SubLedger => ({
  key: record.key,
  value: record.value,
  type: record.type,
  autoCreated: record.autoCreated,
  updatedAt: record.updatedAt,
});

/** Small bounded lists: everything in one page (spec: Shared shapes). */
const onePage = <T>(data: T[]): Page<T> => ({ data, pagination: { next_cursor: null, has_more: false } });

/** The accounts-lane year summaries (accounts, mappedAccounts, lastImportAt per year), oldest year first. */
export const chartYearSummaries = async (companyId: string): Promise<YearSummary[]> =>
  (await repository.yearSummaries(companyId)).sort((a, b) => a.year - b.year);

/** Years that have a chart (at least one account), ascending. */
export const chartYears = async (companyId: string): Promise<number[]> =>
  (await chartYearSummaries(companyId)).filter((summary) => summary.accounts > 0).map((summary) => summary.year);

/**
 * The current accounting year, the one rule behind every `year` left out (accounts, GL lines,
 * trial balance, VAT terms, readiness, DELETE of an account): the year that contains today when
 * it has a chart; else the latest year before today that has one; else this calendar year. A
 * chart pushed ahead for a future year never becomes current before its time, and when only
 * future years have charts the current year is this calendar year (whose books are empty).
 */
export const currentAccountingYear = async (companyId: string, now = new Date()): Promise<number> => {
  const thisYear = norwegianYear(now);
  const years = await chartYears(companyId);
  if (years.includes(thisYear)) return thisYear;
  return years.filter((year) => year < thisYear).at(-1) ?? thisYear;
};

export const listAccounts = async (companyId: string, year?: number): Promise<Page<LedgerAccount>> => {
  const chartYear = year ?? (await currentAccountingYear(companyId));
  return onePage((await repository.listAccounts(companyId, chartYear)).map(toLedgerAccount));
};

/** One account of a year's chart; 404 when that year's chart does not have the code. */
export const getAccount = async (companyId: string, accountNumber: string, year?: number): Promise<LedgerAccount> => {
  const chartYear = year ?? (await currentAccountingYear(companyId));
  const record = await repository.getAccount(companyId, chartYear, accountNumber);
  if (!record) throw problems.notFound('account');
  return toLedgerAccount(record);
};

/** Who lists and how: the cursor is bound to the caller, the operation and the company. */
export type PageCaller = CursorCaller;

export interface KeyListQuery {
  cursor?: string;
  page_size: number;
}

const keyListPage = (companyId: string, query: KeyListQuery, caller: PageCaller) => ({
  pageSize: query.page_size,
  ...(query.cursor && { cursor: query.cursor }),
  binding: { ...caller, filters: { companyId } },
});

/**
 * Dimensions and sub-ledgers are not small (a firm's project or customer register runs into
 * thousands), so they are pages: key order, `page_size` 1-200 (default 50), signed cursors.
 */
export const listDimensions = async (companyId: string, query: KeyListQuery, caller: PageCaller): Promise<Page<Dimension>> => {
  const page = await repository.pageDimensions(companyId, keyListPage(companyId, query, caller));
  return { ...page, data: page.data.map(toDimension) };
};

export const listSubLedgers = async (companyId: string, query: KeyListQuery, caller: PageCaller): Promise<Page<SubLedger>> => {
  const page = await repository.pageSubLedgers(companyId, keyListPage(companyId, query, caller));
  return { ...page, data: page.data.map(toSubLedger) };
};

/** The account codes of a year's chart with their hidden flag (e.g. unknown_account_codes checks). */
export const accountCodesOfYear = async (companyId: string, year: number): Promise<Map<string, { hidden: boolean }>> =>
  new Map((await repository.listAccounts(companyId, year)).map((record) => [record.accountNumber, { hidden: record.hidden }]));

export const countDimensions = (companyId: string): Promise<number> => repository.countDimensions(companyId);
export const countSubLedgers = (companyId: string): Promise<number> => repository.countSubLedgers(companyId);

/**
 * Sets (a string) or clears (null) the standard-account mapping of an account. It is set in the
 * application (tests and admin tooling use this); imports never change it. Keeps the year
 * summary's mappedAccounts in step. 404 when the account is not in that year's chart.
 */
export const setStandardAccount = async (
  companyId: string,
  year: number,
  code: string,
  standardAccount: string | null,
): Promise<LedgerAccount> => {
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const current = await repository.getAccount(companyId, year, code);
    if (!current) throw problems.notFound('account');
    if (current.standardAccount === standardAccount) return toLedgerAccount(current);
    const at = new Date().toISOString();
    if (await commitUnlessCancelled(repository.setStandardAccountWrites(companyId, year, current, standardAccount, at))) {
      return toLedgerAccount({ ...current, standardAccount, updatedAt: at });
    }
  }
  throw stillChanging(`account ${code}`);
};
