import type { ImportKindName } from './kind';

/**
 * The import submissions: one entry per POST .../imports/<path> route. The route table
 * (shared/routes.ts), the contracts with their reference text (shared/composition/import-contracts.ts)
 * and the operations (functions/imports/operations.ts) map over it. Data only, so the route table
 * may import it.
 */
export interface ImportSubmission {
  operationId: string;
  /** Path below /v1/companies/{companyId}/imports/. */
  path: string;
  summary: string;
  kind: ImportKindName;
  /** How the rows are merged or applied; the contract's part of the operation description. */
  about: string;
  /** The body carries amounts (their grammar is documented). */
  withAmounts: boolean;
  /** What the operation does, for the reference (before the import notes). */
  description: string;
  requestExample?: unknown;
}

export const importSubmissions = [
  {
    operationId: 'importAccounts',
    path: 'accounts',
    summary: 'Import the chart of accounts of a year',
    kind: 'accounts',
    about: 'Accounts are merged by accountCode within the year; hidden true retires one.',
    withAmounts: false,
    description:
      "Imports the chart of accounts of a year (each accounting year has its own chart): an existing `accountCode` is updated in place, its standard-account mapping is never changed. Import it before opening balances and GL lines, which must name accounts of the year's chart.",
    requestExample: {
      year: 2026,
      accounts: [
        { accountCode: '1920', accountDescription: 'Bank deposits', accountCategory: 'Balance' },
        { accountCode: '2050', accountDescription: 'Other equity', accountCategory: 'Balance' },
        { accountCode: '3000', accountDescription: 'Sales revenue', accountCategory: 'Result' },
      ],
    },
  },
  {
    operationId: 'importDimensions',
    path: 'dimensions',
    summary: 'Import dimensions',
    kind: 'dimensions',
    about: 'Dimensions are merged by key.',
    withAmounts: false,
    description: 'Imports dimension values (department, project, ...), merged by key; `parentKey` must name an existing dimension or an earlier row.',
    requestExample: { dimensions: [{ key: 'D-10', value: 'Bakery', type: 'department' }] },
  },
  {
    operationId: 'importSubLedgers',
    path: 'sub-ledgers',
    summary: 'Import sub-ledgers (customers and suppliers)',
    kind: 'sub_ledgers',
    about: 'Customers and suppliers are merged by key.',
    withAmounts: false,
    description: 'Imports customers and suppliers, merged by key; a key keeps its type.',
    requestExample: { subLedgers: [{ key: 'C-1001', value: 'Kafe Solsiden', type: 'customer' }] },
  },
  {
    operationId: 'importOpeningBalances',
    path: 'opening-balances',
    summary: 'Import opening balances of a year',
    kind: 'opening_balances',
    about:
      'Opening balances are merged by id within the year. A hidden account takes no new opening balance (the row is skipped, see sampleErrors), but one already on it is corrected in place.',
    withAmounts: true,
    description:
      "Imports the opening balances of a year, merged by `id`. **Sign convention: debit positive, credit negative** (an asset is positive, equity and liabilities negative). Every `accountCode` must be in the year's chart, else **422** with `reason` `unknown_account_codes` and `accountCodes`.",
    requestExample: {
      year: 2026,
      lines: [
        { id: 'OB-1920', accountCode: '1920', amount: '150000.00' },
        { id: 'OB-2050', accountCode: '2050', amount: '-150000.00' },
      ],
    },
  },
  {
    operationId: 'importGeneralLedgerLines',
    path: 'general-ledger-lines',
    summary: 'Import GL lines of a year',
    kind: 'general_ledger_lines',
    about:
      'Lines are merged by id within the year: a re-sent id updates the line in place and keeps the earlier version in history. A hidden account takes no new line (the row is skipped, see sampleErrors), but a line already on it is corrected in place.',
    withAmounts: true,
    description:
      "Imports GL lines of a year, merged by `id`: a re-sent id updates the line in place and keeps the earlier version in history; lines not re-sent stay. `period` (1 to 12) and `year` are given, never derived from dates. **Sign convention: debit positive, credit negative.** The lines of one voucher (`transactionId`) should sum to zero; vouchers that do not are accepted (their other lines may come in a later request) and named under the import record's `warnings` (`unbalanced_vouchers`, at most 100 ids). Every `accountCode` must be in the year's chart, else **422** `unknown_account_codes`.",
    requestExample: {
      year: 2026,
      lines: [
        { id: 'GL-1', accountCode: '1920', amount: '1250.00', period: 1, transactionId: 'V-1', transactionDate: '2026-01-15', description: 'Cash sale' },
        { id: 'GL-2', accountCode: '3000', amount: '-1250.00', period: 1, transactionId: 'V-1', transactionDate: '2026-01-15', description: 'Cash sale' },
      ],
    },
  },
  {
    operationId: 'importOpenItems',
    path: 'open-items',
    summary: 'Import open items of a sub-ledger type',
    kind: 'open_items',
    about: 'All or nothing: one invalid item fails the whole import and nothing is applied.',
    withAmounts: true,
    description: 'Imports open items (invoices, credit notes, payments, ...) of one sub-ledger type. In every mode, a re-sent item keeps the stored matches it leaves out, marked retired.',
  },
  {
    operationId: 'deleteGeneralLedgerLines',
    path: 'general-ledger-lines/deletions',
    summary: 'Delete imported GL lines (all or nothing)',
    kind: 'general_ledger_line_deletions',
    about: 'All or nothing: lines reconciled or linked by documents answer 409 lines_in_use; unknown ids are listed under result.unknown.',
    withAmounts: false,
    description:
      "Deletes imported GL lines by the integrator's ids (a correction), all or nothing: **409** `conflict` with `reason` `lines_in_use` and `inUse` when a line is reconciled or a document links it (each entry: `id`, and `reconciliationGroupId` and/or `documentIds`, the first 10; a soft-deleted document holds nothing); nothing is deleted then. A line reconciled or linked after the deletion was accepted fails it when it is applied: the import ends `failed` with `failureReason` `lines_in_use` (the lines in `sampleErrors`), nothing deleted. From then until it ends, the deletion's lines take no reconciliation group, and a document completion linking GL lines of the company answers 409 `job_in_flight`. Ids the ledger does not have are listed under `result.unknown` (not an error; the first 1,000, and `result.unknownCount` counts them all). Deleted lines keep their history.",
    requestExample: { year: 2026, ids: ['GL-1', 'GL-2'] },
  },
  {
    operationId: 'deleteOpeningBalances',
    path: 'opening-balances/deletions',
    summary: 'Delete imported opening balances (all or nothing)',
    kind: 'opening_balance_deletions',
    about: 'All or nothing: reconciled opening balances answer 409 opening_balances_in_use; unknown ids are listed under result.unknown.',
    withAmounts: false,
    description: "Deletes imported opening balances by the integrator's ids, all or nothing (**409** `opening_balances_in_use`; one reconciled after the deletion was accepted fails the import when it is applied, `failureReason` `opening_balances_in_use`, nothing deleted); unknown ids are listed under `result.unknown` (the first 1,000; `result.unknownCount` counts them all).",
    requestExample: { year: 2026, ids: ['OB-1920', 'OB-2050'] },
  },
] as const satisfies readonly ImportSubmission[];

export type ImportSubmissionEntry = (typeof importSubmissions)[number];
export type ImportSubmissionId = ImportSubmissionEntry['operationId'];
