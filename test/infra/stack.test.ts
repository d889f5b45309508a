import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { VALIDATION_REPORT_FILE } from 'aws-cdk-lib/cx-api';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp, checkWithCdkNag, stageThrottle, type BuiltApp } from '../../infra/app';
import { ratePlans } from '../../shared/platform/rate-limit';
import { checkControlAccess, controlAccessOfRoutes, groupPermissions } from '../../infra/stacks/permissions';
import { declaredEnvironments } from '../../infra/local/environment';
import { apiClientKeys, organizationKeys } from '../../shared/identity/keys';
import { assignmentKeys, effectiveAccessKeys, policyKeys } from '../../shared/identity/access-keys';
import { deliveryKeys, deliverySlotKeys, eventFeedCounterKeys, eventFeedEntryKeys, subscriptionKeys } from '../../shared/webhooks/keys';
import { idempotencyKeys, rateLimitKeys } from '../../shared/platform/keys';
import { controlTableDefinition, outboxTableDefinition, tableDefinition } from '../../shared/db/table-definition';
import { passwordPolicy } from '../../shared/identity/password-policy';
import { allScopes, systemOnlyScopes, interactiveScopes } from '../../shared/identity/scopes';
import { mcpScopes } from '../../shared/composition/mcp-contracts';
import { queues } from '../../shared/queues';
import { functionGroups, routeKey, routes, type FunctionGroup } from '../../shared/routes';
import { appOutdirs } from '../support/cdk-outdir';
import type { Json } from '../support/json';

const thisFile = fileURLToPath(import.meta.url);
const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
  context: Record<string, unknown>;
};

const nextOutdir = appOutdirs();

/**
 * The same context as `cdk synth` (cdk.json), a fixed environment, and bundling skipped
 * (`aws:cdk:bundling-stacks: []`), with every handler entry pointed at this file: the test never
 * runs esbuild and never needs the handler files. `context` adds to (or overrides) cdk.json's.
 */
const newApp = (context: Record<string, unknown> = {}): { app: App; built: BuiltApp } => {
  const app = new App({
    outdir: nextOutdir(),
    context: {
      ...cdkJson.context,
      ...context,
      account: '123456789012',
      region: 'eu-north-1',
      'aws:cdk:bundling-stacks': [],
      // In-process synthesis throws on a failing validation report (the CLI instead exits non-zero).
      '@aws-cdk/core:appMode': 'inmemory',
    },
  });
  return { app, built: buildApp(app, { resolveEntry: () => thisFile }) };
};

type Resources = Record<string, { Type: string; Properties?: Record<string, Json>; DeletionPolicy?: string }>;

const DYNAMODB_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:PartiQLInsert',
  'dynamodb:PartiQLUpdate',
  'dynamodb:PartiQLDelete',
];

const asArray = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

let app: App;
let built: BuiltApp;
let assemblyDir: string;
let api: Template;
let stateful: Template;
let apiResources: Resources;
let statefulResources: Resources;

