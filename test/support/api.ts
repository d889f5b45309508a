import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { seededClient, testStack } from './stack';
import { validateProblem, validateResponse } from './openapi-validator';
import type { Json } from './json';

export interface ApiResponse<T = Json> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

const tokens = new Map<string, string>();

/** OAuth client credentials against the local identity provider (form body). */
export const fetchToken = async (clientId: string, clientSecret: string): Promise<Response> =>
  fetch(testStack().authUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });

export const tokenFor = async (clientId: string, clientSecret: string): Promise<string> => {
  const response = await fetchToken(clientId, clientSecret);
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
};

/** A cached access token of a seeded client (a-system, a-readonly, a1-system, b-system). */
export const tokenOf = async (clientName: string): Promise<string> => {
  const cached = tokens.get(clientName);
  if (cached) return cached;
  const client = seededClient(clientName);
  const token = await tokenFor(client.clientId, client.clientSecret);
  tokens.set(clientName, token);
  return token;
};

export interface RequestOptions {
  token?: string;
  /** Seeded client name whose token to send. */
  as?: string;
  body?: unknown;
  /** Raw body text or bytes (sent as is, e.g. gzip-compressed). */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Idempotency-Key; 'auto' (default on mutations) sends a fresh one, null sends none. */
  idempotencyKey?: string | null;
}

const mutating = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/**
 * One request to the local gateway. Every response is checked for the platform guarantees
 * (X-Request-Id; problem+json for errors) and validated against the OpenAPI document.
 */
export const api = async <T = Json>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> => {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token ?? (options.as ? await tokenOf(options.as) : undefined);
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  const key = options.idempotencyKey === undefined ? (mutating.has(method) ? randomUUID() : null) : options.idempotencyKey;
  if (key !== null) headers['idempotency-key'] = key;
  const response = await fetch(`${testStack().baseUrl}${path}`, {
    method,
    headers,
    ...(options.rawBody !== undefined ? { body: options.rawBody } : options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  const body = text && contentType.includes('json') ? JSON.parse(text) : text;

  const requestId = response.headers.get('x-request-id');
  expect(requestId, 'every response carries X-Request-Id').toBeTruthy();
  if (response.status >= 400) {
    expect(contentType).toBe('application/problem+json');
    validateProblem(body);
    // A replay is the stored response byte for byte, so its body names the original request.
    if (response.headers.get('idempotency-replayed') !== 'true') expect(body.requestId).toBe(requestId);
    expect(body.status).toBe(response.status);
  }
  validateResponse(method, new URL(path, 'http://x').pathname, response.status, contentType, body);
  return { status: response.status, headers: response.headers, text, body };
};

/** Expects a problem document with the given status and error code. */
export const expectProblem = (response: ApiResponse, status: number, error: string) => {
  expect({ status: response.status, error: response.body?.error }).toEqual({ status, error });
};

/** Every item of a list, following next_cursor (shared organizations outgrow any one page). */
export const listAll = async <T = Json>(path: string, options: RequestOptions = {}): Promise<T[]> => {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const response: ApiResponse = await api('GET', cursor ? `${path}${separator}cursor=${encodeURIComponent(cursor)}` : path, options);
    expect(response.status, response.text).toBe(200);
    items.push(...(response.body.data as T[]));
    cursor = response.body.pagination.has_more ? response.body.pagination.next_cursor : null;
  } while (cursor);
  return items;
};
