import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { App, type CfnElement, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../infra/app';
import { alarmThresholds, latencyDatapointsToAlarm, queueOldestMessageAgeSeconds, slowApiGroups, thresholdRows } from '../../infra/stacks/alarm-thresholds';
import { runbookPage } from '../../infra/stacks/monitoring';
import { metricCatalogue, metricNamespace, metricServiceName } from '../../shared/platform/metric-catalogue';
import { functionGroups, type FunctionGroup } from '../../shared/routes';
import { appOutdirs } from '../support/cdk-outdir';
import type { Json } from '../support/json';

const thisFile = fileURLToPath(import.meta.url);
const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> };
const operationsDoc = readFileSync(new URL(`../../${runbookPage}`, import.meta.url), 'utf8');

const nextOutdir = appOutdirs();

/**
 * The app as `cdk synth` builds it (cdk.json context), bundling skipped, plus `context` (as `-c key=value`).
 * CDK's own CloudFormation rules are left to test/infra/stack.test.ts, which synthesizes the same
 * stacks with them (about 3 s of CPU a synthesis); cdk-nag runs here too.
 */
const newApp = (context: Record<string, string> = {}): { app: App; built: BuiltApp } => {
  const app = new App({
    outdir: nextOutdir(),
    builtinCloudFormationValidation: false,
    context: { ...cdkJson.context, account: '123456789012', region: 'eu-north-1', 'aws:cdk:bundling-stacks': [], '@aws-cdk/core:appMode': 'inmemory', ...context },
  });
  return { app, built: buildApp(app, { resolveEntry: () => thisFile }) };
};

type Resource = { Type: string; Properties: Record<string, Json> };
interface MetricStat {
  namespace: string;
  metricName: string;
  stat: string;
  dimensions: Record<string, Json>;
}
interface Alarm {
  id: string;
  props: Record<string, Json>;
  metrics: MetricStat[];
  /** The metric-math expression the alarm watches, when it watches one. */
  expression?: string;
}

let built: BuiltApp;
let alarms: Alarm[];
let resources: Record<string, Resource>;
let subscribed: { app: App; template: Template };

const alarmsOf = (template: Template): Alarm[] =>
  Object.entries(template.findResources('AWS::CloudWatch::Alarm') as Record<string, Resource>).map(([id, { Properties: props }]) => {
    const queries = (props.Metrics ?? []) as Json[];
    return {
      id,
      props,
      metrics: queries
        .filter((query) => query.MetricStat)
        .map(({ MetricStat: { Metric: metric, Stat: stat } }) => ({
          namespace: metric.Namespace as string,
          metricName: metric.MetricName as string,
          stat: stat as string,
          dimensions: Object.fromEntries(((metric.Dimensions ?? []) as Json[]).map((d) => [d.Name as string, d.Value])),
        })),
      expression: queries.find((query) => query.ReturnData && query.Expression)?.Expression as string | undefined,
    };
  });

const logicalId = (stack: Stack, construct: { node: { defaultChild?: unknown } }): string => stack.getLogicalId(construct.node.defaultChild as CfnElement);

/** True when a dimension value is a reference to the resource with this logical id (in another stack). */
const refersTo = (value: Json, id: string): boolean => typeof value === 'object' && JSON.stringify(value).includes(id);

/** The alarms watching `metricName` in `namespace` (directly or inside their metric math) whose `dimension` refers to `id`. */
const alarmsOn = (namespace: string, metricName: string, dimension: string, id: string): Alarm[] =>
  alarms.filter((alarm) => alarm.metrics.some((m) => m.namespace === namespace && m.metricName === metricName && refersTo(m.dimensions[dimension], id)));

const only = (found: Alarm[]): Alarm => {
  expect(found.map((alarm) => alarm.props.AlarmName)).toHaveLength(1);
  return found[0]!;
};

/** GitHub's anchors of a Markdown file's headings. */
const anchorsOf = (markdown: string): string[] =>
  [...markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} (.+)$/gm)].map((match) =>
    match[1]!
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9 _-]/g, '')
      .replace(/ /g, '-'),
  );

