/** DynamoDB keys of imports, fetch runs and the ledger state the fetch completion moves. */
export const importKeys = (importId: string) => ({ PK: `IMPORT#${importId}`, SK: 'IMPORT' });
/** Imports of a company, newest first (GSI1, sort key begins with the acceptance instant). */
export const importListKeys = (companyId: string, createdAt: string, importId: string) => ({
  GSI1PK: importListPartition(companyId),
  GSI1SK: `${createdAt}#${importId}`,
});
export const importListPartition = (companyId: string) => `IMPORTS#${companyId}`;

export const fetchRunKeys = (companyId: string, completedAt: string, importId: string) => ({
  PK: fetchRunPartition(companyId),
  SK: `${completedAt}#${importId}`,
});
export const fetchRunPartition = (companyId: string) => `FETCHRUNS#${companyId}`;

/** The ledger's state of a company (last updated). */
export const ledgerStateKeys = (companyId: string) => ({ PK: `LEDGER#${companyId}`, SK: 'STATE' });
