import { JwtVerifier } from 'aws-jwt-verify';
import { JwtBaseError } from 'aws-jwt-verify/error';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { config, perConfiguration } from '../platform/config';
import { logger } from '../platform/logger';
import { countMetric } from '../platform/metrics';
import { timed } from '../platform/stage-timing';
import { apiClientRepository } from './api-client-repository';
import { clientBindingFailure, mcpClientIds } from './client-binding';
import { organizationRepository } from './organization-repository';
import { personRepository } from './person-repository';
import { toAuthorizerContext, type AuthorizerContext } from './principal';
import { resourceOfPath } from './resources';
import { revocationRepository } from './revocation-repository';
import { createAuthorizerCache } from './token-decision-cache';
import { systemOnlyScopes, isScope, type Scope } from './scopes';

/** The JWKS fetch's bounds: a key set is a few KiB, and it answers within a second. */
export const jwksFetchTimeoutMs = 5000;
export const maxJwksBytes = 1024 * 1024;

/**
 * The key set, for aws-jwt-verify (its default fetcher refuses http://, the local identity
 * provider's; fetch works for both). Bounded: the whole fetch (headers and body) within
 * jwksFetchTimeoutMs, the body at most maxJwksBytes (a bigger one is refused, announced or not).
 * Its errors are plain ones, not aws-jwt-verify's: the authorizer answers "unavailable" (a 500 to
 * retry), never 401.
 */
