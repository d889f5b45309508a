import { type CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { App, Validations, type Environment } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { routeKey, routes } from '../shared/routes';
import { ApiStack, documentObjectsNagResource, importPayloadPrefix, importPayloadsNagResource, tracingModes, type ApiStackProps, type TracingMode } from './stacks/api-stack';
import { StatefulStack, resourceServerIdentifier } from './stacks/stateful-stack';
import { MonitoringStack } from './stacks/monitoring';

export interface BuildOptions {
  /** See ApiStackProps.resolveEntry; tests that skip bundling use it so they never need the handler files. */
  readonly resolveEntry?: ApiStackProps['resolveEntry'];
}

export interface BuiltApp {
  readonly stateful: StatefulStack;
  readonly api: ApiStack;
  readonly monitoring: MonitoringStack;
}

const DEFAULT_REGION = 'eu-north-1';

/**
 * The stage's throttle: a backstop for the whole API, shared by every client, far above any one
 * client's limit. Each client's own limit is the service's (429 problem with Retry-After and
 * RateLimit headers); API Gateway's 429 carries neither, so it must not be the one a client meets:
 * 50 premium clients at their full rate (1,200 a minute each), 8 of them in a full burst at once.
 */
export const stageThrottle = { rateLimit: 1000, burstLimit: 2000 } as const;

const contextString = (app: App, key: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(key);
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/** X-Ray tracing of the functions (`-c tracing=active|off`, default `active`); any other value fails synthesis. */
const resolveTracing = (app: App): TracingMode => {
  const value: unknown = app.node.tryGetContext('tracing');
  if (value === undefined || value === '') return 'active';
  const mode = tracingModes.find((candidate) => candidate === value);
  if (!mode) throw new Error(`Context key "tracing" is ${JSON.stringify(value)}: allowed values are ${tracingModes.map((m) => `"${m}"`).join(', ')} (default "active").`);
  return mode;
};

/** Account/region: context (`-c account=… -c region=…`) first, then the CLI's defaults, then eu-north-1. */
const resolveEnv = (app: App): Environment => ({
  account: contextString(app, 'account') ?? process.env.CDK_DEFAULT_ACCOUNT,
  region: contextString(app, 'region') ?? process.env.CDK_DEFAULT_REGION ?? DEFAULT_REGION,
});

/** Runs the AwsSolutions rules at synthesis: an unacknowledged error fails it (the CLI exits non-zero). */
export const checkWithCdkNag = (app: App): void => {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
};

/** Builds the whole service into `app`; the CLI entry point and the tests share it. */
export const buildApp = (app: App, options: BuildOptions = {}): BuiltApp => {
  const env = resolveEnv(app);
  const resourcePrefix = contextString(app, 'resourcePrefix') ?? 'ledger';
  const tracing = resolveTracing(app);

  const stateful = new StatefulStack(app, 'LedgerStateful', {
    env,
    description: 'Accounting ledger integration service: data and identity (tables, bucket, queues, user pool, secrets)',
    terminationProtection: true,
    resourcePrefix,
    cognitoDomainPrefix: contextString(app, 'cognitoDomainPrefix'),
    interactiveCallbackUrls: contextString(app, 'interactiveCallbackUrls')?.split(',').map((url) => url.trim()).filter(Boolean),
  });

  const api = new ApiStack(app, 'LedgerApi', {
    env,
    resourcePrefix,
    description: 'Accounting ledger integration service: functions and HTTP API',
    table: stateful.table,
    controlTable: stateful.controlTable,
    outboxTable: stateful.outboxTable,
    documentsBucket: stateful.documentsBucket,
    queues: stateful.queues,
    webhookRelayDlq: stateful.webhookRelayDlq,
    cursorSecret: stateful.cursorSecret,
    secretsKey: stateful.secretsKey,
    jwtIssuer: stateful.jwtIssuer,
    scopePrefix: `${resourceServerIdentifier}/`,
    serviceName: contextString(app, 'serviceName') ?? 'ledger-api',
    problemTypeBase: contextString(app, 'problemTypeBase'),
    tokenUrl: stateful.tokenUrl,
    interactiveClientIds: [stateful.interactiveClient.userPoolClientId],
    mcpClientIds: [stateful.mcpClient.userPoolClientId],
    throttle: stageThrottle,
    resolveEntry: options.resolveEntry,
    tracing,
  });
  api.addStackDependency(stateful);

  const contextList = (key: string): string[] => contextString(app, key)?.split(',').map((value) => value.trim()).filter(Boolean) ?? [];
  const monitoring = new MonitoringStack(app, 'LedgerMonitoring', {
    env,
    description: 'Accounting ledger integration service: alarms, dashboard and the alarm topic',
    resourcePrefix,
    api,
    stateful,
    alarmEmails: contextList('alarmEmail'),
    alarmHttpsEndpoints: contextList('alarmHttpsEndpoint'),
  });

  checkWithCdkNag(app);
  acknowledgeNagFindings({ stateful, api, monitoring }, resourcePrefix);

  return { stateful, api, monitoring };
};

/**
 * Every AwsSolutions finding that stays, acknowledged on the narrowest construct with its reason.
 * Anything not listed here fails synthesis.
 */
const xrayWildcardReason =
  'xray:PutTraceSegments and xray:PutTelemetryRecords, added by active tracing: X-Ray actions have no resource-level permissions.';

const acknowledgeNagFindings = ({ stateful, api }: BuiltApp, resourcePrefix: string): void => {
  Validations.of(stateful.userPool).acknowledge(
    {
      id: 'AwsSolutions-COG2',
      reason:
        'MFA is optional (TOTP), not required: API clients use the client-credentials grant, which has no MFA step, and Cognito can only require MFA on a pool created so; people enrol TOTP in managed login.',
    },
    {
      id: 'AwsSolutions-COG8',
      reason:
        'Essentials tier: Plus-tier threat protection (compromised credentials, adaptive authentication) is priced per monthly active user; people are created by administrators only (no self sign-up) and every API decision is made by the service\'s own access rules.',
    },
  );

  Validations.of(stateful.cursorSecret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'HMAC key of short-lived pagination cursors, not a credential: automatic rotation would invalidate every outstanding cursor; it is rotated manually.',
  });

  for (const fn of [api.functions.imports, api.workers.imports]) {
    if (!fn) continue;
    Validations.of(fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${importPayloadsNagResource(resourcePrefix)}]`,
      reason: `Object-level access (s3:GetObject/PutObject/DeleteObject) to import payloads under the ${importPayloadPrefix} prefix of the documents bucket: S3 object ARNs need the trailing wildcard.`,
    });
  }

  // CDK's singleton function that applies the bucket's S3 -> SQS notification configuration (the
  // uploads queue) at deployment.
  const notificationsHandler = stateful.node.children.find((child) => child.node.id.startsWith('BucketNotificationsHandler'));
  if (!notificationsHandler) throw new Error('No BucketNotificationsHandler in the stateful stack');
  Validations.of(notificationsHandler).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason: "CDK's deployment-time handler that writes the documents bucket's notification configuration; AWSLambdaBasicExecutionRole only allows writing CloudWatch Logs.",
  });

  for (const fn of [api.functions.documents, api.workers.uploads]) {
    if (!fn) continue;
    Validations.of(fn).acknowledge(
      {
        id: `AwsSolutions-IAM5[Resource::${documentObjectsNagResource(resourcePrefix, 'pending')}]`,
        reason: 'Object-level access to pending uploads (uploads/pending/<companyId>/<documentId>): presigning their PUT, reading them back to check them, removing them once copied. S3 object ARNs need the trailing wildcard.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::${documentObjectsNagResource(resourcePrefix, 'documents')}]`,
        reason: 'Object-level access to completed documents (companies/<companyId>/documents/<documentId>): the verified copy (PutObject) and presigned downloads (GetObject, API only). S3 object ARNs need the trailing wildcard.',
      },
    );
  }

  const tracingActive = api.tracing === 'active';
  Validations.of(api.relayFunction).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: `dynamodb:ListStreams, added by Lambda's DynamoDB event source: the action has no resource-level permissions. The stream reads themselves are granted on the outbox table's stream ARN only.${tracingActive ? ` ${xrayWildcardReason}` : ''}`,
  });
  Validations.of(stateful.webhookRelayDlq).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: "It is itself a dead-letter destination: the on-failure destination of the webhook relay's stream event source.",
  });

  // The scheduler's role (made by the LambdaInvoke target, at stack scope) invokes the sweeper.
  Validations.of(api).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${api.getLogicalId(api.sweeperFunction.node.defaultChild as CfnFunction)}.Arn>:*]`,
    reason: "lambda:InvokeFunction on the outbox sweeper's versions and aliases (ARN:*), as the Scheduler target grants it: one function only.",
  });

  for (const fn of [api.authorizerFunction, api.relayFunction, api.sweeperFunction, ...Object.values(api.functions), ...Object.values(api.workers)]) {
    Validations.of(fn).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: 'AWSLambdaBasicExecutionRole only allows writing CloudWatch Logs; it is the AWS-maintained minimum for a Lambda function.',
      },
      {
        id: 'AwsSolutions-L1',
        reason: 'Node.js 22 is the runtime the service is built and tested for (esbuild target node22); moving to a newer runtime is a deliberate upgrade.',
      },
    );
    // Tracing off grants no X-Ray actions: no finding to acknowledge.
    if (tracingActive && fn !== api.relayFunction) Validations.of(fn).acknowledge({ id: 'AwsSolutions-IAM5[Resource::*]', reason: xrayWildcardReason });
  }

  for (const route of routes.filter((r) => r.auth === 'public')) {
    const construct = api.routes.get(routeKey(route));
    if (!construct) throw new Error(`No API route for ${routeKey(route)}`);
    Validations.of(construct).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason: `${routeKey(route)} (${route.operationId}) is public by design: declared auth 'public' in shared/routes.ts.`,
    });
  }
  const defaultRoute = api.routes.get('$default');
  if (!defaultRoute) throw new Error('No $default route');
  Validations.of(defaultRoute).acknowledge({
    id: 'AwsSolutions-APIG4',
    reason:
      '$default only answers unknown routes and methods with a problem+json error and touches no data; an authorizer would replace that body with API Gateway\'s own.',
  });
};

const isMain = (): boolean => {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
};

if (isMain()) {
  const app = new App();
  buildApp(app);
  app.synth();
}
