import { OpenAPIRegistry, OpenApiGeneratorV3, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { bankContracts } from '../bank/contracts';
import { companyContracts } from '../companies/contracts';
import { importContracts } from '../composition/import-contracts';
import { documentContracts } from '../documents/contracts';
import { webhookContracts } from '../webhooks/contracts';
import { jobContracts } from '../jobs/contracts';
import { accessContracts, userContracts } from '../access/contracts';
import { chartContracts } from '../ledger/chart/contracts';
import { generalLedgerContracts } from '../ledger/general-ledger/contracts';
import { identityContracts } from '../identity/contracts';
import { interactiveScopes, systemClientScopes } from '../identity/scopes';
import type { DocumentedContract, OperationContract } from '../api/operation';
import { customRateLimitBounds } from '../platform/rate-limit';
import { maxDecodedBodyBytes, maxRequestBodyBytes } from '../platform/request-body';
import { publicBaseUrl, withRequestBaseUrl } from '../platform/config';
import { ProblemSchema } from '../platform/schemas';
import * as z from '../platform/zod';
import { functionGroups, routes, type FunctionGroup, type OperationId, type RouteDefinition } from '../routes';
import { vatContracts } from '../vat/contracts';
import { describeDocument } from './describe';
import { problemCatalogueMarkdown } from './problem-catalogue';
import { defaultServerUrl, defaultTokenUrl, docsContracts } from './docs-contracts';
import { mcpContracts } from '../composition/mcp-contracts';
import { addExamples } from './examples';
import { documentPlaceholders } from './prebuilt';

/**
 * Every operation's contract by operationId, with its reference text (description, examples): one
 * per route of the route table, which says where each is served; a route without its documented
 * contract, or a contract without a route, does not compile.
 */
export const operationContracts = {
  ...docsContracts,
  ...identityContracts,
  ...companyContracts,
  ...chartContracts,
  ...generalLedgerContracts,
  ...vatContracts,
  ...bankContracts,
  ...importContracts,
  ...jobContracts,
  ...userContracts,
  ...accessContracts,
  ...documentContracts,
  ...mcpContracts,
  ...webhookContracts,
} satisfies Record<OperationId, DocumentedContract>;

/** A contract of an operation the route table does not have does not compile. */
const unrouted: Record<Exclude<keyof typeof operationContracts, OperationId>, never> = {};
void unrouted;

/** The same, looked up by any string (tools that walk the route table). */
export const contracts: Record<string, OperationContract> = operationContracts;

const problemResponse = (description: string, headers: Record<string, { $ref: string }>) => ({
  description,
  headers,
  content: { 'application/problem+json': { schema: ProblemSchema } },
});

/**
 * Response headers, declared once under components.headers. The RateLimit-* headers come with
 * every answer once the bearer token is accepted (not with 401, before the client is known).
 */
const rateBound = customRateLimitBounds.burst.max;
const longestWaitSeconds = Math.ceil((customRateLimitBounds.burst.max * 60) / customRateLimitBounds.perMinute.min);
type ResponseHeader = 'X-Request-Id' | 'RateLimit-Limit' | 'RateLimit-Remaining' | 'RateLimit-Reset' | 'RateLimit-Policy' | 'Retry-After' | 'Idempotency-Replayed';
const responseHeaders: Record<ResponseHeader, { description: string; schema: { type: 'string' | 'integer' } & Record<string, unknown> }> = {
  'X-Request-Id': {
    description: 'Identifies the request; quote it to support',
    schema: { type: 'string', maxLength: 128, pattern: '^[\\x21-\\x7E]+$' },
  },
  'RateLimit-Limit': { description: 'Burst size of the client plan', schema: { type: 'integer', format: 'int32', minimum: 1, maximum: rateBound } },
  'RateLimit-Remaining': { description: 'Requests left in the current burst', schema: { type: 'integer', format: 'int32', minimum: 0, maximum: rateBound } },
  'RateLimit-Reset': {
    description: 'Seconds until the burst is fully replenished',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: longestWaitSeconds },
  },
  'RateLimit-Policy': {
    description: 'The quota of the client: `<burst>;w=<seconds to refill the burst>, <requests per minute>;w=60`',
    schema: { type: 'string', maxLength: 64, pattern: '^\\d+;w=\\d+, \\d+;w=60$', example: '60;w=12, 300;w=60' },
  },
  'Retry-After': {
    description: 'Seconds to wait before sending again',
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: longestWaitSeconds },
  },
  'Idempotency-Replayed': {
    description: 'true when this is the stored response of an earlier request with the same key',
    schema: { type: 'string', enum: ['true'] },
  },
};
const headerRefs = (...names: ResponseHeader[]): Record<string, { $ref: string }> =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
const rateLimitHeaders: ResponseHeader[] = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];

