import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Runtime configuration from the environment. Each setting is read when it is used (not when the
 * module loads), so a function is given only the variables its code reads (infra/stacks/permissions.ts
 * declares them per function; the local stack checks every read against that declaration).
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
  /**
   * The outbox table (events, the only table with a stream). Optional for the same reason: tools
   * that write no events need not name it; the outbox asks through outboxTableName().
   */
  outboxTableName?: string;
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
  /** KMS key of stored secrets (envelope encryption, shared/platform/envelope-encryption.ts); unset locally. */
  secretsKeyId?: string;
  /** The local stack's key-encryption key (base64, 256 bits), used when no KMS key is configured. */
  localSecretsKey?: string;
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

const lazyConfig: ServiceConfig = {
  get region() {
    return process.env.AWS_REGION ?? 'eu-north-1';
  },
  get tableName() {
    return required('TABLE_NAME');
  },
  get controlTableName() {
    return process.env.CONTROL_TABLE_NAME || undefined;
  },
  get outboxTableName() {
    return process.env.OUTBOX_TABLE_NAME || undefined;
  },
  get bucketName() {
    return process.env.BUCKET_NAME ?? '';
  },
  get dynamodbEndpoint() {
    return process.env.DYNAMODB_ENDPOINT || undefined;
  },
  get s3Endpoint() {
    return process.env.S3_ENDPOINT || undefined;
  },
  get sqsEndpoint() {
    return process.env.SQS_ENDPOINT || undefined;
  },
  get jwtIssuer() {
    return required('JWT_ISSUER');
  },
  get jwksUri() {
    return process.env.JWKS_URI ?? `${required('JWT_ISSUER')}/.well-known/jwks.json`;
  },
  get scopePrefix() {
    return process.env.SCOPE_PREFIX ?? 'ledger-api/';
  },
  get apiAudience() {
    return process.env.API_AUDIENCE?.replace(/\/+$/, '') || undefined;
  },
  get interactiveClientIds() {
    return (process.env.INTERACTIVE_CLIENT_IDS ?? '').split(',').filter(Boolean);
  },
  get authorizerCacheTtlSeconds() {
    return Number(process.env.AUTHORIZER_CACHE_TTL_SECONDS || defaultAuthorizerCacheTtlSeconds);
  },
  get cursorSecret() {
    return process.env.CURSOR_SECRET || undefined;
  },
  get cursorSecretArn() {
    return process.env.CURSOR_SECRET_ARN || undefined;
  },
  get secretsKeyId() {
    return process.env.SECRETS_KEY_ID || undefined;
  },
  get localSecretsKey() {
    return process.env.LOCAL_SECRETS_KEY || undefined;
  },
};

/** The configuration; each property reads its variable when read (destructure only what you use). */
export const config = (): ServiceConfig => lazyConfig;

/**
 * A value built once per configuration (an SDK client, a token verifier): built on first use and
 * rebuilt only when `key()` changes, as when a tool starts a second stack in the same process.
 */
export const perConfiguration = <T>(key: () => string, build: () => T): (() => T) => {
  let built: { key: string; value: T } | undefined;
  return () => {
    const current = key();
    if (built?.key !== current) built = { key: current, value: build() };
    return built.value;
  };
};

/** For tests and tools that change the environment after first use (settings are read per use: nothing to forget). */
export const resetConfig = (): void => undefined;

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

/** Webhook delivery settings (shared/webhooks/), read per use so that tests can run the schedules in seconds. */
export interface WebhookSettings {
  /** Delays before the 2nd, 3rd, ... attempt; the first is immediate. Default: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts). */
  retryDelaysSeconds: number[];
  /** Per attempt: connect, send and read the (first 1 KiB of the) answer. */
  timeoutMs: number;
  /** A subscription whose deliveries have all failed for this long is disabled. */
  disableAfterSeconds: number;
  /** How long the previous secret keeps signing after a rotation. */
  secretOverlapSeconds: number;
  /** Wait before the handshake of a new subscription or url, so the integrator can store the secret first. */
  verificationDelaySeconds: number;
  /** Receivers on loopback addresses (and plain http there) are allowed: the local stack sets it; never on AWS. */
  allowLoopbackReceivers: boolean;
  /** Attempts in flight at once per subscription, so that one slow receiver cannot hold up the others. */
  concurrencyPerSubscription: number;
}

const numberEnv = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return process.env[name] && Number.isFinite(value) && value >= 0 ? value : fallback;
};

/**
 * Index entries an import writes into one index partition key per second (shared/db/partition-pacer.ts):
 * AWS takes 1,000 write units a second per key, and 10 % is left for other writers. 0 = unpaced (the
 * local stack, where DynamoDB Local has no such limit). Read per import.
 */
export const importIndexWritesPerPartitionPerSecond = (): number => numberEnv('IMPORT_INDEX_WRITES_PER_PARTITION_PER_SECOND', 900);

/** The outbox sweeper's re-send of import messages (shared/saft/requeue.ts), read per run so that tests can use seconds. */
export interface ImportRequeueSettings {
  /**
   * Only imports and SAF-T imports queued with nothing applied at least this long. Default 20
   * minutes: a message is normally received within seconds, and by then a received one has either
   * moved its import on or been redelivered by SQS (the import worker's timeout is 12.5 minutes, the
   * imports queue's visibility timeout 15); well inside the lane's 80-minute lease.
   */
  olderThanSeconds: number;
  /** At most this many messages per run (the oldest first; the next run takes the rest). */
  limit: number;
  /**
   * At most this many re-sends of one import's message (default 3, at least 1). Each re-send moves
   * the import's sweep-index entry to the instant of the send, so it is sent again at most once per
   * `olderThanSeconds`; an import still in the index a window after its last re-send never started
   * (its first pass dies on every delivery, or its messages are lost) and is failed instead
   * (internal_error: its job fails, job.failed is written, its lane is freed).
   */
  maxRequeues: number;
}

export const importRequeueSettings = (): ImportRequeueSettings => ({
  olderThanSeconds: numberEnv('IMPORT_REQUEUE_AFTER_SECONDS', 20 * 60),
  limit: Math.max(1, Math.floor(numberEnv('IMPORT_REQUEUE_LIMIT', 100))),
  maxRequeues: Math.max(1, Math.floor(numberEnv('IMPORT_REQUEUE_MAX_SENDS', 3))),
});

export const webhookSettings = (): WebhookSettings => ({
  retryDelaysSeconds: (process.env.WEBHOOK_RETRY_DELAYS_SECONDS ?? '5,300,1800,7200,18000,36000,36000')
    .split(',')
    .map((delay) => Number(delay.trim()))
    .filter((delay) => Number.isFinite(delay) && delay >= 0),
  timeoutMs: numberEnv('WEBHOOK_TIMEOUT_SECONDS', 15) * 1000,
  disableAfterSeconds: numberEnv('WEBHOOK_DISABLE_AFTER_SECONDS', 5 * 24 * 3600),
  secretOverlapSeconds: numberEnv('WEBHOOK_SECRET_OVERLAP_SECONDS', 24 * 3600),
  verificationDelaySeconds: numberEnv('WEBHOOK_VERIFICATION_DELAY_SECONDS', 5),
  allowLoopbackReceivers: process.env.WEBHOOK_ALLOW_LOOPBACK === 'true',
  concurrencyPerSubscription: Math.max(1, Math.floor(numberEnv('WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION', 4))),
});