const logicalId = (stack: Stack, construct: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

type Entry = [logicalId: string, resource: Resources[string]];

const ofType = (resources: Resources, type: string): Entry[] => Object.entries(resources).filter(([, r]) => r.Type === type);

/** The one entry of a list, failing the test when there is not exactly one. */
const only = (entries: Entry[]): Entry => {
  expect(entries).toHaveLength(1);
  return entries[0] as Entry;
};

const routeWithKey = (key: string): Resources[string] =>
  only(ofType(apiResources, 'AWS::ApiGatewayV2::Route').filter(([, r]) => r.Properties?.RouteKey === key))[1];

/** Every action allowed to a role, from the AWS::IAM::Policy resources attached to it and its inline policies. */
const actionsOfRole = (roleLogicalId: string): string[] => {
  const statements = [
    ...ofType(apiResources, 'AWS::IAM::Policy')
      .filter(([, p]) => asArray(p.Properties?.Roles).some((r: Json) => r.Ref === roleLogicalId))
      .flatMap(([, p]) => asArray(p.Properties?.PolicyDocument?.Statement)),
    ...asArray(apiResources[roleLogicalId]?.Properties?.Policies).flatMap((p: Json) => asArray(p.PolicyDocument?.Statement)),
  ];
  return statements.filter((s: Json) => s.Effect === 'Allow').flatMap((s: Json) => asArray<string>(s.Action));
};

const roleOf = (fnLogicalId: string): string => {
  const role = apiResources[fnLogicalId]?.Properties?.Role;
  expect(role).toEqual({ 'Fn::GetAtt': [expect.any(String), 'Arn'] });
  return role['Fn::GetAtt'][0] as string;
};

/**
 * A resource of an IAM statement as a name: cross-stack references become the stateful construct
 * they point at (`table`, `controlTable`, `outboxTable`, `cursorSecret`, `queue:<name>`), pseudo parameters `<...>`.
 */
const statefulNames = (): [logicalId: string, name: string][] => [
  [logicalId(built.stateful, built.stateful.table), 'table'],
  [logicalId(built.stateful, built.stateful.controlTable), 'controlTable'],
  [logicalId(built.stateful, built.stateful.outboxTable), 'outboxTable'],
  [logicalId(built.stateful, built.stateful.cursorSecret), 'cursorSecret'],
  [logicalId(built.stateful, built.stateful.secretsKey), 'secretsKey'],
  ...built.stateful.queues.flatMap(({ definition, queue, deadLetterQueue }): [string, string][] => [
    [logicalId(built.stateful, queue), `queue:${definition.name}`],
    [logicalId(built.stateful, deadLetterQueue), `dlq:${definition.name}`],
  ]),
  [logicalId(built.stateful, built.stateful.webhookRelayDlq), 'webhookRelayDlq'],
];
const nameOfResource = (value: unknown): string => {
  if (typeof value === 'string') return value;
  const node = value as Record<string, Json>;
  if (node['Fn::Join']) return (node['Fn::Join'][1] as unknown[]).map(nameOfResource).join(node['Fn::Join'][0] as string);
  if (node.Ref === 'AWS::Partition' || node.Ref === 'AWS::AccountId' || node.Ref === 'AWS::Region') return `<${node.Ref.slice(5)}>`;
  const reference = JSON.stringify(node['Fn::GetStackOutput']?.OutputName ?? node['Fn::ImportValue'] ?? node);
  const matches = statefulNames().filter(([id]) => reference.includes(id));
  expect(matches, reference).toHaveLength(1);
  return matches[0]![1];
};
const documentsPrefix = 'arn:<Partition>:s3:::ledger-documents-<AccountId>-<Region>/';

/** The grants of active tracing, on every function (X-Ray actions have no resource-level permissions). */
const tracingGrants = ['xray:PutTelemetryRecords *', 'xray:PutTraceSegments *'];

/**
 * Every Allow statement of a function's role as sorted `<action> <resource>[ if <leading-key patterns>]` lines,
 * without the tracing grants every function holds (asserted here).
 */
const grantsOfFunction = (fn: { node: { defaultChild?: unknown } }): string[] => {
  const grants = allGrantsOfFunction(fn);
  for (const grant of tracingGrants) expect(grants, 'active tracing').toContain(grant);
  return grants.filter((grant) => !tracingGrants.includes(grant));
};

const allGrantsOfFunction = (fn: { node: { defaultChild?: unknown } }): string[] => {
  const roleId = roleOf(logicalId(built.api, fn));
  const statements = ofType(apiResources, 'AWS::IAM::Policy')
    .filter(([, p]) => asArray(p.Properties?.Roles).some((r: Json) => r.Ref === roleId))
    .flatMap(([, p]) => asArray<Json>(p.Properties?.PolicyDocument?.Statement));
  return statements
    .flatMap((statement) => {
      expect(statement.Effect).toBe('Allow');
      expect(statement.NotAction ?? statement.NotResource).toBeUndefined();
      const conditions = statement.Condition as Record<string, Json> | undefined;
      if (conditions) expect(Object.keys(conditions)).toEqual(['ForAllValues:StringLike']);
      const leadingKeys = conditions?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
      if (conditions) expect(Object.keys(conditions['ForAllValues:StringLike'])).toEqual(['dynamodb:LeadingKeys']);
      const suffix = leadingKeys ? ` if ${asArray<string>(leadingKeys).join(',')}` : '';
      return asArray<string>(statement.Action).flatMap((action) =>
        asArray(statement.Resource).map((resource) => `${action} ${`${nameOfResource(resource)}/`.replace(documentsPrefix, 'documents/').slice(0, -1)}${suffix}`),
      );
    })
    .sort();
};

const groups = Object.keys(functionGroups) as FunctionGroup[];

beforeAll(() => {
  ({ app, built } = newApp());
  // Synthesis runs the cdk-nag plugin; under vitest (NODE_ENV=test) CDK throws on any failing report.
  assemblyDir = app.synth().directory;
  api = Template.fromStack(built.api);
  stateful = Template.fromStack(built.stateful);
  apiResources = api.toJSON().Resources as Resources;
  statefulResources = stateful.toJSON().Resources as Resources;
}, 120_000);

describe('HTTP API routes', () => {
  const integrationTargetOf = (routeProps: Record<string, Json>): string => {
    const join = routeProps.Target?.['Fn::Join'];
    expect(join?.[1]?.[0]).toBe('integrations/');
    return join[1][1].Ref as string;
  };
  const functionOfIntegration = (integrationId: string): string => {
    const uri = apiResources[integrationId]?.Properties?.IntegrationUri;
    return uri['Fn::GetAtt'][0] as string;
  };

  it('has exactly one route per route-table entry, plus $default', () => {
    const keys = ofType(apiResources, 'AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties?.RouteKey as string);
    expect(keys.sort()).toEqual([...routes.map(routeKey), '$default'].sort());
  });

  it.each(routes.map((r) => [routeKey(r), r] as const))('%s: authorizer and integration match the route table', (key, route) => {
    const props = routeWithKey(key).Properties ?? {};
    if (route.auth === 'token') {
      const [authorizerId] = only(ofType(apiResources, 'AWS::ApiGatewayV2::Authorizer'));
      expect(props.AuthorizationType).toBe('CUSTOM');
      expect(props.AuthorizerId).toEqual({ Ref: authorizerId });
    } else {
      expect(props.AuthorizationType).toBe('NONE');
      expect(props.AuthorizerId).toBeUndefined();
    }
    expect(functionOfIntegration(integrationTargetOf(props))).toBe(logicalId(built.api, built.api.functions[route.group]));
  });

  it('routes $default to the fallback function without an authorizer', () => {
    const resource = routeWithKey('$default');
    expect(resource.Properties?.AuthorizationType).toBe('NONE');
    expect(resource.Properties?.AuthorizerId).toBeUndefined();
    expect(functionOfIntegration(integrationTargetOf(resource.Properties ?? {}))).toBe(
      logicalId(built.api, built.api.functions.fallback),
    );
  });

  it('has one Lambda authorizer: simple responses, no identity source and no API Gateway cache (the authorizer keeps its own per resource and token)', () => {
    api.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 1);
    api.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'REQUEST',
      AuthorizerPayloadFormatVersion: '2.0',
      EnableSimpleResponses: true,
      AuthorizerResultTtlInSeconds: 0,
      IdentitySource: [],
      AuthorizerUri: {
        'Fn::Join': ['', Match.arrayWith([{ 'Fn::GetAtt': [logicalId(built.api, built.api.authorizerFunction), 'Arn'] }])],
      },
    });
  });

  it("throttles the stage far above any one client's plan (the service's own 429 is the one a client meets)", () => {
    const [, stage] = only(ofType(apiResources, 'AWS::ApiGatewayV2::Stage'));
    const settings = stage.Properties?.DefaultRouteSettings as { ThrottlingRateLimit: number; ThrottlingBurstLimit: number };
    expect(settings).toMatchObject({ ThrottlingRateLimit: stageThrottle.rateLimit, ThrottlingBurstLimit: stageThrottle.burstLimit });
    expect(settings.ThrottlingRateLimit).toBeGreaterThanOrEqual((50 * ratePlans.premium.perMinute) / 60);
    expect(settings.ThrottlingBurstLimit).toBeGreaterThanOrEqual(8 * ratePlans.premium.burst);
  });

  it('logs every request of the $default stage as JSON with the request id', () => {
    const [, stage] = only(ofType(apiResources, 'AWS::ApiGatewayV2::Stage'));
    expect(stage.Properties?.StageName).toBe('$default');
    expect(stage.Properties?.AutoDeploy).toBe(true);
    const format = JSON.parse(stage.Properties?.AccessLogSettings?.Format as string) as Record<string, string>;
    expect(format.requestId).toBe('$context.requestId');
    const [logGroupId] = stage.Properties?.AccessLogSettings?.DestinationArn['Fn::GetAtt'] ?? [];
    expect(apiResources[logGroupId]?.Type).toBe('AWS::Logs::LogGroup');
  });
});

