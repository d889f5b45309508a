/**
 * API Gateway caches the token authorizer's answer per identity source, the Authorization header,
 * for this long (CDK sets it, infra/stacks/api-stack.ts; the local gateway does the same,
 * infra/local/authorizer-cache.ts). It is also the bound of revocation: a revoked client, a
 * deleted organization or a scope withdrawn from a client stops working at most this long after
 * the change, for tokens already presented within the window. The rate limit, reach and scope
 * checks of the handler run on every request whatever the cache holds.
 */
export const authorizerCacheTtlSeconds = 30;

/** The header API Gateway keys the cache on; a request without it never reaches the authorizer (401). */
export const authorizerIdentityHeader = 'authorization';
