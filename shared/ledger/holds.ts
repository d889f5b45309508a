/**
 * What features above the books hold of them from deletion: a bank account mapped to a GL account,
 * a document linking a GL line. The ledger asks through this port and the composition provides it
 * (shared/composition/import-kinds.ts), so the ledger imports no feature above it.
 */
export interface LedgerHolds {
  /** Ids of the company's bank accounts mapped to this GL account code. */
  bankAccountsMappedTo(companyId: string, accountCode: string): Promise<string[]>;
  /** The documents holding these GL lines from deletion, by lineId (lines no document holds are left out). */
  documentsHoldingLines(companyId: string, lineIds: readonly string[]): Promise<Map<string, string[]>>;
}

let provided: LedgerHolds | undefined;

export const provideLedgerHolds = (holds: LedgerHolds): void => {
  provided = holds;
};

export const ledgerHolds = (): LedgerHolds => {
  if (!provided) throw new Error('No LedgerHolds provided: shared/composition/import-kinds.ts provides them when it loads');
  return provided;
};
