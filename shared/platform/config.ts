import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Runtime configuration, read from the environment once per execution environment.
 * CDK sets these on every function; the local stack sets them for its in-process handlers.
 */
export interface ServiceConfig {
  region: string;
  tableName: string;
  /**
   * The request-control table (rate limits, idempotency records). Optional here so that tools
   * which never run the request pipeline (admin against AWS) need not name it; the pipeline's
   * modules ask for it through controlTableName() and fail clearly without it.
   */
  controlTableName?: string;
  bucketName: string;
  /** Endpoint overrides for the local stand-ins; undefined on AWS. */
  dynamodbEndpoint?: string;
  s3Endpoint?: string;
  sqsEndpoint?: string;
  /** Token issuer (Cognito user pool issuer on AWS, the local identity provider locally). */
  jwtIssuer: string;
  jwksUri: string;
  /** Cognito prefixes custom scopes with the resource-server id, e.g. "ledger-api/". */
  scopePrefix: string;
  /**
   * Audience of interactive access tokens that carry one (the local identity provider, RFC 8707):
   * the API's base URL; its MCP endpoint is `<audience>/mcp`. Unset on AWS, where Cognito user
   * tokens carry no audience and are bound by their app client instead (interactiveClientIds).
   */
  apiAudience?: string;
  /** Cognito app clients for interactive sign-in (authorization code + PKCE) whose user tokens the API accepts. */
  interactiveClientIds: string[];
  /** Seconds the authorizer keeps a decision per (resource, token); see defaultAuthorizerCacheTtlSeconds. */
  authorizerCacheTtlSeconds: number;
  /** HMAC key for pagination cursors, given directly (local) or read from Secrets Manager (AWS). */
  cursorSecret?: string;
  cursorSecretArn?: string;
}

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`Missing environment variable ${name}`);
  return value;
};

/**
 * How long the authorizer keeps its decision for a token (per execution environment, see
 * shared/identity/authorizer.ts). It is also the bound of revocation: a revoked client, a deleted
 * organization or person, a removed membership or a scope withdrawn from a client stops working at
 * most this long after the change, for tokens already presented within the window. Rate limits,
 * reach (a person's effective access) and scope checks run on every request whatever it holds.
 * `AUTHORIZER_CACHE_TTL_SECONDS` overrides it (tests shorten it).
 */
export const defaultAuthorizerCacheTtlSeconds = 30;

let cached: ServiceConfig | undefined;

export const config = (): ServiceConfig => {
  cached ??= {
    region: process.env.AWS_REGION ?? 'eu-north-1',
    tableName: required('TABLE_NAME'),
    controlTableName: process.env.CONTROL_TABLE_NAME || undefined,
    bucketName: process.env.BUCKET_NAME ?? '',
    dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
    s3Endpoint: process.env.S3_ENDPOINT || undefined,
    sqsEndpoint: process.env.SQS_ENDPOINT || undefined,
    jwtIssuer: required('JWT_ISSUER'),
    jwksUri: process.env.JWKS_URI ?? `${required('JWT_ISSUER')}/.well-known/jwks.json`,
    scopePrefix: process.env.SCOPE_PREFIX ?? 'ledger-api/',
    apiAudience: process.env.API_AUDIENCE?.replace(/\/+$/, '') || undefined,
    interactiveClientIds: (process.env.INTERACTIVE_CLIENT_IDS ?? '').split(',').filter(Boolean),
    authorizerCacheTtlSeconds: Number(process.env.AUTHORIZER_CACHE_TTL_SECONDS || defaultAuthorizerCacheTtlSeconds),
    cursorSecret: process.env.CURSOR_SECRET || undefined,
    cursorSecretArn: process.env.CURSOR_SECRET_ARN || undefined,
  };
  return cached;
};

/** For tests and tools that change the environment after first use. */
export const resetConfig = (): void => {
  cached = undefined;
};

const requestBaseUrl = new AsyncLocalStorage<string>();

/** Runs fn with the public base URL of the API as the request reached it (https://<domain>), for URLs in answers. */
export const withRequestBaseUrl = <T>(baseUrl: string, fn: () => T): T => requestBaseUrl.run(baseUrl.replace(/\/+$/, ''), fn);

/** The API's public base URL: the request's own, else API_BASE_URL (tools, the local stack). */
export const publicBaseUrl = (): string | undefined => requestBaseUrl.getStore() ?? process.env.API_BASE_URL?.replace(/\/+$/, '');

/**
 * Base URI of problem `type` values: the API's own problem pages (GET /problems/{code}), so every
 * `type` resolves to a page explaining the error; PROBLEM_TYPE_BASE overrides it (a custom domain).
 * Needs no other setting, so every function can render problems.
 */
export const problemTypeBase = (): string => process.env.PROBLEM_TYPE_BASE ?? `${publicBaseUrl() ?? ''}/problems/`;
