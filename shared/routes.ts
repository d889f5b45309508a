import type { Scope } from './identity/scopes';
import { importSubmissions, type ImportSubmissionEntry } from './imports/catalogue';

/** The one route table: CDK builds API Gateway routes from it, the local gateway serves it. */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export type FunctionGroup = 'identity' | 'companies' | 'ledger' | 'vat' | 'bank' | 'imports' | 'jobs' | 'documents' | 'users' | 'access' | 'webhooks' | 'openapi' | 'mcp' | 'fallback';

/** What the runner needs to run one operation, whatever carries it (an HTTP route, an MCP tool). */
export interface OperationDefinition<Id extends string = string> {
  group: FunctionGroup;
  operationId: Id;
  summary: string;
  /** 'token': needs a valid bearer token; 'public': no authorizer. */
  auth: 'token' | 'public';
  /** Scope the token must hold; undefined with auth 'token' means any valid token. */
  scope?: Scope;
  /** Mutations require an Idempotency-Key header. */
  mutation: boolean;
  /**
   * Only system clients may call it (imports, users, access management): any other principal gets
   * 403 system_client_required, decided by the runner before reach (the answer names no resource).
   */
  systemOnly?: boolean;
  /** Answers from the principal alone (whoami): the runner loads no effective access (the group reads no table). */
  decidesNoReach?: boolean;
  /** The resource the path names may be soft-deleted (delete and restore answer it); otherwise a deleted one is 404. */
  ownerMayBeDeleted?: boolean;
  /** The document the path names may still be a pending upload declaration (completion). */
  ownerMayBePending?: boolean;
  /** RFC 9728: the path of this resource's protected-resource metadata, named by its 401 challenge (`resource_metadata`). */
  resourceMetadataPath?: string;
}

/** An operation served over HTTP: API Gateway route (method and path) and runner declaration in one. */
export interface RouteDefinition<Id extends string = string> extends OperationDefinition<Id> {
  method: HttpMethod;
  /** API Gateway path with {param} placeholders. */
  path: string;
}

/**
 * An operation only MCP runs (a context tool): no HTTP route; its parameters are named in order as
 * a path's would be (the first owned one decides reach, as on a route).
 */
export interface McpOnlyOperationDefinition<Id extends string = string> extends OperationDefinition<Id> {
  group: 'mcp';
  auth: 'token';
  scope: Scope;
  mutation: false;
  parameters: readonly string[];
}

export interface FunctionGroupDefinition {
  /** Handler module, relative to the repository root; it exports `handler`. */
  entry: string;
  description: string;
  memoryMb: number;
  timeoutSeconds: number;
}

export const functionGroups: Record<FunctionGroup, FunctionGroupDefinition> = {
  identity: { entry: 'functions/identity/handler.ts', description: 'Caller identity (whoami)', memoryMb: 512, timeoutSeconds: 10 },
  companies: { entry: 'functions/companies/handler.ts', description: 'Companies: list, read, create, update, delete, restore', memoryMb: 512, timeoutSeconds: 15 },
  ledger: { entry: 'functions/ledger/handler.ts', description: 'General ledger reads: accounts, GL lines and their versions, opening-balance versions, trial balance, dimensions, sub-ledgers', memoryMb: 1024, timeoutSeconds: 20 },
  vat: { entry: 'functions/vat/handler.ts', description: 'VAT terms with totals and reconciliation status', memoryMb: 1024, timeoutSeconds: 20 },
  bank: { entry: 'functions/bank/handler.ts', description: 'Bank accounts and transactions; reconciliation groups and summaries', memoryMb: 1024, timeoutSeconds: 20 },
  imports: { entry: 'functions/imports/handler.ts', description: 'Data import: accept, validate, queue; import status, readiness, fetch runs', memoryMb: 1024, timeoutSeconds: 29 },
  jobs: { entry: 'functions/jobs/handler.ts', description: 'Job status and the job list', memoryMb: 512, timeoutSeconds: 10 },
  // Completion streams up to 50 MiB from S3 to hash it: more memory buys network and CPU.
  documents: { entry: 'functions/documents/handler.ts', description: 'Documents: declare and complete signed uploads, metadata, download URLs, soft delete, restore', memoryMb: 1024, timeoutSeconds: 29 },
  users: { entry: 'functions/users/handler.ts', description: 'People: members of the organization subtree, their effective access and its explanation', memoryMb: 512, timeoutSeconds: 10 },
  access: { entry: 'functions/access/handler.ts', description: 'Access policies and their assignments; recomputes the effective access of the people concerned', memoryMb: 512, timeoutSeconds: 29 },
  // verify runs the handshake (two requests at once, each bounded by the 15 s attempt timeout).
  webhooks: { entry: 'functions/webhooks/handler.ts', description: 'Webhooks: subscriptions, handshake, secret rotation, deliveries, redelivery, event catalogue, event feed', memoryMb: 512, timeoutSeconds: 29 },
  openapi: { entry: 'functions/openapi/handler.ts', description: 'Serves the OpenAPI document, the API reference and the problem pages', memoryMb: 512, timeoutSeconds: 10 },
  mcp: { entry: 'functions/mcp/handler.ts', description: 'MCP endpoint (beta): read-only tools over the operations of the other groups, protected-resource metadata', memoryMb: 1024, timeoutSeconds: 29 },
  fallback: { entry: 'functions/fallback/handler.ts', description: 'Answers unknown routes and methods with problem+json', memoryMb: 256, timeoutSeconds: 5 },
};

