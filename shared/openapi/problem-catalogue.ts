/**
 * What each problem `error` code means and what an integrator does about it. Served as one page
 * per code at GET /problems/{code} (the `type` URI of every problem points there) and listed in
 * the API reference. A code the API answers must be here: test/integration/docs.test.ts checks
 * the codes of shared/platform/problem.ts and of the domain services.
 */
export interface ProblemTypeEntry {
  status: number;
  title: string;
  /** When the API answers it. */
  condition: string;
  /** What the caller does about it. */
  action: string;
  /** Values of `reason` that refine it, with their meaning. */
  reasons?: Record<string, string>;
}

export const problemCatalogue: Record<string, ProblemTypeEntry> = {
  validation_failed: {
    status: 400,
    title: 'Validation failed',
    condition:
      'The request does not have the shape the operation takes: a path, query or body field is missing, has the wrong type or is out of range, or an unknown field or query parameter was sent. Imports answer 422 for structural problems of their rows (nothing is accepted). `errors[]` names each field (with `index` into the request array where the input is an array), at most 100.',
    action: 'Correct the fields named in `errors[]` and send the request again; retrying unchanged gives the same answer.',
    reasons: {
      unknown_account_codes: 'An import names account codes the year\'s chart does not hold; `accountCodes` lists them. Import the accounts first.',
      invalid_bank_statement: 'A camt.053 file could not be read as a bank statement.',
      invalid_members: 'A reconciliation group names bank transactions or GL lines that do not exist, belong to another account or another period.',
      unbalanced: 'The members of a reconciliation group do not sum to the same amount on both sides.',
      saft_not_xml: 'The SAF-T file is not (well-formed) XML; `detail` says where.',
      saft_compressed: 'The SAF-T file is compressed (gzip or zip); upload the XML itself.',
      saft_dtd_refused: 'The SAF-T file has a DOCTYPE; DTDs and entity declarations are refused.',
      saft_not_saft: 'The file is not a SAF-T Financial file as read up to the end of its header: another root or namespace, nesting too deep, or a header field longer than SAF-T allows or holding a control or bidirectional character (`detail` names it).',
      saft_unsupported_version: 'The SAF-T file has an AuditFileVersion this service does not read (1.10 and 1.30 are read).',
      saft_not_utf8: 'The SAF-T file is not UTF-8 text.',
      organization_number_mismatch: "The SAF-T file is for another organization number than the company's; start with `allowOrganizationNumberMismatch` true to import it anyway.",
    },
  },
  malformed_json: {
    status: 400,
    title: 'Malformed JSON body',
    condition: 'The body is not valid JSON, names one key twice in an object with different values, or (with `Content-Encoding: gzip`) is not gzip data.',
    action: 'Send a valid JSON document; check the encoding and compression of the body.',
  },
  invalid_encoding: {
    status: 400,
    title: 'Invalid encoding',
    condition:
      'The body is not UTF-8 (after gzip decompression, with `Content-Encoding: gzip`), or the path holds a percent-encoding that does not decode to UTF-8 (`%FF`, a `%` without two hex digits). Nothing is repaired: invalid bytes are never stored as U+FFFD.',
    action: 'Send JSON bodies encoded as UTF-8 and percent-encode path segments from their UTF-8 bytes (`encodeURIComponent`).',
  },
  invalid_cursor: {
    status: 400,
    title: 'Invalid cursor',
    condition: 'The `cursor` was not issued for this caller (client, and person for an interactive session), this operation and these filters, or was altered.',
    action: 'Start again from the first page, or send the exact `pagination.next_cursor` of the previous page with the same filters.',
  },
  invalid_token: {
    status: 401,
    title: 'Unauthorized',
    condition: 'The bearer access token is missing, malformed, expired, or belongs to a client that was revoked.',
    action: 'Fetch a new access token with the client-credentials grant at the token URL and send it as `Authorization: Bearer <token>`.',
  },
  insufficient_scope: {
    status: 403,
    title: 'Insufficient scope',
    condition: 'The token is valid but lacks the scope the operation needs (named in `detail` and in `WWW-Authenticate`).',
    action: 'Ask the firm\'s administrator to grant the scope to the API client, then fetch a new token.',
  },
  origin_not_allowed: {
    status: 403,
    title: 'Origin not allowed',
    condition: 'A request to the MCP endpoint named a `Host` or an `Origin` other than this API (protection against DNS rebinding: a web page must not reach a local server through a name it controls).',
    action: 'Call the endpoint by its own address; a browser-based client must be served from an origin the deployment allows (`MCP_ALLOWED_HOSTS`).',
  },
  system_client_required: {
    status: 403,
    title: 'System client required',
    condition:
      'Imports, users, access management and webhooks are for system clients (integrations), and this token belongs to a per-user client or an interactive session. Decided before reach, whatever the path names.',
    action: 'Use the credentials of a system client.',
  },
  version_mismatch: {
    status: 412,
    title: 'Version mismatch',
    condition: 'A replacement (PUT of an access policy) whose `If-Match` names a version that is no longer the current one: someone changed the resource since you read it. Not stored under the `Idempotency-Key`.',
    action: 'Read the resource again, reapply your change to it and send it with `If-Match` set to the version you read (with the same key or a new one).',
  },
  precondition_required: {
    status: 428,
    title: 'Precondition required',
    condition: 'A replacement (PUT of an access policy) without `If-Match`: it replaces only the version you read. Not stored under the `Idempotency-Key`.',
    action: 'Read the resource and send the replacement with `If-Match` set to its `version` (also in `ETag`).',
  },
  policy_in_use: {
    status: 409,
    title: 'Policy in use',
    condition: 'An access policy that is assigned to people cannot be deleted; `inUse` lists the assignments (`id`, `userId`).',
    action: 'Delete the assignments listed in `inUse` (DELETE /v1/access/assignments/{assignmentId}), then delete the policy.',
  },
  recomputation_incomplete: {
    status: 503,
    title: 'Access not yet recomputed',
    condition:
      'An access policy was replaced and stored, but the effective access of some of the people it is assigned to (those past the first 98, recomputed after its transaction) could not be recomputed yet. Until then they hold what the previous version gave them.',
    action: 'Send the same request again (the same `If-Match` and document; after `Retry-After`): it finishes the recomputation and answers 200 with the stored version, instead of 412.',
  },
  resource_outside_organization: {
    status: 422,
    title: 'Resource outside the organization',
    condition:
      'A rule of an access policy names an organization or company outside the subtree of the organization that owns the policy (or one that does not exist). `errors[]` names each one (`index` is the rule, `field` the resource).',
    action: 'Name only organizations and companies of the owning organization\'s subtree, or create the policy in a higher organization.',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    condition: 'The resource does not exist, is outside the caller\'s reach (another organization\'s company answers the same), or is deleted. Path ids that are not UUIDs answer it too.',
    action: 'Check the id and that the client belongs to an organization that can reach the company.',
  },
  route_not_found: {
    status: 404,
    title: 'Not found',
    condition: 'No operation is served at this path.',
    action: 'Check the path against the API reference (GET /docs).',
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    condition: 'The path exists, but not with this method. The `Allow` header lists the methods of this path.',
    action: 'Use one of the methods in `Allow`.',
  },
  conflict: {
    status: 409,
    title: 'Conflict',
    condition: 'The request is well-formed but conflicts with the state of the resource; `reason` says how.',
    action: 'Branch on `reason`; most conflicts clear when the state changes (wait for the job in flight, dissolve the reconciliation first). A 409 is not stored under its `Idempotency-Key`: send the same request again with the same key.',
    reasons: {
      company_not_api_managed: 'The company is bound to another accounting system; only companies bound to `Api` take imports.',
      job_in_flight: 'An import runs for the company that this request must wait for (`jobId` names it): one of the same lane, one that writes what an account, dimension or sub-ledger deletion would remove, or a GL-line deletion while a document linking GL lines is completed. Poll the job and send again when it is done.',
      lines_in_use: 'GL lines to delete are in reconciliation groups or linked by documents (`inUse` lists them with `reconciliationGroupId` or `documentIds`); dissolve the groups first. A live document holds its lines (a soft-deleted one does not).',
      opening_balances_in_use: 'Opening balances to delete are in reconciliation groups (`inUse`).',
      account_in_use: 'The account has lines or opening balances that year, live open items (dated that year or before) name it, or a bank account is mapped to it (`inUse`); retire it with `hidden: true` instead.',
      dimension_in_use: 'The dimension is named by live lines or is the parent of another.',
      sub_ledger_in_use: 'The sub-ledger is named by lines, opening balances or open items.',
      deleted_by_organization_cascade: 'The company was deleted with its organization and cannot be restored on its own.',
      concurrent_change: "The company's status kept changing while its deletion was written (five tries); nothing was deleted. Send the deletion again.",
      already_assigned: 'The person holds this access policy already.',
      access_too_large: "With the assignment the person would hold more effective access than one person's access may; nothing assigned.",
      subscription_not_active: 'The webhook subscription is not active (pending verification or disabled); verify it first.',
      subscription_changed: 'The subscription changed (its url or status) while its handshake ran; nothing stored. Read it and verify again.',
      concurrent_rotation: 'Another rotation of the same subscription stored its secret first; this one stored nothing.',
      too_many_signing_secrets: 'Three secrets of the subscription sign already (the current one and two in their 24-hour overlap); nothing stored. Rotate again once the oldest expires.',
    },
  },
  upload_missing: {
    status: 409,
    title: 'Upload missing',
    condition: 'A document or SAF-T file is completed or started before anything was uploaded to its upload URL.',
    action: 'PUT the bytes to the upload URL of the declaration, then complete (or start) again.',
  },
  upload_expired: {
    status: 410,
    title: 'Upload expired',
    condition: 'The document declaration expired without completion.',
    action: 'Declare the document again and upload to the new URL.',
  },
  upload_mismatch: {
    status: 422,
    title: 'Upload does not match the declaration',
    condition: 'The uploaded bytes differ from the declaration in size, SHA-256 or content type (`errors[]` names the field); nothing was created.',
    action: 'Size or SHA-256 (`sizeBytes`, `sha256`): PUT the declared bytes to the upload URL and complete again, or declare again with the right size and checksum. Content type (`contentType`): declare again with the right content type (the upload URL is bound to the declared bytes).',
  },
  already_reconciled: {
    status: 409,
    title: 'Already reconciled',
    condition: 'A bank transaction or GL line of the new reconciliation group is already in another group; `inUse` lists each with its `reconciliationId`.',
    action: 'Dissolve the other group first, or leave the member out.',
  },
  members_changed: {
    status: 409,
    title: 'Members changed',
    condition: 'A member of the reconciliation group changed while the request ran (a concurrent import or reconciliation).',
    action: 'Read the members again and retry.',
  },
  idempotency_in_flight: {
    status: 409,
    title: 'Request in flight',
    condition: 'A request with the same `Idempotency-Key` is still running.',
    action: 'Retry later with the same key; you will get the first request\'s answer.',
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    condition: 'The body is larger than 4 MiB as sent (32 MiB decompressed with gzip), or an import holds more than 10,000 rows.',
    action: 'Split the data into several requests, or send the body with `Content-Encoding: gzip`.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    condition: 'The body is not `application/json`, or its `Content-Encoding` is neither absent, `identity` nor `gzip`.',
    action: 'Send `Content-Type: application/json`, compressed with gzip or not at all.',
  },
  idempotency_key_reused: {
    status: 422,
    title: 'Idempotency-Key reused',
    condition: 'The `Idempotency-Key` was used by this client with a different request (method, path, query or body) within 24 hours.',
    action: 'Use a new key for every new request; reuse a key only to retry the same request.',
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    condition: 'The client used up its request quota. The `RateLimit-*` headers of every answer show the budget.',
    action: 'Wait the seconds of `Retry-After`, then retry; spread requests out.',
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    condition: 'A store the request needs (the database, the object store, the queue) was busy (throttled) or failing, also after the service\'s own retries. Nothing about the request was wrong; a mutation left nothing half-written and its `Idempotency-Key` is free again.',
    action: 'Wait the seconds of `Retry-After`, then retry, with the same `Idempotency-Key` for mutations.',
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    condition: 'An unexpected error occurred; nothing about the request was wrong.',
    action: 'Retry, with the same `Idempotency-Key` for mutations. Quote `requestId` to support if it persists.',
  },
};

