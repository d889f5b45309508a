import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { hashSecret } from '../../shared/identity/client-secrets';
import { personRepository } from '../../shared/people/repository';
import { testStack } from './stack';

/**
 * A scripted browser and OAuth client for interactive sign-in against the local identity
 * provider: PKCE (S256), the login and consent forms posted as a browser would, redirects
 * followed by hand, cookies kept per path.
 */
export class Browser {
  private readonly cookies = new Map<string, { name: string; value: string; path: string }>();

  /** Follows redirects until a page answers or one leaves for the redirect URI (not fetched: the app would receive it). */
  async navigate(url: string, init: { method?: string; form?: Record<string, string> } = {}, redirectUri?: string): Promise<Landing> {
    let target = new URL(url);
    let method = init.method ?? 'GET';
    let body: string | undefined = init.form ? new URLSearchParams(init.form).toString() : undefined;
    for (let hop = 0; hop < 20; hop += 1) {
      const response = await fetch(target, {
        method,
        redirect: 'manual',
        headers: { ...(body !== undefined && { 'content-type': 'application/x-www-form-urlencoded' }), ...(this.cookieHeader(target) && { cookie: this.cookieHeader(target)! }) },
        ...(body !== undefined && { body }),
      });
      this.store(target, response.headers.getSetCookie());
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.arrayBuffer();
        target = new URL(location, target);
        if (redirectUri && `${target.origin}${target.pathname}` === redirectUri) return { kind: 'callback', url: target };
        method = 'GET';
        body = undefined;
        continue;
      }
      const html = await response.text();
      const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
      return { kind: 'page', status: response.status, html, url: target, ...(action && { action: new URL(action.replace(/&#47;/g, '/'), target).toString() }) };
    }
    throw new Error('too many redirects');
  }

  private cookieHeader(url: URL): string | undefined {
    const matching = [...this.cookies.values()].filter((cookie) => url.pathname.startsWith(cookie.path));
    return matching.length ? matching.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ') : undefined;
  }

  private store(url: URL, setCookies: string[]) {
    for (const header of setCookies) {
      const [pair, ...attributes] = header.split(';').map((part) => part.trim());
      const equals = pair!.indexOf('=');
      const name = pair!.slice(0, equals);
      const value = pair!.slice(equals + 1);
      const path = attributes.find((a) => /^path=/i.test(a))?.slice(5) ?? url.pathname.replace(/\/[^/]*$/, '/');
      const expired = attributes.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now()));
      const key = `${name};${path}`;
      if (expired || value === '') this.cookies.delete(key);
      else this.cookies.set(key, { name, value, path });
    }
  }
}

export type Landing =
  | { kind: 'callback'; url: URL }
  | { kind: 'page'; status: number; html: string; url: URL; action?: string };

export interface AuthorizationRequest {
  clientId?: string;
  redirectUri?: string;
  /** Scope names without the resource-server prefix (added here), and OIDC scopes as is. */
  scopes: string[];
  resource?: string;
  codeChallengeMethod?: string;
}

export const pkcePair = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

const oidcScopes = new Set(['openid', 'offline_access', 'email', 'profile']);
export const prefixed = (scopes: string[]) => scopes.map((scope) => (oidcScopes.has(scope) ? scope : `${testStack().internal.scopePrefix}${scope}`));

/** A loopback redirect on some port, as a native app listening for its callback would use (RFC 8252). */
export const loopbackRedirect = (port = 49152 + Math.floor(Math.random() * 10000)) => `http://127.0.0.1:${port}/callback`;

/** Starts an authorization request in the browser; answers the login page, the consent page, or the callback. */
export const startAuthorization = async (browser: Browser, request: AuthorizationRequest) => {
  const { interactive } = testStack();
  const pkce = pkcePair();
  const state = randomUUID();
  const redirectUri = request.redirectUri ?? loopbackRedirect();
  const url = new URL(interactive.authorizationUrl);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: request.clientId ?? interactive.clientId,
    redirect_uri: redirectUri,
    scope: prefixed(request.scopes).join(' '),
    state,
    code_challenge: pkce.challenge,
    code_challenge_method: request.codeChallengeMethod ?? 'S256',
    resource: request.resource ?? testStack().baseUrl,
  }).toString();
  const landing = await browser.navigate(url.toString(), {}, redirectUri);
  return { landing, pkce, state, redirectUri, clientId: request.clientId ?? interactive.clientId };
};

export const submit = (browser: Browser, landing: Landing, form: Record<string, string>, redirectUri: string) => {
  if (landing.kind !== 'page' || !landing.action) throw new Error(`expected a form, got ${landing.kind === 'page' ? landing.html : landing.url}`);
  return browser.navigate(landing.action, { method: 'POST', form }, redirectUri);
};

/** The code (and state) the callback carries; fails on an error redirect. */
export const codeOf = (landing: Landing, state: string): string => {
  if (landing.kind !== 'callback') throw new Error(`expected the callback, got the page ${landing.html}`);
  expect(landing.url.searchParams.get('error')).toBeNull();
  expect(landing.url.searchParams.get('state')).toBe(state);
  return landing.url.searchParams.get('code')!;
};

export const tokenRequest = (form: Record<string, string>) =>
  fetch(testStack().interactive.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });

export const exchangeCode = (code: string, verifier: string, redirectUri: string, clientId = testStack().interactive.clientId) =>
  tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: clientId });

export interface Tokens {
  access_token: string;
  refresh_token?: string;
  scope: string;
  token_type: string;
  expires_in: number;
}

/** The whole flow for a person: authorize, log in, consent, exchange the code. */
export const signIn = async (person: { email: string; password: string }, request: AuthorizationRequest, browser = new Browser()): Promise<Tokens> => {
  const started = await startAuthorization(browser, request);
  let landing = started.landing;
  if (landing.kind === 'page' && /name="password"/.test(landing.html)) landing = await submit(browser, landing, { email: person.email, password: person.password }, started.redirectUri);
  if (landing.kind === 'page' && /name="decision"/.test(landing.html)) landing = await submit(browser, landing, { decision: 'allow' }, started.redirectUri);
  const response = await exchangeCode(codeOf(landing, started.state), started.pkce.verifier, started.redirectUri, started.clientId);
  expect(response.status).toBe(200);
  return (await response.json()) as Tokens;
};

/** A person with a login password, member of the given organization. */
export const createPerson = async (organizationId: string, name = 'Test Person') => {
  const userId = randomUUID();
  const email = `${userId}@people.example.test`;
  const password = randomBytes(12).toString('base64url');
  await personRepository.create({ userId, email, name, status: 'active', createdAt: new Date().toISOString(), passwordHash: await hashSecret(password) }, organizationId);
  return { userId, email, password };
};
