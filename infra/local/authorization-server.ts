import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JWK } from 'jose';
import Provider, { errors, type Adapter, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { createMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';
import { normalizeEmail } from '../../shared/identity/person-keys';
import { personRepository } from '../../shared/identity/person-repository';
import { revocationRepository } from '../../shared/identity/revocation-repository';
import { verifySecretOrNone } from '../../shared/identity/client-secrets';
import { allScopes, interactiveScopes } from '../../shared/identity/scopes';
import { apiResource, mcpResource } from '../../shared/identity/resources';
import { readBody, replayRequest } from './http-body';
import { createSignInThrottle, defaultSignInThrottle, type SignInThrottle, type SignInThrottleLimits } from './sign-in-throttle';

/**
 * Interactive sign-in for the local identity provider: OAuth 2.1 authorization code with PKCE
 * (S256), refresh tokens, dynamic client registration (RFC 7591) and resource indicators
 * (RFC 8707), by oidc-provider (an OpenID-certified implementation). The login and consent pages
 * are plain HTML forms; people and their passwords come from the people repository. Access tokens
 * are RS256 JWTs shaped like Cognito user access tokens (token_use, client_id, username = userId,
 * prefixed scopes, origin_jti of the grant) plus the audience of the resource they were issued for.
 */

/** The public client the local stack seeds for scripts, tests and desktop tools (no registration needed). */
export const localInteractiveClient = {
  clientId: 'local-interactive-sign-in',
  /** Loopback redirect of a native app: any port is accepted (RFC 8252 section 7.3). */
  redirectUris: ['http://127.0.0.1/callback'],
} as const;

export interface AuthorizationServer {
  /** Answers everything oidc-provider serves (authorize, token grants, registration, JWKS, discovery). */
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** Answers the login and consent pages under /interaction/. */
  interaction(request: IncomingMessage, response: ServerResponse): Promise<void>;
}

export const createAuthorizationServer = (options: {
  issuer: string;
  apiBaseUrl: string;
  scopePrefix: string;
  privateJwk: JWK;
  accessTokenLifetimeSeconds: number;
  /** Failed sign-ins allowed per account and per address (default: 5, each within 15 minutes of the last). */
  signInThrottle?: SignInThrottleLimits;
}): AuthorizationServer => {
  const resources = [apiResource(options.apiBaseUrl), mcpResource(options.apiBaseUrl)];
  const grantableScopes = interactiveScopes.map((scope) => `${options.scopePrefix}${scope}`);

  const memory = createMemoryAdapter();
  const configuration: Configuration = {
    // Sessions, grants, codes, refresh tokens and registered clients: memory, chosen on purpose for
    // this local stand-in (a restart signs everyone out); the library's own adapter, one store per provider.
    adapter: (model: string) => (model === 'Grant' ? grantsRevokingTheirTokens(memory(model), options.accessTokenLifetimeSeconds) : memory(model)),
    clients: [
      {
        client_id: localInteractiveClient.clientId,
        client_name: 'Local interactive sign-in',
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        redirect_uris: [...localInteractiveClient.redirectUris],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [options.privateJwk] },
    findAccount: async (_ctx, accountId) => {
      const person = await personRepository.get(accountId);
      if (!person || person.status !== 'active') return undefined;
      return { accountId, claims: () => ({ sub: accountId, email: person.email, name: person.name }) };
    },
    claims: { openid: ['sub'], email: ['email'], profile: ['name'] },
    scopes: ['openid', 'offline_access'],
    // Authorization code + PKCE only: no implicit or hybrid flows, so none are advertised.
    responseTypes: ['code'],
    // Every client proves possession with PKCE; oidc-provider supports S256 only.
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resources[0]!,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (!resources.includes(indicator)) throw new errors.InvalidTarget();
          return {
            // Forbidden scopes are not offered, so they are never consented to nor granted.
            scope: grantableScopes.join(' '),
            audience: indicator,
            accessTokenTTL: options.accessTokenLifetimeSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    routes: {
      authorization: '/oauth2/authorize',
      token: '/oauth2/token',
      jwks: '/.well-known/jwks.json',
      registration: '/oauth2/register',
      revocation: '/oauth2/revoke',
      userinfo: '/oauth2/userInfo',
      end_session: '/logout',
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // Tokens outlive the browser session, as Cognito's do; refresh tokens for every client allowed the grant.
    expiresWithSession: () => false,
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: (ctx) => {
      const refreshToken = ctx.oidc.entities.RefreshToken!;
      // oidc-provider consumes the token before it resolves `resource`: a refresh naming a resource
      // the grant does not hold would answer invalid_target and leave only a used token (whose
      // next use revokes the grant). Refused here, before the rotation, the token stays usable.
      const resource = ctx.oidc.params?.resource as string | string[] | undefined;
      if (resource !== undefined) {
        const requested = Array.isArray(resource) ? resource : [resource];
        if (requested.length !== 1 || !refreshToken.resourceIndicators.has(requested[0])) throw new errors.InvalidTarget();
      }
      // oidc-provider's default: public clients rotate on every use, others past 70% of the lifetime.
      if (refreshToken.totalLifetime() >= 365.25 * 24 * 3600) return false;
      if (ctx.oidc.client?.clientAuthMethod === 'none' && !refreshToken.isSenderConstrained()) return true;
      return refreshToken.ttlPercentagePassed() >= 70;
    },
    extraTokenClaims: (_ctx, token) =>
      token.kind === 'AccessToken' && 'accountId' in token && token.accountId
        ? { token_use: 'access', username: token.accountId, ...(token.grantId && { origin_jti: originOf(token.grantId) }) }
        : undefined,
    ttl: {
      AccessToken: options.accessTokenLifetimeSeconds,
      AuthorizationCode: 60,
      RefreshToken: 30 * 24 * 3600,
      Grant: 30 * 24 * 3600,
      Interaction: 3600,
      Session: 14 * 24 * 3600,
    },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    renderError: (ctx, out) => {
      ctx.set(pageHeaders);
      ctx.type = 'html';
      ctx.body = page('Sign-in failed', `<p>${escape(out.error)}: ${escape(String(out.error_description ?? ''))}</p>`);
    },
  };

  const provider = new Provider(options.issuer, configuration);

  provider.use(async (ctx, next) => {
    await next();
    await burnCodeAfterFailedExchange(provider, ctx as KoaContextWithOIDC);
    if (ctx.path === '/.well-known/openid-configuration' && ctx.status === 200) {
      const metadata = ctx.body as Record<string, string[]>;
      // The same server also issues client-credentials tokens to registered API clients.
      ctx.body = {
        ...metadata,
        grant_types_supported: [...new Set([...(metadata.grant_types_supported ?? []), 'client_credentials'])],
        token_endpoint_auth_methods_supported: [...new Set([...(metadata.token_endpoint_auth_methods_supported ?? []), 'client_secret_basic', 'client_secret_post'])],
        code_challenge_methods_supported: ['S256'],
        scopes_supported: [...(metadata.scopes_supported ?? []), ...allScopes.map((scope) => `${options.scopePrefix}${scope}`)],
      };
    }
  });

  const callback = provider.callback();
  const pages: Pages = {
    provider,
    issuerOrigin: new URL(options.issuer).origin,
    scopePrefix: options.scopePrefix,
    throttle: createSignInThrottle(options.signInThrottle ?? defaultSignInThrottle),
    attempts: oneAtATime(),
    configuredClients: new Set(configuration.clients!.map((client) => client.client_id)),
  };

  return {
    handle: async (request, response) => {
      const registration = request.method === 'POST' && new URL(request.url ?? '/', 'http://local').pathname === configuration.routes!.registration;
      await callback(registration ? await withoutRegistrationScope(request) : request, response);
    },
    interaction: (request, response) => interaction(pages, request, response),
  };
};

/** The `origin_jti` of a grant's access tokens (as Cognito names the origin its tokens share): a digest, the grant id stays here. */
const originOf = (grantId: string) => createHash('sha256').update(grantId).digest('base64url');

/**
 * oidc-provider ends a grant early (a replayed code, a reused or revoked refresh token; not
 * sign-out: tokens outlive the session, as Cognito's do) by destroying it; its JWT access tokens are checked by no one here. The grant's origin is
 * recorded as revoked first, so the authorizer refuses them (within its decision cache's TTL).
 */
const grantsRevokingTheirTokens = (grants: Adapter, accessTokenLifetimeSeconds: number): Adapter => {
  const destroy = grants.destroy.bind(grants);
  grants.destroy = async (id) => {
    const grant = await grants.find(id);
    // Kept past the lifetime of a token issued now, with a margin for a refresh that passed its checks
    // before the grant ended and signs its token a moment later.
    if (grant?.accountId) await revocationRepository.revoke(grant.accountId, originOf(id), new Date(Date.now() + (accessTokenLifetimeSeconds + 300) * 1000));
    await destroy(id);
  };
  return grants;
};

/**
 * oidc-provider checks PKCE before it consumes the code, so a code survives a failed verifier;
 * OAuth 2.1 wants one redemption attempt per code. Any failed exchange by the code's own client burns it.
 */
const burnCodeAfterFailedExchange = async (provider: Provider, ctx: KoaContextWithOIDC) => {
  const params = ctx.oidc?.params;
  if (ctx.oidc?.route !== 'token' || params?.grant_type !== 'authorization_code' || typeof params.code !== 'string') return;
  if (ctx.status !== 400 || (ctx.body as { error?: string } | undefined)?.error !== 'invalid_grant') return;
  const code = await provider.AuthorizationCode.find(params.code, { ignoreExpiration: true });
  if (code && !(code as { consumed?: number }).consumed && code.clientId === ctx.oidc.client?.clientId) await code.consume();
};

/**
 * Runs work one at a time per key: each run starts when every earlier run sharing a key with it has
 * ended (the queues of all its keys are joined at once, so runs never wait on each other in a
 * circle). Nothing is kept for a key with no run pending.
 */
export const oneAtATime = () => {
  const tails = new Map<string, Promise<void>>();
  return async <T>(keys: readonly string[], work: () => Promise<T>): Promise<T> => {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const before = [...new Set(keys)].map((key) => {
      const previous = tails.get(key);
      tails.set(key, ended);
      return previous;
    });
    try {
      await Promise.all(before);
      return await work();
    } finally {
      end();
      for (const key of keys) if (tails.get(key) === ended) tails.delete(key);
    }
  };
};

/** What the login and consent pages need. */
interface Pages {
  provider: Provider;
  /** The only Origin a form of these pages may be posted from. */
  issuerOrigin: string;
  scopePrefix: string;
  throttle: SignInThrottle;
  /** Runs a sign-in attempt after every earlier one that shares a key with it (see oneAtATime). */
  attempts: <T>(keys: readonly string[], attempt: () => Promise<T>) => Promise<T>;
  /** Clients of the configuration; every other one registered itself (RFC 7591). */
  configuredClients: Set<string>;
}

/** Who is asking, as the pages show it: a registered client's name is its own claim, so its redirect host goes with it. */
interface Requester {
  name: string;
  /** Dynamically registered: the host its answer goes to. */
  unverifiedHost?: string;
}

const interaction = async (pages: Pages, request: IncomingMessage, response: ServerResponse) => {
  const { provider, scopePrefix } = pages;
  const url = new URL(request.url ?? '/', 'http://local');
  const [, , uid, action] = url.pathname.split('/');
  // A form posted from another site (cross-site request forgery): refused before anything is read.
  const origin = request.headers.origin;
  if (request.method === 'POST' && origin !== undefined && origin !== pages.issuerOrigin) {
    return html(response, 403, page('Sign-in refused', '<p>This form was sent from another site. Start again from your application.</p>'));
  }
  let details;
  try {
    details = await provider.interactionDetails(request, response);
  } catch {
    return html(response, 400, page('Sign-in expired', '<p>This sign-in is no longer valid. Start again from your application.</p>'));
  }
  if (details.uid !== uid) return html(response, 400, page('Sign-in expired', '<p>This sign-in is no longer valid.</p>'));
  const clientId = String(details.params.client_id);
  const client = await provider.Client.find(clientId);
  const requester: Requester = {
    name: client?.clientName ?? clientId,
    ...(!pages.configuredClients.has(clientId) && { unverifiedHost: hostOf(String(details.params.redirect_uri ?? '')) }),
  };

  if (request.method === 'GET') {
    if (details.prompt.name === 'login') return html(response, 200, loginPage(uid, requester));
    if (details.prompt.name === 'consent') return html(response, 200, consentPage(uid, requester, requestedScopes(details, scopePrefix)));
    return html(response, 400, page('Sign-in', '<p>Nothing to do here.</p>'));
  }
  if (request.method !== 'POST') return html(response, 405, page('Method not allowed', ''));
  const form = new URLSearchParams(await readBody(request));

  if (action === 'login' && details.prompt.name === 'login') {
    const email = normalizeEmail(form.get('email') ?? '');
    const account = `account:${email}`;
    const keys = [account, `address:${request.socket.remoteAddress ?? ''}`];
    const password = form.get('password') ?? '';
    // One attempt per account and per address at a time, each judged after the one before has been
    // counted: N wrong passwords sent at once count N, and past the limit none is checked.
    const outcome = await pages.attempts(keys, async () => {
      const wait = pages.throttle.retryAfter(keys);
      if (wait > 0) return { kind: 'throttled', wait } as const;
      const person = await personRepository.findByEmail(email);
      // An unknown or inactive person's attempt is checked against a dummy hash: the time taken does not tell which addresses exist.
      const valid = await verifySecretOrNone(password, person?.status === 'active' ? person.passwordHash : undefined);
      if (!person || !valid) {
        pages.throttle.fail(keys);
        return { kind: 'failed' } as const;
      }
      pages.throttle.forget(account);
      return { kind: 'passed', person } as const;
    });
    if (outcome.kind === 'throttled') {
      const { wait } = outcome;
      const minutes = Math.ceil(wait / 60);
      const error = `Too many failed sign-ins. Try again in ${wait < 60 ? `${wait} seconds` : `${minutes} minute${minutes === 1 ? '' : 's'}`}.`;
      return html(response, 429, loginPage(uid, requester, error), { 'Retry-After': String(wait) });
    }
    if (outcome.kind === 'failed') return html(response, 401, loginPage(uid, requester, 'Wrong e-mail address or password.'));
    const { person } = outcome;
    return provider.interactionFinished(request, response, { login: { accountId: person.userId } }, { mergeWithLastSubmission: false });
  }

  if (action === 'consent' && details.prompt.name === 'consent') {
    const decision = form.get('decision');
    if (decision === 'deny') {
      return provider.interactionFinished(request, response, { error: 'access_denied', error_description: 'The person declined the request' }, { mergeWithLastSubmission: false });
    }
    if (decision !== 'allow') return html(response, 400, consentPage(uid, requester, requestedScopes(details, scopePrefix), 'Choose allow or deny.'));
    const accountId = details.session!.accountId;
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId, clientId });
    if (!grant) return html(response, 400, page('Sign-in expired', '<p>This sign-in is no longer valid.</p>'));
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
    // Exactly what was asked for: the missing OIDC scopes and, per resource, the missing resource scopes.
    if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    return provider.interactionFinished(request, response, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }
  return html(response, 400, page('Sign-in', '<p>This step does not match the sign-in in progress.</p>'));
};

const hostOf = (uri: string) => {
  try {
    return new URL(uri).host;
  } catch {
    return uri;
  }
};

const requestedScopes = (details: { prompt: { details: Record<string, unknown> } }, scopePrefix: string) => {
  const missing = details.prompt.details as { missingResourceScopes?: Record<string, string[]>; missingOIDCScope?: string[] };
  const scopes = [...(missing.missingOIDCScope ?? []), ...Object.values(missing.missingResourceScopes ?? {}).flat()];
  return [...new Set(scopes.map((scope) => (scope.startsWith(scopePrefix) ? scope.slice(scopePrefix.length) : scope)))];
};

/** A self-registered client's name is its own claim: say so, and where the answer goes. */
const unverified = (requester: Requester) =>
  requester.unverifiedHost === undefined
    ? ''
    : `<p>This application registered itself: its name is not verified. It receives your answer at <strong>${escape(requester.unverifiedHost)}</strong>.</p>`;

const loginPage = (uid: string, requester: Requester, error?: string) =>
  page(
    'Sign in',
    `<p>${escape(requester.name)} asks you to sign in to the Accounting Ledger.</p>
${unverified(requester)}
${error ? `<p role="alert">${escape(error)}</p>` : ''}
<form method="post" action="/interaction/${escape(uid)}/login">
<label>E-mail <input type="email" name="email" autocomplete="username" required autofocus></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>`,
  );

const consentPage = (uid: string, requester: Requester, scopes: string[], error?: string) =>
  page(
    'Allow access',
    `<p>${escape(requester.name)} asks for:</p>
${unverified(requester)}
<ul>${scopes.map((scope) => `<li>${escape(scope)}</li>`).join('')}</ul>
${error ? `<p role="alert">${escape(error)}</p>` : ''}
<form method="post" action="/interaction/${escape(uid)}/consent">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><h1>${escape(title)}</h1>${body}</body></html>`;

/** Every page: never framed (clickjacking), never cached, nothing loaded. */
const pageHeaders = {
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
} as const;

const html = (response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', ...pageHeaders, ...headers });
  response.end(body);
};

const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Dynamic registration (RFC 7591) takes `scope` as a wish the server may ignore; oidc-provider
 * refuses any scope it does not know as an OpenID scope, resource scopes included, which MCP
 * clients send (the SDK's client registers with the scopes of the protected-resource metadata).
 * The registered scope restricts nothing here (consent grants per request), so it is dropped
 * before oidc-provider reads the body.
 */
const withoutRegistrationScope = async (request: IncomingMessage): Promise<IncomingMessage> => {
  const text = await readBody(request, 56 * 1024);
  let metadata: unknown;
  try {
    metadata = JSON.parse(text);
  } catch {
    metadata = undefined;
  }
  if (metadata && typeof metadata === 'object' && !Array.isArray(metadata)) delete (metadata as { scope?: unknown }).scope;
  return replayRequest(request, metadata === undefined ? text : JSON.stringify(metadata));
};
