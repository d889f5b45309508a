import { importSubmissions, type ImportSubmissionId } from '../imports/catalogue';
import { maxImportDecimals, maxImportIntegerDigits } from '../platform/money';
import { maxDecodedBodyBytes, maxRequestBodyBytes } from '../platform/request-body';
import type { OperationId } from '../routes';

/**
 * What each operation does, the rules of the specification that govern it and the errors to
 * branch on (CommonMark), plus request examples: the one home of an operation's text (the route
 * table holds its summary, the contract its shapes). Keyed by the route table's operation ids: an
 * operation without its docs, or docs of an operation that does not exist, does not compile. The
 * import submissions' docs come from the import catalogue (shared/imports/catalogue.ts). Response
 * examples are built from the schemas (shared/openapi/examples.ts) unless given here.
 */
export interface OperationDoc {
  description: string;
  requestExample?: unknown;
  responseExample?: unknown;
}

const pollImport =
  'Answers **202** with the import record (`status` `queued`, `jobId`, `Location`): poll `GET /v1/companies/{companyId}/imports/{importId}` until `status` is `succeeded` or `failed`, then read `rowsFailed` and `sampleErrors` (row problems skip the row; the other rows are applied).';
const importErrors =
  'Branch on: **409** `conflict` with `reason` `company_not_api_managed` (the company is not bound to `Api`) or `job_in_flight` (wait for `jobId`, then send again); **413** `payload_too_large` (more than 10,000 rows or 4 MiB); **422** `validation_failed` (structural problems, `errors[]` with `index` and `field`; nothing accepted; an empty row array is refused too).';
const sameKey = 'The same `Idempotency-Key` answers the same import and never creates a second.';

/** What every import submission says about its body: size limits and compression. */
const bodyNotes = [
  `**Body size.** A request body may hold at most ${maxRequestBodyBytes} bytes (4 MiB) as sent: what a synchronous Lambda invocation (6 MB event) carries behind API Gateway, with room for base64 and the headers. Larger bodies answer 413 \`payload_too_large\` naming the limit.`,
  `**Compression.** Send larger imports compressed with \`Content-Encoding: gzip\` (and \`Content-Type: application/json\`): the limit above then applies to the compressed body, and the decompressed JSON may hold at most ${maxDecodedBodyBytes} bytes (32 MiB; more answers 413). Other codings answer 415 \`unsupported_media_type\`; a body that is not gzip data answers 400 \`malformed_json\`. The 10,000-row limit applies as always.`,
].join('\n\n');

const amountNotes = `**Amounts** are decimal strings (preferred): an optional minus, digits, and optionally a point with 1 to ${maxImportDecimals} digits (\`"1e2"\`, \`"+5"\`, \`" 12"\`, \`".5"\` are refused), or JSON numbers (judged on their source text), with at most ${maxImportDecimals} decimals and ${maxImportIntegerDigits} digits before the decimal point; \`taxPercentage\` is from 0 to 100; anything else is a structural 422 naming the row and field.`;

/** The docs of the import submissions, from the catalogue (deletions are all or nothing: their errors are in their own text). */
const importSubmissionDocs = Object.fromEntries(
  importSubmissions.map((entry) => {
    const deletion = entry.kind.endsWith('_deletions');
    const description = [
      `${entry.description} ${pollImport} ${deletion ? '' : `${importErrors} `}${sameKey}`,
      entry.about,
      bodyNotes,
      ...(entry.withAmounts ? [amountNotes] : []),
    ].join('\n\n');
    return [entry.operationId, { description, ...('requestExample' in entry && { requestExample: entry.requestExample }) }];
  }),
) as Record<ImportSubmissionId, OperationDoc>;