/** Problems the platform itself can answer for a route, beside the operation's own. */
const platformProblems = (route: RouteDefinition, contract: OperationContract): Partial<Record<number, string>> => ({
  400: 'validation_failed (detail and errors name the fields), malformed_json, invalid_encoding (a body that is not UTF-8), or invalid_cursor',
  ...(route.auth === 'token' && {
    401: 'invalid_token: the bearer token is missing, malformed, invalid or expired',
    403: route.systemOnly
      ? 'system_client_required: only system clients may call this operation (per-user and interactive principals may not); insufficient_scope: the token lacks the scope of this operation'
      : 'insufficient_scope: the token lacks the scope of this operation',
    429: 'rate_limited: the quota of the client is used up; honour Retry-After',
  }),
  ...(route.path.includes('{') && { 404: 'not_found: wrong id, outside your reach, or deleted' }),
  ...((contract.body || route.mutation) && {
    413: `payload_too_large: the body holds more than ${maxRequestBodyBytes} bytes as sent or, with Content-Encoding: gzip, more than ${maxDecodedBodyBytes} bytes decompressed`,
  }),
  ...(contract.body && { 415: 'unsupported_media_type: the body is not application/json, or its Content-Encoding is neither absent, identity nor gzip' }),
  ...(route.mutation && {
    409: 'idempotency_in_flight: a request with this Idempotency-Key is still running (retry)',
    422: 'idempotency_key_reused: the Idempotency-Key was used with a different request',
  }),
  500: 'internal_error: nothing about the request was wrong; retrying is safe',
  503: 'service_unavailable: a store the request needs is busy (throttled) or failing for the moment; honour Retry-After',
});

export { defaultServerUrl, defaultTokenUrl } from './docs-contracts';

export interface DocumentUrls {
  /** Absolute base URL of the API (servers[0].url). */
  serverUrl?: string;
  /** Absolute OAuth 2.0 token URL (client credentials). */
  tokenUrl?: string;
}

/**
 * The document names absolute URLs: the server is the API's base URL (the request's own when
 * served, API_BASE_URL for tools), the token URL TOKEN_URL (Cognito's on AWS, the local token
 * endpoint locally); `npm run openapi` passes them explicitly.
 */
/** A request example for every operation: curl against the server of the document. */
const curlSample = (route: RouteDefinition<OperationId>, contract: OperationContract): string => {
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => `$${name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`);
  const lines = [`curl -s ${route.method === 'GET' ? '' : `-X ${route.method} `}"$API${path}"`];
  if (route.auth === 'token') lines.push('-H "Authorization: Bearer $TOKEN"');
  if (route.mutation) lines.push('-H "Idempotency-Key: $(uuidgen)"');
  const example = contract.requestExample;
  if (contract.body && example !== undefined) lines.push(`-H "Content-Type: application/json" -d '${JSON.stringify(example)}'`);
  return lines.join(' \\\n  ');
};

/** A status both answered by the operation and by the platform (MCP's 400) lists both media types. */
const mergeResponses = (success: Record<string, ResponseConfig>, failures: Record<string, ResponseConfig>): Record<string, ResponseConfig> => {
  const merged = { ...success };
  for (const [status, failure] of Object.entries(failures)) {
    const own = merged[status];
    merged[status] = own ? { ...own, description: `${own.description}; ${failure.description}`, content: { ...own.content, ...failure.content } } : failure;
  }
  return merged;
};

