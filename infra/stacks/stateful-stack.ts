import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption, EventType, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { SqsDestination } from 'aws-cdk-lib/aws-s3-notifications';
import { pendingUploadsPrefix } from '../../shared/documents/keys';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import {
  AccountRecovery,
  CfnManagedLoginBranding,
  FeaturePlan,
  ManagedLoginVersion,
  Mfa,
  OAuthScope,
  ResourceServerScope,
  UserPool,
  type UserPoolClient,
  UserPoolClientIdentityProvider,
  type UserPoolDomain,
  type UserPoolResourceServer,
} from 'aws-cdk-lib/aws-cognito';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { controlTableDefinition, outboxTableDefinition, tableDefinition, type TableDefinition } from '../../shared/db/table-definition';
import { mcpScopes } from '../../shared/composition/mcp-contracts';
import { passwordPolicy } from '../../shared/identity/password-policy';
import { allScopes, interactiveScopes, type Scope } from '../../shared/identity/scopes';
import { queues, type QueueDefinition } from '../../shared/queues';

/** Identifier of the Cognito resource server; Cognito prefixes every custom scope with `<identifier>/`. */
export const resourceServerIdentifier = 'ledger-api';

/** Objects under this prefix are uploads not completed (yet); a lifecycle rule removes them after a day. */
export { pendingUploadsPrefix };

export interface StatefulStackProps extends StackProps {
  /** Prefix of physical queue names: the queue is `<prefix>-<name>`, its DLQ `<prefix>-<name>-dlq`. */
  readonly resourcePrefix: string;
  /**
   * Cognito hosted domain prefix (unique per region across all AWS accounts): the token URL is
   * `https://<prefix>.auth.<region>.amazoncognito.com/oauth2/token`.
   * @default `<resourcePrefix>-api-<account id>`
   */
  readonly cognitoDomainPrefix?: string;
  /**
   * Redirect URIs of the interactive sign-in app clients (authorization code + PKCE), the REST one
   * and the MCP one alike: the desktop tools' and MCP connectors' callbacks. Cognito matches them
   * exactly; http only for localhost.
   * @default ['http://localhost/callback']
   */
  readonly interactiveCallbackUrls?: readonly string[];
}

export interface ServiceQueue {
  readonly definition: QueueDefinition;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
}

const pascal = (value: string): string =>
  value
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

/**
 * Everything that holds data or identity. Deployed rarely; every data store is retained
 * and deletion-protected so that redeploying (or even deleting) the code stack never risks data.
 */
/**
 * The documents bucket has a known name, so the API stack can grant object access under a prefix
 * with an ARN built from pseudo parameters (no cross-stack token in the IAM resource).
 */
export const documentsBucketName = (resourcePrefix: string): string => `${resourcePrefix}-documents-${Aws.ACCOUNT_ID}-${Aws.REGION}`;

