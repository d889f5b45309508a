import { defineImportKind, type ChunkPosition, type ImportContext, type RowOutcome } from '../../imports/kind';
import { applyDeltasOnce, type CounterDelta } from '../deltas';
import { inParallel } from '../../db/batch';
import { ensureKeysExist } from '../general-ledger/repository';
import { usageKeys } from '../keys';
import { openItemRepository, type OpenItemRecord, type Retirement, type UsageMove, type WriteOutcome } from './repository';
import { isSnapshotMode, maxRetiredMatchesKept, OpenItemsImportSchema, type LiveOpenItemRow, type OpenItemRow, type OpenItemsImportBody } from './schemas';
import { checkOpenItemRows, type RowProblem } from './validation';

/**
 * The open-items import (spec: Imports and corrections, rules 3 and 10).
 *
 * All or nothing: validateRows checks every item before anything is applied; the pipeline fails
 * the import on any problem. Items are merged by (company, subLedgerType, itemKey):
 * - a live item sent is inserted (also when a retired record of it exists: it comes back) or
 *   updated; its live matches are those sent, and the stored ones it leaves out are kept, retired
 *   (in every mode: nothing the integrator sent is lost);
 * - sourceDeleted true retires a live item (outcome `deleted`); an item that is absent or
 *   already retired is `unknown` (not an error, as for deletion imports).
 *
 * Modes (rule 3; where the spec is silent, kept simple):
 * - incremental: touches only what is sent; finish retires nothing.
 * - full, full_refresh, baseline: the request is a snapshot of every item of its subLedgerType;
 *   finish retires each live item absent from it (record kept, status retired, its matches
 *   retired with it) and reports them as rowsDeleted.
 * - full_refresh applies exactly as full: every sent item is rewritten whole (its live matches
 *   those sent, the others retired) in every mode, so it needs nothing more.
 * - baseline also marks each item it contains as part of the starting point (`baseline`); the
 *   mark stays while the item stays live and is not set on items that arrive later by other modes.
 *
 * A sub-ledger key not pushed yet is created as a plain value (spec rule 2 on import data), as
 * GL lines do (ensureKeysExist).
 *
 * Usage: each live item counts once for its subLedgerKey on the counter
 * usageKeys(company, 'subLedger', key, 'open_items') (attribute `count`): +1 when it becomes live
 * there, -1 when it is retired or moves to another key.
 */

export const openItemsLane = 'open_items';
/** Attribute of the usage counter item that holds the number of live open items naming the key. */
export const usageCountAttribute = 'count';
/** Items applied per chunk (one BatchGet of 100 keys, then 100 conditional writes). */
export const openItemsChunkSize = 100;
/**
 * Delta marker step of finish: after every chunk of the same import (at most 10 000 rows, so at
 * most 100 chunks), so its usage deltas are applied exactly once, after the chunks' deltas.
 */
export const finishDeltaStep = 1_000_000;

const parallelism = 16;


const usageDeltas = (companyId: string, moves: UsageMove[]): CounterDelta[] =>
  moves.flatMap((move) => {
    if (move.from === move.to) return [];
    const delta = (key: string, add: number): CounterDelta => ({
      key: usageKeys(companyId, 'subLedger', key, openItemsLane),
      add: { [usageCountAttribute]: add },
      set: { kind: 'subLedger', key, lane: openItemsLane },
    });
    return [...(move.from !== null ? [delta(move.from, -1)] : []), ...(move.to !== null ? [delta(move.to, 1)] : [])];
  });

const noMove: UsageMove = { from: null, to: null };

interface RowResult {
  outcome: WriteOutcome | 'unknown';
  usage: UsageMove;
}

const retiredMatches = (record: OpenItemRecord) => record.matches.map((match) => ({ ...match, status: 'retired' as const }));

/**
 * The stored matches of a live item that the re-sent item leaves out are retired (kept), not
 * dropped, in every mode: the most recently retired first (the stored live ones, then those
 * retired before), at most maxRetiredMatchesKept of them. A sent match replaces the stored one of
 * its matchKey. The item then stays within the size the schema bounds (sent matches beside 200 retired).
 */
const absentMatchesRetired = (row: LiveOpenItemRow, stored: OpenItemRecord | undefined) => {
  if (!stored) return [];
  const sent = new Set(row.matches.map((match) => match.matchKey));
  const absent = stored.matches.filter((match) => !sent.has(match.matchKey));
  const byRecency = [...absent.filter((match) => match.status === 'live'), ...absent.filter((match) => match.status !== 'live')];
  return retiredMatches({ ...stored, matches: byRecency.slice(0, maxRetiredMatchesKept) });
};