export const authorizerEntry = 'functions/authorizer/handler.ts';

const companyPath = '/v1/companies/{companyId}';
const webhookPath = '/v1/webhooks/subscriptions/{subscriptionId}';

/** RFC 9728 path-based location of the MCP endpoint's protected-resource metadata. */
export const mcpResourceMetadataPath = '/.well-known/oauth-protected-resource/mcp';

/** The route of each import submission of the catalogue (shared/imports/catalogue.ts). */
type ImportSubmissionRoute<S extends ImportSubmissionEntry = ImportSubmissionEntry> = S extends unknown
  ? { method: 'POST'; path: `${typeof companyPath}/imports/${S['path']}`; group: 'imports'; operationId: S['operationId']; summary: string; auth: 'token'; scope: 'imports:write'; mutation: true; systemOnly: true }
  : never;
const importSubmissionRoutes = importSubmissions.map(
  (entry) =>
    ({ method: 'POST', path: `${companyPath}/imports/${entry.path}`, group: 'imports', operationId: entry.operationId, summary: entry.summary, auth: 'token', scope: 'imports:write', mutation: true, systemOnly: true }) as ImportSubmissionRoute,
);

/**
 * The route table, typed as written: `OperationId` and the types below are derived from it, so an
 * operation map, an operation doc or a contract keyed by an id no route has does not compile.
 */