/** `descriptionsUsed` collects the shared terms of shared/openapi/descriptions.ts that filled a gap (see describeDocument). */
export const buildOpenApiDocument = (urls: DocumentUrls = {}, descriptionsUsed?: Set<string>) => {
  const serverUrl = urls.serverUrl ?? publicBaseUrl() ?? defaultServerUrl;
  const tokenUrl = urls.tokenUrl ?? process.env.TOKEN_URL ?? defaultTokenUrl;
  const registry = new OpenAPIRegistry();
  for (const [name, definition] of Object.entries(responseHeaders)) registry.registerComponent('headers', name, definition);
  registry.registerComponent('securitySchemes', 'oauth2', {
    type: 'oauth2',
    description:
      'OAuth 2.0: client credentials for API clients; authorization code with PKCE (S256) for a person signing in to an interactive tool (never `users:read`, `access:manage`, `webhooks:manage`, `imports:write`; only it gets `context:read`). Send the access token as `Authorization: Bearer <token>`. Access tokens are short-lived JWTs, checked as RFC8725 (JWT best current practices) recommends: the signature against the issuer\'s published keys with the key\'s own algorithm (never `none`), the issuer, the expiry, and that the token is an access token; fetch a new one when it expires.',
    flows: {
      clientCredentials: {
        tokenUrl,
        scopes: Object.fromEntries(systemClientScopes.map((scope) => [scope, scope])),
      },
      authorizationCode: {
        // The authorization endpoint sits next to the token endpoint, on Cognito and locally.
        authorizationUrl: tokenUrl.replace(/\/oauth2\/token$/, '/oauth2/authorize'),
        tokenUrl,
        refreshUrl: tokenUrl,
        scopes: Object.fromEntries(interactiveScopes.map((scope) => [scope, scope])),
      },
    },
  });

  for (const route of routes) {
    const contract: OperationContract = operationContracts[route.operationId];
    const authenticated = route.auth === 'token';
    const headersOf = (status: number) =>
      headerRefs(
        'X-Request-Id',
        ...(authenticated && status !== 401 ? rateLimitHeaders : []),
        ...(status === 429 ? (['Retry-After'] as const) : []),
        ...(route.mutation && status < 300 ? (['Idempotency-Replayed'] as const) : []),
      );
    const success = Object.fromEntries(
      Object.entries(contract.responses).map(([status, response]) => [
        status,
        {
          description: response.description,
          headers: headersOf(Number(status)),
          ...(response.schema && { content: { [response.mediaType ?? 'application/json']: { schema: response.schema } } }),
        },
      ]),
    );
    const failures = Object.fromEntries(
      Object.entries({ ...platformProblems(route, contract), ...contract.problems }).map(([status, description]) => [
        status,
        problemResponse(description ?? '', headersOf(Number(status))),
      ]),
    );
    registry.registerPath({
      method: route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'put' | 'delete',
      path: route.path,
      operationId: route.operationId,
      summary: route.summary,
      description: operationContracts[route.operationId].description,
      'x-codeSamples': [{ lang: 'Shell', label: 'curl', source: curlSample(route, contract) }],
      tags: [route.group],
      // `{}`: no credential needed (OpenAPI's way to say so explicitly).
      security: authenticated ? [{ oauth2: route.scope ? [route.scope] : [] }] : [{}],
      request: {
        ...(contract.params && { params: contract.params as z.ZodObject }),
        ...(contract.query && { query: contract.query as z.ZodObject }),
        ...((route.mutation || contract.headers) && {
          headers: z.object({
            ...(route.mutation && {
              'Idempotency-Key': z
                .string()
                .min(1)
                .max(255)
                .regex(/^[\x21-\x7E]+$/)
                .openapi({ description: 'Required on every mutation: 1 to 255 visible ASCII characters; scoped to the client; kept at least 24 h with its answer (not 409, 412, 428 and 5xx answers: the request may be sent again with the same key)' }),
            }),
            ...contract.headers?.shape,
          }),
        }),
        ...(contract.body && {
          body: { required: !contract.bodyOptional, content: { 'application/json': { schema: contract.body } } },
        }),
      },
      responses: mergeResponses(success, failures),
    });
  }

  const document = new OpenApiGeneratorV3(registry.definitions).generateDocument({
    openapi: '3.0.3',
    info: {
      title: 'Accounting Ledger Integration Service',
      version: '1.0.0-rc1',
      description: [
        'Public API for the accounting data of an accounting firm\'s client companies.',
        '## Getting started\n\n1. Fetch an access token with the OAuth 2.0 client-credentials grant at the token URL (see Authentication) and send it as `Authorization: Bearer <token>`.\n2. Create a company bound to `Api` (`POST /v1/companies`), or use one within reach.\n3. Import in the recommended order: accounts, then (optional) dimensions and sub-ledgers, opening balances, GL lines, open items. Every import answers 202: poll the import until `succeeded` or `failed`.\n4. Read the books: readiness, accounts, GL lines, the trial balance.',
        '## Conventions\n\n- Every mutation needs an `Idempotency-Key` header; the same key replays the first answer.\n- Lists are cursor-paginated (`page_size` 1-200, default 50); cursors are opaque, signed and bound to the caller (the client; for a person signed in interactively, the person too) and the filters.\n- **Amounts** on reads are JSON numbers with two decimals (`1250.00`). Parse them without losing precision: a lossless JSON parser (e.g. `lossless-json` or `json-bigint` in JavaScript, `decimal.Decimal` via `parse_float` in Python, `BigDecimal` in Java), never through a binary float. On imports send them as decimal strings (`"1250.50"`).\n- **Sign convention**: debit positive, credit negative, on GL lines and opening balances alike (inputs and reads); a balanced voucher and a complete trial balance sum to zero.',
        `## Errors\n\nErrors are \`application/problem+json\` (RFC 9457); branch on \`error\` (and \`reason\` where present). Each problem's \`type\` is the URL of a page explaining its code:\n\n${problemCatalogueMarkdown(serverUrl)}`,
        'Documents are uploaded in two steps without the API carrying the bytes: POST /v1/companies/{companyId}/documents declares the upload (file name, content type, exact size, SHA-256) and answers a presigned PUT URL valid for 15 minutes; PUT the bytes to it with the headers given (the URL binds Content-Type, Content-Length and x-amz-checksum-sha256); then POST /v1/documents/{documentId}/complete, which checks the stored bytes and creates the document. Downloads are presigned GET URLs valid for 5 minutes.',
      ].join('\n\n'),
    },
    servers: [{ url: serverUrl, description: 'This API', 'x-internal': false }],
    tags: (Object.keys(functionGroups) as FunctionGroup[])
      .filter((group) => routes.some((route) => route.group === group))
      .map((group) => ({ name: group, description: functionGroups[group].description })),
  });
  return addExamples(describeDocument(integerFormats(nullableInsideOneOf(document)), descriptionsUsed), contracts);
};

