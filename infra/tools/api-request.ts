import { randomUUID } from 'node:crypto';

/** One answer of the API: its status and its JSON body (undefined when it has none). */
export interface ApiAnswer {
  status: number;
  body: unknown;
  text: string;
}

/**
 * A request as the tools send it: the bearer token when there is one, a fresh Idempotency-Key on
 * every mutation (each call is a new intent), JSON in and out.
 */
export const apiRequest = async (baseUrl: string, token: string | undefined, method: string, path: string, body?: unknown): Promise<ApiAnswer> => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(token && { authorization: `Bearer ${token}` }),
      ...(method !== 'GET' && { 'idempotency-key': randomUUID() }),
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text };
};

/** What a problem answer says, in one line. */
export const problemText = (answer: ApiAnswer): string => {
  const problem = answer.body as { title?: string; detail?: string } | undefined;
  return problem?.detail ?? problem?.title ?? answer.text.slice(0, 300);
};
