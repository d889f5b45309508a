import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { apiClientRepository } from '../../shared/identity/api-client-repository';
import { verifySecretOrNone } from '../../shared/identity/client-secrets';
import { createAuthorizationServer, localInteractiveClient } from './authorization-server';
import { readBody, replayRequest } from './http-body';
import { listenOnLoopback } from './ports';
import { defaultSignInThrottle, type SignInThrottleLimits } from './sign-in-throttle';

/**
 * A local stand-in for Cognito: OAuth 2.0 client credentials (form body or HTTP Basic) for API
 * clients, with RS256 access tokens shaped like Cognito M2M tokens, and interactive sign-in
 * (authorization code + PKCE, refresh, registration: ./authorization-server.ts) for people. One
 * signing key and one JWKS for both. Secrets are checked against the hash in the client
 * registry, so a rotation takes effect at once.
 */
export interface IdentityProvider {
  issuer: string;
  tokenUrl: string;
  jwksUri: string;
  /** Interactive sign-in: endpoints and the seeded public client. */
  interactive: {
    authorizationUrl: string;
    registrationUrl: string;
    clientId: string;
    redirectUris: string[];
    /** Failed sign-ins allowed per account and per address. */
    signInThrottle: SignInThrottleLimits;
  };
  stop(): Promise<void>;
}

/** Access token lifetime, as Cognito's default for app clients (60 minutes). */
export const accessTokenLifetimeSeconds = 3600;