const routeTable = [
  { method: 'GET', path: '/v1/openapi.json', group: 'openapi', operationId: 'getOpenApiDocument', summary: 'The OpenAPI 3.0.3 document of this API', auth: 'public', mutation: false },
  { method: 'GET', path: '/v1/openapi.yaml', group: 'openapi', operationId: 'getOpenApiYaml', summary: 'The OpenAPI 3.0.3 document of this API as YAML', auth: 'public', mutation: false },
  { method: 'GET', path: '/docs', group: 'openapi', operationId: 'getApiReference', summary: 'The API reference, rendered (HTML)', auth: 'public', mutation: false },
  { method: 'GET', path: '/docs/redoc.standalone.js', group: 'openapi', operationId: 'getApiReferenceScript', summary: 'The renderer script of the API reference', auth: 'public', mutation: false },
  { method: 'GET', path: '/', group: 'openapi', operationId: 'getLandingPage', summary: 'Where to start: links to the reference, the OpenAPI document, the problem types and the token endpoint (HTML)', auth: 'public', mutation: false },
  { method: 'GET', path: '/problems', group: 'openapi', operationId: 'listProblemTypes', summary: 'Every problem type (error code) with its status and when it is answered (HTML)', auth: 'public', mutation: false },
  { method: 'GET', path: '/problems/{code}', group: 'openapi', operationId: 'getProblemType', summary: 'What a problem type (error code) means and what to do about it (HTML)', auth: 'public', mutation: false },
  { method: 'GET', path: '/v1/whoami', group: 'identity', operationId: 'whoami', summary: 'Who the credential is', auth: 'token', mutation: false, decidesNoReach: true },
  { method: 'GET', path: '/v1/companies', group: 'companies', operationId: 'listCompanies', summary: 'List the companies within reach', auth: 'token', scope: 'companies:read', mutation: false },
  { method: 'POST', path: '/v1/companies', group: 'companies', operationId: 'createCompany', summary: 'Create a company', auth: 'token', scope: 'companies:write', mutation: true },
  { method: 'GET', path: companyPath, group: 'companies', operationId: 'getCompany', summary: 'Read one company', auth: 'token', scope: 'companies:read', mutation: false },
  { method: 'PATCH', path: companyPath, group: 'companies', operationId: 'updateCompany', summary: 'Update a company (patch semantics)', auth: 'token', scope: 'companies:write', mutation: true },
  { method: 'DELETE', path: companyPath, group: 'companies', operationId: 'deleteCompany', summary: 'Soft-delete a company', auth: 'token', scope: 'companies:write', mutation: true, ownerMayBeDeleted: true },
  { method: 'POST', path: `${companyPath}/actions/disable`, group: 'companies', operationId: 'disableCompany', summary: 'Disable a company', auth: 'token', scope: 'companies:write', mutation: true },
  { method: 'POST', path: `${companyPath}/actions/enable`, group: 'companies', operationId: 'enableCompany', summary: 'Enable a company', auth: 'token', scope: 'companies:write', mutation: true },
  { method: 'POST', path: `${companyPath}/restore`, group: 'companies', operationId: 'restoreCompany', summary: 'Restore a soft-deleted company', auth: 'token', scope: 'companies:write', mutation: true, ownerMayBeDeleted: true },

  { method: 'GET', path: `${companyPath}/accounts`, group: 'ledger', operationId: 'listAccounts', summary: 'Chart of accounts of a year', auth: 'token', scope: 'ledger:read', mutation: false },
  { method: 'GET', path: `${companyPath}/accounts/{accountNumber}`, group: 'ledger', operationId: 'getAccount', summary: 'One ledger account of a year', auth: 'token', scope: 'ledger:read', mutation: false },
  { method: 'GET', path: `${companyPath}/general-ledger/lines`, group: 'ledger', operationId: 'listGeneralLedgerLines', summary: 'GL lines, ordered by period then line id', auth: 'token', scope: 'ledger:read', mutation: false },
  { method: 'GET', path: `${companyPath}/general-ledger/lines/{lineId}/versions`, group: 'ledger', operationId: 'listGeneralLedgerLineVersions', summary: 'Every version of one GL line, oldest first; a deleted line ends with its deletion', auth: 'token', scope: 'ledger:read', mutation: false },
  { method: 'GET', path: `${companyPath}/opening-balances/{openingBalanceId}/versions`, group: 'ledger', operationId: 'listOpeningBalanceVersions', summary: 'Every version of one opening balance of a year, oldest first; a deleted one ends with its deletion', auth: 'token', scope: 'ledger:read', mutation: false },
  { method: 'GET', path: `${companyPath}/trial-balance`, group: 'ledger', operationId: 'getTrialBalance', summary: 'Trial balance of a year', auth: 'token', scope: 'ledger:read', mutation: false },
  { method: 'GET', path: `${companyPath}/dimensions`, group: 'ledger', operationId: 'listDimensions', summary: 'Dimensions of the company', auth: 'token', scope: 'ledger:read', mutation: false },
  { method: 'GET', path: `${companyPath}/sub-ledgers`, group: 'ledger', operationId: 'listSubLedgers', summary: 'Sub-ledgers (customers and suppliers) of the company', auth: 'token', scope: 'ledger:read', mutation: false },

  { method: 'GET', path: `${companyPath}/vat/terms`, group: 'vat', operationId: 'listVatTerms', summary: 'VAT filing terms of a year with totals and reconciliation status', auth: 'token', scope: 'vat:read', mutation: false },

  { method: 'GET', path: `${companyPath}/bank/accounts`, group: 'bank', operationId: 'listBankAccounts', summary: 'Bank accounts of the company', auth: 'token', scope: 'bank:read', mutation: false },
  { method: 'GET', path: `${companyPath}/bank/accounts/{bankAccountId}/transactions`, group: 'bank', operationId: 'listBankTransactions', summary: 'Bank transactions, newest first, with their computed reconciliation status', auth: 'token', scope: 'bank:read', mutation: false },
  { method: 'GET', path: `${companyPath}/bank/accounts/{bankAccountId}/reconciliation-summary`, group: 'bank', operationId: 'getReconciliationSummary', summary: 'Twelve periods of a year: groups, entries, staleness and period approval', auth: 'token', scope: 'reconciliation:read', mutation: false },
  { method: 'GET', path: `${companyPath}/bank/accounts/{bankAccountId}/reconciliations`, group: 'bank', operationId: 'listReconciliations', summary: 'Reconciliation groups of a bank account', auth: 'token', scope: 'reconciliation:read', mutation: false },
  { method: 'POST', path: `${companyPath}/bank/reconciliations`, group: 'bank', operationId: 'createReconciliation', summary: 'Create a reconciliation group (bank transactions and GL lines of one period)', auth: 'token', scope: 'reconciliation:write', mutation: true },
  { method: 'GET', path: `${companyPath}/reconciliations/{reconciliationId}`, group: 'bank', operationId: 'getReconciliation', summary: 'One reconciliation group with its entries', auth: 'token', scope: 'reconciliation:read', mutation: false },
  { method: 'DELETE', path: `${companyPath}/reconciliations/{reconciliationId}`, group: 'bank', operationId: 'deleteReconciliation', summary: 'Dissolve a reconciliation group', auth: 'token', scope: 'reconciliation:write', mutation: true },

  { method: 'GET', path: `${companyPath}/imports/readiness`, group: 'imports', operationId: 'getImportReadiness', summary: 'What the books hold and what to import next', auth: 'token', scope: 'imports:write', mutation: false, systemOnly: true },
  { method: 'POST', path: `${companyPath}/imports/saft`, group: 'imports', operationId: 'createSaftImport', summary: 'Declare a SAF-T Financial file: the SAF-T import and a presigned PUT for the file', auth: 'token', scope: 'imports:write', mutation: true, systemOnly: true },
  { method: 'GET', path: `${companyPath}/imports/saft`, group: 'imports', operationId: 'listSaftImports', summary: 'SAF-T imports of the company, newest first', auth: 'token', scope: 'imports:write', mutation: false, systemOnly: true },
  { method: 'GET', path: `${companyPath}/imports/saft/{saftImportId}`, group: 'imports', operationId: 'getSaftImport', summary: 'One SAF-T import with its report (poll until succeeded or failed)', auth: 'token', scope: 'imports:write', mutation: false, systemOnly: true },
  { method: 'POST', path: `${companyPath}/imports/saft/{saftImportId}/start`, group: 'imports', operationId: 'startSaftImport', summary: 'Check the uploaded SAF-T file and queue its import', auth: 'token', scope: 'imports:write', mutation: true, systemOnly: true },
  ...importSubmissionRoutes,
  { method: 'GET', path: `${companyPath}/imports/{importId}`, group: 'imports', operationId: 'getImport', summary: 'One import (poll until succeeded or failed)', auth: 'token', scope: 'imports:write', mutation: false, systemOnly: true },
  { method: 'GET', path: `${companyPath}/imports`, group: 'imports', operationId: 'listImports', summary: 'Imports of the company, newest first', auth: 'token', scope: 'imports:write', mutation: false, systemOnly: true },
  { method: 'DELETE', path: `${companyPath}/accounts/{accountNumber}`, group: 'imports', operationId: 'deleteAccount', summary: 'Delete an imported account of a year (202, poll the import)', auth: 'token', scope: 'imports:write', mutation: true, systemOnly: true },
  { method: 'DELETE', path: `${companyPath}/dimensions/{key}`, group: 'imports', operationId: 'deleteDimension', summary: 'Delete an imported dimension (202, poll the import)', auth: 'token', scope: 'imports:write', mutation: true, systemOnly: true },
  { method: 'DELETE', path: `${companyPath}/sub-ledgers/{key}`, group: 'imports', operationId: 'deleteSubLedger', summary: 'Delete an imported sub-ledger (202, poll the import)', auth: 'token', scope: 'imports:write', mutation: true, systemOnly: true },
  { method: 'GET', path: `${companyPath}/fetch-runs`, group: 'imports', operationId: 'listFetchRuns', summary: 'Fetch runs (completed GL and opening-balance imports) with their post-fetch engines', auth: 'token', scope: 'ledger:read', mutation: false },

  { method: 'GET', path: '/v1/jobs', group: 'jobs', operationId: 'listJobs', summary: 'Jobs of the companies within reach, newest first (filters status, type, company_id)', auth: 'token', mutation: false },
  { method: 'POST', path: `${companyPath}/documents`, group: 'documents', operationId: 'declareDocumentUpload', summary: 'Declare a document upload (answers a presigned PUT URL)', auth: 'token', scope: 'documents:write', mutation: true },
  { method: 'GET', path: `${companyPath}/documents`, group: 'documents', operationId: 'listDocuments', summary: 'Document metadata of the company, newest first', auth: 'token', scope: 'documents:read', mutation: false },
  { method: 'POST', path: '/v1/documents/{documentId}/complete', group: 'documents', operationId: 'completeDocumentUpload', summary: 'Complete an upload: check the stored bytes and create the document', auth: 'token', scope: 'documents:write', mutation: true, ownerMayBePending: true },
  { method: 'GET', path: '/v1/documents/{documentId}', group: 'documents', operationId: 'getDocument', summary: 'Document metadata', auth: 'token', scope: 'documents:read', mutation: false },
  { method: 'GET', path: '/v1/documents/{documentId}/download', group: 'documents', operationId: 'getDocumentDownload', summary: 'A presigned download URL (5 minutes)', auth: 'token', scope: 'documents:read', mutation: false },
  { method: 'DELETE', path: '/v1/documents/{documentId}', group: 'documents', operationId: 'deleteDocument', summary: 'Soft-delete a document (the bytes stay)', auth: 'token', scope: 'documents:write', mutation: true, ownerMayBeDeleted: true },
  { method: 'POST', path: '/v1/documents/{documentId}/restore', group: 'documents', operationId: 'restoreDocument', summary: 'Restore a soft-deleted document', auth: 'token', scope: 'documents:write', mutation: true, ownerMayBeDeleted: true },
  { method: 'POST', path: '/v1/webhooks/subscriptions', group: 'webhooks', operationId: 'createWebhookSubscription', summary: 'Create a webhook subscription (answers the signing secret once)', auth: 'token', scope: 'webhooks:manage', mutation: true, systemOnly: true },
  { method: 'GET', path: '/v1/webhooks/subscriptions', group: 'webhooks', operationId: 'listWebhookSubscriptions', summary: "The organization's webhook subscriptions", auth: 'token', scope: 'webhooks:manage', mutation: false, systemOnly: true },
  { method: 'GET', path: webhookPath, group: 'webhooks', operationId: 'getWebhookSubscription', summary: 'One webhook subscription (never its secret)', auth: 'token', scope: 'webhooks:manage', mutation: false, systemOnly: true },
  { method: 'PATCH', path: webhookPath, group: 'webhooks', operationId: 'updateWebhookSubscription', summary: 'Change url, filters or description (a new url runs the handshake again)', auth: 'token', scope: 'webhooks:manage', mutation: true, systemOnly: true },
  { method: 'DELETE', path: webhookPath, group: 'webhooks', operationId: 'deleteWebhookSubscription', summary: 'Delete a webhook subscription', auth: 'token', scope: 'webhooks:manage', mutation: true, systemOnly: true },
  { method: 'POST', path: `${webhookPath}/verify`, group: 'webhooks', operationId: 'verifyWebhookSubscription', summary: 'Run the handshake now (re-enables a disabled subscription when it passes)', auth: 'token', scope: 'webhooks:manage', mutation: true, systemOnly: true },
  { method: 'POST', path: `${webhookPath}/rotate-secret`, group: 'webhooks', operationId: 'rotateWebhookSecret', summary: 'A new signing secret; the old one keeps signing for 24 h', auth: 'token', scope: 'webhooks:manage', mutation: true, systemOnly: true },
  { method: 'POST', path: `${webhookPath}/test`, group: 'webhooks', operationId: 'testWebhookSubscription', summary: 'Send a webhook.test event now', auth: 'token', scope: 'webhooks:manage', mutation: true, systemOnly: true },
  { method: 'GET', path: `${webhookPath}/deliveries`, group: 'webhooks', operationId: 'listWebhookDeliveries', summary: 'Deliveries of a subscription, newest first (filters status, event_type)', auth: 'token', scope: 'webhooks:manage', mutation: false, systemOnly: true },
  { method: 'GET', path: '/v1/webhooks/deliveries/{deliveryId}', group: 'webhooks', operationId: 'getWebhookDelivery', summary: 'One delivery with every attempt', auth: 'token', scope: 'webhooks:manage', mutation: false, systemOnly: true },
  { method: 'POST', path: '/v1/webhooks/deliveries/{deliveryId}/redeliver', group: 'webhooks', operationId: 'redeliverWebhookDelivery', summary: 'Send the same event (same id) again now', auth: 'token', scope: 'webhooks:manage', mutation: true, systemOnly: true },
  { method: 'GET', path: '/v1/webhooks/event-types', group: 'webhooks', operationId: 'listWebhookEventTypes', summary: 'The event catalogue with the payload fields of each type', auth: 'token', scope: 'webhooks:manage', mutation: false, systemOnly: true },
  { method: 'GET', path: '/v1/events', group: 'webhooks', operationId: 'listEvents', summary: "The organization's events in order (cursor, or resume after a sequence; filters type, company_id; kept 30 days)", auth: 'token', scope: 'webhooks:manage', mutation: false, systemOnly: true },

  { method: 'GET', path: '/v1/users', group: 'users', operationId: 'listUsers', summary: 'The people of your organization subtree (filters organization_id, email)', auth: 'token', scope: 'users:read', mutation: false, systemOnly: true },
  { method: 'GET', path: '/v1/users/{userId}', group: 'users', operationId: 'getUser', summary: 'One person with their memberships', auth: 'token', scope: 'users:read', mutation: false, systemOnly: true },
  { method: 'GET', path: '/v1/users/{userId}/access', group: 'users', operationId: 'getUserAccess', summary: 'The person\'s effective access: companies and the actions held on each', auth: 'token', scope: 'users:read', mutation: false, systemOnly: true },
  { method: 'GET', path: '/v1/users/{userId}/access/explain', group: 'users', operationId: 'explainUserAccess', summary: 'Why the person may or may not do an action on a company', auth: 'token', scope: 'users:read', mutation: false, systemOnly: true },
  { method: 'POST', path: '/v1/access/policies', group: 'access', operationId: 'createAccessPolicy', summary: 'Create an access policy', auth: 'token', scope: 'access:manage', mutation: true, systemOnly: true },
  { method: 'GET', path: '/v1/access/policies', group: 'access', operationId: 'listAccessPolicies', summary: 'Access policies of your organization subtree', auth: 'token', scope: 'access:manage', mutation: false, systemOnly: true },
  { method: 'GET', path: '/v1/access/policies/{policyId}', group: 'access', operationId: 'getAccessPolicy', summary: 'One access policy', auth: 'token', scope: 'access:manage', mutation: false, systemOnly: true },
  { method: 'PUT', path: '/v1/access/policies/{policyId}', group: 'access', operationId: 'replaceAccessPolicy', summary: 'Replace an access policy\'s document (If-Match: its version)', auth: 'token', scope: 'access:manage', mutation: true, systemOnly: true },
  { method: 'DELETE', path: '/v1/access/policies/{policyId}', group: 'access', operationId: 'deleteAccessPolicy', summary: 'Delete an access policy that is not assigned', auth: 'token', scope: 'access:manage', mutation: true, systemOnly: true },
  { method: 'POST', path: '/v1/access/assignments', group: 'access', operationId: 'createAccessAssignment', summary: 'Assign a policy to a person', auth: 'token', scope: 'access:manage', mutation: true, systemOnly: true },
  { method: 'GET', path: '/v1/access/assignments', group: 'access', operationId: 'listAccessAssignments', summary: 'Assignments of the policies of your subtree (filters user_id, policy_id)', auth: 'token', scope: 'access:manage', mutation: false, systemOnly: true },
  { method: 'DELETE', path: '/v1/access/assignments/{assignmentId}', group: 'access', operationId: 'deleteAccessAssignment', summary: 'Revoke an assignment (in force on the person\'s next request)', auth: 'token', scope: 'access:manage', mutation: true, systemOnly: true },
  { method: 'GET', path: '/v1/jobs/{jobId}', group: 'jobs', operationId: 'getJob', summary: 'One job (poll until terminal)', auth: 'token', mutation: false },

  { method: 'POST', path: '/mcp', group: 'mcp', operationId: 'callMcp', summary: 'Model Context Protocol (beta): read-only tools over stateless streamable HTTP', auth: 'token', mutation: false, resourceMetadataPath: mcpResourceMetadataPath },
  { method: 'GET', path: mcpResourceMetadataPath, group: 'mcp', operationId: 'getMcpResourceMetadata', summary: 'Protected-resource metadata of the MCP endpoint (RFC 9728)', auth: 'public', mutation: false },
  { method: 'GET', path: '/.well-known/oauth-protected-resource', group: 'mcp', operationId: 'getResourceMetadata', summary: 'Protected-resource metadata at the root location (RFC 9728), where MCP clients fall back', auth: 'public', mutation: false },
] as const satisfies readonly RouteDefinition[];

