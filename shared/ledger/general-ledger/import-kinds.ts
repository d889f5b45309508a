import type { ImportKind } from '../../imports/kind';
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
  checkOpeningBalancesNotInUse,
  deleteGeneralLedgerLines,
  deleteOpeningBalances,
} from './service';

/**
 * Rows applied together: 2,000 rows are 20 BatchGets of 100 and 80 BatchWrites of 25 (plus the
 * updates of existing lines). Larger chunks mean fewer counter updates (one per account and period
 * a chunk touches); the benchmark (npm run bench) measured 500-row chunks at 0.38-0.45 of the raw
 * write rate and 2,000-row chunks at 0.44-0.53.
 */
const chunkSize = 2000;

export const generalLedgerLinesImport: ImportKind<GeneralLedgerLinesImport, GeneralLedgerLineInput> = {
  name: 'general_ledger_lines',
  lane: 'general_ledger_lines',
  requestedEvent: 'import.requested',
  bodySchema: GeneralLedgerLinesImportSchema,
  rowsField: 'lines',
  rows: (body) => body.lines,
  year: (body) => body.year,
  mode: () => 'merge',
  precheck: (companyId, body) => checkAccountCodes(companyId, body.year, body.lines),
  chunkSize,
  applyChunk: applyGeneralLedgerLines,
  reportsDeletions: false,
  postFetch: true,
};

export const openingBalancesImport: ImportKind<OpeningBalancesImport, OpeningBalanceInput> = {
  name: 'opening_balances',
  lane: 'opening_balances',
  requestedEvent: 'import.requested',
  bodySchema: OpeningBalancesImportSchema,
  rowsField: 'lines',
  rows: (body) => body.lines,
  year: (body) => body.year,
  mode: () => 'merge',
  precheck: (companyId, body) => checkAccountCodes(companyId, body.year, body.lines),
  chunkSize,
  applyChunk: applyOpeningBalances,
  reportsDeletions: false,
  postFetch: true,
};

export const generalLedgerLineDeletions: ImportKind<LedgerDeletion, string> = {
  name: 'general_ledger_line_deletions',
  lane: 'general_ledger_lines',
  requestedEvent: 'correction.requested',
  bodySchema: LedgerDeletionSchema,
  rowsField: 'ids',
  rows: (body) => body.ids,
  year: (body) => body.year,
  mode: () => 'merge',
  precheck: (companyId, body) => checkLinesNotInUse(companyId, body.year, body.ids),
  chunkSize,
  applyChunk: deleteGeneralLedgerLines,
  reportsDeletions: true,
  postFetch: false,
};

export const openingBalanceDeletions: ImportKind<LedgerDeletion, string> = {
  name: 'opening_balance_deletions',
  lane: 'opening_balances',
  requestedEvent: 'correction.requested',
  bodySchema: LedgerDeletionSchema,
  rowsField: 'ids',
  rows: (body) => body.ids,
  year: (body) => body.year,
  mode: () => 'merge',
  precheck: (companyId, body) => checkOpeningBalancesNotInUse(companyId, body.year, body.ids),
  chunkSize,
  applyChunk: deleteOpeningBalances,
  reportsDeletions: true,
  postFetch: false,
};

/** The import kinds of the general ledger, for the import pipeline's registry. */
export const generalLedgerImportKinds: ImportKind[] = [
  generalLedgerLinesImport,
  openingBalancesImport,
  generalLedgerLineDeletions,
  openingBalanceDeletions,
];