export const startIdentityProvider = async (options: {
  port: number;
  scopePrefix: string;
  /** The API's base URL: the audience of interactive tokens (and its /mcp resource). */
  apiBaseUrl: string;
  /** Keeps the signing key across restarts (with --persist), so issued tokens stay valid. */
  keyFile?: string;
  /** Failed sign-ins allowed per account and per address (default: 5, each within 15 minutes of the last). */
  signInThrottle?: SignInThrottleLimits;
}): Promise<IdentityProvider> => {
  const signInThrottle = options.signInThrottle ?? defaultSignInThrottle;
  const { privateKey, privateJwk, publicJwk } = await signingKey(options.keyFile);
  const issuer = `http://127.0.0.1:${options.port}`;
  const authorizationServer = createAuthorizationServer({
    issuer,
    apiBaseUrl: options.apiBaseUrl,
    scopePrefix: options.scopePrefix,
    privateJwk,
    accessTokenLifetimeSeconds,
    signInThrottle,
  });

  /** A token issued at `issuedAtMs`: the moment before its client's secret hash was read (see tokenEndpoint). */
  const issueToken = async (clientId: string, scopes: string[], issuedAtMs: number) => {
    const now = Math.floor(issuedAtMs / 1000);
    return new SignJWT({
      client_id: clientId,
      token_use: 'access',
      scope: scopes.join(' '),
      auth_time: now,
      version: 2,
    })
      .setProtectedHeader({ alg: 'RS256', kid: publicJwk.kid! })
      .setIssuer(issuer)
      .setSubject(clientId)
      .setIssuedAt(now)
      .setExpirationTime(now + accessTokenLifetimeSeconds)
      .setJti(randomUUID())
      .sign(privateKey);
  };

  const tokenEndpoint = async (request: IncomingMessage, response: ServerResponse) => {
    const oauthError = (status: number, error: string, description: string, headers: Record<string, string> = {}) =>
      send(response, status, { error, error_description: description }, headers);
    if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers['content-type'] ?? '')) {
      return oauthError(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded');
    }
    const raw = await readBody(request);
    const form = new URLSearchParams(raw);
    if (interactiveGrants.has(form.get('grant_type') ?? '')) {
      return authorizationServer.handle(replayRequest(request, raw), response);
    }
    const basic = parseBasic(request.headers.authorization);
    const clientId = basic?.id ?? form.get('client_id') ?? '';
    const clientSecret = basic?.secret ?? form.get('client_secret') ?? '';
    const challenge: Record<string, string> = basic ? { 'WWW-Authenticate': 'Basic realm="token"' } : {};

    const grantType = form.get('grant_type');
    if (!grantType) return oauthError(400, 'invalid_request', 'grant_type is required');
    if (!clientId || !clientSecret) return oauthError(401, 'invalid_client', 'Client authentication failed', challenge);

    // The token is dated before the hash is read: one of a secret that a rotation replaces (by
    // storing the new hash, then dating the rotation after that) is dated before the rotation, so
    // the authorizer refuses it however long the check below takes.
    const issuedAtMs = Date.now();
    const client = await apiClientRepository.get(clientId);
    // An unknown or revoked client is checked against a dummy hash: the time taken does not tell which ids exist.
    const authentic = await verifySecretOrNone(clientSecret, client?.status === 'active' ? client.secretHash : undefined);
    if (!client || !authentic) return oauthError(401, 'invalid_client', 'Client authentication failed', challenge);
    if (grantType !== 'client_credentials') return oauthError(400, 'unsupported_grant_type', 'Only client_credentials is supported');

    const allowed = client.scopes.map((scope) => `${options.scopePrefix}${scope}`);
    // An empty scope parameter is as none: the client's granted scopes.
    const requested = form.get('scope')?.split(' ').filter(Boolean) ?? [];
    if (requested.some((scope) => !allowed.includes(scope))) return oauthError(400, 'invalid_scope', 'A requested scope is not allowed for this client');

    const accessToken = await issueToken(client.clientId, requested.length ? requested : allowed, issuedAtMs);
    return send(response, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: accessTokenLifetimeSeconds });
  };

  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', issuer).pathname;
    const route = `${request.method} ${path}`;
    const work = (async () => {
      if (route === 'POST /oauth2/token') return tokenEndpoint(request, response);
      if (path.startsWith('/interaction/')) return authorizationServer.interaction(request, response);
      // RFC 8414 metadata: the same document as OpenID discovery.
      if (route === 'GET /.well-known/oauth-authorization-server') request.url = '/.well-known/openid-configuration';
      return authorizationServer.handle(request, response);
    })();
    work.catch(() => send(response, 500, { error: 'server_error' }));
  });
  server.keepAliveTimeout = 60_000; // as the gateway's (infra/local/gateway.ts)
  await listenOnLoopback(server, options.port, 'identity provider');

  return {
    issuer,
    tokenUrl: `${issuer}/oauth2/token`,
    jwksUri: `${issuer}/.well-known/jwks.json`,
    interactive: {
      authorizationUrl: `${issuer}/oauth2/authorize`,
      registrationUrl: `${issuer}/oauth2/register`,
      clientId: localInteractiveClient.clientId,
      redirectUris: [...localInteractiveClient.redirectUris],
      signInThrottle,
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

const interactiveGrants = new Set(['authorization_code', 'refresh_token']);

const signingKey = async (keyFile?: string) => {
  let privateJwk: JWK;
  if (keyFile && existsSync(keyFile)) {
    privateJwk = JSON.parse(readFileSync(keyFile, 'utf8')) as JWK;
  } else {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    privateJwk = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
    if (keyFile) writeFileSync(keyFile, JSON.stringify(privateJwk), { mode: 0o600 });
  }
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = privateJwk;
  return { privateKey: await importJWK(privateJwk, 'RS256'), privateJwk, publicJwk };
};

const parseBasic = (header: string | undefined): { id: string; secret: string } | undefined => {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  // RFC 6749 2.3.1: id and secret are form-urlencoded before Basic encoding.
  try {
    return { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
  } catch {
    return { id: '', secret: '' }; // not percent-decodable: Basic credentials that fail (401 invalid_client)
  }
};

const send = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', Pragma: 'no-cache', ...headers });
  response.end(JSON.stringify(body));
};
