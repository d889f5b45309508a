import type { PartitionPacer } from '../db/partition-pacer';
import type { JobType } from '../jobs/schemas';
import type { z } from 'zod';
import type { importKindNames } from './schemas';
import type { ImportWarning } from './warnings';

/**
 * What one kind of import is: its request shape, how its rows are applied, and which lane
 * (job type) it runs in. The import pipeline (shared/imports/pipeline.ts, worker.ts) does
 * everything else the same way for every kind: validation stages, jobs, claim check, chunks,
 * counters, events, fetch completion. The kind names are the import list's (schemas.ts).
 */
export type ImportKindName = (typeof importKindNames)[number];

/**
 * One import runs per lane and company at a time (the job lock). Deletions share the lane of
 * what they delete, so the counters a lane writes have one writer (see shared/ledger/deltas.ts).
 */
export type ImportLane = 'accounts' | 'dimensions' | 'sub_ledgers' | 'opening_balances' | 'general_ledger_lines' | 'open_items';

/** The job type of an import lane: one of the types the job list knows (typed, so a new lane must be listed there). */
export const importJobType = (lane: ImportLane): JobType => `import:${lane}`;

export interface ImportContext {
  companyId: string;
  importId: string;
  /** Stamped on every row the import touches. */
  datasetId: string;
  year: number | null;
  mode: string;
  lane: ImportLane;
  /** When the import is applied (ISO instant), the same for every row of it. */
  appliedAt: string;
  /** Paces the import's index writes per index partition key (the worker sets it; unset = unpaced). */
  indexPacer?: PartitionPacer;
}

/** What became of one row. `unknown`: a deletion named an id the ledger does not have. */
export type RowOutcome =
  | { outcome: 'inserted' | 'updated' | 'deleted' | 'unknown' }
  | { outcome: 'failed'; message: string };

export interface ChunkPosition {
  /** 0-based chunk number; chunks of one import are applied strictly in order. */
  index: number;
  /** 0-based position of the chunk's first row in the request array. */
  firstRow: number;
  /** Each row id of the whole import -> the position of its first row (the worker passes it). */
  firstRowOfId?: ReadonlyMap<string, number>;
  /** Every row of the import, in request order (the worker passes it). */
  rows?: readonly unknown[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the registry holds kinds of many body and row types
export interface ImportKind<Body = any, Row = any> {
  name: ImportKindName;
  lane: ImportLane;
  /** Event recorded when the import is accepted. */
  requestedEvent: 'import.requested' | 'correction.requested';
  /** Whole-request structural schema; its issues index into `rowsField` (0-based). */
  bodySchema: z.ZodType<Body>;
  /** The request array that holds the rows ('accounts', 'lines', 'ids', ...). */
  rowsField: string;
  rows(body: Body): Row[];
  /**
   * The row's identity within the import (the id it is merged or deleted by): keys firstRowOfId
   * (ChunkPosition) and names the rows that come back `unknown`.
   */
  rowId(row: Row): string;
  /** Conditions reported on the accepted import that do not stop it (e.g. unbalanced vouchers); [] for none. */
  warnings(body: Body): ImportWarning[];
  year(body: Body): number | null;
  /** 'merge' unless the kind has modes (open items). */
  mode(body: Body): string;
  /**
   * Checks after the structure and before anything is accepted, against stored data:
   * e.g. 422 unknown_account_codes, 409 lines_in_use. Throws a ProblemError.
   */
  precheck?(companyId: string, body: Body): Promise<void>;
  /** Rows applied together (one exactly-once step of the worker). */
  chunkSize: number;
  /**
   * Applies rows; returns one outcome per row, in order. Must be idempotent per (import, chunk):
   * a redelivered chunk returns the same outcomes and changes nothing twice.
   */
  applyChunk(context: ImportContext, rows: Row[], chunk: ChunkPosition): Promise<RowOutcome[]>;
  /** All-or-nothing kinds (open items): every row is checked first; one failure fails the import. */
  validateRows?(context: ImportContext, rows: Row[]): Promise<{ index: number; message: string }[]>;
  /** The failed import's failureReason when validateRows finds rows (default invalid_rows). */
  invalidRowsReason?: string;
  /**
   * Kinds whose validateRows claims the rows it names (GL-line and opening-balance deletions): ends
   * the claims that are still this import's. The worker calls it after every failing end of the
   * import (and again for a redelivered message of a failed import), so rows it did not delete are
   * free at once, not when the claims lapse. Idempotent; a row claimed by no one or by another
   * import is left as it is.
   */
  releaseClaims?(context: ImportContext, rows: Row[]): Promise<void>;
  /** After the last chunk, e.g. snapshot modes retiring what was absent; returns rows deleted. */
  finish?(context: ImportContext, rows: Row[]): Promise<{ rowsDeleted: number }>;
  /** Deletion kinds and snapshot modes report rowsDeleted; others report null. */
  reportsDeletions: boolean;
  /** GL lines and opening balances: record the fetch completion and run the post-fetch engines after success. */
  postFetch: boolean;
}

/** What most kinds leave as it is: an import (not a correction) merging rows, with no year, mode, warnings or deletions. */
type KindDefaults = 'requestedEvent' | 'warnings' | 'year' | 'mode' | 'reportsDeletions' | 'postFetch';

export const defineImportKind = <Body, Row>(
  kind: Omit<ImportKind<Body, Row>, KindDefaults> & Partial<Pick<ImportKind<Body, Row>, KindDefaults>>,
): ImportKind<Body, Row> => ({
  requestedEvent: 'import.requested',
  warnings: () => [],
  year: () => null,
  mode: () => 'merge',
  reportsDeletions: false,
  postFetch: false,
  ...kind,
});

/** A deletion kind: a correction whose rows are the ids of its body, reporting what it deleted. */
export const defineDeletionKind = <Body extends { ids: string[] }>(
  kind: Omit<ImportKind<Body, string>, KindDefaults | 'rowsField' | 'rows' | 'rowId'> & Partial<Pick<ImportKind<Body, string>, 'year'>>,
): ImportKind<Body, string> =>
  defineImportKind<Body, string>({ requestedEvent: 'correction.requested', rowsField: 'ids', rows: (body) => body.ids, rowId: (id) => id, reportsDeletions: true, ...kind });
