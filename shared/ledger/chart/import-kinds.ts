import { defineDeletionKind, defineImportKind, type ImportKind } from '../../imports/kind';
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

export const accountsImportKind = defineImportKind<AccountsImportBody, AccountRow>({
  name: 'accounts',
  lane: 'accounts',
  bodySchema: AccountsImportSchema,
  rowsField: 'accounts',
  rows: (body) => markDuplicates(body.accounts, (line) => line.accountCode),
  rowId: (line) => line.accountCode,
  year: (body) => body.year,
  chunkSize: importChunkSize,
  applyChunk: applyAccountRows,
});

export const dimensionsImportKind = defineImportKind<DimensionsImportBody, DimensionRow>({
  name: 'dimensions',
  lane: 'dimensions',
  bodySchema: DimensionsImportSchema,
  rowsField: 'dimensions',
  rows: (body) => markDuplicates(body.dimensions, (line) => line.key),
  rowId: (line) => line.key,
  chunkSize: importChunkSize,
  applyChunk: applyDimensionRows,
});

export const subLedgersImportKind = defineImportKind<SubLedgersImportBody, SubLedgerRow>({
  name: 'sub_ledgers',
  lane: 'sub_ledgers',
  bodySchema: SubLedgersImportSchema,
  rowsField: 'subLedgers',
  rows: (body) => markDuplicates(body.subLedgers, (line) => line.key),
  rowId: (line) => line.key,
  chunkSize: importChunkSize,
  applyChunk: applySubLedgerRows,
});

/** DELETE /accounts/{accountNumber}?year=: the pipeline builds { year, ids: [accountNumber] }. */
export const accountDeletionKind = defineDeletionKind<AccountDeletionBody>({
  name: 'account_deletion',
  lane: 'accounts',
  bodySchema: AccountDeletionSchema,
  year: (body) => body.year,
  precheck: precheckAccountDeletion,
  chunkSize: deletionChunkSize,
  applyChunk: applyAccountDeletions,
});

/** DELETE /dimensions/{key}: the pipeline builds { ids: [key] }. */
export const dimensionDeletionKind = defineDeletionKind<DimensionDeletionBody>({
  name: 'dimension_deletion',
  lane: 'dimensions',
  bodySchema: DimensionDeletionSchema,
  precheck: precheckDimensionDeletion,
  chunkSize: deletionChunkSize,
  applyChunk: applyDimensionDeletions,
});

/** DELETE /sub-ledgers/{key}: the pipeline builds { ids: [key] }. */
export const subLedgerDeletionKind = defineDeletionKind<SubLedgerDeletionBody>({
  name: 'sub_ledger_deletion',
  lane: 'sub_ledgers',
  bodySchema: SubLedgerDeletionSchema,
  precheck: precheckSubLedgerDeletion,
  chunkSize: deletionChunkSize,
  applyChunk: applySubLedgerDeletions,
});

export const chartImportKinds: ImportKind[] = [
  accountsImportKind,
  dimensionsImportKind,
  subLedgersImportKind,
  accountDeletionKind,
  dimensionDeletionKind,
  subLedgerDeletionKind,
];