/** The record a row turns the stored item into, or undefined when nothing is written (`unknown`). */
const nextRecord = (
  context: ImportContext,
  chunk: ChunkPosition,
  row: OpenItemRow,
  stored: OpenItemRecord | undefined,
): { record: OpenItemRecord; outcome: WriteOutcome; usage: UsageMove } | undefined => {
  const stamp = {
    datasetId: context.datasetId,
    importId: context.importId,
    updatedAt: context.appliedAt,
    version: (stored?.version ?? 0) + 1,
    lastImportId: context.importId,
    lastChunk: chunk.index,
  };
  if (row.sourceDeleted) {
    if (!stored || stored.status !== 'live') return undefined;
    const usage = { from: stored.subLedgerKey, to: null };
    const retired: Retirement = { at: context.appliedAt, importId: context.importId, datasetId: context.datasetId, reason: 'source_deleted', mode: context.mode };
    const record = { ...stored, ...stamp, status: 'retired' as const, retired, matches: retiredMatches(stored), lastOutcome: 'deleted' as const, lastUsage: usage };
    return { record, outcome: 'deleted', usage };
  }
  const wasLive = stored?.status === 'live';
  const outcome = wasLive ? 'updated' : 'inserted';
  const usage = { from: wasLive ? stored.subLedgerKey : null, to: row.subLedgerKey };
  const baseline =
    context.mode === 'baseline'
      ? { importId: context.importId, datasetId: context.datasetId, at: context.appliedAt }
      : wasLive
        ? stored.baseline
        : null;
  const record: OpenItemRecord = {
    ...liveContent(row),
    companyId: context.companyId,
    matches: [...row.matches.map((match) => ({ ...match, status: 'live' as const })), ...absentMatchesRetired(row, wasLive ? stored : undefined)],
    status: 'live',
    retired: null,
    baseline,
    createdAt: stored?.createdAt ?? context.appliedAt,
    ...stamp,
    lastOutcome: outcome,
    lastUsage: usage,
  };
  return { record, outcome, usage };
};

const liveContent = (row: LiveOpenItemRow) => ({
  subLedgerType: row.subLedgerType,
  itemKey: row.itemKey,
  subLedgerKey: row.subLedgerKey,
  accountCode: row.accountCode,
  documentId: row.documentId,
  entryCategory: row.entryCategory,
  documentDate: row.documentDate,
  dueDate: row.dueDate,
  amount: row.amount,
  amountOpen: row.amountOpen,
  settlementStatus: row.settlementStatus,
});

const changedMeanwhile = (row: OpenItemRow) =>
  new Error(`Open item ${row.subLedgerType}/${row.itemKey} changed while the import applied it (one open-items import per company at a time)`);

const applyRow = async (
  context: ImportContext,
  chunk: ChunkPosition,
  row: OpenItemRow,
  stored: OpenItemRecord | undefined,
): Promise<RowResult> => {
  // Redelivered chunk: this import already wrote the item; answer what it did then.
  if (stored && stored.lastImportId === context.importId) return { outcome: stored.lastOutcome, usage: stored.lastUsage };
  const next = nextRecord(context, chunk, row, stored);
  if (!next) return { outcome: 'unknown', usage: noMove };
  if (await openItemRepository.put(next.record, stored ? stored.version : null)) return { outcome: next.outcome, usage: next.usage };
  const current = await openItemRepository.get(context.companyId, row.subLedgerType, row.itemKey);
  if (current && current.lastImportId === context.importId) return { outcome: current.lastOutcome, usage: current.lastUsage };
  throw changedMeanwhile(row);
};

/** Stored items of the rows, by subLedgerType and itemKey (rows of one import share one type). */
const storedItems = async (companyId: string, rows: readonly OpenItemRow[]) => {
  const byType = new Map<string, OpenItemRow[]>();
  for (const row of rows) byType.set(row.subLedgerType, [...(byType.get(row.subLedgerType) ?? []), row]);
  const stored = new Map<string, OpenItemRecord>();
  for (const [type, typeRows] of byType) {
    const records = await openItemRepository.getMany(companyId, type, typeRows.map((row) => row.itemKey));
    for (const [itemKey, record] of records) stored.set(`${type}#${itemKey}`, record);
  }
  return (row: OpenItemRow) => stored.get(`${row.subLedgerType}#${row.itemKey}`);
};

