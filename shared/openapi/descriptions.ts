/**
 * Shared terms: property and parameter names that mean the same in every schema and path they occur
 * in (e.g. `year`, `companyId`). Everything else is described where it is declared, with
 * `.openapi({ description })` on the zod schema. The document builder fills these in
 * (shared/openapi/describe.ts) only where the schema gives no description. test/integration/docs.test.ts
 * fails when any operation, parameter or property of the document is left without a description, and
 * when a term here fills no gap (dead, or repeating what the schema says): one home per text.
 */
const instant = 'UTC timestamp (ISO 8601)';

/** Property names, for every schema that has the property. */
export const propertyDescriptionsByName: Record<string, string> = {
  id: 'Identifier (UUID) assigned by the API',
  createdAt: `When it was created; ${instant}`,
  updatedAt: `When it last changed; ${instant}`,
  deletedAt: `When it was deleted; ${instant}`,
  data: 'The items of this page, in the order the operation states',
  year: 'Accounting year',
  period: 'Accounting period (month) 1 to 12',
  label: 'Name of the period (January to December)',
  currencyCode: 'ISO 4217 currency code of the account, or null for the company currency',
  accountCode: 'Account number in the chart of accounts of the year (text, e.g. "1920")',
  amount: 'Amount in NOK (two decimals; debit positive, credit negative). Parse JSON numbers losslessly (see the API description).',
  openingBalance: 'Opening balance of the year (period 0); debit positive, credit negative',
  description: 'Free text as the source system gives it',
  transactionDate: 'Voucher date (YYYY-MM-DD)',
  taxCode: 'SAF-T standard tax code of the line, or null',
  taxAmount: 'VAT amount of the line, or null',
  taxPercentage: 'VAT rate in percent (e.g. 25), or null',
  bankAccountId: 'The bank account (UUID)',
  companyId: 'The company (UUID)',
  jobId: 'The job that runs the import (UUID); poll GET /v1/jobs/{jobId}',
  datasetId: 'Identifies the import request whose rows these are',
  parentKey: 'Key of the parent dimension, or null',
  type: 'Kind of the item',
  autoCreated: 'true when the key was created because a line named it before it was imported (type null until imported)',
  status: 'State of the resource; see the enumeration',
  bookingDate: 'Booking date at the bank (YYYY-MM-DD)',
  valueDate: 'Value date at the bank (YYYY-MM-DD), or null',
  counterpartyName: 'Name of the counterparty as the bank reports it, or null',
  counterpartyAccount: 'Account (IBAN or BBAN) of the counterparty as the bank reports it, or null',
  iban: 'IBAN of the account, or null',
  bic: 'BIC of the bank, or null',
  sourceLineId: 'The integrator\'s own id of the GL line (the `id` sent on import)',
  lineId: 'Id of the GL line in this API (stable across corrections)',
  bankTransactionId: 'The bank transaction (UUID)',
  bankTransactionCount: 'Number of bank transactions in the group',
  glLineCount: 'Number of GL lines in the group',
  entries: 'Members of the group: bank transactions and GL lines',
  glAccountCode: 'The GL account the bank account is mapped to',
  periods: 'The twelve periods of the year in order',
  groupCount: 'Reconciliation groups of the period',
  automaticGroupCount: 'Groups of the period made by the auto-reconciliation engine',
  staleGroupCount: 'Groups of the period with a member that changed since the group was made',
  deleted: 'Always true: the resource is deleted',
  pagination: 'Where the next page starts; follow next_cursor until it is null',
};

/** Parameters by name (path and query), where the schema gives none. */
export const parameterDescriptions: Record<string, string> = {
  companyId: 'The company (UUID)',
  importId: 'The import (UUID), as answered by the import request',
  jobId: 'The job (UUID), as named by the import record',
  bankAccountId: 'The bank account (UUID)',
  reconciliationId: 'The reconciliation group (UUID)',
  accountNumber: 'Account number (text, e.g. 1920)',
  key: 'The integrator\'s key (dimension or sub-ledger)',
  page_size: 'Items per page, 1 to 200 (default 50)',
  kind: 'Only imports of this kind',
  status: 'Only items with this status',
  reconciliation_status: 'Only transactions with this computed reconciliation status',
  documentId: 'The document (UUID), as answered by the upload declaration',
  content_type: 'Only documents of this content type (e.g. application/pdf)',
  userId: 'The person (UUID)',
  policyId: 'The access policy (UUID)',
  assignmentId: 'The assignment (UUID)',
  subscriptionId: 'The webhook subscription (UUID), as answered on creation',
  deliveryId: 'The delivery (UUID), as listed by GET .../deliveries',
  event_type: 'Only deliveries of this event type',
  type: 'Only events of this type',
  company_id: 'Only events of this company (UUID)',
};