/** The entry of a code; undefined for any other name, `__proto__` and `constructor` included. */
export const problemTypeEntry = (code: string): ProblemTypeEntry | undefined => (Object.hasOwn(problemCatalogue, code) ? problemCatalogue[code] : undefined);

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Inline code spans of the catalogue text (`x`) as <code>. */
const inline = (text: string): string => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

/** The page of one problem type: a small, self-contained HTML document. */
export const problemPage = (code: string, entry: ProblemTypeEntry): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(code)} (${entry.status}) - Accounting Ledger Integration Service</title>
<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1d1d1f}code{background:#f3f3f5;padding:0 .25em;border-radius:3px}dt{font-weight:600;margin-top:.5rem}</style>
</head>
<body>
<p><a href="../docs">API reference</a></p>
<h1><code>${escapeHtml(code)}</code>: ${escapeHtml(entry.title)}</h1>
<p>HTTP status <strong>${entry.status}</strong>. Problem documents (<code>application/problem+json</code>) of this kind have <code>"error": "${escapeHtml(code)}"</code>.</p>
<h2>When</h2>
<p>${inline(entry.condition)}</p>
<h2>What to do</h2>
<p>${inline(entry.action)}</p>
${
  entry.reasons
    ? `<h2>Reasons</h2>\n<dl>\n${Object.entries(entry.reasons)
        .map(([reason, text]) => `<dt><code>${escapeHtml(reason)}</code></dt><dd>${inline(text)}</dd>`)
        .join('\n')}\n</dl>\n`
    : ''
}</body>
</html>
`;

const pageStyle = 'body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1d1d1f}code{background:#f3f3f5;padding:0 .25em;border-radius:3px}td,th{text-align:left;vertical-align:top;padding:.25rem .5rem .25rem 0}';

/** GET /problems: every code with its status and the first sentence of when it is answered. */
export const problemIndexPage = (): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Problem types - Accounting Ledger Integration Service</title>
<style>${pageStyle}</style>
</head>
<body>
<p><a href="docs">API reference</a></p>
<h1>Problem types</h1>
<p>Every error is a problem document (<code>application/problem+json</code>, RFC 9457) whose <code>error</code> is one of these codes and whose <code>type</code> links its page.</p>
<table>
<tr><th>Code</th><th>Status</th><th>When</th></tr>
${Object.entries(problemCatalogue)
  .map(([code, entry]) => `<tr><td><a href="problems/${escapeHtml(code)}"><code>${escapeHtml(code)}</code></a></td><td>${entry.status}</td><td>${inline(entry.condition.split('. ')[0]!.replace(/\.$/, ''))}.</td></tr>`)
  .join('\n')}
</table>
</body>
</html>
`;

/** GET /: what the service is and where to go (relative links, so it works behind any base URL). */
export const landingPage = (tokenUrl: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Accounting Ledger Integration Service</title>
<style>${pageStyle}</style>
</head>
<body>
<h1>Accounting Ledger Integration Service</h1>
<p>The HTTP API through which integrations read and write the accounting data of an accounting firm's client companies. Every path of the API starts with <code>/v1</code>; send an OAuth 2.0 access token as <code>Authorization: Bearer &lt;token&gt;</code>.</p>
<ul>
<li><a href="docs">API reference</a>: every operation, with examples</li>
<li><a href="v1/openapi.json">OpenAPI document</a> (JSON; also <a href="v1/openapi.yaml">YAML</a>)</li>
<li><a href="problems">Problem types</a>: every error code and what to do about it</li>
<li>Token endpoint (client credentials): <code>${escapeHtml(tokenUrl)}</code></li>
<li>MCP endpoint (read-only tools for assistants): <code>POST /mcp</code></li>
</ul>
</body>
</html>
`;

/** The catalogue as Markdown, for the description of the API reference. */
export const problemCatalogueMarkdown = (baseUrl: string): string =>
  Object.entries(problemCatalogue)
    .map(([code, entry]) => `- [\`${code}\`](${baseUrl}/problems/${code}) (${entry.status}): ${entry.condition.split('. ')[0]!.replace(/\.$/, '')}.`)
    .join('\n');