describe('functions', () => {
  const functionIds = (): string[] => ofType(apiResources, 'AWS::Lambda::Function').map(([id]) => id);

  it('has one function per group, the authorizer and one worker per queue that declares a worker', () => {
    const workers = queues.filter((queue) => queue.workerEntry);
    // + the authorizer, the webhook relay and the outbox sweeper
    expect(functionIds()).toHaveLength(groups.length + 3 + workers.length);
    for (const queue of workers) {
      api.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        BatchSize: queue.batchSize ?? 1,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        FunctionName: { Ref: Match.stringLikeRegexp(`${queue.name.replace(/(^|-)(\w)/g, (_, _dash: string, letter: string) => letter.toUpperCase())}Worker`) },
      });
    }
  });

  it('all run nodejs22.x on arm64 with a log group with a retention, and no NODE_OPTIONS (stacks are source-mapped on first use)', () => {
    for (const id of functionIds()) {
      const props = apiResources[id]?.Properties ?? {};
      expect(props.Runtime).toBe('nodejs22.x');
      expect(props.Architectures).toEqual(['arm64']);
      expect(props.Handler).toBe('index.handler');
      expect(props.Environment?.Variables?.NODE_OPTIONS).toBeUndefined();
      const logGroup = apiResources[props.LoggingConfig?.LogGroup?.Ref]?.Properties;
      expect(logGroup?.RetentionInDays).toBe(30);
    }
  });

  it('all have active X-Ray tracing (the Powertools Tracer adds the subsegments) by default', () => {
    expect(cdkJson.context.tracing).toBeUndefined();
    expect(built.api.tracing).toBe('active');
    for (const id of functionIds()) {
      expect(apiResources[id]?.Properties?.TracingConfig, id).toEqual({ Mode: 'Active' });
      expect(apiResources[id]?.Properties?.Environment?.Variables?.POWERTOOLS_TRACE_ENABLED, id).toBeUndefined();
    }
  });

  it("queue workers time out with a sixth of their queue's visibility timeout to spare (a message never reappears while its invocation may still run)", () => {
    for (const queue of queues.filter((candidate) => candidate.workerEntry)) {
      const timeout = apiResources[logicalId(built.api, built.api.workers[queue.name]!)]?.Properties?.Timeout as number;
      expect(timeout * 6, queue.name).toBeLessThanOrEqual(queue.visibilityTimeoutSeconds * 5);
      expect(timeout, queue.name).toBeGreaterThanOrEqual(60);
    }
  });

  it('take memory and timeout from functionGroups', () => {
    for (const group of groups) {
      const props = apiResources[logicalId(built.api, built.api.functions[group])]?.Properties ?? {};
      expect(props.MemorySize).toBe(functionGroups[group].memoryMb);
      expect(props.Timeout).toBe(functionGroups[group].timeoutSeconds);
    }
  });

  /** Every function of the API stack with the name the local stack runs it under (infra/local/environment.ts). */
  const allFunctions = (): [name: string, fn: { node: { defaultChild?: unknown } }][] => [
    ...groups.map((group): [string, { node: { defaultChild?: unknown } }] => [group, built.api.functions[group]]),
    ...Object.entries(built.api.workers).map(([name, fn]): [string, { node: { defaultChild?: unknown } }] => [`${name}-worker`, fn]),
    ['webhook-relay', built.api.relayFunction],
    ['outbox-sweeper', built.api.sweeperFunction],
    ['authorizer', built.api.authorizerFunction],
  ];
  const variablesOf = (fn: { node: { defaultChild?: unknown } }): Record<string, Json> =>
    (apiResources[logicalId(built.api, fn)]?.Properties?.Environment?.Variables ?? {}) as Record<string, Json>;

  it('each function gets exactly the variables it declares (environmentOf, the same sets the local stack enforces)', () => {
    const declared = declaredEnvironments();
    expect(allFunctions()).toHaveLength(functionIds().length);
    for (const [name, fn] of allFunctions()) {
      // PROBLEM_TYPE_BASE only when the app sets it (cdk.json does not).
      const expected = [...declared.get(name)!].filter((variable) => variable !== 'PROBLEM_TYPE_BASE').sort();
      expect(Object.keys(variablesOf(fn)).sort(), name).toEqual(expected);
    }
  });

  it('only the authorizer verifies tokens; only the webhooks API and its delivery worker know the secrets key; no function gets a queue it does not send to', () => {
    const holders = (variable: string) => allFunctions().filter(([, fn]) => variable in variablesOf(fn)).map(([name]) => name).sort();
    expect(holders('JWKS_URI')).toEqual(['authorizer']);
    expect(holders('INTERACTIVE_CLIENT_IDS')).toEqual(['authorizer']);
    expect(holders('MCP_CLIENT_IDS')).toEqual(['authorizer']);
    expect(holders('JWT_ISSUER')).toEqual(['authorizer', 'mcp']);
    expect(holders('SECRETS_KEY_ID')).toEqual(['webhooks', 'webhooks-worker']);
    expect(holders('CURSOR_SECRET_ARN')).toEqual(['access', 'bank', 'companies', 'documents', 'imports', 'jobs', 'ledger', 'mcp', 'users', 'webhooks']);
    expect(holders('WEBHOOKS_DLQ_URL')).toEqual(['webhooks-worker']);
    // The outbox sweeper sends again the messages of imports left queued without one (shared/saft/requeue.ts).
    expect(holders('IMPORTS_QUEUE_URL')).toEqual(['imports', 'outbox-sweeper']);
    expect(Object.keys(variablesOf(built.api.functions.fallback)).sort()).toEqual(['POWERTOOLS_SERVICE_NAME']);
    expect(Object.keys(variablesOf(built.api.functions.openapi)).sort()).toEqual(['POWERTOOLS_SERVICE_NAME', 'TOKEN_URL']);
  });

  it('the variables point at their resources', () => {
    for (const [name, fn] of allFunctions()) {
      const env = variablesOf(fn);
      expect(env.NODE_OPTIONS, name).toBeUndefined();
      expect(env.POWERTOOLS_SERVICE_NAME, name).toBe('ledger-api');
      if ('SCOPE_PREFIX' in env) expect(env.SCOPE_PREFIX).toBe('ledger-api/');
      if ('JWT_ISSUER' in env) expect(JSON.stringify(env.JWT_ISSUER)).toContain('https://cognito-idp.eu-north-1.amazonaws.com/');
      if ('JWKS_URI' in env) expect(JSON.stringify(env.JWKS_URI)).toContain('/.well-known/jwks.json');
      if ('TABLE_NAME' in env) expect(JSON.stringify(env.TABLE_NAME), name).toContain(logicalId(built.stateful, built.stateful.table));
      if ('CONTROL_TABLE_NAME' in env) expect(JSON.stringify(env.CONTROL_TABLE_NAME), name).toContain(logicalId(built.stateful, built.stateful.controlTable));
      if ('OUTBOX_TABLE_NAME' in env) expect(JSON.stringify(env.OUTBOX_TABLE_NAME), name).toContain(logicalId(built.stateful, built.stateful.outboxTable));
      if ('SECRETS_KEY_ID' in env) expect(JSON.stringify(env.SECRETS_KEY_ID), name).toContain(logicalId(built.stateful, built.stateful.secretsKey));
      for (const queue of queues) if (queue.urlEnv in env) expect(JSON.stringify(env[queue.urlEnv]), name).toContain(logicalId(built.stateful, built.stateful.queues.find((q) => q.definition.name === queue.name)!.queue));
    }
  });

  it('the import worker paces its index writes at 900 a second per key; no other function gets the setting', () => {
    const importWorker = logicalId(built.api, built.api.workers.imports!);
    for (const id of functionIds()) {
      const env = apiResources[id]?.Properties?.Environment?.Variables ?? {};
      expect(env.IMPORT_INDEX_WRITES_PER_PARTITION_PER_SECOND, id).toBe(id === importWorker ? '900' : undefined);
    }
  });
});

