import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema';

/**
 * The typed TypeScript client of the API: openapi-fetch over the types openapi-typescript
 * generates from the OpenAPI document (client/schema.ts, `npm run client`). Paths, parameters,
 * bodies and answers are checked by the compiler:
 *
 *   const api = createLedgerClient({ baseUrl, token });
 *   const { data, error } = await api.GET('/v1/companies/{companyId}/trial-balance', { params: { path: { companyId }, query: { year: 2026 } } });
 *
 * Amounts arrive as JSON numbers with two decimals; this client parses them as JavaScript numbers,
 * exact for amounts below 2^53 cents. Where amounts may be larger, read the body as text and parse
 * it with a lossless JSON parser (lossless-json) instead.
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

export const createLedgerClient = (options: LedgerClientOptions): LedgerClient =>
  createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.token && { headers: { Authorization: `Bearer ${options.token}` } }),
    ...(options.fetch && { fetch: options.fetch }),
  });

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
