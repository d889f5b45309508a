import { pad2 } from '../db/attributes';
/**
 * DynamoDB keys of the books of a company (one module for the ledger entities; see
 * shared/ledger/README.md for the layout and the scale reasoning). Years are 4 digits,
 * periods 2 digits (00 = opening balance, 01..12), so keys sort as the reads need.
 */
export { pad2 };

/** Chart of accounts: one partition per company and year, one item per account code. */
export const accountKeys = (companyId: string, year: number, code: string) => ({ PK: chartPartition(companyId, year), SK: `ACCOUNT#${code}` });
export const chartPartition = (companyId: string, year: number) => `CHART#${companyId}#${year}`;
export const accountSortPrefix = 'ACCOUNT#';

/** Per-year summary of the books, one item per import lane (counts for readiness, last import). */
export const ledgerYearKeys = (companyId: string, year: number, lane: string) => ({ PK: ledgerPartition(companyId), SK: `YEAR#${year}#${lane}` });
export const ledgerPartition = (companyId: string) => `LEDGER#${companyId}`;
export const ledgerYearPrefix = 'YEAR#';

/** Dimensions and sub-ledgers: keys unique per company (not per year). */
export const dimensionKeys = (companyId: string, key: string) => ({ PK: `DIMENSIONS#${companyId}`, SK: `DIMENSION#${key}` });
export const dimensionPartition = (companyId: string) => `DIMENSIONS#${companyId}`;
export const subLedgerKeys = (companyId: string, key: string) => ({ PK: `SUBLEDGERS#${companyId}`, SK: `SUBLEDGER#${key}` });
export const subLedgerPartition = (companyId: string) => `SUBLEDGERS#${companyId}`;

/**
 * GL lines: the current version is its own partition (writes of a 10,000-line import spread over
 * 10,000 keys), with its history beside it. GSI1 lists a period in lineId order (one partition per
 * company, year and period); GSI2 lists one account in (period, lineId) order. Deleted lines drop
 * both GSI attributes and keep their history.
 */
export const glLineKeys = (companyId: string, year: number, lineId: string) => ({ PK: glLinePartition(companyId, year, lineId), SK: 'CURRENT' });
export const glLineVersionKeys = (companyId: string, year: number, lineId: string, version: number) => ({
  PK: glLinePartition(companyId, year, lineId),
  SK: `VERSION#${String(version).padStart(6, '0')}`,
});
export const glLinePartition = (companyId: string, year: number, lineId: string) => `GLLINE#${companyId}#${year}#${lineId}`;
export const glLinePeriodIndexKeys = (companyId: string, year: number, period: number, lineId: string) => ({
  GSI1PK: glPeriodPartition(companyId, year, period),
  GSI1SK: lineId,
});
export const glPeriodPartition = (companyId: string, year: number, period: number) => `GLPERIOD#${companyId}#${year}#${pad2(period)}`;
export const glLineAccountIndexKeys = (companyId: string, year: number, accountCode: string, period: number, lineId: string) => ({
  GSI2PK: glAccountPartition(companyId, year, accountCode),
  GSI2SK: `${pad2(period)}#${lineId}`,
});
export const glAccountPartition = (companyId: string, year: number, accountCode: string) => `GLACCOUNT#${companyId}#${year}#${accountCode}`;

/** Opening balances: bounded per company and year, so one partition; history beside each line. */
export const openingBalanceKeys = (companyId: string, year: number, sourceId: string) => ({ PK: openingBalancePartition(companyId, year), SK: `LINE#${sourceId}` });
export const openingBalanceVersionKeys = (companyId: string, year: number, sourceId: string, version: number) => ({
  PK: openingBalancePartition(companyId, year),
  SK: `HISTORY#${sourceId}#${String(version).padStart(6, '0')}`,
});
export const openingBalancePartition = (companyId: string, year: number) => `OB#${companyId}#${year}`;
export const openingBalanceLinePrefix = 'LINE#';

/**
 * Trial-balance aggregates: one item per account and period (period 00 holds the opening balance),
 * all in one partition per company and year, so a trial balance is one Query of O(accounts) items.
 */
export const balanceKeys = (companyId: string, year: number, accountCode: string, period: number) => ({
  PK: balancePartition(companyId, year),
  SK: `${accountCode}#${pad2(period)}`,
});
export const balancePartition = (companyId: string, year: number) => `BALANCE#${companyId}#${year}`;

/**
 * Usage counters: how many live rows of one import lane name a dimension or sub-ledger key
 * (deletions refuse keys in use). One item per lane, because a counter item has one writer lane
 * (see deltas.ts); the usage of a key is the sum over its items.
 */
export const usageKeys = (companyId: string, kind: 'dimension' | 'subLedger', key: string, lane: string) => ({
  PK: usagePartition(companyId),
  SK: `${usagePrefix(kind, key)}${lane}`,
});
export const usagePartition = (companyId: string) => `USAGE#${companyId}`;
export const usagePrefix = (kind: 'dimension' | 'subLedger', key: string) => `${kind}#${key}#`;

/** Open items of a sub-ledger type: one partition per company and type. */
export const openItemKeys = (companyId: string, subLedgerType: string, itemKey: string) => ({ PK: openItemPartition(companyId, subLedgerType), SK: `ITEM#${itemKey}` });
export const openItemPartition = (companyId: string, subLedgerType: string) => `OPENITEMS#${companyId}#${subLedgerType}`;

/**
 * VAT aggregates: per tax code and period, the sums of the line amounts (basis) and tax amounts
 * of the live GL lines with that tax code, and their count. One partition per company and year,
 * sorted by period, so a year's VAT terms are one Query of O(tax codes x periods) items. Written
 * by the GL-line lane only (see deltas.ts).
 */
export const vatCellKeys = (companyId: string, year: number, taxCode: string, period: number) => ({
  PK: vatCellPartition(companyId, year),
  SK: `${pad2(period)}#${taxCode}`,
});
export const vatCellPartition = (companyId: string, year: number) => `VATCELL#${companyId}#${year}`;

/**
 * Deletion receipts: what a deletion import did to one row, for a redelivered chunk (the deleted
 * item is gone, so it cannot carry the stamp). Their own partition per company, which no list or
 * count reads; they expire after 14 days (TTL).
 */
export const deletionReceiptKeys = (companyId: string, importId: string, row: number) => ({
  PK: `CHARTDELETIONS#${companyId}`,
  SK: `${importId}#${String(row).padStart(5, '0')}`,
});