describe('least privilege', () => {
  const actionsOfFunction = (fn: { node: { defaultChild?: unknown } }): string[] =>
    actionsOfRole(roleOf(logicalId(built.api, fn)));

  it('the authorizer can read the table but not write it', () => {
    const actions = actionsOfFunction(built.api.authorizerFunction);
    expect(actions).toContain('dynamodb:GetItem');
    for (const write of DYNAMODB_WRITE_ACTIONS) expect(actions).not.toContain(write);
    expect(actions.some((a) => a === '*' || a === 'dynamodb:*')).toBe(false);
  });

  it('openapi and fallback have no DynamoDB access', () => {
    for (const group of ['openapi', 'fallback'] as const) {
      expect(actionsOfFunction(built.api.functions[group]).filter((a) => a.startsWith('dynamodb:') || a === '*')).toEqual([]);
    }
  });

  it('only companies, bank, imports, documents, access and webhooks can write the table (access and webhooks only their own kinds of items); every group with a token route can write the control table', () => {
    for (const group of groups) {
      const statements = grantsOfFunction(built.api.functions[group]);
      const writes = statements.filter((g) => DYNAMODB_WRITE_ACTIONS.some((a) => g.startsWith(`${a} `)));
      const writesWholeTable = writes.some((g) => / table$/.test(g));
      expect(writesWholeTable, group).toBe(['companies', 'bank', 'imports', 'documents'].includes(group));
      const writesSomeKinds = writes.some((g) => / table if /.test(g) && !g.endsWith(' if CONTEXT#*'));
      expect(writesSomeKinds, group).toBe(['access', 'webhooks'].includes(group));
      const writesControl = statements.some((g) => g.includes(' controlTable'));
      expect(writesControl, group).toBe(routes.some((r) => r.group === group && r.auth === 'token'));
    }
  });

  it('only the groups that announce changes (companies, bank, imports, documents) put events in the outbox table, and put only', () => {
    for (const group of groups) {
      const outboxWrites = grantsOfFunction(built.api.functions[group]).filter((g) => / outboxTable/.test(g) && DYNAMODB_WRITE_ACTIONS.some((a) => g.startsWith(`${a} `)));
      expect(outboxWrites, group).toEqual(['companies', 'bank', 'imports', 'documents'].includes(group) ? ['dynamodb:PutItem outboxTable'] : []);
    }
  });

  it('only the groups with cursor lists read the cursor secret; only the import, document, MCP and webhook paths touch queues and the bucket', () => {
    const cursorReaders = [built.api.functions.companies, built.api.functions.ledger, built.api.functions.bank, built.api.functions.imports, built.api.functions.jobs, built.api.functions.documents, built.api.functions.users, built.api.functions.access, built.api.functions.mcp, built.api.functions.webhooks];
    for (const fn of [built.api.authorizerFunction, ...groups.map((g) => built.api.functions[g])]) {
      const actions = actionsOfFunction(fn);
      expect(actions.includes('secretsmanager:GetSecretValue'), fn.node.id).toBe(cursorReaders.includes(fn));
      if (fn === built.api.functions.imports || fn === built.api.functions.documents || fn === built.api.functions.mcp || fn === built.api.functions.webhooks) continue;
      expect(actions.filter((a) => a.startsWith('sqs:') || a.startsWith('s3:')), fn.node.id).toEqual([]);
    }
    const imports = actionsOfFunction(built.api.functions.imports);
    expect(imports.filter((a) => a.startsWith('s3:')).sort()).toEqual(['s3:DeleteObject', 's3:GetObject', 's3:ListBucket', 's3:PutObject']);
    expect(imports).toContain('sqs:SendMessage');
    const worker = actionsOfFunction(built.api.workers.imports!);
    // The SAF-T import writes each step's rows as an import payload (imports/*) for the six kinds' apply path.
    expect(worker.filter((a) => a.startsWith('s3:')).sort()).toEqual(['s3:DeleteObject', 's3:GetObject', 's3:ListBucket', 's3:PutObject']);
    expect(worker).toContain('sqs:SendMessage');
    expect(JSON.stringify(ofType(apiResources, 'AWS::IAM::Policy'))).toContain('/imports/*');
  });

  // ---- Exact grants: every Allow statement of every function, as `<action> <resource>[ if <leading keys>]`.
  // Widening any grant (an action, a resource, a dropped condition) fails these tests.
  const tableRead = [
    'dynamodb:BatchGetItem table',
    'dynamodb:GetItem table',
    'dynamodb:Query table',
    ...tableDefinition.globalSecondaryIndexes.map((gsi) => `dynamodb:Query table/index/${gsi.indexName}`),
  ];
  const tableWrite = ['BatchWriteItem', 'ConditionCheckItem', 'DeleteItem', 'PutItem', 'UpdateItem'].map((a) => `dynamodb:${a} table`);
  /** Writes only in partitions whose key starts with one of the prefixes (dynamodb:LeadingKeys). */
  const tableWriteIf = (...prefixes: string[]) => tableWrite.map((grant) => `${grant} if ${prefixes.map((prefix) => `${prefix}*`).join(',')}`);
  const rateLimit = ['dynamodb:UpdateItem controlTable if RATE#*'];
  const idempotency = ['DeleteItem', 'GetItem', 'PutItem', 'UpdateItem'].map((a) => `dynamodb:${a} controlTable if IDEMPOTENCY#*`);
  const outboxWrite = ['dynamodb:PutItem outboxTable'];
  const outboxRead = [
    'dynamodb:GetItem outboxTable',
    'dynamodb:Query outboxTable',
    ...outboxTableDefinition.globalSecondaryIndexes.map((gsi) => `dynamodb:Query outboxTable/index/${gsi.indexName}`),
  ];
  const outboxRelayed = ['dynamodb:UpdateItem outboxTable'];
  const cursorSecret = ['secretsmanager:DescribeSecret cursorSecret', 'secretsmanager:GetSecretValue cursorSecret'];
  const payloads = (...actions: string[]) => actions.map((a) => `s3:${a} documents/imports/*`);
  const pending = (...actions: string[]) => actions.map((a) => `s3:${a} documents/uploads/pending/*`);
  /** Listing the bucket, so a missing object a function reads answers 404, not 403. */
  const listing = () => ['s3:ListBucket documents'];
  const documentObjects = (...actions: string[]) => actions.map((a) => `s3:${a} documents/companies/*`);
  const sendTo = (queue: string) => ['GetQueueAttributes', 'GetQueueUrl', 'SendMessage'].map((a) => `sqs:${a} queue:${queue}`);
  const sendToDlq = (queue: string) => ['GetQueueAttributes', 'GetQueueUrl', 'SendMessage'].map((a) => `sqs:${a} dlq:${queue}`);
  const relayDlq = ['GetQueueAttributes', 'GetQueueUrl', 'SendMessage'].map((a) => `sqs:${a} webhookRelayDlq`);
  // The stream ARN is an attribute of the outbox table (asserted below); ListStreams has no resource-level permissions.
  const relayStreamRead = [...['DescribeStream', 'GetRecords', 'GetShardIterator'].map((a) => `dynamodb:${a} outboxTable`), 'dynamodb:ListStreams *'];
  const consume = (queue: string) =>
    ['ChangeMessageVisibility', 'DeleteMessage', 'GetQueueAttributes', 'GetQueueUrl', 'ReceiveMessage'].map((a) => `sqs:${a} queue:${queue}`);

  const expectedGroupGrants: Record<FunctionGroup, string[]> = {
    identity: [...rateLimit],
    companies: [...tableRead, ...tableWrite, ...rateLimit, ...idempotency, ...outboxWrite, ...cursorSecret],
    ledger: [...tableRead, ...rateLimit, ...cursorSecret],
    vat: [...tableRead, ...rateLimit],
    bank: [...tableRead, ...tableWrite, ...rateLimit, ...idempotency, ...outboxWrite, ...cursorSecret],
    imports: [
      ...tableRead,
      ...tableWrite,
      ...rateLimit,
      ...idempotency,
      ...outboxWrite,
      ...cursorSecret,
      ...payloads('DeleteObject', 'GetObject', 'PutObject'),
      ...listing(),
      ...sendTo('imports'),
    ],
    jobs: [...tableRead, ...rateLimit, ...cursorSecret],
    users: [...tableRead, ...rateLimit, ...cursorSecret],
    access: [...tableRead, ...tableWriteIf('POLICY#', 'ASSIGNMENT#', 'USER#'), ...rateLimit, ...idempotency, ...cursorSecret],
    mcp: [...tableRead, 'dynamodb:UpdateItem table if CONTEXT#*', ...rateLimit, ...outboxRead, ...cursorSecret, ...sendTo('reconciliation')],
    documents: [
      ...tableRead,
      ...tableWrite,
      ...rateLimit,
      ...idempotency,
      ...outboxWrite,
      ...cursorSecret,
      ...pending('DeleteObject', 'GetObject', 'PutObject'),
      ...listing(),
      ...documentObjects('GetObject', 'PutObject'),
    ],
    webhooks: [...tableRead, ...tableWriteIf('WEBHOOK#', 'DELIVERY#'), ...rateLimit, ...idempotency, ...cursorSecret, ...sendTo('webhooks'), 'kms:Decrypt secretsKey', 'kms:GenerateDataKey secretsKey'],
    openapi: [],
    fallback: [],
  };
  const expectedWorkerGrants: Record<string, string[]> = {
    imports: [...consume('imports'), ...tableRead, ...tableWrite, ...outboxWrite, ...payloads('DeleteObject', 'GetObject', 'PutObject'), ...listing(), ...sendTo('reconciliation')],
    reconciliation: [...consume('reconciliation'), ...tableRead, ...tableWrite, ...outboxWrite],
    uploads: [...new Set([...consume('uploads'), ...tableRead, ...tableWrite, ...outboxWrite, ...pending('DeleteObject', 'GetObject'), ...listing(), ...documentObjects('PutObject'), ...sendTo('uploads')])],
    'webhook-fanout': [...consume('webhook-fanout'), ...tableRead, ...tableWriteIf('DELIVERY#'), ...outboxRead, ...sendTo('webhooks')],
    webhooks: [...new Set([...consume('webhooks'), ...tableRead, ...tableWriteIf('DELIVERY#', 'WEBHOOKSLOT#', 'WEBHOOK#'), ...sendTo('webhooks'), ...sendToDlq('webhooks'), 'kms:Decrypt secretsKey'])],
  };

  it('the webhook relay reads the outbox table stream, marks events relayed, writes the table and sends to the fan-out queue, the context rebuilds (reconciliation queue) and its failure DLQ', () => {
    expect(grantsOfFunction(built.api.relayFunction)).toEqual(
      [...relayStreamRead, ...outboxRelayed, ...tableRead, ...tableWriteIf('EVENTFEED#'), ...sendTo('webhook-fanout'), ...sendTo('reconciliation'), ...relayDlq].sort(),
    );
    expect(JSON.stringify(ofType(apiResources, 'AWS::IAM::Policy'))).toContain('StreamArn');
    const [, mapping] = only(ofType(apiResources, 'AWS::Lambda::EventSourceMapping').filter(([, r]) => r.Properties?.StartingPosition));
    const source = JSON.stringify(mapping.Properties?.EventSourceArn);
    expect(source).toContain('StreamArn');
    expect(source).toContain(logicalId(built.stateful, built.stateful.outboxTable));
    api.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      StartingPosition: 'TRIM_HORIZON',
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['outboxEvent'] } } } }) }] },
    });
  });

  it('the outbox sweeper runs every 5 minutes from EventBridge Scheduler and may only query the pending index, mark events relayed, write the feed, imports, SAF-T imports, jobs and lanes, put events (an import it fails) and send to fan-out, context rebuilds and imports left queued', () => {
    expect(grantsOfFunction(built.api.sweeperFunction)).toEqual(
      [
        ...outboxRelayed,
        ...outboxWrite,
        ...outboxTableDefinition.globalSecondaryIndexes.map((gsi) => `dynamodb:Query outboxTable/index/${gsi.indexName}`),
        ...tableRead,
        ...tableWriteIf('EVENTFEED#', 'IMPORT#', 'SAFT#', 'JOB#', 'LANE#'),
        ...sendTo('webhook-fanout'),
        ...sendTo('reconciliation'),
        ...sendTo('imports'),
      ].sort(),
    );
    const [, schedule] = only(ofType(apiResources, 'AWS::Scheduler::Schedule'));
    expect(schedule.Properties?.ScheduleExpression).toBe('rate(5 minutes)');
    expect(JSON.stringify(schedule.Properties?.Target?.Arn)).toContain(logicalId(built.api, built.api.sweeperFunction));
    expect(schedule.Properties?.Target?.RetryPolicy).toMatchObject({ MaximumRetryAttempts: 0 });
  });

  it('the authorizer may only GetItem clients and organizations, and read people (person and memberships)', () => {
    expect(grantsOfFunction(built.api.authorizerFunction)).toEqual(['dynamodb:GetItem table if CLIENT#*,ORG#*', 'dynamodb:GetItem table if USER#*', 'dynamodb:Query table if USER#*']);
  });

  it.each(groups.map((g) => [g] as const))('function group %s has exactly its grants', (group) => {
    expect(grantsOfFunction(built.api.functions[group])).toEqual([...expectedGroupGrants[group]].sort());
  });

  it('each queue worker has exactly its grants', () => {
    expect(Object.keys(built.api.workers).sort()).toEqual(Object.keys(expectedWorkerGrants).sort());
    for (const [name, worker] of Object.entries(built.api.workers)) {
      expect(grantsOfFunction(worker), name).toEqual([...expectedWorkerGrants[name]!].sort());
    }
  });

  it('every role has only the basic execution managed policy and no inline policies', () => {
    for (const [id, role] of ofType(apiResources, 'AWS::IAM::Role')) {
      if (!id.includes('ServiceRole')) continue;
      expect(JSON.stringify(role.Properties?.ManagedPolicyArns), id).toBe(
        JSON.stringify([{ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AWSLambdaBasicExecutionRole']] }]),
      );
      expect(role.Properties?.Policies, id).toBeUndefined();
    }
  });

  it('control-table access follows the route table: rate limits for token routes, idempotency for mutations', () => {
    for (const group of groups) expect(groupPermissions[group].control, group).toBe(controlAccessOfRoutes(group));
    expect(() => checkControlAccess({ ...groupPermissions, ledger: { ...groupPermissions.ledger, control: 'rateLimitAndIdempotency' } })).toThrow(
      /ledger: control-table access is 'rateLimitAndIdempotency', its routes need 'rateLimit'/,
    );
    expect(() => checkControlAccess({ ...groupPermissions, companies: { ...groupPermissions.companies, control: 'rateLimit' } })).toThrow(/companies/);
  });

  it('the leading-key prefixes of the conditions are those the keys are built with', () => {
    expect(subscriptionKeys('s').PK.startsWith('WEBHOOK#')).toBe(true);
    expect(deliveryKeys('d').PK.startsWith('DELIVERY#')).toBe(true);
    expect(deliverySlotKeys('s', 0).PK.startsWith('WEBHOOKSLOT#')).toBe(true);
    expect(eventFeedCounterKeys('o').PK.startsWith('EVENTFEED#') && eventFeedEntryKeys('o', 1).PK.startsWith('EVENTFEED#')).toBe(true);
    expect(policyKeys('p').PK.startsWith('POLICY#') && assignmentKeys('a').PK.startsWith('ASSIGNMENT#') && effectiveAccessKeys('u').PK.startsWith('USER#')).toBe(true);
    expect(rateLimitKeys('c').PK.startsWith('RATE#')).toBe(true);
    expect(idempotencyKeys('c', 'k').PK.startsWith('IDEMPOTENCY#')).toBe(true);
    expect(apiClientKeys('c').PK.startsWith('CLIENT#')).toBe(true);
    expect(organizationKeys('o').PK.startsWith('ORG#')).toBe(true);
  });

  it('grants no wildcard resources on the table (GSIs are named)', () => {
    const policies = JSON.stringify(ofType(apiResources, 'AWS::IAM::Policy'));
    expect(policies).not.toContain('/index/*');
    for (const gsi of [...tableDefinition.globalSecondaryIndexes, ...outboxTableDefinition.globalSecondaryIndexes]) expect(policies).toContain(`/index/${gsi.indexName}`);
  });
});

describe('stateful resources', () => {
  it('the table has the keys, GSIs, PITR and TTL of tableDefinition, no stream, and is retained', () => {
    stateful.resourceCountIs('AWS::DynamoDB::Table', 3);
    expect(statefulResources[logicalId(built.stateful, built.stateful.table)]?.Properties?.StreamSpecification).toBeUndefined();
    stateful.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        DeletionProtectionEnabled: true,
        KeySchema: [
          { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
          { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
        ],
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
        GlobalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((gsi) => ({
          IndexName: gsi.indexName,
          KeySchema: [
            { AttributeName: gsi.partitionKey, KeyType: 'HASH' },
            { AttributeName: gsi.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      }),
    });
  });

  it('the control table has the keys and TTL of controlTableDefinition, no indexes, PITR, and is retained', () => {
    const control = statefulResources[logicalId(built.stateful, built.stateful.controlTable)];
    expect(control?.Type).toBe('AWS::DynamoDB::Table');
    expect(control?.DeletionPolicy).toBe('Retain');
    expect(control?.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      DeletionProtectionEnabled: true,
      KeySchema: [
        { AttributeName: controlTableDefinition.partitionKey, KeyType: 'HASH' },
        { AttributeName: controlTableDefinition.sortKey, KeyType: 'RANGE' },
      ],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
    expect(control?.Properties?.GlobalSecondaryIndexes).toBeUndefined();
  });

  it('the outbox table has the keys and GSIs of outboxTableDefinition, the only stream (new images), no TTL, PITR, and is retained', () => {
    const outbox = statefulResources[logicalId(built.stateful, built.stateful.outboxTable)];
    expect(outbox?.Type).toBe('AWS::DynamoDB::Table');
    expect(outbox?.DeletionPolicy).toBe('Retain');
    expect(outbox?.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      DeletionProtectionEnabled: true,
      KeySchema: [
        { AttributeName: outboxTableDefinition.partitionKey, KeyType: 'HASH' },
        { AttributeName: outboxTableDefinition.sortKey, KeyType: 'RANGE' },
      ],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      GlobalSecondaryIndexes: outboxTableDefinition.globalSecondaryIndexes.map((gsi) => ({
        IndexName: gsi.indexName,
        KeySchema: [
          { AttributeName: gsi.partitionKey, KeyType: 'HASH' },
          { AttributeName: gsi.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    });
    expect(outbox?.Properties?.TimeToLiveSpecification).toBeUndefined();
    const streams = ofType(statefulResources, 'AWS::DynamoDB::Table').filter(([, r]) => r.Properties?.StreamSpecification);
    expect(streams.map(([id]) => id)).toEqual([logicalId(built.stateful, built.stateful.outboxTable)]);
  });

  it.each(queues.map((q) => [q.name, q] as const))('queue %s has a DLQ redrive, encryption and TLS only', (_name, definition) => {
    const entry = built.stateful.queues.find((q) => q.definition.name === definition.name);
    expect(entry).toBeDefined();
    const queueId = logicalId(built.stateful, entry!.queue);
    const dlqId = logicalId(built.stateful, entry!.deadLetterQueue);
    const queue = statefulResources[queueId]?.Properties ?? {};
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
      maxReceiveCount: definition.maxReceiveCount,
    });
    expect(queue.VisibilityTimeout).toBe(definition.visibilityTimeoutSeconds);
    expect(queue.SqsManagedSseEnabled).toBe(true);
    const dlq = statefulResources[dlqId]?.Properties ?? {};
    expect(dlq.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    expect(dlq.SqsManagedSseEnabled).toBe(true);
    for (const id of [queueId, dlqId]) {
      stateful.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  it('the documents bucket blocks public access, is TLS-only and cleans up abandoned uploads', () => {
    const bucketId = logicalId(built.stateful, built.stateful.documentsBucket);
    stateful.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        LifecycleConfiguration: {
          Rules: Match.arrayWith([
            Match.objectLike({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
            Match.objectLike({ Prefix: 'uploads/pending/', ExpirationInDays: 1, NoncurrentVersionExpiration: { NoncurrentDays: 1 } }),
            Match.objectLike({ Prefix: 'uploads/pending/', ExpiredObjectDeleteMarker: true }),
          ]),
        },
        VersioningConfiguration: { Status: 'Enabled' },
        LoggingConfiguration: Match.objectLike({ DestinationBucketName: Match.anyValue() }),
      }),
    });
    // Uploads notify the completion worker: ObjectCreated under uploads/pending/ -> the uploads queue.
    const uploadsQueueId = logicalId(built.stateful, built.stateful.queues.find((q) => q.definition.name === 'uploads')!.queue);
    stateful.hasResourceProperties('Custom::S3BucketNotifications', {
      BucketName: { Ref: bucketId },
      NotificationConfiguration: {
        QueueConfigurations: [
          {
            Events: ['s3:ObjectCreated:*'],
            Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: 'uploads/pending/' }] } },
            QueueArn: { 'Fn::GetAtt': [uploadsQueueId, 'Arn'] },
          },
        ],
      },
    });
    stateful.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: uploadsQueueId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 's3.amazonaws.com' },
            Condition: { ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [bucketId, 'Arn'] } } },
          }),
        ]),
      },
    });
    stateful.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('the Cognito resource server is ledger-api with every scope of allScopes', () => {
    stateful.resourceCountIs('AWS::Cognito::UserPoolResourceServer', 1);
    const [, server] = only(ofType(statefulResources, 'AWS::Cognito::UserPoolResourceServer'));
    expect(server.Properties?.Identifier).toBe('ledger-api');
    const names = (server.Properties?.Scopes as { ScopeName: string }[]).map((s) => s.ScopeName);
    expect([...names].sort()).toEqual([...allScopes].sort());
    // Cognito's ResourceServerScopeType.ScopeName pattern: ':' (0x3A) is allowed, '/', '\', '"' and space are not.
    for (const name of names) expect(name).toMatch(/^[\x21\x23-\x2E\x30-\x5B\x5D-\x7E]{1,256}$/);
  });

  it('the user pool is admin-only (no self sign-up), has a domain, and is retained', () => {
    stateful.hasResource('AWS::Cognito::UserPool', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({ AdminCreateUserConfig: { AllowAdminCreateUserOnly: true }, DeletionProtection: 'ACTIVE' }),
    });
    stateful.resourceCountIs('AWS::Cognito::UserPoolDomain', 1);
  });

  it('the user pool has the password policy create-user checks a given password against', () => {
    stateful.hasResourceProperties('AWS::Cognito::UserPool', {
      Policies: Match.objectLike({
        PasswordPolicy: Match.objectLike({
          MinimumLength: passwordPolicy.minLength,
          RequireLowercase: passwordPolicy.requireLowercase,
          RequireUppercase: passwordPolicy.requireUppercase,
          RequireNumbers: passwordPolicy.requireDigits,
          RequireSymbols: passwordPolicy.requireSymbols,
        }),
      }),
    });
  });

  /** A public app client of managed login: authorization code (PKCE) only, no secret, revocable tokens. */
  const publicCodeClient = {
    GenerateSecret: false,
    AllowedOAuthFlows: ['code'],
    AllowedOAuthFlowsUserPoolClient: true,
    SupportedIdentityProviders: ['COGNITO'],
    CallbackURLs: ['http://localhost/callback'],
    EnableTokenRevocation: true,
  };

  it('the public app clients allow no direct sign-in flow (SRP, password, custom): ExplicitAuthFlows is exactly refresh, set, not left to Cognito\'s default', () => {
    const clients = ofType(statefulResources, 'AWS::Cognito::UserPoolClient');
    expect(clients.map(([, c]) => c.Properties?.ClientName).sort()).toEqual(['interactive-sign-in', 'mcp-sign-in']);
    // Absent, Cognito applies ALLOW_USER_SRP_AUTH, ALLOW_CUSTOM_AUTH and ALLOW_REFRESH_TOKEN_AUTH.
    for (const [, client] of clients) expect(client.Properties?.ExplicitAuthFlows, String(client.Properties?.ClientName)).toEqual(['ALLOW_REFRESH_TOKEN_AUTH']);
  });

  it('people sign in through managed login with a public app client: authorization code (PKCE), interactive scopes only', () => {
    const clients = ofType(statefulResources, 'AWS::Cognito::UserPoolClient');
    expect(clients).toHaveLength(2);
    const [clientId, client] = only(clients.filter(([, c]) => c.Properties?.ClientName === 'interactive-sign-in'));
    expect(client.Properties).toMatchObject({ ClientName: 'interactive-sign-in', ...publicCodeClient });
    const scopes = JSON.stringify(client.Properties?.AllowedOAuthScopes);
    for (const scope of interactiveScopes) expect(scopes).toContain(`/${scope}`);
    for (const scope of systemOnlyScopes) expect(scopes).not.toContain(`/${scope}`);
    expect(scopes).toContain('/context:read');
    stateful.hasResourceProperties('AWS::Cognito::UserPoolDomain', { ManagedLoginVersion: 2 });
    stateful.hasResourceProperties('AWS::Cognito::ManagedLoginBranding', { ClientId: { Ref: clientId }, UseCognitoProvidedValues: true });
    stateful.hasResourceProperties('AWS::Cognito::UserPool', { AliasAttributes: ['email'], UserPoolTier: 'ESSENTIALS' });
    // The authorizer accepts user tokens of that client (on the REST API), and not as an MCP client.
    const env = apiResources[logicalId(built.api, built.api.authorizerFunction)]?.Properties?.Environment?.Variables ?? {};
    expect(JSON.stringify(env.INTERACTIVE_CLIENT_IDS)).toContain(clientId);
    expect(JSON.stringify(env.MCP_CLIENT_IDS)).not.toContain(clientId);
  });

  it('MCP connectors sign in through an app client of their own: public, authorization code (PKCE), only the read scopes the tools need', () => {
    const [clientId, client] = only(ofType(statefulResources, 'AWS::Cognito::UserPoolClient').filter(([, c]) => c.Properties?.ClientName === 'mcp-sign-in'));
    expect(logicalId(built.stateful, built.stateful.mcpClient)).toBe(clientId);
    expect(client.Properties).toMatchObject(publicCodeClient);
    // No password or other direct sign-in flows: managed login (authorization code) only.
    expect(client.Properties?.ExplicitAuthFlows).toEqual(['ALLOW_REFRESH_TOKEN_AUTH']);
    // Exactly the MCP tools' scopes (one source: shared/composition/mcp-contracts.ts), each prefixed with the resource server.
    const scopes = (client.Properties?.AllowedOAuthScopes as Json[]).map((scope) => JSON.stringify(scope));
    expect(scopes).toHaveLength(mcpScopes.length);
    for (const scope of mcpScopes) expect(scopes.some((granted) => granted.includes(`/${scope}`))).toBe(true);
    expect(mcpScopes).toContain('context:read');
    for (const scope of allScopes.filter((s) => !mcpScopes.includes(s))) expect(scopes.join(' ')).not.toContain(`/${scope}`);
    expect(scopes.join(' ')).not.toContain(':write');
    stateful.hasResourceProperties('AWS::Cognito::ManagedLoginBranding', { ClientId: { Ref: clientId }, UseCognitoProvidedValues: true });
    // The authorizer knows it as an MCP client (its tokens on /mcp only), not as a REST one.
    const env = apiResources[logicalId(built.api, built.api.authorizerFunction)]?.Properties?.Environment?.Variables ?? {};
    expect(JSON.stringify(env.MCP_CLIENT_IDS)).toContain(clientId);
    expect(JSON.stringify(env.INTERACTIVE_CLIENT_IDS)).not.toContain(clientId);
    expect(JSON.stringify(stateful.findOutputs('McpClientId'))).toContain(clientId);
  });

  it('the key of stored secrets is a symmetric KMS key with automatic rotation, retained', () => {
    const [, key] = only(ofType(statefulResources, 'AWS::KMS::Key'));
    expect(key.Properties?.EnableKeyRotation).toBe(true);
    expect(key.Properties?.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
    expect(key.DeletionPolicy).toBe('Retain');
  });

  it('only the webhooks API (GenerateDataKey, Decrypt) and the delivery worker (Decrypt) may use the key of stored secrets', () => {
    const users = ofType(apiResources, 'AWS::IAM::Policy')
      .flatMap(([, policy]) => asArray<Json>(policy.Properties?.PolicyDocument?.Statement).map((statement) => [policy, statement] as const))
      .filter(([, statement]) => asArray<string>(statement.Action).some((action) => action.startsWith('kms:')));
    const roles = users.map(([policy]) => asArray<Json>(policy.Properties?.Roles)[0].Ref as string).sort();
    expect(roles).toEqual([roleOf(logicalId(built.api, built.api.functions.webhooks)), roleOf(logicalId(built.api, built.api.workers.webhooks!))].sort());
  });

  it('the cursor secret is a generated 64-character string', () => {
    stateful.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: 64 }),
    });
  });
});