export const fetchJwks = async (uri: string, { timeoutMs = jwksFetchTimeoutMs, maxBytes = maxJwksBytes } = {}): Promise<ArrayBuffer> => {
  const response = await fetch(uri, { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`JWKS fetch failed with ${response.status}`);
  }
  const announced = Number(response.headers.get('content-length'));
  if (Number.isFinite(announced) && announced > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`JWKS fetch refused: the key set is larger than ${maxBytes} bytes`);
  }
  if (!response.body) return new ArrayBuffer(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`JWKS fetch refused: the key set is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  const body = Buffer.concat(chunks);
  return body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength);
};

const jwksFetcher = { fetch: (uri: string): Promise<ArrayBuffer> => fetchJwks(uri) };

const createVerifier = () =>
  JwtVerifier.create(
    {
      issuer: config().jwtIssuer,
      jwksUri: config().jwksUri,
      audience: null, // Cognito access tokens carry client_id, not aud; interactive audiences are checked below.
      customJwtCheck: ({ payload }) => {
        if (payload.token_use !== 'access') throw new Error('not an access token');
        if (typeof payload.client_id !== 'string') throw new Error('no client_id');
      },
    },
    { jwksCache: new SimpleJwksCache({ fetcher: jwksFetcher }) },
  );

/** The verifier of the configured issuer (rebuilt only when it changes). */
const currentVerifier = perConfiguration(() => `${config().jwtIssuer} ${config().jwksUri}`, createVerifier);

const failure = (reason: string): AuthorizerContext => ({ authenticated: false, failure: reason });

/** The token's scopes known to the service, without the resource-server prefix; a scope without the prefix is none of the API's. */
const scopesOf = (payload: Record<string, unknown>): Scope[] => {
  const prefix = config().scopePrefix;
  return String(payload.scope ?? '')
    .split(' ')
    .filter((scope) => scope.startsWith(prefix))
    .map((scope) => scope.slice(prefix.length))
    .filter(isScope);
};

/** The bearer token of an Authorization header (`Bearer`, any case, any spacing), or undefined. */
const bearerToken = (authorization: string | undefined): string | undefined => /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '')?.[1];

/**
 * A person signed in interactively (authorization code + PKCE): a user access token, whose
 * `username` is the person's userId (Cognito's username, or the local provider's). The token must
 * be bound to the resource the request is for: its `aud` (RFC 8707, the local provider) or, for
 * Cognito tokens that carry none, its app client (clientBindingFailure: the MCP client's tokens on
 * /mcp only, the interactive client's on the REST API only). The person must be
 * active; their memberships are read on every request, so removing one takes effect at once.
 * A token whose origin (`origin_jti`, its grant) was revoked is refused: the local provider
 * revokes one when a grant ends early (a replayed code, a reused or revoked refresh token).
 */
const authenticateInteractive = async (payload: Record<string, unknown>, path: string): Promise<AuthorizerContext> => {
  const { apiAudience, interactiveClientIds } = config();
  const clientId = payload.client_id as string;
  if (payload.aud !== undefined) {
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!apiAudience || !audiences.includes(resourceOfPath(apiAudience, path))) return failure('token issued for another audience');
  } else {
    const unbound = clientBindingFailure(clientId, path, { interactiveClientIds, mcpClientIds: mcpClientIds() });
    if (unbound) return failure(unbound);
  }
  const userId = payload.username as string;
  const origin = typeof payload.origin_jti === 'string' ? payload.origin_jti : undefined;
  const [person, memberships, revoked] = await Promise.all([
    personRepository.get(userId),
    personRepository.memberships(userId),
    origin ? revocationRepository.isRevoked(userId, origin) : false,
  ]);
  if (!person || person.status !== 'active') return failure('unknown or deleted person');
  if (revoked) return failure('revoked token');
  return toAuthorizerContext({
    clientId,
    mode: 'INTERACTIVE',
    organizationId: null,
    organizationPath: null,
    userId,
    organizationIds: memberships.map((membership) => membership.organizationId),
    scopes: scopesOf(payload).filter((scope) => !systemOnlyScopes.includes(scope)),
    plan: 'standard',
  });
};

/**
 * Resolves the principal of a request from its Authorization header: a valid Cognito-shaped
 * access token, either a person's (interactive sign-in) or an API client's whose client is active
 * in the registry (and so its organization: deleting an organization revokes its clients first).
 * One DynamoDB read per request for a client, two (person and memberships) for a person.
 */
export const authenticate = async (authorization: string | undefined, path = '/'): Promise<AuthorizerContext> => {
  decisions ??= createAuthorizerCache<AuthorizerContext>(config().authorizerCacheTtlSeconds * 1000);
  // A token is judged per resource it is presented to (its audience), so the key names both: the
  // token itself, not the header's spelling (`bearer`, extra spaces), so every spelling hits.
  const key = `${resourceOfPath(config().apiAudience ?? '', path)}\u0000${bearerToken(authorization) ?? `header\u0000${authorization ?? ''}`}`;
  const remembered = decisions.get(key);
  countMetric(remembered ? 'authorizerCacheHits' : 'authorizerCacheMisses', {});
  if (remembered) return remembered;
  let decided: Awaited<ReturnType<typeof decide>>;
  try {
    decided = await decide(authorization, path);
  } catch (error) {
    // The key set could not be fetched, or the registry not read: the caller gets a 500 to retry, never a 401.
    logger.error('The authorizer could not check the token', error as Error);
    return { authenticated: false, failure: 'the token could not be checked', unavailable: true };
  }
  const { decision, tokenExpiresAt } = decided;
  // Failures are not kept: a token that becomes valid (a clock skew, a re-created client) works at once.
  // A decision ends with its token: an expired token is never answered from the cache.
  if (decision.authenticated) decisions.set(key, decision, tokenExpiresAt);
  return decision;
};

/**
 * Decisions are kept per execution environment for authorizerCacheTtlSeconds (the revocation
 * bound). Kept here rather than in API Gateway's authorizer cache: that one keys on the
 * Authorization header alone (a token bound to /mcp would pass on /v1 routes within the TTL) and
 * needs an identity source, without which API Gateway answers a request its own non-problem 401.
 */
let decisions: ReturnType<typeof createAuthorizerCache<AuthorizerContext>> | undefined;

/** The decision, and when the token expires (ms since the epoch) when it was valid. */
const decide = async (authorization: string | undefined, path: string): Promise<{ decision: AuthorizerContext; tokenExpiresAt?: number }> => {
  const token = bearerToken(authorization);
  if (!token) return { decision: failure(authorization ? 'malformed Authorization header' : 'missing bearer token') };

  const tokenVerifier = currentVerifier();
  let payload: Record<string, unknown>;
  try {
    payload = (await timed('authorizer: token verification', () => tokenVerifier.verify(token)));
  } catch (error) {
    // aws-jwt-verify's own errors judge the token; any other (the key set's fetch) is the service's.
    if (!(error instanceof JwtBaseError)) throw error;
    return { decision: failure('invalid or expired token') };
  }
  // aws-jwt-verify requires exp: a verified token has one.
  const tokenExpiresAt = Number(payload.exp) * 1000;
  const decision = typeof payload.username === 'string' ? await authenticateInteractive(payload, path) : await authenticateClient(payload);
  return { decision, tokenExpiresAt };
};

/**
 * An API client's token: the client must be active in the registry, and so its organization, and
 * the token issued no earlier than the client's last rotation (a whole second). A
 * per-user client runs as its person, who must be active and still a member of the client's
 * organization (deleting the person or the membership ends the client's access within the cache TTL).
 */
const authenticateClient = async (payload: Record<string, unknown>): Promise<AuthorizerContext> => {
  const client = await timed('authorizer: client read', () => apiClientRepository.get(payload.client_id as string));
  if (!client || client.status !== 'active') return failure('unknown or revoked client');
  // A rotation ends the tokens of the old secret too. rotatedAt is a whole second after the old
  // secret could last get a token (rotationSecond): a token is kept only if issued in it or later.
  // (Rotations dated before that rule may hold a fraction: rounded up, never down.)
  if (client.rotatedAt && !(Number(payload.iat) >= Math.ceil(Date.parse(client.rotatedAt) / 1000))) return failure('token issued before the client was rotated');
  // An active client implies an active organization: deleting one revokes its clients first.
  const organization = client.organizationPath
    ? { id: client.organizationId, path: client.organizationPath, status: 'active' }
    : await organizationRepository.get(client.organizationId);
  if (!organization || organization.status !== 'active') return failure('organization not active');
  if (client.mode === 'USER') {
    if (!client.userId) return failure('per-user client without a person');
    const [person, memberships] = await Promise.all([personRepository.get(client.userId), personRepository.memberships(client.userId)]);
    if (!person || person.status !== 'active') return failure('per-user client of an unknown or deleted person');
    if (!memberships.some((membership) => membership.organizationId === organization.id)) return failure('per-user client of a person no longer in its organization');
  }

  const tokenScopes = scopesOf(payload);
  // The registry is authoritative: a scope withdrawn from a client stops working at once.
  const scopes = tokenScopes.filter((scope) => client.scopes.includes(scope));

  return toAuthorizerContext({
    clientId: client.clientId,
    mode: client.mode,
    organizationId: organization.id,
    organizationPath: organization.path,
    // A per-user client runs as its person (reach: the person's effective access).
    userId: client.mode === 'USER' ? (client.userId ?? null) : null,
    organizationIds: [],
    scopes,
    plan: client.plan,
    ...(client.rateLimit && { rateLimit: client.rateLimit }),
  });
};
