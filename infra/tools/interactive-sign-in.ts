import { createHash, randomBytes, randomUUID } from 'node:crypto';

/**
 * Interactive sign-in without a browser, against the local identity provider: PKCE (S256), the
 * login and consent forms posted as a browser would, redirects followed by hand, cookies kept per
 * path. `npm run sign-in` and the tests use it; a person in a browser goes through the same pages.
 */
export class Browser {
  private readonly cookies = new Map<string, { name: string; value: string; path: string }>();

  /** Follows redirects until a page answers or one leaves for the redirect URI (not fetched: the application receives it). */
  async navigate(url: string, init: { method?: string; form?: Record<string, string>; origin?: string } = {}, redirectUri?: string): Promise<Landing> {
    let target = new URL(url);
    let method = init.method ?? 'GET';
    let body: string | undefined = init.form ? new URLSearchParams(init.form).toString() : undefined;
    // A browser names the page a form was posted from (the redirects that follow are plain GETs).
    let origin = init.origin;
    for (let hop = 0; hop < 20; hop += 1) {
      const cookie = this.cookieHeader(target);
      const response = await fetch(target, {
        method,
        redirect: 'manual',
        headers: { ...(body !== undefined && { 'content-type': 'application/x-www-form-urlencoded' }), ...(cookie && { cookie }), ...(origin && { origin }) },
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
        origin = undefined;
        continue;
      }
      const html = await response.text();
      const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
      return { kind: 'page', status: response.status, html, url: target, ...(action && { action: new URL(action, target).toString() }) };
    }
    throw new Error('too many redirects');
  }

  /** The Cookie header this browser sends to `url`. */
  cookieHeader(url: URL): string | undefined {
    const matching = [...this.cookies.values()].filter((cookie) => url.pathname.startsWith(cookie.path));
    return matching.length ? matching.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ') : undefined;
  }

  private store(url: URL, setCookies: string[]) {
    for (const header of setCookies) {
      const [pair = '', ...attributes] = header.split(';').map((part) => part.trim());
      const equals = pair.indexOf('=');
      const name = pair.slice(0, equals);
      const value = pair.slice(equals + 1);
      const path = attributes.find((a) => /^path=/i.test(a))?.slice(5) ?? url.pathname.replace(/\/[^/]*$/, '/');
      const expired = attributes.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now()));
      const key = `${name};${path}`;
      if (expired || value === '') this.cookies.delete(key);
      else this.cookies.set(key, { name, value, path });
    }
  }
}

export type Landing = { kind: 'callback'; url: URL } | { kind: 'page'; status: number; html: string; url: URL; action?: string };

export const pkcePair = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

export interface SignInServer {
  authorizationUrl: string;
  tokenUrl: string;
  clientId: string;
}

export interface AuthorizationRequest {
  clientId?: string;
  redirectUri: string;
  /** Scopes as sent (resource scopes carry the resource-server prefix). */
  scopes: string[];
  /** RFC 8707 resource: the API's base URL, or its /mcp endpoint. */
  resource: string;
  codeChallengeMethod?: string;
}

/** Opens the authorization request; lands on the login page, the consent page, or the callback. */
export const startAuthorization = async (browser: Browser, server: SignInServer, request: AuthorizationRequest) => {
  const pkce = pkcePair();
  const state = randomUUID();
  const clientId = request.clientId ?? server.clientId;
  const url = new URL(server.authorizationUrl);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: request.redirectUri,
    scope: request.scopes.join(' '),
    state,
    code_challenge: pkce.challenge,
    code_challenge_method: request.codeChallengeMethod ?? 'S256',
    resource: request.resource,
  }).toString();
  const landing = await browser.navigate(url.toString(), {}, request.redirectUri);
  return { landing, pkce, state, redirectUri: request.redirectUri, clientId };
};

/** Posts the form of a page (login or consent). */
export const submit = (browser: Browser, landing: Landing, form: Record<string, string>, redirectUri: string) => {
  if (landing.kind !== 'page' || !landing.action) throw new Error(`expected a form, got ${landing.kind === 'page' ? `HTTP ${landing.status}` : String(landing.url)}`);
  return browser.navigate(landing.action, { method: 'POST', form, origin: landing.url.origin }, redirectUri);
};

export const isLoginPage = (landing: Landing) => landing.kind === 'page' && /name="password"/.test(landing.html);
export const isConsentPage = (landing: Landing) => landing.kind === 'page' && /name="decision"/.test(landing.html);

export const exchangeCode = (tokenUrl: string, form: { code: string; verifier: string; redirectUri: string; clientId: string }) =>
  fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: form.code, code_verifier: form.verifier, redirect_uri: form.redirectUri, client_id: form.clientId }),
  });

export interface Tokens {
  access_token: string;
  refresh_token?: string;
  scope: string;
  token_type: string;
  expires_in: number;
}

/** The whole flow for a person: authorize, log in, allow, exchange the code for tokens. */
export const signInWithPassword = async (
  server: SignInServer,
  person: { email: string; password: string },
  request: AuthorizationRequest,
  browser = new Browser(),
): Promise<Tokens> => {
  const started = await startAuthorization(browser, server, request);
  let landing = started.landing;
  if (isLoginPage(landing)) {
    landing = await submit(browser, landing, { email: person.email, password: person.password }, started.redirectUri);
    if (landing.kind === 'page' && landing.status === 429) throw new Error(/role="alert">([^<]*)</.exec(landing.html)?.[1] ?? 'Too many failed sign-ins');
    if (isLoginPage(landing)) throw new Error('Wrong e-mail address or password');
  }
  if (isConsentPage(landing)) landing = await submit(browser, landing, { decision: 'allow' }, started.redirectUri);
  if (landing.kind !== 'callback') throw new Error(`Sign-in stopped at a page (HTTP ${landing.status})`);
  const error = landing.url.searchParams.get('error');
  if (error) throw new Error(`Sign-in refused: ${error} ${landing.url.searchParams.get('error_description') ?? ''}`.trim());
  if (landing.url.searchParams.get('state') !== started.state) throw new Error('The callback carries another state');
  const response = await exchangeCode(server.tokenUrl, { code: landing.url.searchParams.get('code') ?? '', verifier: started.pkce.verifier, redirectUri: started.redirectUri, clientId: started.clientId });
  const body = (await response.json()) as Tokens & { error?: string; error_description?: string };
  if (!response.ok) throw new Error(`Token request refused: ${body.error} ${body.error_description ?? ''}`.trim());
  return body;
};

/** A loopback redirect on some port, as a native app listening for its callback would use (RFC 8252). */
export const loopbackRedirect = (base = 'http://127.0.0.1/callback', port = 49152 + Math.floor(Math.random() * 10000)) => {
  const url = new URL(base);
  url.port = String(port);
  return url.toString();
};
