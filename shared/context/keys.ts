/** The context service's pictures of one company: the company's and one per account and year. */
export const contextPartition = (companyId: string) => `CONTEXT#${companyId}`;

export const companyContextKeys = (companyId: string) => ({ PK: contextPartition(companyId), SK: 'COMPANY' });

export const accountContextKeys = (companyId: string, year: number, accountCode: string) => ({
  PK: contextPartition(companyId),
  SK: `ACCOUNT#${year}#${accountCode}`,
});