export class StatefulStack extends Stack {
  readonly table: Table;
  /** Rate-limit state and idempotency records (request control), apart from the books. */
  readonly controlTable: Table;
  /** Outbox events, the only table with a stream (it feeds the webhook relay). */
  readonly outboxTable: Table;
  readonly documentsBucket: Bucket;
  readonly accessLogsBucket: Bucket;
  readonly queues: readonly ServiceQueue[];
  /** Failed batches of the webhook relay (the on-failure destination of its stream event source). */
  readonly webhookRelayDlq: Queue;
  readonly userPool: UserPool;
  readonly userPoolDomain: UserPoolDomain;
  readonly resourceServer: UserPoolResourceServer;
  /** The public app client people sign in through (managed login, authorization code + PKCE); its tokens are for the REST API. */
  readonly interactiveClient: UserPoolClient;
  /** The public app client MCP connectors sign people in through; its tokens are for the MCP endpoint only, with the tools' read scopes. */
  readonly mcpClient: UserPoolClient;
  readonly cursorSecret: Secret;
  /**
   * Key-encryption key of the secrets the service stores (webhook signing secrets, the idempotent
   * answers that show one): envelope encryption, shared/platform/envelope-encryption.ts.
   */
  readonly secretsKey: Key;
  /** `https://cognito-idp.<region>.amazonaws.com/<poolId>`: the `iss` of the pool's access tokens. */
  readonly jwtIssuer: string;
  /** The OAuth 2.0 token endpoint (client-credentials grant). */
  readonly tokenUrl: string;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);

    // ---- DynamoDB single table -------------------------------------------------------------
    // No stream: bulk imports write here, and the relay reads the outbox table's stream instead.
    this.table = retainedTable(this, 'Table', tableDefinition);

    // ---- DynamoDB request-control table -----------------------------------------------------
    // Rate-limit state and idempotency records: written on every authenticated request by every
    // endpoint group, so it is a table of its own and the groups that only read the books get no
    // write access to the single table. Short-lived items (TTL), but an idempotency record is a
    // promise not to run a mutation twice, so it is kept like the books (PITR, retained).
    this.controlTable = retainedTable(this, 'RequestControlTable', controlTableDefinition);

    // ---- DynamoDB outbox table -------------------------------------------------------------
    // Outbox events, put in the same transaction as the change they announce (a transaction may
    // span tables). The only stream: its new images feed the webhook relay (shared/webhooks/relay.ts),
    // so the relay never wades through bulk-import writes and the single table pays for no stream.
    this.outboxTable = retainedTable(this, 'OutboxTable', outboxTableDefinition);

    // ---- S3: documents + server access logs ------------------------------------------------
    this.accessLogsBucket = new Bucket(this, 'AccessLogsBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      // S3 server access log delivery only supports SSE-S3 on the target bucket.
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'ExpireAccessLogs', expiration: Duration.days(365) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.documentsBucket = new Bucket(this, 'DocumentsBucket', {
      bucketName: documentsBucketName(props.resourcePrefix),
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'documents/',
      lifecycleRules: [
        { id: 'AbortIncompleteMultipartUploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        {
          // Abandoned uploads: a document upload lands under uploads/pending/ and completion copies
          // the verified bytes to companies/<companyId>/documents/<documentId> and deletes the
          // pending object, so what is still here after a day was never completed. Versioned
          // bucket: the expiration leaves a delete marker and makes the bytes noncurrent, which
          // the noncurrent expiration then removes (also for pending objects completion deleted).
          id: 'ExpireAbandonedUploads',
          prefix: pendingUploadsPrefix,
          expiration: Duration.days(1),
          noncurrentVersionExpiration: Duration.days(1),
        },
        {
          // The delete markers those expirations and completions leave, once nothing is behind them.
          id: 'RemoveExpiredUploadDeleteMarkers',
          prefix: pendingUploadsPrefix,
          expiredObjectDeleteMarker: true,
        },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // ---- SQS: one queue + DLQ per entry of the queue table ---------------------------------
    this.queues = queues.map((definition) => {
      const baseId = `${pascal(definition.name)}Queue`;
      const queueName = `${props.resourcePrefix}-${definition.name}`;
      const deadLetterQueue = new Queue(this, `${baseId}Dlq`, {
        queueName: `${queueName}-dlq`,
        retentionPeriod: Duration.days(14),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        removalPolicy: RemovalPolicy.RETAIN,
      });
      const queue = new Queue(this, baseId, {
        queueName,
        visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
        ...(definition.retentionDays && { retentionPeriod: Duration.days(definition.retentionDays) }),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        removalPolicy: RemovalPolicy.RETAIN,
      });
      return { definition, queue, deadLetterQueue };
    });
    // Stream batches the webhook relay could not process (after its retries): their shard and
    // sequence numbers, to be replayed from the outbox's pending index (GSI2) where the events stay.
    this.webhookRelayDlq = new Queue(this, 'WebhookRelayDlq', {
      queueName: `${props.resourcePrefix}-webhook-relay-dlq`,
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // ---- S3 -> SQS: each upload of a document notifies the completion worker (uploads queue) -----
    const uploadsQueue = this.queues.find(({ definition }) => definition.name === 'uploads');
    if (!uploadsQueue) throw new Error('shared/queues.ts has no uploads queue');
    this.documentsBucket.addEventNotification(EventType.OBJECT_CREATED, new SqsDestination(uploadsQueue.queue), { prefix: pendingUploadsPrefix });

    // ---- Cognito: API clients (client credentials) and people (managed login) ----------------
    // A person's username is their userId; they sign in with their e-mail address (an alias).
    this.userPool = new UserPool(this, 'UserPool', {
      selfSignUpEnabled: false,
      signInAliases: { username: true, email: true },
      featurePlan: FeaturePlan.ESSENTIALS,
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: AccountRecovery.NONE,
      // The policy create-user checks a given password against (one source).
      passwordPolicy: { ...passwordPolicy, tempPasswordValidity: Duration.days(1) },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const scopes = new Map(allScopes.map((scopeName) => [scopeName, new ResourceServerScope({ scopeName, scopeDescription: `Grants ${scopeName}` })]));
    this.resourceServer = this.userPool.addResourceServer('ResourceServer', {
      identifier: resourceServerIdentifier,
      userPoolResourceServerName: resourceServerIdentifier,
      scopes: [...scopes.values()],
    });

    this.userPoolDomain = this.userPool.addDomain('Domain', {
      cognitoDomain: { domainPrefix: props.cognitoDomainPrefix ?? `${props.resourcePrefix}-api-${this.account}` },
      managedLoginVersion: ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });

    // Cognito has no dynamic client registration: desktop tools and MCP connectors use these
    // pre-registered public clients (authorization code + PKCE, no secret). Cognito access tokens
    // carry no `aud` (RFC 8707), so the app client binds a token to its resource, as the local
    // provider's `aud` does (shared/identity/client-binding.ts): the authorizer accepts the
    // interactive client's tokens on the REST API only and the MCP client's on /mcp only.
    const interactiveSignIn = (id: string, userPoolClientName: string, clientScopes: readonly Scope[], oidcScopes: readonly OAuthScope[]): UserPoolClient => {
      const client = this.userPool.addClient(id, {
        userPoolClientName,
        generateSecret: false,
        // Managed login only: ExplicitAuthFlows exactly [ALLOW_REFRESH_TOKEN_AUTH]. `{}` would be
        // taken as unset, and Cognito's default allows USER_SRP_AUTH and CUSTOM_AUTH, a sign-in
        // with the public client id and a password that skips managed login.
        authFlows: { userSrp: false },
        oAuth: {
          flows: { authorizationCodeGrant: true },
          scopes: [...oidcScopes, ...clientScopes.map((scope) => OAuthScope.resourceServer(this.resourceServer, scopes.get(scope)!))],
          callbackUrls: [...(props.interactiveCallbackUrls ?? ['http://localhost/callback'])],
        },
        supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
        preventUserExistenceErrors: true,
        enableTokenRevocation: true,
        accessTokenValidity: Duration.hours(1),
        idTokenValidity: Duration.hours(1),
        refreshTokenValidity: Duration.days(30),
      });
      client.node.addDependency(this.resourceServer);
      // Managed login shows a client's pages only with a style of its own.
      new CfnManagedLoginBranding(this, `${id.replace(/Client$/, '')}LoginBranding`, {
        userPoolId: this.userPool.userPoolId,
        clientId: client.userPoolClientId,
        useCognitoProvidedValues: true,
      });
      return client;
    };
    // REST sessions: the scopes interactive sessions may hold (never users:read, access:manage,
    // webhooks:manage, imports:write; context:read only for interactive sessions).
    this.interactiveClient = interactiveSignIn('InteractiveClient', 'interactive-sign-in', interactiveScopes, [OAuthScope.OPENID, OAuthScope.EMAIL]);
    // MCP connectors: the endpoint is read-only, so only the scopes its tools need (the read
    // scopes of their REST twins and context:read), never a write scope.
    this.mcpClient = interactiveSignIn('McpClient', 'mcp-sign-in', mcpScopes, []);

    this.jwtIssuer = `https://cognito-idp.${this.region}.amazonaws.com/${this.userPool.userPoolId}`;
    this.tokenUrl = `${this.userPoolDomain.baseUrl()}/oauth2/token`;

    // ---- Secrets Manager: HMAC key of pagination cursors -----------------------------------
    this.cursorSecret = new Secret(this, 'CursorSecret', {
      description: 'HMAC key signing pagination cursors',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // ---- KMS: key of stored secrets (data keys from GenerateDataKey, AES-256-GCM) ---------
    // Yearly automatic rotation: KMS keeps every earlier key material, so values sealed before
    // a rotation still open. Retained: deleting it would make every stored secret unreadable.
    this.secretsKey = new Key(this, 'SecretsKey', {
      description: 'Envelope encryption of stored secrets (webhook signing secrets)',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // ---- Outputs ---------------------------------------------------------------------------
    new CfnOutput(this, 'TokenUrl', { value: this.tokenUrl, description: 'OAuth 2.0 token endpoint (client credentials)' });
    new CfnOutput(this, 'UserPoolId', { value: this.userPool.userPoolId });
    new CfnOutput(this, 'InteractiveClientId', { value: this.interactiveClient.userPoolClientId, description: 'Public app client for interactive sign-in to the REST API (authorization code + PKCE)' });
    new CfnOutput(this, 'McpClientId', { value: this.mcpClient.userPoolClientId, description: 'Public app client of MCP connectors (authorization code + PKCE): tokens for /mcp only, read scopes' });
    new CfnOutput(this, 'AuthorizationUrl', { value: `${this.userPoolDomain.baseUrl()}/oauth2/authorize`, description: 'Managed login: OAuth 2.0 authorization endpoint' });
    new CfnOutput(this, 'JwtIssuer', { value: this.jwtIssuer });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'ControlTableName', { value: this.controlTable.tableName, description: 'Rate-limit state and idempotency records' });
    new CfnOutput(this, 'OutboxTableName', { value: this.outboxTable.tableName, description: 'Outbox events (its stream feeds the webhook relay)' });
    new CfnOutput(this, 'BucketName', { value: this.documentsBucket.bucketName });
    for (const { definition, queue, deadLetterQueue } of this.queues) {
      new CfnOutput(this, `${pascal(definition.name)}QueueUrl`, { value: queue.queueUrl, description: definition.description });
      new CfnOutput(this, `${pascal(definition.name)}DlqUrl`, { value: deadLetterQueue.queueUrl });
    }
  }
}

/** A table kept like the books, from its definition (keys, GSIs, TTL and stream when it names them): on-demand, point-in-time recovery, deletion-protected and retained. */
const retainedTable = (scope: Construct, id: string, definition: TableDefinition): Table => {
  const table = new Table(scope, id, {
    ...(definition.streamViewType && { stream: StreamViewType[definition.streamViewType] }),
    partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
    sortKey: { name: definition.sortKey, type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
    ...(definition.timeToLiveAttribute && { timeToLiveAttribute: definition.timeToLiveAttribute }),
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  for (const gsi of definition.globalSecondaryIndexes) {
    table.addGlobalSecondaryIndex({
      indexName: gsi.indexName,
      partitionKey: { name: gsi.partitionKey, type: AttributeType.STRING },
      sortKey: { name: gsi.sortKey, type: AttributeType.STRING },
      projectionType: ProjectionType.ALL,
    });
  }
  return table;
};