/** Row checks plus the one against stored data: a stored sub-ledger of the other type. */
export const validateOpenItemRows = async (context: ImportContext, rows: OpenItemRow[]): Promise<RowProblem[]> => {
  const problems = new Map(checkOpenItemRows(rows).map((problem) => [problem.index, [problem.message]]));
  const live = rows.map((row, index) => ({ row, index })).filter((entry): entry is { row: LiveOpenItemRow; index: number } => !entry.row.sourceDeleted);
  const types = await openItemRepository.subLedgerTypes(context.companyId, live.map(({ row }) => row.subLedgerKey));
  for (const { row, index } of live) {
    const stored = types.get(row.subLedgerKey);
    if (stored !== undefined && stored !== row.subLedgerType) {
      problems.set(index, [...(problems.get(index) ?? []), `subLedgerKey ${row.subLedgerKey} is a ${stored} sub-ledger, not a ${row.subLedgerType} one`]);
    }
  }
  return [...problems.entries()].sort(([a], [b]) => a - b).map(([index, messages]) => ({ index, message: messages.join('; ') }));
};

export const applyOpenItemsChunk = async (context: ImportContext, rows: OpenItemRow[], chunk: ChunkPosition): Promise<RowOutcome[]> => {
  if (rows.length === 0) return [];
  // Rule 2: a sub-ledger key not pushed yet becomes a plain value (idempotent: only missing keys are written).
  const liveKeys = rows.flatMap((row) => (row.sourceDeleted ? [] : [row.subLedgerKey]));
  await ensureKeysExist(context.companyId, 'subLedger', [...new Set(liveKeys)], context.appliedAt);
  const storedOf = await storedItems(context.companyId, rows);
  const results = await inParallel(rows, parallelism, (row) => applyRow(context, chunk, row, storedOf(row)));
  await applyDeltasOnce(usageDeltas(context.companyId, results.map((result) => result.usage)), { importId: context.importId, chunk: chunk.index });
  return results.map((result) => ({ outcome: result.outcome }));
};

/**
 * Snapshot modes: retires every live item of the import's subLedgerType that the snapshot did not
 * contain and counts them. Redelivery-safe: items this import already retired for absence count
 * again and their usage deltas are recomputed whole (applyDeltasOnce skips those already added).
 */
export const finishOpenItems = async (context: ImportContext, rows: OpenItemRow[]): Promise<{ rowsDeleted: number }> => {
  if (!isSnapshotMode(context.mode)) return { rowsDeleted: 0 };
  /** The sub-ledger key of every item this import retired for absence (now or in an earlier delivery). */
  const retiredKeys: string[] = [];
  const retirement: Retirement = { at: context.appliedAt, importId: context.importId, datasetId: context.datasetId, reason: 'absent_from_snapshot', mode: context.mode };
  const isRetiredHere = (record: OpenItemRecord | undefined) =>
    record?.status === 'retired' && record.retired?.importId === context.importId && record.retired.reason === 'absent_from_snapshot';
  for (const type of new Set(rows.map((row) => row.subLedgerType))) {
    const sent = new Set(rows.filter((row) => row.subLedgerType === type).map((row) => row.itemKey));
    await openItemRepository.forEachPage(context.companyId, type, async (page) => {
      const absent = page.filter((record) => !sent.has(record.itemKey));
      const live = absent.filter((record) => record.status === 'live');
      await inParallel(live, parallelism, async (record) => {
        if (await openItemRepository.retire(record, retirement)) return;
        const current = await openItemRepository.get(context.companyId, type, record.itemKey);
        if (!isRetiredHere(current)) throw new Error(`Open item ${type}/${record.itemKey} changed while the snapshot retired it`);
      });
      retiredKeys.push(...absent.filter(isRetiredHere).map((record) => record.subLedgerKey), ...live.map((record) => record.subLedgerKey));
    });
  }
  const moves = retiredKeys.map((key) => ({ from: key, to: null }));
  await applyDeltasOnce(usageDeltas(context.companyId, moves), { importId: context.importId, chunk: finishDeltaStep });
  return { rowsDeleted: retiredKeys.length };
};

export const openItemsImportKind = defineImportKind<OpenItemsImportBody, OpenItemRow>({
  name: 'open_items',
  lane: 'open_items',
  bodySchema: OpenItemsImportSchema,
  rowsField: 'items',
  rows: (body) => body.items,
  rowId: (item) => item.itemKey,
  mode: (body) => body.mode,
  chunkSize: openItemsChunkSize,
  validateRows: validateOpenItemRows,
  applyChunk: applyOpenItemsChunk,
  finish: finishOpenItems,
  reportsDeletions: true,
});