describe('outputs', () => {
  it('publishes the API URL, token URL, pool, table, bucket and queue URLs', () => {
    expect(Object.keys(api.findOutputs('*'))).toContain('ApiUrl');
    const outputs = Object.keys(stateful.findOutputs('*'));
    for (const name of ['TokenUrl', 'UserPoolId', 'InteractiveClientId', 'McpClientId', 'TableName', 'BucketName']) expect(outputs).toContain(name);
    expect(outputs).toContain('ControlTableName');
    expect(outputs.filter((o) => /QueueUrl$/.test(o))).toHaveLength(queues.length);
    expect(JSON.stringify(stateful.findOutputs('TokenUrl'))).toContain('.auth.eu-north-1.amazoncognito.com/oauth2/token');
  });
});

describe('tracing off (-c tracing=off)', () => {
  let offApp: App;
  let offBuilt: BuiltApp;
  let offResources: Resources;

  beforeAll(() => {
    ({ app: offApp, built: offBuilt } = newApp({ tracing: 'off' }));
    // In-memory synthesis throws on a failing cdk-nag report: an acknowledgement of X-Ray grants that no longer exist must not fail it.
    offApp.synth();
    offResources = Template.fromStack(offBuilt.api).toJSON().Resources as Resources;
  }, 120_000);

  it('no function has X-Ray tracing; every one has POWERTOOLS_TRACE_ENABLED=false (the tracing module is never loaded)', () => {
    expect(offBuilt.api.tracing).toBe('off');
    const functions = ofType(offResources, 'AWS::Lambda::Function');
    expect(functions).toHaveLength(ofType(apiResources, 'AWS::Lambda::Function').length);
    for (const [id, fn] of functions) {
      expect(fn.Properties?.TracingConfig, id).toBeUndefined();
      expect(fn.Properties?.Environment?.Variables?.POWERTOOLS_TRACE_ENABLED, id).toBe('false');
    }
  });

  it('no role policy holds an X-Ray action', () => {
    const actions = ofType(offResources, 'AWS::IAM::Policy').flatMap(([, p]) => asArray<Json>(p.Properties?.PolicyDocument?.Statement).flatMap((s) => asArray<string>(s.Action)));
    expect(actions.length).toBeGreaterThan(0);
    expect(actions.filter((action) => action.startsWith('xray:'))).toEqual([]);
  });

  it('leaves no unacknowledged cdk-nag finding', () => {
    const report = new AwsSolutionsChecks().validateScope(offApp);
    expect(report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
  });

  it('an unknown value fails synthesis, naming the key and the allowed values', () => {
    expect(() => newApp({ tracing: 'passive' })).toThrow('Context key "tracing" is "passive": allowed values are "active", "off" (default "active").');
  });
});

describe('cdk-nag (AwsSolutions)', () => {
  it('leaves no unacknowledged error or warning', () => {
    // cdk-nag 3.x: validateScope() is the documented direct entry point; acknowledged findings are left out.
    const report = new AwsSolutionsChecks().validateScope(app);
    const findings = report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);
    expect(findings).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('the synthesized validation report has no failing plugin', () => {
    const report = JSON.parse(readFileSync(path.join(assemblyDir, VALIDATION_REPORT_FILE), 'utf8')) as {
      pluginReports: { pluginName: string; conclusion: string; violations: { ruleName: string; severity: string }[] }[];
    };
    const errors = report.pluginReports.flatMap((p) =>
      p.violations.filter((v) => v.severity === 'error' || v.severity === 'fatal').map((v) => `${p.pluginName} ${v.ruleName}`),
    );
    expect(errors).toEqual([]);
    expect(report.pluginReports.filter((p) => p.conclusion === 'failure')).toEqual([]);
  });

  it('runs at synthesis: buildApp adds the AwsSolutions rules as a validation plugin', () => {
    const addPlugins = vi.spyOn(Validations.prototype, 'addPlugins');
    try {
      newApp();
      expect(addPlugins.mock.calls.flat().filter((plugin) => plugin instanceof AwsSolutionsChecks)).toHaveLength(1);
    } finally {
      addPlugins.mockRestore();
    }
  });

  it('fails synthesis on an unacknowledged error (that plugin, on an app of one stack)', () => {
    // CDK's own CloudFormation rules are the app's (above), not this stack's.
    const failing = new App({ outdir: nextOutdir(), builtinCloudFormationValidation: false, context: { ...cdkJson.context, '@aws-cdk/core:appMode': 'inmemory' } });
    checkWithCdkNag(failing);
    new Secret(new Stack(failing, 'Unacknowledged', { env: { account: '123456789012', region: 'eu-north-1' } }), 'Secret');
    expect(() => failing.synth()).toThrow(/AwsSolutions-SMG4/);
  }, 120_000);
});
