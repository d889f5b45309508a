import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Architecture, FilterCriteria, FilterRule, Runtime, StartingPosition, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { bundledAssetHooks, lambdaBundling } from './bundled-assets';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { outboxTableDefinition, tableDefinition, type TableDefinition } from '../../shared/db/table-definition';
import { documentsBucketName } from './stateful-stack';
import { documentsObjectPrefix, pendingUploadsPrefix } from '../../shared/documents/keys';
import type { QueueDefinition } from '../../shared/queues';
import { relayStreamFilter } from '../../shared/webhooks/relay';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { authorizerEntry, functionGroups, routeKey, routes, type FunctionGroup } from '../../shared/routes';
import {
  authorizerDynamoGrants,
  authorizerEnvironment,
  checkControlAccess,
  environmentOf,
  secretsKeyActions,
  documentsGrants,
  dynamoGrants,
  groupPermissions,
  workerPermissions,
  relayPermissions,
  sweeperPermissions,
  type DynamoGrant,
  type Permissions,
} from './permissions';

/** Where the import pipeline keeps accepted payloads (shared/imports/pipeline.ts). */
export const importPayloadPrefix = 'imports/';

/** Object ARN pattern of the import payloads; also the id of its acknowledged IAM5 finding. */
export const importPayloadsArn = (resourcePrefix: string): string =>
  `arn:${Aws.PARTITION}:s3:::${documentsBucketName(resourcePrefix)}/${importPayloadPrefix}*`;
export const importPayloadsNagResource = (resourcePrefix: string): string =>
  `arn:<AWS::Partition>:s3:::${resourcePrefix}-documents-<AWS::AccountId>-<AWS::Region>/${importPayloadPrefix}*`;

/** The documents bucket (bucket-level actions: ListBucket under the prefixes a function reads). */
export const documentsBucketArn = (resourcePrefix: string): string => `arn:${Aws.PARTITION}:s3:::${documentsBucketName(resourcePrefix)}`;

/** Object ARN patterns of pending uploads and of documents (shared/documents/keys.ts), and their IAM5 finding ids. */
const documentsPrefixes = { pending: pendingUploadsPrefix, documents: documentsObjectPrefix } as const;
export const documentObjectsArn = (resourcePrefix: string, prefix: keyof typeof documentsPrefixes): string =>
  `arn:${Aws.PARTITION}:s3:::${documentsBucketName(resourcePrefix)}/${documentsPrefixes[prefix]}*`;
export const documentObjectsNagResource = (resourcePrefix: string, prefix: keyof typeof documentsPrefixes): string =>
  `arn:<AWS::Partition>:s3:::${resourcePrefix}-documents-<AWS::AccountId>-<AWS::Region>/${documentsPrefixes[prefix]}*`;

/**
 * The Node.js every function runs on. Local runs use the same major version: package.json pins
 * the matching Node.js binary (test/unit/runtime.test.ts holds the two together).
 */
export const lambdaRuntime = Runtime.NODEJS_22_X;

/** Repository root: entries in shared/routes.ts are relative to it, and it holds package-lock.json. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface ApiStackProps extends StackProps {
  /** Names of shared resources start with it (the documents bucket's among them). */
  readonly resourcePrefix: string;
  readonly table: ITable;
  /** Rate-limit state and idempotency records (the request pipeline's own table). */
  readonly controlTable: ITable;
  /** Outbox events; its stream (the only one) feeds the webhook relay. */
  readonly outboxTable: ITable;
  readonly documentsBucket: IBucket;
  readonly queues: readonly { readonly definition: QueueDefinition; readonly queue: IQueue; readonly deadLetterQueue: IQueue }[];
  /** On-failure destination of the webhook relay's stream event source. */
  readonly webhookRelayDlq: IQueue;
  readonly cursorSecret: ISecret;
  /** KMS key of stored secrets (envelope encryption of webhook signing secrets). */
  readonly secretsKey: IKey;
  /** Issuer of access tokens (`https://cognito-idp.<region>.amazonaws.com/<poolId>`). */
  readonly jwtIssuer: string;
  /** Prefix Cognito puts before every custom scope, e.g. `ledger-api/`. */
  readonly scopePrefix: string;
  /** POWERTOOLS_SERVICE_NAME of every function. */
  readonly serviceName: string;
  /** Base URI of problem `type` values; unset leaves the functions' own default. */
  readonly problemTypeBase?: string;
  /** The absolute OAuth 2.0 token URL, named by the OpenAPI document the API serves. */
  readonly tokenUrl?: string;
  /** App clients people sign in through; the authorizer accepts their user access tokens (INTERACTIVE) on the REST API. */
  readonly interactiveClientIds?: readonly string[];
  /** App clients MCP connectors sign people in through; the authorizer accepts their user access tokens on /mcp only. */
  readonly mcpClientIds?: readonly string[];
  /**
   * Maps a handler entry (relative to the repository root) to the file to build.
   * Defaults to the file in the repository; tests that skip bundling point it at any existing file.
   */
  readonly resolveEntry?: (entry: string) => string;
  /** Steady-state and burst request limits of the default stage. */
  readonly throttle?: { readonly rateLimit: number; readonly burstLimit: number };
  /**
   * X-Ray tracing of every function. `active` (the default): active tracing, the Powertools Tracer
   * adds the subsegments. `off`: tracing disabled (no X-Ray grants) and POWERTOOLS_TRACE_ENABLED=false,
   * so the functions never load the tracing module (shared/platform/tracer.ts): shorter cold starts, no traces.
   */
  readonly tracing?: TracingMode;
}

