import type { Operations } from '../../shared/api/runner';
import type { Scope } from '../../shared/identity/scopes';
import { routes, type OperationId } from '../../shared/routes';
import { bankOperations } from '../bank/operations';
import { companyOperations } from '../companies/operations';
import { documentOperations } from '../documents/operations';
import { identityOperations } from '../identity/operations';
import { jobOperations } from '../jobs/operations';
import { ledgerOperations } from '../ledger/operations';
import { vatOperations } from '../vat/operations';
import { mcpMaxPageSize } from './tool-schemas';

/** A tool that runs one REST read operation through the operation runner. */
export interface TwinTool {
  name: string;
  title: string;
  /** A read of one of the groups below (another id does not compile). */
  operationId: TwinOperationId;
  description: string;
  /** How to ask for less when the answer is too large for one tool result; by default its filters and page_size. */
  narrow?: string;
}

const amounts = 'Amounts are NOK, signed: debit positive, credit negative; decimal numbers (the text block carries them exactly as the REST API writes them).';
const paging = `Paginated: pass \`pagination.next_cursor\` of the answer as \`cursor\` (with the same filters) until it is null; \`page_size\` 1-${mcpMaxPageSize}, default ${mcpMaxPageSize}.`;
const periods = 'Periods are 1-12 (the months of the accounting year), years four digits.';

/** The read operations offered as tools, each with its REST twin. Mutations are not offered. */
export const twinTools: readonly TwinTool[] = [
  {
    name: 'get_caller_identity',
    title: 'Who am I',
    operationId: 'whoami',
    description: 'Who this connection acts as: the client id, mode (SYSTEM, USER or INTERACTIVE), organization, user and the scopes held. Call it first when unsure what you may read; a tool whose scope is missing is refused.',
  },
  {
    name: 'list_companies',
    title: 'List companies',
    operationId: 'listCompanies',
    description: `The companies (client companies of the accounting firm) this connection can see, with id, name, organization number, accounting system and status. ${paging} Next: use a company's \`id\` as \`companyId\` in every other tool; get_company_context gives a quick picture of one company.`,
  },
  {
    name: 'get_company',
    title: 'Get a company',
    operationId: 'getCompany',
    description: 'One company by `companyId`: name, organization number, accounting system, VAT frequency, status. Not found means it does not exist or is not visible to you.',
  },
  {
    name: 'list_accounts',
    title: 'Chart of accounts',
    operationId: 'listAccounts',
    description: `The chart of accounts of a company for one \`year\` (Norwegian standard account numbers such as 1920 bank, 2700 output VAT, 3000 sales): number, description, category (Balance or Result). Next: get_account for one account, list_general_ledger_lines with \`account\` for its lines, get_trial_balance for balances.`,
    narrow: 'The chart is answered whole, in one page: read the accounts you need one by one with get_account.',
  },
  {
    name: 'get_account',
    title: 'Get an account',
    operationId: 'getAccount',
    description: 'One ledger account of a company by `accountNumber` for one `year`. For why an account moved, read its lines with list_general_ledger_lines (filter `account`) or get_account_context.',
  },
  {
    name: 'list_general_ledger_lines',
    title: 'General ledger lines',
    operationId: 'listGeneralLedgerLines',
    description: `The general ledger (GL) lines of a company for one \`year\`, ordered by period then line id; filter by \`account\` and \`period\`. Each line: account, amount, period, voucher (transactionId), dates, description, VAT code. ${amounts} ${periods} ${paging}`,
  },
  {
    name: 'get_trial_balance',
    title: 'Trial balance',
    operationId: 'getTrialBalance',
    description: `The trial balance of a company for one \`year\`: per account the opening balance, the movement of each period and the closing balance, with totals (a complete trial balance sums to zero). ${amounts} ${periods}`,
    narrow: 'The trial balance is answered whole: read the accounts you need with get_account_context, or list_general_ledger_lines filtered by `account` and `period`.',
  },
  {
    name: 'list_dimensions',
    title: 'Dimensions',
    operationId: 'listDimensions',
    description: `The dimensions (departments, projects and other analysis codes) of a company. ${paging}`,
  },
  {
    name: 'list_sub_ledgers',
    title: 'Sub-ledgers',
    operationId: 'listSubLedgers',
    description: `The sub-ledgers of a company: its customers and suppliers with their keys and names. ${paging}`,
  },
  {
    name: 'list_vat_terms',
    title: 'VAT terms',
    operationId: 'listVatTerms',
    description: `The VAT filing terms of a company for one \`year\` (bimonthly or yearly): per term the totals per SAF-T tax code, the amount payable or refundable and whether it reconciles with the VAT accounts. ${amounts}`,
  },
  {
    name: 'list_bank_accounts',
    title: 'Bank accounts',
    operationId: 'listBankAccounts',
    description: `The bank accounts of a company and the GL account each is mapped to (often 1920). ${paging} Next: list_bank_transactions or get_reconciliation_summary with a \`bankAccountId\`.`,
  },
  {
    name: 'list_bank_transactions',
    title: 'Bank transactions',
    operationId: 'listBankTransactions',
    description: `The transactions of one bank account, newest first, each with its computed reconciliation status (filter \`reconciliation_status\` unreconciled or reconciled, dates \`from\`/\`to\` as YYYY-MM-DD). ${amounts} ${paging}`,
  },
  {
    name: 'get_reconciliation_summary',
    title: 'Reconciliation summary',
    operationId: 'getReconciliationSummary',
    description: `The twelve periods of one \`year\` of a bank account: per period the reconciliation groups, reconciled and unreconciled entries, stale groups and whether the period is approved. ${periods} Next: list_reconciliations for the groups.`,
  },
  {
    name: 'list_reconciliations',
    title: 'Reconciliation groups',
    operationId: 'listReconciliations',
    description: `The reconciliation groups of a bank account (bank transactions matched with GL lines of one period). ${paging} Next: get_reconciliation for the entries of one group.`,
  },
  {
    name: 'get_reconciliation',
    title: 'Get a reconciliation group',
    operationId: 'getReconciliation',
    description: `One reconciliation group by \`reconciliationId\`, with its bank transactions and GL lines. ${amounts}`,
  },
  {
    name: 'list_documents',
    title: 'Documents',
    operationId: 'listDocuments',
    description: `The documents (receipts, invoices, attachments) of a company, newest first: file name, type, size and the GL lines they are linked to. Metadata only; the bytes are not offered here. ${paging}`,
  },
  {
    name: 'get_job',
    title: 'Get a job',
    operationId: 'getJob',
    description: 'One background job (an import or another long task) by `jobId`: its type, status (queued, running, succeeded, failed) and result.',
  },
];

/** The operations the twin tools run, from the groups that serve them over REST: one implementation. */
const groupOperations = {
  ...identityOperations,
  ...companyOperations,
  ...ledgerOperations,
  ...vatOperations,
  ...bankOperations,
  ...documentOperations,
  ...jobOperations,
};

type TwinOperationId = keyof typeof groupOperations;

export const twinOperations = Object.fromEntries(twinTools.map((tool) => [tool.operationId, groupOperations[tool.operationId]])) as Record<TwinOperationId, Operations[string]>;

/** The scope a twin tool needs: its REST route's. */
export const scopeOfOperation = (operationId: OperationId): Scope | undefined => routes.find((route) => route.operationId === operationId)?.scope;