export type Route = (typeof routeTable)[number];
/** Every operation id of the route table. */
export type OperationId = Route['operationId'];
export type OperationIdOfGroup<G extends FunctionGroup> = Extract<Route, { group: G }>['operationId'];
export type RouteOf<Id extends OperationId> = Extract<Route, { operationId: Id }>;
/** The API Gateway path template of an operation. */
export type PathOf<Id extends OperationId> = RouteOf<Id>['path'];

export const routes: readonly RouteDefinition<OperationId>[] = routeTable;

/**
 * The MCP-only operations (the context tools, functions/mcp/context-tools.ts): run by the same
 * runner as the routes, with their own scope, typed the same way (`McpOnlyOperationId`).
 */
const mcpOnlyTable = [
  { group: 'mcp', operationId: 'getCompanyContext', summary: 'Company at a glance', auth: 'token', scope: 'context:read', mutation: false, parameters: ['companyId'] },
  { group: 'mcp', operationId: 'getAccountContext', summary: 'Account at a glance', auth: 'token', scope: 'context:read', mutation: false, parameters: ['companyId', 'accountNumber'] },
] as const satisfies readonly McpOnlyOperationDefinition[];

export type McpOnlyOperation = (typeof mcpOnlyTable)[number];
export type McpOnlyOperationId = McpOnlyOperation['operationId'];
export const mcpOnlyOperations: readonly McpOnlyOperationDefinition<McpOnlyOperationId>[] = mcpOnlyTable;

/** Path parameter names of a path template, in order ("/v1/companies/{companyId}/x/{id}" -> [companyId, id]). */
export type PathParameterList<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? [Name, ...PathParameterList<Rest>] : [];

/** The parameters of an operation, in order: a route's from its path, an MCP-only operation's as declared. */
export type ParametersOf<Id extends OperationId | McpOnlyOperationId> = Id extends OperationId
  ? PathParameterList<PathOf<Id>>
  : Extract<McpOnlyOperation, { operationId: Id }>['parameters'];

/** API Gateway's route key, e.g. "GET /v1/companies/{companyId}". */
export const routeKey = (route: Pick<RouteDefinition, 'method' | 'path'>): string => `${route.method} ${route.path}`;

export const routesOfGroup = (group: FunctionGroup): RouteDefinition<OperationId>[] => routes.filter((r) => r.group === group);