beforeAll(() => {
  const plain = newApp();
  built = plain.built;
  // Synthesis runs cdk-nag; under vitest CDK throws on any failing report.
  plain.app.synth();
  const template = Template.fromStack(built.monitoring);
  alarms = alarmsOf(template);
  resources = template.toJSON().Resources as Record<string, Resource>;

  const withSubscriptions = newApp({ alarmEmail: 'ops@example.com, oncall@example.com', alarmHttpsEndpoint: 'https://alerts.example.com/hook' });
  withSubscriptions.app.synth();
  subscribed = { app: withSubscriptions.app, template: Template.fromStack(withSubscriptions.built.monitoring) };
}, 180_000);

describe('alarms', () => {
  const statefulId = (construct: { node: { defaultChild?: unknown } }) => logicalId(built.stateful, construct);
  const apiId = (construct: { node: { defaultChild?: unknown } }) => logicalId(built.api, construct);

  it('one alarm per dead-letter queue (each queue\'s and the webhook relay\'s): any visible message', () => {
    const deadLetterQueues = [...built.stateful.queues.map((q) => q.deadLetterQueue), built.stateful.webhookRelayDlq];
    expect(deadLetterQueues).toHaveLength(built.stateful.queues.length + 1);
    for (const dlq of deadLetterQueues) {
      const alarm = only(alarmsOn('AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'QueueName', statefulId(dlq)));
      expect(alarm.metrics[0]?.stat).toBe('Maximum');
      expect(alarm.props.Threshold).toBe(alarmThresholds.deadLetterMessages.value);
      expect(alarm.props.Threshold).toBe(0);
      expect(alarm.props.ComparisonOperator).toBe('GreaterThanThreshold');
    }
    // No alarm on the visible messages of a source queue: those are work in progress.
    for (const { queue } of built.stateful.queues) expect(alarmsOn('AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'QueueName', statefulId(queue))).toEqual([]);
  });

  it('one age-of-oldest-message alarm per queue, at that queue\'s threshold', () => {
    for (const { definition, queue } of built.stateful.queues) {
      const alarm = only(alarmsOn('AWS/SQS', 'ApproximateAgeOfOldestMessage', 'QueueName', statefulId(queue)));
      expect(alarm.props.Threshold).toBe(queueOldestMessageAgeSeconds[definition.name].value);
      expect(alarm.props.ComparisonOperator).toBe('GreaterThanThreshold');
    }
  });

  it('every function of the API stack: errors and throttles above zero, and its p99 duration', () => {
    const functionIds = Object.entries(Template.fromStack(built.api).findResources('AWS::Lambda::Function')).map(([id]) => id);
    expect(functionIds.length).toBeGreaterThanOrEqual(Object.keys(functionGroups).length + 3);
    for (const id of functionIds) {
      for (const metricName of ['Errors', 'Throttles']) {
        const alarm = only(alarmsOn('AWS/Lambda', metricName, 'FunctionName', id));
        expect(alarm.metrics[0]?.stat).toBe('Sum');
        expect(alarm.props.Threshold, `${id} ${metricName}`).toBe(0);
      }
      const duration = only(alarmsOn('AWS/Lambda', 'Duration', 'FunctionName', id));
      expect(duration.metrics[0]?.stat).toBe('p99');
      expect(duration.props.EvaluationPeriods).toBe(latencyDatapointsToAlarm);
      expect(duration.props.DatapointsToAlarm).toBe(latencyDatapointsToAlarm);
    }
  });

  it('p99 duration per API function group (the slow groups get their own threshold), background functions at a share of their timeout', () => {
    const p99Of = (id: string) => only(alarmsOn('AWS/Lambda', 'Duration', 'FunctionName', id)).props.Threshold;
    for (const group of Object.keys(functionGroups) as FunctionGroup[]) {
      const expected = slowApiGroups.includes(group) ? alarmThresholds.slowApiGroupP99DurationMs : alarmThresholds.apiGroupP99DurationMs;
      expect(p99Of(apiId(built.api.functions[group])), group).toBe(expected.value);
    }
    expect(p99Of(apiId(built.api.authorizerFunction))).toBe(alarmThresholds.apiGroupP99DurationMs.value);
    for (const fn of [...Object.values(built.api.workers), built.api.relayFunction, built.api.sweeperFunction]) {
      const timeoutMs = fn.timeout!.toMilliseconds();
      expect(p99Of(apiId(fn))).toBe(Math.floor((timeoutMs * alarmThresholds.backgroundP99DurationPercentOfTimeout.value) / 100));
    }
  });

  it('the HTTP API: p99 latency of the $default stage', () => {
    const alarm = only(alarmsOn('AWS/ApiGateway', 'Latency', 'ApiId', apiId(built.api.api)));
    expect(alarm.metrics[0]).toMatchObject({ stat: 'p99', dimensions: { Stage: '$default' } });
    expect(alarm.props.Threshold).toBe(alarmThresholds.apiP99LatencyMs.value);
  });

  it('the HTTP API: the share of 5xx answers, metric math over 5xx and Count with a minimum of requests', () => {
    const alarm = only(alarmsOn('AWS/ApiGateway', '5xx', 'ApiId', apiId(built.api.api)));
    expect(alarm.metrics.map((m) => `${m.metricName} ${m.stat} ${String(m.dimensions.Stage)}`).sort()).toEqual(['5xx Sum $default', 'Count Sum $default']);
    expect(alarm.expression).toBe(`IF(FILL(requests, 0) >= ${alarmThresholds.apiMinRequests.value}, 100 * FILL(errors, 0) / requests, 0)`);
    expect(alarm.props.Threshold).toBe(alarmThresholds.apiServerErrorPercent.value);
    expect(alarm.props.ComparisonOperator).toBe('GreaterThanThreshold');
  });

  it('each function group: the share of its requests answered 5xx, metric math over the catalogue\'s GroupRequests by status class', () => {
    const { name, dimensions } = metricCatalogue.groupRequests;
    for (const group of Object.keys(functionGroups)) {
      const alarm = only(alarms.filter((a) => a.metrics.some((m) => m.namespace === metricNamespace && m.metricName === name && m.dimensions.group === group)));
      for (const m of alarm.metrics) {
        expect(m).toMatchObject({ namespace: metricNamespace, metricName: name, stat: 'Sum' });
        expect(Object.keys(m.dimensions).sort()).toEqual(['service', ...dimensions].sort());
        expect(m.dimensions).toMatchObject({ service: metricServiceName, group });
      }
      expect(alarm.metrics.map((m) => m.dimensions.statusClass).sort()).toEqual(['2xx', '3xx', '4xx', '5xx']);
      const id = (statusClass: string) => `${group.replace(/\W/g, '_')}_${statusClass}`;
      const total = ['2xx', '3xx', '4xx', '5xx'].map((statusClass) => `FILL(${id(statusClass)}, 0)`).join(' + ');
      expect(alarm.expression).toBe(`IF(${total} >= ${alarmThresholds.apiMinRequests.value}, 100 * FILL(${id('5xx')}, 0) / (${total}), 0)`);
      expect(alarm.props.Threshold).toBe(alarmThresholds.apiServerErrorPercent.value);
    }
  });

  it('each table: read throttles, write throttles and system errors', () => {
    for (const table of [built.stateful.table, built.stateful.controlTable, built.stateful.outboxTable]) {
      const id = statefulId(table);
      for (const metricName of ['ReadThrottleEvents', 'WriteThrottleEvents']) {
        expect(only(alarmsOn('AWS/DynamoDB', metricName, 'TableName', id)).props.Threshold).toBe(alarmThresholds.dynamoThrottledEvents.value);
      }
      const systemErrors = only(alarmsOn('AWS/DynamoDB', 'SystemErrors', 'TableName', id));
      expect(systemErrors.props.Threshold).toBe(alarmThresholds.dynamoSystemErrors.value);
      // Summed over the operations DynamoDB reports them by, the transactions most writes go through
      // included, each filled with 0 (DynamoDB reports them only when they happen).
      const operations = systemErrors.metrics.map((m) => m.dimensions.Operation);
      expect(operations).toEqual(expect.arrayContaining(['GetItem', 'Query', 'PutItem', 'UpdateItem', 'BatchWriteItem', 'TransactWriteItems', 'GetRecords']));
      expect(systemErrors.expression).toBe(operations.map((operation) => `FILL(systemErrors${operation}, 0)`).join(' + '));
    }
  });

  it("the outbox stream relay's iterator age", () => {
    const alarm = only(alarmsOn('AWS/Lambda', 'IteratorAge', 'FunctionName', apiId(built.api.relayFunction)));
    expect(alarm.metrics[0]?.stat).toBe('Maximum');
    expect(alarm.props.Threshold).toBe(alarmThresholds.relayIteratorAgeMs.value);
    expect(alarms.filter((a) => a.metrics.some((m) => m.metricName === 'IteratorAge'))).toHaveLength(1);
  });

  it("webhook delivery failure rate: metric math over the catalogue's delivery outcomes", () => {
    const { name, dimensions } = metricCatalogue.webhookDeliveryOutcomes;
    const alarm = only(alarms.filter((a) => a.metrics.some((m) => m.namespace === metricNamespace && m.metricName === name)));
    for (const m of alarm.metrics) {
      expect(m).toMatchObject({ namespace: metricNamespace, metricName: name, stat: 'Sum' });
      expect(Object.keys(m.dimensions).sort()).toEqual(['service', ...dimensions].sort());
      expect(m.dimensions.service).toBe(metricServiceName);
    }
    expect(alarm.metrics.map((m) => m.dimensions.outcome).sort()).toEqual(['delivered', 'failed', 'gave_up']);
    const attempts = 'FILL(delivered, 0) + FILL(failed, 0) + FILL(gaveUp, 0)';
    expect(alarm.expression).toBe(`IF(${attempts} >= ${alarmThresholds.webhookMinAttempts.value}, 100 * (FILL(failed, 0) + FILL(gaveUp, 0)) / (${attempts}), 0)`);
    expect(alarm.props.Threshold).toBe(alarmThresholds.webhookFailurePercent.value);
  });

  it('subscriptions switched off by the service: any', () => {
    const { name } = metricCatalogue.subscriptionsAutoDisabled;
    const alarm = only(alarms.filter((a) => a.metrics.some((m) => m.namespace === metricNamespace && m.metricName === name)));
    expect(alarm.metrics).toEqual([{ namespace: metricNamespace, metricName: name, stat: 'Sum', dimensions: { service: metricServiceName } }]);
    expect(alarm.props.Threshold).toBe(0);
    expect(alarm.props.ComparisonOperator).toBe('GreaterThanThreshold');
  });

  it('has no other alarms', () => {
    const functions = Object.keys(Template.fromStack(built.api).findResources('AWS::Lambda::Function')).length;
    const queues = built.stateful.queues.length;
    // API latency and 5xx; 5xx per function group; per function errors, throttles, duration; per queue
    // age and DLQ, the relay DLQ; per table 3; relay iterator age; webhook failures and auto-disabled subscriptions.
    expect(alarms).toHaveLength(2 + Object.keys(functionGroups).length + 3 * functions + 2 * queues + 1 + 3 * 3 + 1 + 2);
  });

  it('every alarm notifies the alarm topic when it fires and when it clears, says what is wrong, and ignores missing data', () => {
    const [topicId] = Object.keys(resources).filter((id) => resources[id]?.Type === 'AWS::SNS::Topic');
    for (const alarm of alarms) {
      expect(alarm.props.ActionsEnabled, alarm.props.AlarmName).toBe(true);
      expect(alarm.props.AlarmActions, alarm.props.AlarmName).toEqual([{ Ref: topicId }]);
      expect(alarm.props.OKActions, alarm.props.AlarmName).toEqual([{ Ref: topicId }]);
      expect(alarm.props.TreatMissingData, alarm.props.AlarmName).toBe('notBreaching');
      expect(alarm.props.AlarmName, alarm.props.AlarmName).toMatch(/^ledger-/);
      // Says what is wrong in the service's words (the notification's first line), not the library's default.
      expect(alarm.props.AlarmDescription, alarm.props.AlarmName).not.toMatch(/has been breached|is too high|above threshold/);
    }
  });
});

describe('runbooks (docs/operations.md)', () => {
  const runbookOf = (description: string): string | undefined => description.match(new RegExp(`Runbook: ${runbookPage}#([a-z0-9-]+)`))?.[1];

  it('every alarm the construct defines names its runbook section, and the section exists', () => {
    const created = built.monitoring.alarms();
    expect(created).toHaveLength(alarms.length);
    const anchors = anchorsOf(operationsDoc);
    for (const { alarmName, alarmDescription } of created) {
      const anchor = runbookOf(alarmDescription);
      expect(anchor, `${alarmName} has no runbook link`).toBeDefined();
      expect(anchors, `${alarmName}: no heading for #${anchor} in ${runbookPage}`).toContain(anchor);
    }
    for (const alarm of alarms) expect(runbookOf(alarm.props.AlarmDescription as string), alarm.props.AlarmName).toBeDefined();
  });

  it('one runbook section per dead-letter queue', () => {
    const anchors = anchorsOf(operationsDoc);
    for (const name of [...built.stateful.queues.map((q) => q.definition.name), 'webhook-relay']) expect(anchors).toContain(`dead-letter-queue-${name}`);
  });

  it('the thresholds table lists every threshold with its current value, unit and reason', () => {
    const rows = operationsDoc.split('\n').filter((line) => line.startsWith('| `'));
    expect(rows).toEqual(thresholdRows().map(({ name, value, unit, reason }) => `| \`${name}\` | ${value} | ${unit} | ${reason} |`));
  });
});

describe('dashboard and topic', () => {
  it('has one dashboard with the API, the functions, the queues, the tables and every catalogue metric', () => {
    const dashboards = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0]!.Properties.DashboardBody);
    for (const text of ['AWS/ApiGateway', 'AWS/Lambda', 'AWS/SQS', 'AWS/DynamoDB', ...Object.values(metricCatalogue).map((m) => m.name)]) expect(body).toContain(text);
  });

  it('one topic, encrypted with a rotated KMS key, TLS only; CloudWatch may use the key and publish for this stack\'s alarms only', () => {
    const topics = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::SNS::Topic');
    expect(topics).toHaveLength(1);
    const [topicId, topic] = topics[0]!;
    expect(topic.Properties.TopicName).toBe('ledger-alarms');
    const keyId = (topic.Properties.KmsMasterKeyId)['Fn::GetAtt'][0] as string;
    expect(resources[keyId]?.Type).toBe('AWS::KMS::Key');
    expect(resources[keyId]?.Properties.EnableKeyRotation).toBe(true);
    // Both grants hold only for this stack's alarms: the SourceArn pattern must match every alarm name.
    const fromOwnAlarms = (statement: Json) => {
      expect(statement.Condition.StringEquals).toEqual({ 'aws:SourceAccount': '123456789012' });
      const pattern = JSON.stringify(statement.Condition.ArnLike['aws:SourceArn']);
      expect(pattern).toContain(':alarm:ledger-*');
      for (const alarm of alarms) expect(alarm.props.AlarmName).toMatch(/^ledger-/);
    };
    const keyStatements = (resources[keyId]!.Properties.KeyPolicy.Statement as Json[]).filter((s) => s.Principal?.Service === 'cloudwatch.amazonaws.com');
    expect(keyStatements).toHaveLength(1);
    expect(keyStatements[0].Action).toEqual(['kms:Decrypt', 'kms:GenerateDataKey*']);
    fromOwnAlarms(keyStatements[0]);
    const policy = Object.values(resources).find((r) => r.Type === 'AWS::SNS::TopicPolicy')!;
    expect(policy.Properties.Topics).toEqual([{ Ref: topicId }]);
    const statements = policy.Properties.PolicyDocument.Statement as Json[];
    expect(statements.some((s) => s.Effect === 'Deny' && s.Condition?.Bool?.['aws:SecureTransport'] === 'false')).toBe(true);
    const publish = statements.filter((s) => s.Effect === 'Allow' && s.Principal?.Service === 'cloudwatch.amazonaws.com' && s.Action === 'sns:Publish');
    expect(publish).toHaveLength(1);
    fromOwnAlarms(publish[0]);
  });

  it('has no subscription unless the context names one', () => {
    expect(Object.values(resources).filter((r) => r.Type === 'AWS::SNS::Subscription')).toEqual([]);
  });

  it('subscribes -c alarmEmail (a comma-separated list) and -c alarmHttpsEndpoint to the topic', () => {
    const { template } = subscribed;
    const [topicId] = Object.keys(template.findResources('AWS::SNS::Topic'));
    template.resourceCountIs('AWS::SNS::Subscription', 3);
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: { Ref: topicId } });
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com', TopicArn: { Ref: topicId } });
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'https', Endpoint: 'https://alerts.example.com/hook', TopicArn: { Ref: topicId } });
  });

  it('cdk-nag finds nothing in the app with subscriptions', () => {
    const report = new AwsSolutionsChecks().validateScope(subscribed.app);
    expect(report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
  });
});
