import { JwtVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { config } from '../platform/config';
import { apiClientRepository } from './api-client-repository';
import { organizationRepository } from './organization-repository';
import { toAuthorizerContext, type AuthorizerContext } from './principal';
import { isScope } from './scopes';

/** aws-jwt-verify's default fetcher refuses http:// (the local identity provider); fetch works for both. */
const jwksFetcher = {
  fetch: async (uri: string): Promise<ArrayBuffer> => {
    const response = await fetch(uri);
    if (!response.ok) throw new Error(`JWKS fetch failed with ${response.status}`);
    return response.arrayBuffer();
  },
};

const createVerifier = () =>
  JwtVerifier.create(
    {
      issuer: config().jwtIssuer,
      jwksUri: config().jwksUri,
      audience: null, // Cognito access tokens carry client_id, not aud.
      customJwtCheck: ({ payload }) => {
        if (payload.token_use !== 'access') throw new Error('not an access token');
        if (typeof payload.client_id !== 'string') throw new Error('no client_id');
      },
    },
    { jwksCache: new SimpleJwksCache({ fetcher: jwksFetcher }) },
  );

let verifier: ReturnType<typeof createVerifier> | undefined;

const failure = (reason: string): AuthorizerContext => ({ authenticated: false, failure: reason });

/**
 * Resolves the principal of a request from its Authorization header: a valid Cognito-shaped
 * access token whose client is active in the registry (and so its organization: deleting an
 * organization revokes its clients first). One DynamoDB read per request.
 */
export const authenticate = async (authorization: string | undefined): Promise<AuthorizerContext> => {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '');
  if (!match?.[1]) return failure(authorization ? 'malformed Authorization header' : 'missing bearer token');

  verifier ??= createVerifier();
  let payload: Record<string, unknown>;
  try {
    payload = (await verifier.verify(match[1])) as Record<string, unknown>;
  } catch {
    return failure('invalid or expired token');
  }

  const client = await apiClientRepository.get(payload.client_id as string);
  if (!client || client.status !== 'active') return failure('unknown or revoked client');
  // An active client implies an active organization: deleting one revokes its clients first.
  const organization = client.organizationPath
    ? { id: client.organizationId, path: client.organizationPath, status: 'active' }
    : await organizationRepository.get(client.organizationId);
  if (!organization || organization.status !== 'active') return failure('organization not active');
  if (client.mode === 'USER' && !client.userId) return failure('per-user client without a person');

  const prefix = config().scopePrefix;
  const tokenScopes = String(payload.scope ?? '')
    .split(' ')
    .map((scope) => (scope.startsWith(prefix) ? scope.slice(prefix.length) : scope))
    .filter(isScope);
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
  });
};