/** The deploy choices of X-Ray tracing (ApiStackProps.tracing; context key `tracing`). */
export const tracingModes = ['active', 'off'] as const;
export type TracingMode = (typeof tracingModes)[number];

/** The code: functions and the HTTP API. Holds no data; redeploy or replace it at will. */
export class ApiStack extends Stack {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogGroup: LogGroup;
  readonly authorizerFunction: NodejsFunction;
  readonly functions: Readonly<Record<FunctionGroup, NodejsFunction>>;
  /** SQS-triggered workers by queue name. */
  readonly workers: Readonly<Record<string, NodejsFunction>>;
  /** The webhook relay (DynamoDB Streams-triggered). */
  readonly relayFunction: NodejsFunction;
  readonly sweeperFunction: NodejsFunction;
  /** Routes keyed by their route key (`routeKey(route)`), plus `$default`. */
  readonly routes: ReadonlyMap<string, HttpRoute>;
  /** X-Ray tracing of the functions (ApiStackProps.tracing). */
  readonly tracing: TracingMode;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);

    const resolveEntry = props.resolveEntry ?? ((entry: string) => path.join(repoRoot, entry));
    this.tracing = props.tracing ?? 'active';
    const tracingActive = this.tracing === 'active';

    // Every variable a function may be given; each gets only those it declares (infra/stacks/permissions.ts environmentOf).
    const variables: Record<string, string> = {
      POWERTOOLS_SERVICE_NAME: props.serviceName,
      TABLE_NAME: props.table.tableName,
      CONTROL_TABLE_NAME: props.controlTable.tableName,
      OUTBOX_TABLE_NAME: props.outboxTable.tableName,
      BUCKET_NAME: props.documentsBucket.bucketName,
      JWT_ISSUER: props.jwtIssuer,
      JWKS_URI: `${props.jwtIssuer}/.well-known/jwks.json`,
      SCOPE_PREFIX: props.scopePrefix,
      CURSOR_SECRET_ARN: props.cursorSecret.secretArn,
      SECRETS_KEY_ID: props.secretsKey.keyArn,
      // The GL import's index writes per partition key and second: 90 % of AWS's 1,000 WCU/s per partition key.
      IMPORT_INDEX_WRITES_PER_PARTITION_PER_SECOND: '900',
      ...Object.fromEntries(props.queues.map(({ definition, queue }) => [definition.urlEnv, queue.queueUrl])),
      ...Object.fromEntries(props.queues.flatMap(({ definition, deadLetterQueue }) => (definition.dlqUrlEnv ? [[definition.dlqUrlEnv, deadLetterQueue.queueUrl]] : []))),
      ...(props.problemTypeBase ? { PROBLEM_TYPE_BASE: props.problemTypeBase } : {}),
      ...(props.tokenUrl ? { TOKEN_URL: props.tokenUrl } : {}),
      ...(props.interactiveClientIds?.length ? { INTERACTIVE_CLIENT_IDS: props.interactiveClientIds.join(',') } : {}),
      ...(props.mcpClientIds?.length ? { MCP_CLIENT_IDS: props.mcpClientIds.join(',') } : {}),
    };

    // DynamoDB grants (infra/stacks/permissions.ts) as explicit statements: exact actions, the
    // tables' GSIs by name (the Table grant helpers would add `<table arn>/index/*`, a
    // wildcard that cdk-nag reports under a finding id embedding the cross-stack reference), and
    // partition-key prefixes as `dynamodb:LeadingKeys` conditions where a function may touch only
    // some kinds of items.
    checkControlAccess(groupPermissions);
    const indexArnsOf = (table: ITable, definition: TableDefinition): string[] => definition.globalSecondaryIndexes.map((gsi) => `${table.tableArn}/index/${gsi.indexName}`);
    const resourcesOf: Record<DynamoGrant['resource'], string[]> = {
      table: [props.table.tableArn],
      tableIndexes: indexArnsOf(props.table, tableDefinition),
      controlTable: [props.controlTable.tableArn],
      outboxTable: [props.outboxTable.tableArn],
      outboxTableIndexes: indexArnsOf(props.outboxTable, outboxTableDefinition),
    };
    const grantDynamo = (fn: NodejsFunction, grants: readonly DynamoGrant[]): void => {
      for (const { actions, resource, leadingKeyPrefixes } of grants) {
        fn.addToRolePolicy(
          new PolicyStatement({
            actions: [...actions],
            resources: resourcesOf[resource],
            ...(leadingKeyPrefixes && {
              conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': leadingKeyPrefixes.map((prefix) => `${prefix}*`) } },
            }),
          }),
        );
      }
    };

    const makeFunction = (
      constructId: string,
      options: { entry: string; description: string; memoryMb: number; timeoutSeconds: number; environment: readonly string[] },
    ): NodejsFunction => {
      const environment: Record<string, string> = {
        ...Object.fromEntries(options.environment.flatMap((name) => (variables[name] === undefined ? [] : [[name, variables[name]]]))),
        // Tracing off: the Tracer and the X-Ray SDK (tracing.mjs) are never loaded.
        ...(tracingActive ? {} : { POWERTOOLS_TRACE_ENABLED: 'false' }),
      };
      const logGroup = new LogGroup(this, `${constructId}Logs`, {
        retention: RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      return new NodejsFunction(this, constructId, {
        entry: resolveEntry(options.entry),
        handler: 'handler',
        description: options.description,
        runtime: lambdaRuntime,
        architecture: Architecture.ARM_64,
        memorySize: options.memoryMb,
        timeout: Duration.seconds(options.timeoutSeconds),
        environment,
        logGroup,
        // X-Ray: the Powertools Tracer (shared/platform/tracer.ts) adds the handler's and the SDK calls' subsegments.
        // DISABLED sets no TracingConfig and grants no xray:* actions.
        tracing: tracingActive ? Tracing.ACTIVE : Tracing.DISABLED,
        projectRoot: repoRoot,
        depsLockFilePath: path.join(repoRoot, 'package-lock.json'),
        bundling: {
          ...lambdaBundling,
          // Ship the SDK versions pinned in package.json instead of the runtime's.
          bundleAwsSDK: true,
          forceDockerBundling: false,
          ...bundledAssetHooks(options.entry, repoRoot),
        },
      });
    };

    // ---- Functions ---------------------------------------------------------------------------
    this.authorizerFunction = makeFunction('AuthorizerFunction', {
      entry: authorizerEntry,
      description: 'HTTP API Lambda authorizer: verifies bearer tokens',
      memoryMb: 512,
      timeoutSeconds: 5,
      environment: authorizerEnvironment(),
    });
    grantDynamo(this.authorizerFunction, authorizerDynamoGrants);

    const queueByName = new Map(props.queues.map(({ definition, queue }) => [definition.name, queue]));
    const deadLetterQueueByName = new Map(props.queues.map(({ definition, deadLetterQueue }) => [definition.name, deadLetterQueue]));
    const grant = (fn: NodejsFunction, access: Permissions): void => {
      grantDynamo(fn, dynamoGrants(access));
      if (access.cursorSecret) props.cursorSecret.grantRead(fn);
      if (access.bucket) {
        // Only the import payloads (claim checks), object reads/writes (and listing under their prefix, below).
        fn.addToRolePolicy(
          new PolicyStatement({
            actions: access.bucket === 'read' ? ['s3:GetObject'] : ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
            resources: [importPayloadsArn(props.resourcePrefix)],
          }),
        );
      }
      for (const { actions, prefix } of documentsGrants(access)) {
        fn.addToRolePolicy(new PolicyStatement({ actions: [...actions], resources: [documentObjectsArn(props.resourcePrefix, prefix)] }));
      }
      // Without s3:ListBucket on the bucket a GetObject of a missing key answers 403 AccessDenied, not
      // 404 NoSuchKey (S3 GetObject, Permissions), so "not uploaded yet" would read as a failure. Not
      // narrowed by s3:prefix: that check carries no prefix. It shows key names only (company and
      // document ids), which these functions read from the table anyway.
      const readsObjects = Boolean(access.bucket) || documentsGrants(access).some(({ actions }) => actions.includes('s3:GetObject'));
      if (readsObjects) fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [documentsBucketArn(props.resourcePrefix)] }));
      for (const name of access.sendTo ?? []) queueByName.get(name)?.grantSendMessages(fn);
      for (const name of access.sendToDeadLetter ?? []) deadLetterQueueByName.get(name)?.grantSendMessages(fn);
      const kmsActions = secretsKeyActions(access);
      if (kmsActions.length) fn.addToRolePolicy(new PolicyStatement({ actions: kmsActions, resources: [props.secretsKey.keyArn] }));
    };

    const groups = Object.keys(functionGroups) as FunctionGroup[];
    this.functions = Object.fromEntries(
      groups.map((group) => {
        const definition = functionGroups[group];
        const fn = makeFunction(`${group.charAt(0).toUpperCase()}${group.slice(1)}Function`, {
          entry: definition.entry,
          description: definition.description,
          memoryMb: definition.memoryMb,
          timeoutSeconds: definition.timeoutSeconds,
          environment: environmentOf(groupPermissions[group], 'api'),
        });
        grant(fn, groupPermissions[group]);
        return [group, fn];
      }),
    ) as Record<FunctionGroup, NodejsFunction>;

    // ---- HTTP API ------------------------------------------------------------------------------
    this.api = new HttpApi(this, 'HttpApi', {
      apiName: `${this.stackName}-http`,
      description: 'Accounting ledger integration API',
      createDefaultStage: false,
    });

    // DNS rebinding protection of the MCP endpoint: the Host (and a browser's Origin) must name this API.
    this.functions.mcp.addEnvironment('MCP_ALLOWED_HOSTS', `${this.api.apiId}.execute-api.${this.region}.${this.urlSuffix}`);

    this.accessLogGroup = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogGroup),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTime',
            httpMethod: '$context.httpMethod',
            path: '$context.path',
            routeKey: '$context.routeKey',
            status: '$context.status',
            protocol: '$context.protocol',
            responseLength: '$context.responseLength',
            responseLatency: '$context.responseLatency',
            integrationLatency: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            authorizerError: '$context.authorizer.error',
          }),
        ),
      },
    });

    // The authorizer always allows and says `authenticated: false` in its context, so a missing or
    // bad token still reaches the handler, which answers problem+json 401 (with the MCP challenge on
    // /mcp). So it has no identity source (API Gateway would answer a request lacking one with its
    // own 401), which HTTP APIs allow only with caching off; the authorizer keeps its decisions per
    // (resource, token) itself (shared/identity/authorizer.ts, defaultAuthorizerCacheTtlSeconds).
    const authorizer = new HttpLambdaAuthorizer('TokenAuthorizer', this.authorizerFunction, {
      authorizerName: 'token',
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      resultsCacheTtl: Duration.seconds(0),
      identitySource: [],
    });

    const integrations = Object.fromEntries(
      groups.map((group) => [group, new HttpLambdaIntegration(`${group}Integration`, this.functions[group])]),
    ) as Record<FunctionGroup, HttpLambdaIntegration>;

    const builtRoutes = new Map<string, HttpRoute>();
    for (const route of routes) {
      const key = HttpRouteKey.with(route.path, HttpMethod[route.method]);
      if (key.key !== routeKey(route)) {
        throw new Error(`Route key mismatch: CDK built "${key.key}", the route table says "${routeKey(route)}"`);
      }
      if (builtRoutes.has(key.key)) throw new Error(`Duplicate route in shared/routes.ts: ${key.key}`);
      builtRoutes.set(
        key.key,
        new HttpRoute(this, `Route${route.operationId.charAt(0).toUpperCase()}${route.operationId.slice(1)}`, {
          httpApi: this.api,
          routeKey: key,
          integration: integrations[route.group],
          authorizer: route.auth === 'token' ? authorizer : undefined,
        }),
      );
    }
    // Unknown routes and methods: the fallback function answers problem+json, no authorizer.
    builtRoutes.set(
      HttpRouteKey.DEFAULT.key,
      new HttpRoute(this, 'RouteDefault', { httpApi: this.api, routeKey: HttpRouteKey.DEFAULT, integration: integrations.fallback }),
    );
    this.routes = builtRoutes;


    // ---- Queue workers: SQS-triggered, partial batch failures redelivered, DLQ after maxReceiveCount.
    const workers: Record<string, NodejsFunction> = {};
    for (const { definition, queue } of props.queues) {
      if (!definition.workerEntry) continue;
      const worker = makeFunction(`${definition.name.replace(/(^|-)(\w)/g, (_, _dash: string, letter: string) => letter.toUpperCase())}Worker`, {
        entry: definition.workerEntry,
        description: `Worker of the ${definition.name} queue: ${definition.description}`,
        memoryMb: 1024,
        // Lambda requires the queue's visibility timeout to be at least the function timeout; a sixth
        // of it is kept as margin, so a message does not reappear while an invocation that reached its
        // timeout is still finishing (not the six times AWS suggests for throttling: the visibility
        // timeout is also how long a failed message waits before its retry).
        timeoutSeconds: Math.min(900, Math.floor((definition.visibilityTimeoutSeconds * 5) / 6)),
        environment: environmentOf(workerPermissions[definition.name], 'worker'),
      });
      worker.addEventSource(new SqsEventSource(queue, { batchSize: definition.batchSize ?? 1, reportBatchItemFailures: true }));
      grant(worker, workerPermissions[definition.name]);
      workers[definition.name] = worker;
    }
    this.workers = workers;

    // ---- Webhook relay: the outbox table's stream (it holds only events; Lambda still filters
    // INSERTs of events, as defence in depth), in order per shard; a failed record is retried
    // (with the ones after it) until it succeeds or ages out of the stream (24 h), then its
    // batch's position goes to the relay DLQ. Events not relayed stay in the outbox's pending
    // index (GSI2), so nothing is lost either way.
    this.relayFunction = makeFunction('WebhookRelayFunction', {
      entry: 'functions/webhook-relay/handler.ts',
      description: 'Webhook relay: outbox events from the outbox table stream, sequenced per organization, queued for fan-out',
      memoryMb: 512,
      timeoutSeconds: 60,
      environment: environmentOf(relayPermissions, 'worker'),
    });
    this.relayFunction.addEventSource(
      new DynamoEventSource(props.outboxTable, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.millis(0),
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: 10_000,
        onFailure: new SqsDlq(props.webhookRelayDlq),
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual(relayStreamFilter.eventName),
            dynamodb: { NewImage: { entity: { S: FilterRule.isEqual(relayStreamFilter.entity) } } },
          }),
        ],
      }),
    );
    grant(this.relayFunction, relayPermissions);

    // ---- Outbox sweeper: every 5 minutes (EventBridge Scheduler), relays events pending longer
    // than 10 minutes (left by an outage beyond the stream's 24 h, or a record sent to the relay
    // DLQ), through the same conditional relay step: each event enters the feed once. It also sends
    // again the message of imports and SAF-T imports queued over 20 minutes with nothing applied
    // (a function cut off between their commit and their SendMessage; shared/saft/requeue.ts).
    this.sweeperFunction = makeFunction('OutboxSweeperFunction', {
      entry: 'functions/outbox-sweeper/handler.ts',
      description: 'Outbox sweeper: relays outbox events still pending after 10 minutes; re-sends messages of imports left queued 20 minutes',
      memoryMb: 512,
      timeoutSeconds: 300,
      environment: environmentOf(sweeperPermissions, 'worker'),
    });
    grant(this.sweeperFunction, sweeperPermissions);
    new Schedule(this, 'OutboxSweeperSchedule', {
      description: 'Runs the outbox sweeper',
      schedule: ScheduleExpression.rate(Duration.minutes(5)),
      target: new LambdaInvoke(this.sweeperFunction, { retryAttempts: 0 }),
    });

    new CfnOutput(this, 'ApiUrl', { value: this.stage.url });
    new CfnOutput(this, 'OutboxSweeperFunctionName', { value: this.sweeperFunction.functionName, description: 'Invoke it to run the outbox sweeper by hand' });
  }
}
