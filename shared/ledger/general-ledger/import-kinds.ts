import { defineDeletionKind, defineImportKind, type ImportKind } from '../../imports/kind';
import { maxImportRows } from '../../imports/fields';
import { unbalancedVoucherWarnings } from '../../imports/warnings';
import {
  GeneralLedgerLinesImportSchema,
  LedgerDeletionSchema,
  OpeningBalancesImportSchema,
  type GeneralLedgerLineInput,
  type GeneralLedgerLinesImport,
  type LedgerDeletion,
  type OpeningBalanceInput,
  type OpeningBalancesImport,
} from './schemas';
import {
  applyGeneralLedgerLines,
  applyOpeningBalances,
  checkAccountCodes,
  checkLinesNotInUse,
  linesHeld,
  openingBalancesHeld,
  releaseLineClaims,
  releaseOpeningBalanceClaims,
  checkOpeningBalancesNotInUse,
  deleteGeneralLedgerLines,
  deleteOpeningBalances,
} from './service';

/**
 * Rows applied together (one exactly-once step of the worker): an import's largest request
 * (maxImportRows, 10,000 rows: 400 BatchWrites of 25, plus the reads and updates of existing
 * lines), so an import is one step. Each further chunk would add to the counter cells the first
 * wrote (a TransactWriteItems per 100 cells: 6 per 10k-line import, about 0.75 s of DynamoDB Local
 * CPU against 4.3 s for its lines) instead of writing them whole, and pause between chunks; npm
 * run bench measured 2,000-row chunks at 0.63 and 5,000-row chunks at 0.71 of the raw write rate
 * in the same setup. The workers have 1,024 MB.
 */
const chunkSize = maxImportRows;

export const generalLedgerLinesImport = defineImportKind<GeneralLedgerLinesImport, GeneralLedgerLineInput>({
  name: 'general_ledger_lines',
  lane: 'general_ledger_lines',
  bodySchema: GeneralLedgerLinesImportSchema,
  rowsField: 'lines',
  rows: (body) => body.lines,
  rowId: (line) => line.id,
  // Vouchers that do not balance are accepted (lines may come in several requests) but reported.
  warnings: (body) => unbalancedVoucherWarnings(body.lines),
  year: (body) => body.year,
  precheck: (companyId, body) => checkAccountCodes(companyId, body.year, body.lines),
  chunkSize,
  applyChunk: applyGeneralLedgerLines,
  postFetch: true,
});

export const openingBalancesImport = defineImportKind<OpeningBalancesImport, OpeningBalanceInput>({
  name: 'opening_balances',
  lane: 'opening_balances',
  bodySchema: OpeningBalancesImportSchema,
  rowsField: 'lines',
  rows: (body) => body.lines,
  rowId: (line) => line.id,
  year: (body) => body.year,
  precheck: (companyId, body) => checkAccountCodes(companyId, body.year, body.lines),
  chunkSize,
  applyChunk: applyOpeningBalances,
  postFetch: true,
});

export const generalLedgerLineDeletions = defineDeletionKind<LedgerDeletion>({
  name: 'general_ledger_line_deletions',
  lane: 'general_ledger_lines',
  bodySchema: LedgerDeletionSchema,
  year: (body) => body.year,
  precheck: (companyId, body) => checkLinesNotInUse(companyId, body.year, body.ids),
  // Again when applied, after claiming the lines (reconciled or linked since it was accepted): all or nothing, rule 11.
  validateRows: linesHeld,
  invalidRowsReason: 'lines_in_use',
  // A deletion that ends without succeeding (after claiming its lines) frees the lines it did not delete.
  releaseClaims: releaseLineClaims,
  chunkSize,
  applyChunk: deleteGeneralLedgerLines,
});

export const openingBalanceDeletions = defineDeletionKind<LedgerDeletion>({
  name: 'opening_balance_deletions',
  lane: 'opening_balances',
  bodySchema: LedgerDeletionSchema,
  year: (body) => body.year,
  precheck: (companyId, body) => checkOpeningBalancesNotInUse(companyId, body.year, body.ids),
  validateRows: openingBalancesHeld,
  invalidRowsReason: 'opening_balances_in_use',
  releaseClaims: releaseOpeningBalanceClaims,
  chunkSize,
  applyChunk: deleteOpeningBalances,
});

/** The import kinds of the general ledger, for the import pipeline's registry. */
export const generalLedgerImportKinds: ImportKind[] = [
  generalLedgerLinesImport,
  openingBalancesImport,
  generalLedgerLineDeletions,
  openingBalanceDeletions,
];
