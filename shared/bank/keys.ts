import { pad2 } from '../db/attributes';

/**
 * DynamoDB keys of bank data and reconciliation (one module; layout and scale reasoning in
 * shared/bank/README.md).
 */

/** Bank accounts and the statements ingested into them: one small partition per company. */
export const bankPartition = (companyId: string) => `BANK#${companyId}`;
export const bankAccountKeys = (companyId: string, bankAccountId: string) => ({ PK: bankPartition(companyId), SK: `ACCOUNT#${bankAccountId}` });
export const bankAccountPrefix = 'ACCOUNT#';
export const bankStatementKeys = (companyId: string, bankAccountId: string, statementKey: string) => ({
  PK: bankPartition(companyId),
  SK: `STATEMENT#${bankAccountId}#${statementKey}`,
});

/**
 * Bank transactions: one partition per bank account, addressed by id; GSI1 lists them by booking
 * date (newest first with ScanIndexForward false), so from/to are a key condition.
 */
export const bankTransactionPartition = (companyId: string, bankAccountId: string) => `BANKTX#${companyId}#${bankAccountId}`;
export const bankTransactionKeys = (companyId: string, bankAccountId: string, transactionId: string) => ({
  PK: bankTransactionPartition(companyId, bankAccountId),
  SK: `TX#${transactionId}`,
});
export const bankTransactionDateIndexKeys = (companyId: string, bankAccountId: string, bookingDate: string, transactionId: string) => ({
  GSI1PK: bankTransactionDatePartition(companyId, bankAccountId),
  GSI1SK: `${bookingDate}#${transactionId}`,
});
export const bankTransactionDatePartition = (companyId: string, bankAccountId: string) => `BANKTXDATE#${companyId}#${bankAccountId}`;

/**
 * Reconciliation groups: addressed by id within the company; GSI1 lists the groups of a bank
 * account in (year, period, creation) order, so year and period filters are a begins_with.
 */
export const reconciliationKeys = (companyId: string, groupId: string) => ({ PK: `RECON#${companyId}`, SK: `GROUP#${groupId}` });
export const reconciliationIndexKeys = (companyId: string, bankAccountId: string, year: number, period: number, createdAt: string, groupId: string) => ({
  GSI1PK: reconciliationListPartition(companyId, bankAccountId),
  GSI1SK: `${year}#${pad2(period)}#${createdAt}#${groupId}`,
});
export const reconciliationListPartition = (companyId: string, bankAccountId: string) => `RECONLIST#${companyId}#${bankAccountId}`;
export const reconciliationListPrefix = (year: number, period?: number) => (period === undefined ? `${year}#` : `${year}#${pad2(period)}#`);

/** The firm's period approvals on a GL account: one partition per company and year. */
export const periodApprovalPartition = (companyId: string, year: number) => `APPROVAL#${companyId}#${year}`;
export const periodApprovalKeys = (companyId: string, year: number, glAccountCode: string, period: number) => ({
  PK: periodApprovalPartition(companyId, year),
  SK: `${glAccountCode}#${pad2(period)}`,
});
