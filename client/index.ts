import { parse as parseLosslessly } from 'lossless-json';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema';

/**
 * The typed TypeScript client of the API: openapi-fetch over the types openapi-typescript
 * generates from the OpenAPI document (client/schema.ts, `npm run client`). Paths, parameters,
 * bodies and answers are checked by the compiler:
 *
 *   const api = createLedgerClient({ baseUrl, token });
 *   const { data, error } = await api.GET('/v1/companies/{companyId}/trial-balance', { params: { path: { companyId }, query: { year: 2026 } } });
 *
 * Amounts arrive as JSON numbers with explicit decimals (1250.00, up to four as imported); this
 * client hands each over as its exact text, a string ("1250.00"), never as a JavaScript number,
 * which keeps only about 15 significant digits (12345678901234567.89 would read 12345678901234568,
 * 90071992547409.91 would read 90071992547409.9). The generated types say so: every `format: decimal`
 * field of an answer is `string` (`string | null` when nullable). Compute with a decimal library
 * (e.g. decimal.js: `new Decimal(line.amount)`), never with `Number(...)`. Integers (years, periods,
 * counts, sequences) have no decimal point and stay numbers. In requests, send amounts as decimal
 * strings ("1250.50"), as the API prefers.
 */
export type { components, operations, paths };
export type LedgerClient = Client<paths>;
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

export interface LedgerClientOptions {
  /** The API's base URL, e.g. http://127.0.0.1:3000 (the document's `servers[0].url`). */
  baseUrl: string;
  /** A bearer access token (fetchAccessToken). */
  token?: string;
  fetch?: typeof globalThis.fetch;
}

export const createLedgerClient = (options: LedgerClientOptions): LedgerClient => {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.token && { headers: { Authorization: `Bearer ${options.token}` } }),
    ...(options.fetch && { fetch: options.fetch }),
  });
  client.use(exactAmounts);
  return client;
};

/** A JSON body: application/json, application/problem+json (and any other +json type). */
const jsonMediaType = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * A JSON number token as the client hands it over: its exact text when it has a decimal point or
 * an exponent (an amount), a JavaScript number otherwise (an integer: a year, period or count).
 */
const exactNumber = (token: string): string | number => (/[.eE]/.test(token) ? token : Number(token));

/**
 * Makes openapi-fetch read amounts exactly: a JSON answer is parsed losslessly (lossless-json,
 * every number token as its source text) and handed on re-serialized with each amount as a JSON
 * string, which openapi-fetch's JSON.parse then reads as that string. Answers read as text, blob
 * or stream (`parseAs`) pass unchanged when successful (openapi-fetch parses errors as JSON
 * whatever `parseAs` says); so do the OpenAPI document, whose numbers are schema keywords and
 * examples, not amounts, and a body that is not JSON.
 */
const exactAmounts: Middleware = {
  async onResponse({ response, options, schemaPath }) {
    if (response.ok && options.parseAs !== 'json') return undefined;
    if (schemaPath === '/v1/openapi.json' || !jsonMediaType.test(response.headers.get('Content-Type') ?? '') || !response.body) return undefined;
    const text = await response.clone().text();
    let value: unknown;
    try {
      value = parseLosslessly(text, null, exactNumber);
    } catch {
      return undefined; // not JSON after all: openapi-fetch answers it as it would have
    }
    const headers = new Headers(response.headers);
    headers.delete('Content-Length');
    const exact = new Response(JSON.stringify(value), { status: response.status, statusText: response.statusText, headers });
    Object.defineProperty(exact, 'url', { value: response.url });
    return exact;
  },
};

/** OAuth 2.0 client credentials at the token URL (the document's `components.securitySchemes.oauth2`). */
export const fetchAccessToken = async (tokenUrl: string, clientId: string, clientSecret: string): Promise<string> => {
  const response = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  if (!response.ok) throw new Error(`Token request failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
};

/** Polls an import until it succeeded or failed. */
export const waitForImport = async (api: LedgerClient, companyId: string, importId: string, timeoutMs = 60_000): Promise<Schema<'ImportRecord'>> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { data, error } = await api.GET('/v1/companies/{companyId}/imports/{importId}', { params: { path: { companyId, importId } } });
    if (error) throw new Error(`${error.error}: ${error.detail}`);
    if (data.status !== 'queued') return data;
    if (Date.now() > deadline) throw new Error(`Import ${importId} still queued after ${timeoutMs} ms`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 250));
  }
};