const int32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/**
 * Every integer states its format, from the range its zod schema enforces: int32 when the range
 * fits, else int64 (zod-to-openapi writes only the range).
 */
const integerFormats = <T>(node: T): T => {
  if (Array.isArray(node)) {
    node.forEach(integerFormats);
  } else if (node && typeof node === 'object') {
    const schema = node as Record<string, unknown>;
    if (schema.type === 'integer' && schema.format === undefined && typeof schema.minimum === 'number' && typeof schema.maximum === 'number') {
      schema.format = schema.minimum >= int32.min && schema.maximum <= int32.max ? 'int32' : 'int64';
    }
    Object.values(schema).forEach(integerFormats);
  }
  return node;
};

/**
 * OpenAPI 3.0.3 allows `nullable` only beside `type`. For an optional field that takes one of
 * several types (an imported amount: decimal string or JSON number) the generator writes
 * `nullable` beside `oneOf`; this moves it into the first alternative with a type (only one, so
 * null still matches exactly one alternative).
 */
const nullableInsideOneOf = <T>(node: T): T => {
  if (Array.isArray(node)) {
    node.forEach(nullableInsideOneOf);
  } else if (node && typeof node === 'object') {
    const schema = node as Record<string, unknown>;
    if ('nullable' in schema && !('type' in schema) && Array.isArray(schema.oneOf)) {
      const alternatives = schema.oneOf as Record<string, unknown>[];
      if (schema.nullable === true && !alternatives.some((alternative) => alternative.nullable === true)) {
        const typed = alternatives.find((alternative) => 'type' in alternative);
        if (typed) typed.nullable = true;
      }
      delete schema.nullable;
    }
    Object.values(schema).forEach(nullableInsideOneOf);
  }
  return node;
};

/**
 * The document as the Lambda bundles ship it (openapi.json, shared/openapi/prebuilt.ts): generated
 * here, with placeholders for the URLs known only when it is served.
 */
export const buildDocumentTemplate = (): string => {
  const saved = process.env.PROBLEM_TYPE_BASE;
  process.env.PROBLEM_TYPE_BASE = documentPlaceholders.problemTypeBase;
  try {
    const { serverUrl, tokenUrl } = documentPlaceholders;
    return JSON.stringify(withRequestBaseUrl(serverUrl, () => buildOpenApiDocument({ serverUrl, tokenUrl })));
  } finally {
    if (saved === undefined) delete process.env.PROBLEM_TYPE_BASE;
    else process.env.PROBLEM_TYPE_BASE = saved;
  }
};