export const operationDocs = {
  ...importSubmissionDocs,
  getOpenApiDocument: {
    description: 'This OpenAPI 3.0.3 document, generated from the schemas the API validates with. Public: no token needed. Also served as YAML at `GET /v1/openapi.yaml` and rendered at `GET /docs`.',
  },
  getOpenApiYaml: {
    description:
      'The same document as `GET /v1/openapi.json`, serialized as YAML for tools that prefer it. Public: no token needed.',
  },
  getApiReference: {
    description:
      'The API reference rendered from this document with Redoc, served by the API itself: the renderer is vendored at build time and the page loads nothing from the internet. Public: no token needed.',
  },
  getApiReferenceScript: {
    description:
      'The Redoc standalone bundle the reference page loads (vendored from the redoc package at build time). Public.',
  },
  getProblemType: {
    description:
      'Every problem document\'s `type` is the URL of this page for its `error` code: when the API answers it, and what to do about it. Unknown codes answer 404 `not_found`. Public: no token needed.',
  },
  whoami: {
    description: 'Who the access token belongs to: the client, its organization and the scopes it holds. Any valid token may call it; use it to check credentials. Errors: **401** `invalid_token`.',
  },
  listCompanies: {
    description:
      'The companies within the caller\'s reach: those of its organization and of every organization below it, deleted ones left out. Paginated by cursor: follow `pagination.next_cursor` until it is null.',
  },
  createCompany: {
    description:
      'Creates a company in the caller\'s organization (or in `organizationId`, which must be within reach). `accountingSystem` decides who owns the books: only companies bound to `Api` take imports through this API. `organizationNumber` must be 9 digits with a valid modulus-11 check digit. Answers **201** with `Location`. Errors: **400** `validation_failed`; **404** `not_found` for an `organizationId` outside the reach.',
    requestExample: { displayName: 'Fjellbekk Kraft AS', accountingSystem: 'Api', organizationNumber: '923609016', vatFrequency: 'bimonthly' },
  },
  getCompany: { description: 'One company within reach. Errors: **404** `not_found` (unknown, outside the reach or deleted).' },
  updateCompany: {
    description:
      'Changes the fields sent (patch semantics): `displayName`, `organizationNumber` (null clears it), `accountingSystem`, `vatFrequency`. An empty object changes nothing and answers the company. Errors: **400** `validation_failed`; **404** `not_found`.',
    requestExample: { displayName: 'Fjellbekk Kraft og Nett AS' },
  },
  deleteCompany: {
    description:
      'Soft-deletes the company: it leaves lists and reads answer 404, until it is restored. A second delete answers the same deletion. Optional body `{"reason": "..."}`.',
    requestExample: { reason: 'Customer left the firm' },
  },
  disableCompany: { description: 'Sets `status` to `disabled` (the company stays readable). Idempotent. Takes no body (`{}` is tolerated).' },
  enableCompany: { description: 'Sets `status` back to `active`. Idempotent. Takes no body (`{}` is tolerated).' },
  restoreCompany: {
    description:
      'Restores a soft-deleted company. A company that is not deleted is answered unchanged. Errors: **409** `conflict` with `reason` `deleted_by_organization_cascade` when the company was deleted with its organization.',
  },
  listAccounts: { description: 'The chart of accounts of one year, in account-number order (as text). Without `year`: the current accounting year (the latest year with a chart).' },
  getAccount: { description: 'One account of the chart of a year. Errors: **404** `not_found` when the year\'s chart does not hold it.' },
  deleteAccount: {
    description: `Deletes an imported account from the chart of a year, as an import: ${pollImport} Errors: **409** \`conflict\` with \`reason\` \`account_in_use\` when the account has lines or opening balances that year (retire it by importing it with \`hidden: true\`), or \`job_in_flight\`. Nothing cascades.`,
  },
  listGeneralLedgerLines: {
    description:
      'GL lines of a year, ordered by period then line id, filtered by `account` and `period`. Amounts are JSON numbers with two decimals: debit positive, credit negative; parse them losslessly. Each line carries the integrator\'s id (`sourceLineId`) and its `version` (a re-sent id updates the line in place).',
  },
  getTrialBalance: {
    description:
      'The trial balance of a year in one read: per account with an opening balance or a line, its chart description, the opening balance, the twelve movements with the closing balance after each, and the closing balance; `totals` sums them. Debit positive, credit negative; a complete trial balance totals zero.',
  },
  listDimensions: { description: 'The dimension values of the company (departments, projects, ...), with their parent where imported.' },
  listSubLedgers: { description: 'The customers and suppliers of the company.' },
  listVatTerms: {
    description: 'The VAT filing terms of a year (bimonthly or annual, as the company files), with totals by standard tax code in NOK and a reconciliation status against the VAT accounts.',
  },
  listBankAccounts: { description: 'The bank accounts of the company, from the camt.053 statements ingested, each mapped to a GL account.' },
  listBankTransactions: {
    description:
      'Transactions of a bank account, newest first, each with its computed `reconciliationStatus` (`unreconciled`, `reconciled` or `stale`); filter by booking date (`from`, `to`) and status.',
  },
  getReconciliationSummary: {
    description: 'Twelve periods of a year for a bank account: reconciliation groups, members, stale groups, unreconciled transactions and the firm\'s period approval.',
  },
  listReconciliations: { description: 'Reconciliation groups of a bank account, filtered by `year` and `period`.' },
  createReconciliation: {
    description:
      'Makes a reconciliation group of bank transactions and GL lines (on the mapped GL account) of one period that reconcile each other. Errors to branch on: **409** `already_reconciled` (a member is in another group; `inUse` names them); **422** `validation_failed` with `reason` `invalid_members` or `unbalanced` (the two sides do not sum to the same amount).',
    requestExample: {
      bankAccountId: '6a2f9d0c-1b3e-4f5a-8c7d-9e0f1a2b3c4d',
      year: 2026,
      period: 2,
      bankTransactionIds: ['0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e'],
      lineIds: ['GL-2026-000123'],
      note: 'Card payment 12 February',
    },
  },
  getReconciliation: { description: 'One reconciliation group with its members as they were when the group was made, and whether each changed since (`stale`).' },
  deleteReconciliation: { description: 'Dissolves a reconciliation group and releases its members. Deleting it again answers the same result.' },
  getImportReadiness: {
    description:
      'What the books hold per year and what to import next (`nextStep`), in the recommended order: accounts, dimensions and sub-ledgers (optional), opening balances, GL lines, open items. `blockers` (e.g. `no_accounts`) and `warnings` (e.g. `unmapped_accounts`) say what needs attention.',
  },
  getImport: {
    description:
      'One import: poll it until `status` is `succeeded` or `failed`. `rowsDiscovered = rowsValid + rowsFailed`; `sampleErrors` explains skipped rows; `warnings` names conditions that did not stop the import (e.g. `unbalanced_vouchers`); `failureReason` says why a failed import failed.',
  },
  listImports: { description: 'Imports of the company, newest first, filtered by `kind`, `status` and `year` (filtered pages may be shorter than `page_size`; follow `next_cursor`).' },
  deleteDimension: { description: `Deletes an imported dimension, as an import: ${pollImport} Errors: **409** \`dimension_in_use\` when live lines name it or it is the parent of another.` },
  deleteSubLedger: { description: `Deletes an imported sub-ledger, as an import: ${pollImport} Errors: **409** \`sub_ledger_in_use\` when lines, opening balances or open items name it.` },
  listFetchRuns: { description: 'Completed GL-line and opening-balance imports (fetch runs), newest first, each with the outcome of its post-fetch engines (e.g. auto-reconciliation).' },
  listUsers: {
    description:
      'The people who are members of an organization of your subtree, with those memberships, sorted by e-mail, in **one page** (`next_cursor` always null: the spec counts users among the small bounded lists). Filters `organization_id` (members of that organization only) and `email`. System clients only: per-user and interactive principals get **403** `system_client_required`.',
  },
  getUser: {
    description: 'One person with their memberships within your reach. **404** when no organization of the person is within your reach. System clients only (**403** `system_client_required`).',
  },
  getUserAccess: {
    description:
      'The person\'s effective access, company by company: the live companies within your reach on which the person holds at least one action, with those actions (scope names). It is the evaluator\'s own answer from the person\'s materialized access (deny wins; only companies within the person\'s organizations). Filter `company_id`; paginated by cursor.',
  },
  explainUserAccess: {
    description:
      'Why the person may or may not do `action` on `company_id`: `decision` allow or deny, `reason` (`allow_rule`, `deny_rule`, `no_matching_rule`, `not_a_member`) and the policy and rule (0-based `ruleIndex`) that decided. **404** when the company is not within your reach.',
  },
  createAccessPolicy: {
    description:
      'Creates an access policy owned by your organization (or by `organizationId`, an organization of your subtree). Each rule allows or denies `actions` (scope names, or `resource:*` such as `ledger:*`) on `resources`: `organizations` (each with its whole subtree, companies created later included) and/or single `companies`. **A deny wins** over any allow for the same company and action. Rules may only name resources inside the owning organization\'s subtree: **422** `resource_outside_organization` names each offending rule and resource. A policy does nothing until assigned.',
    requestExample: {
      name: 'Accountant: full access to two clients',
      description: 'Bookkeeping of Bakeriet Solsiden and Havbris Fiskeri',
      rules: [
        { effect: 'allow', actions: ['companies:*', 'ledger:*', 'bank:*', 'reconciliation:*', 'documents:*'], resources: { companies: ['3f2b8c1e-5d4a-4e7b-9c0d-1a2b3c4d5e6f', '7a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d'] } },
        { effect: 'deny', actions: ['documents:write'], resources: { companies: ['7a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d'] } },
      ],
    },
  },
  listAccessPolicies: { description: 'The access policies owned by organizations of your subtree, paginated by cursor.' },
  getAccessPolicy: { description: 'One access policy with its `version` (also in `ETag`): send that version in `If-Match` to replace it.' },
  replaceAccessPolicy: {
    description:
      'Replaces the policy\'s document (name, description, rules) and increments `version`. Needs `If-Match` with the current version: **412** `version_mismatch` otherwise (read it again). The effective access of everyone the policy is assigned to is recomputed before the answer (with the policy in one transaction for up to 98 people), so the new rules decide their very next request.',
    requestExample: {
      name: 'Auditor: read one client',
      description: 'Reads the books of Bakeriet Solsiden',
      rules: [{ effect: 'allow', actions: ['companies:read', 'ledger:read', 'bank:read'], resources: { companies: ['3f2b8c1e-5d4a-4e7b-9c0d-1a2b3c4d5e6f'] } }],
    },
  },
  deleteAccessPolicy: {
    description: 'Deletes a policy that is not assigned. While assigned: **409** `policy_in_use` with `inUse` listing the assignments (`id`, `userId`): delete them first.',
  },
  createAccessAssignment: {
    description:
      'Assigns a policy to a person; both must be within your reach (else **404**). The person\'s effective access is recomputed in the same transaction: their next request is decided with the policy. **409** `conflict` (`reason` `already_assigned`) when the person holds the policy already.',
    requestExample: { policyId: '5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e', userId: '0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b' },
  },
  listAccessAssignments: { description: 'The assignments of policies owned within your subtree; filters `user_id` and `policy_id`; paginated by cursor.' },
  deleteAccessAssignment: {
    description: 'Revokes an assignment: the assignment goes and the person\'s effective access is recomputed in the same transaction, so their very next request is decided without it (no cache to expire).',
  },
  getJob: { description: 'A job (the background work of an import): poll until `succeeded` or `failed`. Any valid token; **404** outside the reach.' },
  listJobs: {
    description:
      'The jobs of the live companies within the caller\'s reach, newest first; filters `status`, `type` and `company_id` (a company outside the reach matches nothing). Filtered pages may be shorter than `page_size`: follow `pagination.next_cursor` while `has_more`. Any valid token. An interactive session (no organization of its own) lists the jobs of one company at a time: without `company_id` its page is empty.',
  },
  listGeneralLedgerLineVersions: {
    description:
      'Every version of one GL line, oldest first: its content in that version, `change` (`created`, `updated`, `deleted`), when it was recorded and superseded, and the dataset and import that wrote it. A deleted line ends with its deletion. **404** for an unknown `lineId` or a company outside the reach.',
  },
  listOpeningBalanceVersions: {
    description:
      'Every version of one opening balance (the integrator\'s id) of a year (`year`, default the current accounting year), oldest first, as for GL lines. **404** for an unknown id.',
  },
  declareDocumentUpload: {
    description:
      'Declares an upload: file name, content type (PDF, JPEG, PNG, HEIC, TIFF, XML, CSV, plain text), exact size (1 B to 50 MiB) and SHA-256. Answers a presigned **PUT** URL valid for 15 minutes with the headers to send; the bytes go straight to storage, then call `POST /v1/documents/{documentId}/complete`. The document does not exist until completed. Errors: **400** `validation_failed` naming the field; **403** without `documents:write`.',
  },
  listDocuments: {
    description:
      'Metadata of the company\'s documents, newest first; filters `linked_line_id`, `content_type`, `from`/`to` (completion date). Filtered pages may be shorter than `page_size`: follow `pagination.next_cursor`.',
  },
  completeDocumentUpload: {
    description:
      'Checks the stored object against the declaration (exists, exact size, SHA-256, first bytes match the content type) and creates the document. Completing again, or after the automatic completion, answers the same document. Errors: **409** `upload_missing` (nothing uploaded yet), **410** `upload_expired` (declare again), **422** `upload_mismatch` naming the field; nothing is created on any failure.',
  },
  getDocument: { description: 'Metadata of one document. **404** when unknown, soft-deleted or outside the reach.' },
  getDocumentDownload: {
    description: 'A presigned **GET** URL of the document\'s bytes, valid for 5 minutes, whose answer carries `Content-Disposition` with the file name.',
  },
  deleteDocument: {
    description: 'Soft delete: the document answers 404 everywhere afterwards; the bytes stay in storage. Deleting again answers the same deletion.',
  },
  restoreDocument: { description: 'Brings a soft-deleted document back; restoring a live document answers it unchanged. **404** for an unknown id or outside the reach.' },
  callMcp: {
    description:
      'The Model Context Protocol (revision 2025-11-25, beta) over stateless streamable HTTP: 19 read-only tools (17 run the same operation as their REST twin, with the same scopes and reach; `get_company_context` and `get_account_context` need `context:read`, which only interactive sessions hold). `GET` and `DELETE` answer 405: there are no sessions and no server-initiated streams. Without a token it answers **401** with `WWW-Authenticate: Bearer resource_metadata="<base>/.well-known/oauth-protected-resource/mcp"`; a `tools/call` of a tool whose scope the token lacks answers **403** `insufficient_scope` naming the scope. Outside the reach a tool answers a tool error (`isError`) that says not found.\n\n' +
      'The body is one JSON-RPC message; send `Accept: application/json, text/event-stream`. Answers are JSON (`application/json`), never an SSE stream; no `Mcp-Session-Id` is issued (stateless). Protocol errors are JSON-RPC error objects as MCP defines them, not problem documents: a body that is not JSON is HTTP 400 with -32700 (parse error), one that is not a single JSON-RPC message (a batch, no `jsonrpc`) HTTP 400 with -32600; an unknown method is -32601, params that do not fit the method (tools/call without a string `name`, `arguments` not an object) -32602 naming the parameter, and an unknown tool -32602, each in an HTTP 200 answer. A tool\'s arguments that break its input schema are a tool error (`isError`) naming the field, as MCP asks.',
    requestExample: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_companies', arguments: { page_size: 10 } } },
  },
  getMcpResourceMetadata: {
    description:
      'The protected-resource metadata of the MCP endpoint (RFC 9728), named by its 401 challenge: the resource, the authorization server to sign in at (its RFC 8414 metadata lists the endpoints), the scopes the tools need. Public.',
  },
  getResourceMetadata: {
    description: 'The same protected-resource metadata at the root location, where MCP clients look when the challenge names none. Public.',
  },
  createWebhookSubscription: {
    description:
      'Creates a subscription of your organization (`webhooks:manage`, system clients only). The answer (**201**) holds the signing secret `whsec_...` once: store it. The subscription is `pending_verification` until the **handshake** passes: within seconds a signed `webhook.verification` event carrying `data.challenge` arrives, to be answered 2xx with `{"challenge": "<the same value>"}`, and a second one with a wrong signature, to be refused with a 4xx. A subscription hears the events of the companies within your organization\'s reach (`companyIds` narrows it). Deliveries are signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`).',
    requestExample: { url: 'https://example.com/webhooks/ledger', eventTypes: ['job.succeeded', 'company.updated'], description: 'ERP sync' },
  },
  listWebhookSubscriptions: {
    description:
      "The subscriptions of your organization and its descendants (those you may read and change by id; `organizationId` says whose): your own first, each organization's oldest first, without their secrets.",
  },
  getWebhookSubscription: { description: 'One subscription: its status and `statusReason` (the last handshake failure, or what disabled it). Never the secret.' },
  updateWebhookSubscription: {
    description: 'Changes `url`, `eventTypes`, `companyIds` (null: every company) or `description`. A new `url` makes the subscription `pending_verification` and runs the handshake again.',
    requestExample: { eventTypes: ['*'] },
  },
  deleteWebhookSubscription: { description: 'Deletes the subscription; nothing more is delivered to it and its pending deliveries end as `failed`.' },
  verifyWebhookSubscription: {
    description: 'Runs the handshake now and answers the outcome: `active` when it passed, else `pending_verification` (or still `disabled`) with the reason in `statusReason`. The way to enable a disabled subscription again.',
  },
  rotateWebhookSecret: {
    description: 'A new secret, shown once. For 24 hours the previous secret signs too: `webhook-signature` then carries two signatures, `v1,<new> v1,<old>`, so a receiver verifying with either secret accepts the delivery.',
  },
  testWebhookSubscription: { description: 'Sends a `webhook.test` event now (**202** with the delivery to follow). **409** `subscription_not_active` when the subscription is not active.' },
  listWebhookDeliveries: { description: 'Deliveries of the subscription, newest first; filters `status` (`pending`, `succeeded`, `failed`, `dead`) and `event_type`.' },
  getWebhookDelivery: {
    description: 'One delivery with the event as sent and every attempt: time, status code or network error, latency and the first 1 KiB of the answer. Attempts follow the schedule immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (±10 % jitter, at least `Retry-After`); after the last the delivery is `dead`.',
  },
  redeliverWebhookDelivery: { description: 'Sends the same event (same `webhook-id`, same body) again now, as a new delivery (`redeliveryOf` names this one). **409** `subscription_not_active` when the subscription is not active.' },
  listWebhookEventTypes: { description: 'The event catalogue: each type, what it means, the ids in `data.ids` and the `data.link` to fetch what changed. New types may appear: ignore types you do not know.' },
  listEvents: {
    description:
      "The organization's events (its own and its descendants' companies) in order of their per-organization `sequence`, kept 30 days: a receiver that was down reads what it missed without waiting for retries. Pass `pagination.next_cursor` as `after` for the next page (it is the last sequence read, also when `has_more` is false: poll with it later). Filters `type`, `company_id`; filtered pages may hold fewer than `page_size`. Sequence numbers are assigned by the relay in the order it takes events from the table's stream; each is committed with its feed entry, so a page never skips a number that appears later.",
  },
} satisfies Record<OperationId, OperationDoc>;
