/** The partition-key prefix of the context service's items (IAM: the mcp function may update only these). */
export const contextPartitionPrefix = 'CONTEXT#';

/** The context service's pictures of one company: the company's and one per account and year. */
export const contextPartition = (companyId: string) => `${contextPartitionPrefix}${companyId}`;

export const companyContextKeys = (companyId: string) => ({ PK: contextPartition(companyId), SK: 'COMPANY' });

export const accountContextKeys = (companyId: string, year: number, accountCode: string) => ({
  PK: contextPartition(companyId),
  SK: `ACCOUNT#${year}#${accountCode}`,
});
