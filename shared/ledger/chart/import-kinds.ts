import type { ImportKind } from '../../imports/kind';
import {
  AccountDeletionSchema,
  AccountsImportSchema,
  DimensionDeletionSchema,
  DimensionsImportSchema,
  SubLedgerDeletionSchema,
  SubLedgersImportSchema,
  type AccountDeletionBody,
  type AccountsImportBody,
  type DimensionDeletionBody,
  type DimensionsImportBody,
  type SubLedgerDeletionBody,
  type SubLedgersImportBody,
} from './schemas';
import {
  applyAccountDeletions,
  applyAccountRows,
  applyDimensionDeletions,
  applyDimensionRows,
  applySubLedgerDeletions,
  applySubLedgerRows,
  markDuplicates,
  precheckAccountDeletion,
  precheckDimensionDeletion,
  precheckSubLedgerDeletion,
  type AccountRow,
  type DimensionRow,
  type SubLedgerRow,
} from './service';

/**
 * The import kinds of the chart of accounts, dimensions and sub-ledgers, and their deletions.
 * Rows are single conditional writes, so a chunk of 500 stays well inside a worker's time; a
 * deletion row re-reads usage and runs one transaction, so its chunks are smaller.
 */
const importChunkSize = 500;
const deletionChunkSize = 50;

export const accountsImportKind: ImportKind<AccountsImportBody, AccountRow> = {
  name: 'accounts',
  lane: 'accounts',
  requestedEvent: 'import.requested',
  bodySchema: AccountsImportSchema,
  rowsField: 'accounts',
  rows: (body) => markDuplicates(body.accounts, (line) => line.accountCode),
  rowId: (line) => line.accountCode,
  warnings: () => [],
  year: (body) => body.year,
  mode: () => 'merge',
  chunkSize: importChunkSize,
  applyChunk: applyAccountRows,
  reportsDeletions: false,
  postFetch: false,
};

export const dimensionsImportKind: ImportKind<DimensionsImportBody, DimensionRow> = {
  name: 'dimensions',
  lane: 'dimensions',
  requestedEvent: 'import.requested',
  bodySchema: DimensionsImportSchema,
  rowsField: 'dimensions',
  rows: (body) => markDuplicates(body.dimensions, (line) => line.key),
  rowId: (line) => line.key,
  warnings: () => [],
  year: () => null,
  mode: () => 'merge',
  chunkSize: importChunkSize,
  applyChunk: applyDimensionRows,
  reportsDeletions: false,
  postFetch: false,
};

export const subLedgersImportKind: ImportKind<SubLedgersImportBody, SubLedgerRow> = {
  name: 'sub_ledgers',
  lane: 'sub_ledgers',
  requestedEvent: 'import.requested',
  bodySchema: SubLedgersImportSchema,
  rowsField: 'subLedgers',
  rows: (body) => markDuplicates(body.subLedgers, (line) => line.key),
  rowId: (line) => line.key,
  warnings: () => [],
  year: () => null,
  mode: () => 'merge',
  chunkSize: importChunkSize,
  applyChunk: applySubLedgerRows,
  reportsDeletions: false,
  postFetch: false,
};

/** DELETE /accounts/{accountNumber}?year=: the pipeline builds { year, ids: [accountNumber] }. */
export const accountDeletionKind: ImportKind<AccountDeletionBody, string> = {
  name: 'account_deletion',
  lane: 'accounts',
  requestedEvent: 'correction.requested',
  bodySchema: AccountDeletionSchema,
  rowsField: 'ids',
  rows: (body) => body.ids,
  rowId: (id) => id,
  warnings: () => [],
  year: (body) => body.year,
  mode: () => 'merge',
  precheck: precheckAccountDeletion,
  chunkSize: deletionChunkSize,
  applyChunk: applyAccountDeletions,
  reportsDeletions: true,
  postFetch: false,
};

/** DELETE /dimensions/{key}: the pipeline builds { ids: [key] }. */
export const dimensionDeletionKind: ImportKind<DimensionDeletionBody, string> = {
  name: 'dimension_deletion',
  lane: 'dimensions',
  requestedEvent: 'correction.requested',
  bodySchema: DimensionDeletionSchema,
  rowsField: 'ids',
  rows: (body) => body.ids,
  rowId: (id) => id,
  warnings: () => [],
  year: () => null,
  mode: () => 'merge',
  precheck: precheckDimensionDeletion,
  chunkSize: deletionChunkSize,
  applyChunk: applyDimensionDeletions,
  reportsDeletions: true,
  postFetch: false,
};

/** DELETE /sub-ledgers/{key}: the pipeline builds { ids: [key] }. */
export const subLedgerDeletionKind: ImportKind<SubLedgerDeletionBody, string> = {
  name: 'sub_ledger_deletion',
  lane: 'sub_ledgers',
  requestedEvent: 'correction.requested',
  bodySchema: SubLedgerDeletionSchema,
  rowsField: 'ids',
  rows: (body) => body.ids,
  rowId: (id) => id,
  warnings: () => [],
  year: () => null,
  mode: () => 'merge',
  precheck: precheckSubLedgerDeletion,
  chunkSize: deletionChunkSize,
  applyChunk: applySubLedgerDeletions,
  reportsDeletions: true,
  postFetch: false,
};

export const chartImportKinds: ImportKind[] = [
  accountsImportKind,
  dimensionsImportKind,
  subLedgersImportKind,
  accountDeletionKind,
  dimensionDeletionKind,
  subLedgerDeletionKind,
];
