import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { queues } from '../../shared/queues';
import { defaultAuthorizerCacheTtlSeconds, resetConfig } from '../../shared/platform/config';
import { organizationRepository } from '../../shared/identity/organization-repository';
import { applyLocalAwsEnv, localAwsRegion } from './aws-env';
import { controlTableDefinition, outboxTableDefinition } from '../../shared/db/table-definition';
import { ensureTable, startDynamoDbLocal } from './dynamodb-local';
import { loadHandler, startGateway } from './gateway';
import type { AccessEntry } from './log-format';
import { configureLocalIam, runAs } from './iam';
import { enforceDeclaredEnvironments } from './environment';
import { dynamoGrants, relayPermissions, sweeperPermissions, workerPermissions } from '../stacks/permissions';
import { passesRelayFilter } from '../../shared/webhooks/relay';
import { startStreamPoller, type StreamEventHandler } from './stream-poller';
import { startIdentityProvider } from './identity-provider';
import type { SignInThrottleLimits } from './sign-in-throttle';
import { freePort, holdPort } from './ports';
import { ensureBucket, startS3, type S3EventNotification } from './s3';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { pendingUploadsPrefix } from '../../shared/documents/keys';
import { seedDemoBooks } from './demo-books';
import { lambdaContext } from './lambda-context';
import { seedDemo, type SeedData } from './seed';
import { administratorOf, type RateLimit } from '../../shared/identity/principal';
import { divertMetricLines } from './metrics-log';
import { ensureQueues, localSqsClient, startSqs as startSqsServer, type LocalQueue, type QueueName } from './sqs';
import { startSqsPoller, type SqsEventHandler, type SqsPoller } from './sqs-poller';

/**
 * Batches a queue's worker runs at once (one poller each). Lambda's SQS event source starts with
 * five concurrent batches: webhook deliveries and imports get them, so one event fanned out to
 * many subscriptions, and imports into several companies, run side by side as on AWS; the other
 * queues take one batch at a time.
 */
const concurrentBatches: Partial<Record<QueueName, number>> = { webhooks: 5, imports: 5 };

/** `.local/stack.json`: the contract that tests and tools read. */
export interface StackInfo extends SeedData {
  baseUrl: string;
  /** How long the gateway caches an authorizer answer per Authorization header: the revocation bound. */
  authorizerCacheTtlSeconds: number;
  authUrl: string;
  /** Interactive sign-in (authorization code + PKCE): the seeded public client and the endpoints. */
  interactive: {
    issuer: string;
    authorizationUrl: string;
    tokenUrl: string;
    registrationUrl: string;
    clientId: string;
    /** Loopback redirects; any port is accepted (RFC 8252). */
    redirectUris: string[];
    /** Failed sign-ins allowed per account and per address, each within windowSeconds of the last; then 429 until windowSeconds after it. */
    signInThrottle: SignInThrottleLimits;
  };
  /** Where the stand-ins listen, for tools (admin CLI, tests) that talk to them directly. */
  internal: {
    region: string;
    tableName: string;
    /** The request-control table (rate limits, idempotency records). */
    controlTableName: string;
    /** The outbox table (events; the relay polls its stream). */
    outboxTableName: string;
    bucketName: string;
    dynamodbEndpoint: string;
    s3Endpoint: string;
    sqsEndpoint: string;
    jwtIssuer: string;
    jwksUri: string;
    scopePrefix: string;
    cursorSecret: string;
    /** The key-encryption key of stored secrets (base64), the local stand-in of the KMS key. */
    secretsKey: string;
    queues: Record<QueueName, LocalQueue>;
    /** Where the functions' metrics (EMF lines) go, when the stack diverts them from stdout. */
    metricsFile?: string;
  };
}

export interface StackOptions {
  /** Called once per request the gateway answers (npm start prints it as one line). */
  onRequest?: (entry: AccessEntry) => void;
  /** Gateway and identity provider ports; 0 picks free ones. */
  port?: number;
  authPort?: number;
  /** Keep data under dataDir across restarts instead of in memory. */
  persist?: boolean;
  /** Wipe dataDir first. */
  fresh?: boolean;
  dataDir?: string;
  onProgress?: (message: string) => void;
  /** How long the authorizer keeps a token's decision (default: AUTHORIZER_CACHE_TTL_SECONDS, else as deployed); tests shorten it. */
  authorizerCacheTtlSeconds?: number;
  /** Failed sign-ins allowed per account and per address (default 5, each within 15 minutes of the last); tests shorten the window. */
  signInThrottle?: SignInThrottleLimits;
  /** A custom rate limit for the seeded clients in place of their plans' (the test suite's clients send faster than any plan allows). */
  seedClientRateLimit?: RateLimit;
  /** Appends the functions' metrics (EMF lines) to this file instead of stdout (default: LEDGER_METRICS_FILE). */
  metricsFile?: string;
  /** Runs the outbox sweeper this often, as EventBridge Scheduler does on AWS (npm start: 300); unset, never (the tests run it themselves). */
  outboxSweepEverySeconds?: number;
  /**
   * Idle pollers (SQS workers, the outbox stream) wait longer after each empty poll, up to this
   * many ms, and poll at once again when they find work. Unset: long polls back to back and the
   * stream every 100 ms (no backoff); npm start: 2000.
   */
  idlePollCapMs?: number;
  /** Batches a queue's worker runs at once, over `concurrentBatches` (a bench running many imports as Lambda scales out to them). */
  concurrentBatches?: Partial<Record<QueueName, number>>;
}

export interface LocalStack {
  info: StackInfo;
  stop(): Promise<void>;
}

const tableName = 'ledger-local';
const controlTableName = 'ledger-local-control';
const outboxTableName = 'ledger-local-outbox';
const bucketName = 'ledger-documents-local';
const scopePrefix = 'ledger-api/';

/**
 * DynamoDB Local (java) on a port found free just before: another process may take that port
 * first (a free port is looked up, not held, until java binds it), so a start that fails is tried
 * again on another port, twice at most.
 */
const startDynamoDbLocalOnFreePort = async (persistDir: string | undefined): Promise<Awaited<ReturnType<typeof startDynamoDbLocal>>> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDynamoDbLocal({ port: await freePort(), ...(persistDir !== undefined && { persistDir }) });
    } catch (error) {
      if (attempt === 3 || !/exited before it was ready/.test((error as Error).message)) throw error;
    }
  }
};

/** Brings up DynamoDB Local, SQS, S3, the identity provider, pollers and the gateway; seeds demo data once. */
export const startLocalStack = async (options: StackOptions = {}): Promise<LocalStack> => {
  const progress = options.onProgress ?? (() => undefined);
  const dataDir = options.dataDir ?? join(process.cwd(), '.local', 'data');
  if (options.fresh) rmSync(dataDir, { recursive: true, force: true });
  if (options.persist) mkdirSync(dataDir, { recursive: true });
  applyLocalAwsEnv();
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const stopOne of stops.reverse()) await stopOne().catch(() => undefined);
  };

  const metricsFile = options.metricsFile ?? (process.env.LEDGER_METRICS_FILE || undefined);
  if (metricsFile) {
    const stopDiverting = divertMetricLines(metricsFile);
    stops.push(async () => stopDiverting());
  }

  try {
    // The two ports people name are held first: a busy one fails the start at once, before any seeding.
    const gatewayPortHeld = await holdPort(options.port ?? 0, 'API gateway');
    stops.push(gatewayPortHeld.release); // released before the gateway starts; again on a failed start
    const authPortHeld = await holdPort(options.authPort ?? 0, 'identity provider');
    stops.push(authPortHeld.release);
    const [gatewayPort, authPort] = [gatewayPortHeld.port, authPortHeld.port];

    // S3 event notifications, as the stateful stack configures them: ObjectCreated under
    // uploads/pending/ goes to the uploads queue (its worker completes document uploads). The
    // queue exists only once SQS is up, so events wait for it.
    let notifyUploads: ((event: S3EventNotification) => void) | undefined;
    const onS3Event = (event: S3EventNotification) => notifyUploads?.(event);

    progress('starting DynamoDB Local, SQS and S3');
    const started = await Promise.allSettled([
      startDynamoDbLocalOnFreePort(options.persist ? join(dataDir, 'dynamodb') : undefined),
      // In this process: they listen on a port the system gives them (0), so no other process can take it first.
      startSqsServer({ port: 0 }),
      startS3({ port: 0, onEvent: onS3Event, ...(options.persist && { directory: join(dataDir, 's3') }) }),
    ] as const);
    for (const result of started) if (result.status === 'fulfilled') stops.push(() => result.value.stop());
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const [dynamodb, sqs, s3] = started.map((result) => (result as PromiseFulfilledResult<unknown>).value) as [
      Awaited<ReturnType<typeof startDynamoDbLocal>>,
      Awaited<ReturnType<typeof startSqsServer>>,
      Awaited<ReturnType<typeof startS3>>,
    ];
    await ensureTable(dynamodb.endpoint, tableName);
    await ensureTable(dynamodb.endpoint, controlTableName, controlTableDefinition);
    await ensureTable(dynamodb.endpoint, outboxTableName, outboxTableDefinition);
    await ensureBucket(s3.endpoint, bucketName);
    const queueUrls = await ensureQueues({ endpoint: sqs.endpoint, prefix: 'ledger-local' });

    const secrets = loadOrCreateSecrets(options.persist ? join(dataDir, 'secrets.json') : undefined);
    await authPortHeld.release();
    const identityProvider = await startIdentityProvider({
      port: authPort,
      scopePrefix,
      apiBaseUrl: `http://127.0.0.1:${gatewayPort}`,
      ...(options.persist && { keyFile: join(dataDir, 'signing-key.json') }),
      ...(options.signInThrottle && { signInThrottle: options.signInThrottle }),
    });
    stops.push(() => identityProvider.stop());

    const authorizerCacheTtl = options.authorizerCacheTtlSeconds ?? Number(process.env.AUTHORIZER_CACHE_TTL_SECONDS || defaultAuthorizerCacheTtlSeconds);
    Object.assign(process.env, {
      AUTHORIZER_CACHE_TTL_SECONDS: String(authorizerCacheTtl),
      TABLE_NAME: tableName,
      CONTROL_TABLE_NAME: controlTableName,
      OUTBOX_TABLE_NAME: outboxTableName,
      BUCKET_NAME: bucketName,
      DYNAMODB_ENDPOINT: dynamodb.endpoint,
      S3_ENDPOINT: s3.endpoint,
      SQS_ENDPOINT: sqs.endpoint,
      JWT_ISSUER: identityProvider.issuer,
      JWKS_URI: identityProvider.jwksUri,
      SCOPE_PREFIX: scopePrefix,
      API_AUDIENCE: `http://127.0.0.1:${gatewayPort}`,
      CURSOR_SECRET: secrets.cursorSecret,
      // No KMS locally: stored secrets are sealed under this key (shared/platform/envelope-encryption.ts).
      LOCAL_SECRETS_KEY: secrets.secretsKey,
      TOKEN_URL: identityProvider.tokenUrl,
      ...Object.fromEntries(queues.map((queue) => [queue.urlEnv, queueUrls[queue.name].url])),
      ...Object.fromEntries(queues.flatMap((queue) => (queue.dlqUrlEnv ? [[queue.dlqUrlEnv, queueUrls[queue.name].dlqUrl]] : []))),
      // Receivers on this machine (tests, examples) are loopback addresses: allowed here, never on AWS.
      WEBHOOK_ALLOW_LOOPBACK: process.env.WEBHOOK_ALLOW_LOOPBACK ?? 'true',
      // DynamoDB Local has no per-partition write limit: imports unpaced unless asked for.
      IMPORT_INDEX_WRITES_PER_PARTITION_PER_SECOND: process.env.IMPORT_INDEX_WRITES_PER_PARTITION_PER_SECOND ?? '0',
    });
    resetConfig();

    const seedFile = options.persist ? join(dataDir, 'seed.json') : undefined;
    const seed = await loadSeed(seedFile);
    if (seed) progress('reusing the persisted demo data');
    else progress('seeding demo data');
    const seedData = seed ?? (await seedDemo({ ...(options.seedClientRateLimit && { clientRateLimit: options.seedClientRateLimit }) }));

    const sqsClient = localSqsClient(sqs.endpoint);
    notifyUploads = (event) => {
      const created = event.Records.filter((record) => record.eventName.startsWith('ObjectCreated:') && record.s3.object.key.startsWith(pendingUploadsPrefix));
      if (!created.length) return;
      sqsClient
        .send(new SendMessageCommand({ QueueUrl: queueUrls.uploads.url, MessageBody: JSON.stringify({ ...event, Records: created }) }))
        .catch((error: unknown) => console.error('local S3 notification to the uploads queue failed', error));
    };
    configureLocalIam({ table: tableName, controlTable: controlTableName, outboxTable: outboxTableName });
    enforceDeclaredEnvironments();
    for (const queue of queues) {
      if (!queue.workerEntry) continue;
      const worker = (await loadHandler(queue.workerEntry)) as SqsEventHandler;
      const workerCaller = { name: `${queue.name}-worker`, grants: dynamoGrants(workerPermissions[queue.name]) };
      for (let instance = 0; instance < (options.concurrentBatches?.[queue.name] ?? concurrentBatches[queue.name] ?? 1); instance++) {
        const poller: SqsPoller = startSqsPoller({
          client: sqsClient,
          queueUrl: queueUrls[queue.name].url,
          queueArn: queueUrls[queue.name].arn,
          handler: ((event, context) => runAs(workerCaller, () => worker(event, context))),
          functionName: `${queue.name}-worker`,
          batchSize: queue.batchSize,
          ...(options.idlePollCapMs !== undefined && { idleCapMs: options.idlePollCapMs }),
        });
        stops.push(() => poller.stop());
      }
    }

    // The webhook relay on the outbox table's stream, as Lambda's event source mapping runs it on AWS.
    const relay = (await loadHandler('functions/webhook-relay/handler.ts')) as StreamEventHandler;
    const relayCaller = { name: 'webhook-relay', grants: dynamoGrants(relayPermissions) };
    const streamPoller = await startStreamPoller({
      endpoint: dynamodb.endpoint,
      tableName: outboxTableName,
      handler: ((event, context) => runAs(relayCaller, () => relay(event, context))),
      filter: passesRelayFilter,
      functionName: 'webhook-relay',
      ...(options.idlePollCapMs !== undefined && { idleCapMs: options.idlePollCapMs }),
    });
    stops.push(() => streamPoller.stop());

    if (options.outboxSweepEverySeconds) {
      const sweeper = (await loadHandler('functions/outbox-sweeper/handler.ts')) as (event: unknown, context: unknown) => Promise<unknown>;
      const sweeperCaller = { name: 'outbox-sweeper', grants: dynamoGrants(sweeperPermissions) };
      const timer = setInterval(() => {
        runAs(sweeperCaller, () => sweeper({}, lambdaContext('outbox-sweeper', 300))).catch((error: unknown) => console.error('[outbox-sweeper]', error));
      }, options.outboxSweepEverySeconds * 1000);
      timer.unref();
      stops.push(async () => clearInterval(timer));
    }

    if (!seed) {
      progress('loading the demo books (bank statements, chart, GL lines, auto-reconciliation)');
      const bakery = seedData.companies[0]!;
      const organization = (await organizationRepository.get(bakery.organizationId))!;
      Object.assign(seedData, await seedDemoBooks(administratorOf(organization, 'seed', ['imports:write']), bakery.id));
      if (seedFile) writeFileSync(seedFile, JSON.stringify(seedData, null, 2), { mode: 0o600 });
    }

    await gatewayPortHeld.release();
    const gateway = await startGateway({ port: gatewayPort, ...(options.onRequest && { onRequest: options.onRequest }) });
    stops.push(() => gateway.stop());
    process.env.API_BASE_URL = gateway.baseUrl;

    const info: StackInfo = {
      baseUrl: gateway.baseUrl,
      authorizerCacheTtlSeconds: authorizerCacheTtl,
      authUrl: identityProvider.tokenUrl,
      interactive: { issuer: identityProvider.issuer, tokenUrl: identityProvider.tokenUrl, ...identityProvider.interactive },
      ...seedData,
      internal: {
        region: localAwsRegion(),
        tableName,
        controlTableName,
        outboxTableName,
        bucketName,
        dynamodbEndpoint: dynamodb.endpoint,
        s3Endpoint: s3.endpoint,
        sqsEndpoint: sqs.endpoint,
        jwtIssuer: identityProvider.issuer,
        jwksUri: identityProvider.jwksUri,
        scopePrefix,
        cursorSecret: secrets.cursorSecret,
        secretsKey: secrets.secretsKey,
        queues: queueUrls,
        ...(metricsFile && { metricsFile }),
      },
    };
    return { info, stop };
  } catch (error) {
    await stop();
    throw error;
  }
};



/**
 * The stack's own secrets, kept in its data directory when it persists: the cursor HMAC key and
 * the key-encryption key of stored secrets (the local stand-in of the KMS key, 256 bits), added
 * to a file written before it existed.
 */
const loadOrCreateSecrets = (file: string | undefined): { cursorSecret: string; secretsKey: string } => {
  const stored = file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<{ cursorSecret: string; secretsKey: string }>) : {};
  const secrets = { cursorSecret: stored.cursorSecret ?? randomBytes(32).toString('base64url'), secretsKey: stored.secretsKey ?? randomBytes(32).toString('base64') };
  if (file && (stored.cursorSecret !== secrets.cursorSecret || stored.secretsKey !== secrets.secretsKey)) writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
  return secrets;
};

/** The persisted seed, when its organizations are still in the persisted table. */
const loadSeed = async (file: string | undefined): Promise<SeedData | undefined> => {
  if (!file || !existsSync(file)) return undefined;
  // A seed persisted before the demo books existed reads as one without them.
  const seed = { bankAccounts: [], reconciliations: [], autoReconciliation: null, people: [], ...(JSON.parse(readFileSync(file, 'utf8')) as Partial<SeedData>) } as SeedData;
  const first = seed.organizations[0];
  return first && (await organizationRepository.get(first.id)) ? seed : undefined;
};
