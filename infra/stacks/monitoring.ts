import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription, UrlSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import {
  ApiGatewayV2HttpApiMetricFactory,
  AxisPosition,
  DefaultDashboardFactory,
  MetricStatistic,
  MonitoringFacade,
  SnsAlarmActionStrategy,
  type AlarmWithAnnotation,
  type CustomAlarmThreshold,
} from 'cdk-monitoring-constructs';
import type { Construct } from 'constructs';
import { metricCatalogue, metricNamespace, metricServiceName, type MetricDimensions, type MetricKey } from '../../shared/platform/metric-catalogue';
import { functionGroups, type FunctionGroup } from '../../shared/routes';
import {
  alarmPeriodMinutes,
  alarmThresholds as t,
  latencyDatapointsToAlarm,
  queueOldestMessageAgeSeconds,
  slowApiGroups,
} from './alarm-thresholds';
import type { ApiStack } from './api-stack';
import type { StatefulStack } from './stateful-stack';

/** Where each alarm's runbook is: its description says `Runbook: docs/operations.md#<anchor>`. */
export const runbookPage = 'docs/operations.md';

/** The runbook sections (docs/operations.md headings, as GitHub anchors) the alarms point at. */
export const runbooks = {
  api5xx: 'api-5xx-rate',
  apiLatency: 'api-p99-latency',
  duration: 'function-p99-duration',
  errors: 'function-errors',
  throttles: 'function-throttles',
  queueAge: 'queue-oldest-message-age',
  dynamoThrottles: 'dynamodb-throttled-requests',
  dynamoErrors: 'dynamodb-system-errors',
  relayIteratorAge: 'webhook-relay-iterator-age',
  webhookFailures: 'webhook-delivery-failure-rate',
  autoDisabled: 'subscriptions-auto-disabled',
} as const;
/** One runbook section per dead-letter queue: each holds a different kind of work. */
export const deadLetterRunbook = (queue: string): string => `dead-letter-queue-${queue}`;

/**
 * Outcome values of the WebhookDeliveryOutcomes metric (its catalogue entry names them): the
 * failure rate is (failed + gave_up) / all attempts.
 */
const webhookOutcomes = { delivered: 'delivered', failed: 'failed', gaveUp: 'gave_up' } as const satisfies Record<string, MetricDimensions<'webhookDeliveryOutcomes'>['outcome']>;

export interface MonitoringStackProps extends StackProps {
  /** Alarm and dashboard names start with it. */
  readonly resourcePrefix: string;
  readonly api: ApiStack;
  readonly stateful: StatefulStack;
  /** E-mail addresses subscribed to the alarm topic (each confirms by a link AWS sends). */
  readonly alarmEmails?: readonly string[];
  /** HTTPS endpoints subscribed to the alarm topic (each confirms the SubscriptionConfirmation message). */
  readonly alarmHttpsEndpoints?: readonly string[];
}

/**
 * Alarms, one dashboard and the alarm topic, all from cdk-monitoring-constructs. Thresholds live in
 * alarm-thresholds.ts; every alarm points at its runbook in docs/operations.md.
 */
export class MonitoringStack extends Stack {
  readonly topic: Topic;
  readonly facade: MonitoringFacade;
  readonly dashboards: DefaultDashboardFactory;

  constructor(scope: Construct, id: string, props: MonitoringStackProps) {
    super(scope, id, props);
    const { api, stateful } = props;

    // ---- The alarm topic: KMS-encrypted, TLS only. CloudWatch may use the key and publish, on behalf of
    // this stack's alarms only (their names start with the prefix): without both grants notifications are dropped.
    const fromOwnAlarms = {
      StringEquals: { 'aws:SourceAccount': this.account },
      ArnLike: { 'aws:SourceArn': `arn:${this.partition}:cloudwatch:${this.region}:${this.account}:alarm:${props.resourcePrefix}-*` },
    };
    const key = new Key(this, 'AlarmTopicKey', { description: 'Encrypts the alarm topic', enableKeyRotation: true });
    key.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: fromOwnAlarms,
      }),
    );
    this.topic = new Topic(this, 'AlarmTopic', {
      topicName: `${props.resourcePrefix}-alarms`,
      displayName: `${props.resourcePrefix} alarms`,
      masterKey: key,
      enforceSSL: true,
    });
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: fromOwnAlarms,
      }),
    );
    for (const email of props.alarmEmails ?? []) this.topic.addSubscription(new EmailSubscription(email));
    for (const url of props.alarmHttpsEndpoints ?? []) this.topic.addSubscription(new UrlSubscription(url));

    // ---- Facade: every alarm notifies the topic (on alarm and back to OK), 5-minute periods.
    this.dashboards = new DefaultDashboardFactory(this, 'Dashboards', {
      dashboardNamePrefix: props.resourcePrefix,
      createDashboard: true,
      createSummaryDashboard: false,
      createAlarmDashboard: false,
    });
    const notify = new SnsAlarmActionStrategy({ onAlarmTopic: this.topic, onOkTopic: this.topic });
    this.facade = new MonitoringFacade(this, 'Monitoring', {
      alarmFactoryDefaults: { alarmNamePrefix: props.resourcePrefix, actionsEnabled: true, action: notify, datapointsToAlarm: 1, evaluationPeriods: 1 },
      metricFactoryDefaults: { period: Duration.minutes(alarmPeriodMinutes) },
      dashboardFactory: this.dashboards,
    });
    const facade = this.facade;
    const metrics = facade.createMetricFactory();
    // What the alarm means (the notification's first line), its runbook; no data (no traffic, an idle queue) is not a breach.
    const runbook = (anchor: string, description: string): Pick<CustomAlarmThreshold, 'runbookLink' | 'alarmDescriptionOverride' | 'treatMissingDataOverride'> => ({
      runbookLink: `${runbookPage}#${anchor}`,
      alarmDescriptionOverride: description,
      treatMissingDataOverride: TreatMissingData.NOT_BREACHING,
    });
    const latency = { datapointsToAlarm: latencyDatapointsToAlarm, evaluationPeriods: latencyDatapointsToAlarm };

    // ---- HTTP API: share of 5xx answers (with a minimum of requests) and p99 latency.
    facade.addLargeHeader('Ledger service');
    const httpApi = new ApiGatewayV2HttpApiMetricFactory(metrics, { api: api.api, apiStage: api.stage.stageName });
    facade.monitorApiGatewayV2HttpApi({
      api: api.api,
      apiStage: api.stage.stageName,
      humanReadableName: 'HTTP API',
      alarmFriendlyName: 'api',
      addLatencyP99Alarm: { Critical: { maxLatency: Duration.millis(t.apiP99LatencyMs.value), ...latency, ...runbook(runbooks.apiLatency, `HTTP API p99 latency above ${t.apiP99LatencyMs.value} ms for 15 minutes.`) } },
    });
    facade.monitorCustom({
      humanReadableName: 'HTTP API 5xx share',
      alarmFriendlyName: 'api-5xx',
      metricGroups: [
        {
          title: '5xx answers (% of requests)',
          metrics: [
            {
              alarmFriendlyName: 'percent',
              metric: metrics.createMetricMath(
                `IF(FILL(requests, 0) >= ${t.apiMinRequests.value}, 100 * FILL(errors, 0) / requests, 0)`,
                { requests: httpApi.metricInvocationCount(), errors: httpApi.metric5xxCount() },
                '5xx %',
              ),
              addAlarm: {
                Critical: {
                  threshold: t.apiServerErrorPercent.value,
                  comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
                  ...runbook(runbooks.api5xx, `More than ${t.apiServerErrorPercent.value}% of HTTP API requests answered 5xx in 5 minutes.`),
                },
              },
            },
          ],
        },
      ],
    });

    // ---- Functions: errors, throttles and p99 duration of each (an API group is one function).
    const apiFunctions: [name: string, fn: IFunction, p99Ms: number][] = [
      ...(Object.keys(functionGroups) as FunctionGroup[]).map((group): [string, IFunction, number] => [
        `api-${group}`,
        api.functions[group],
        (slowApiGroups.includes(group) ? t.slowApiGroupP99DurationMs : t.apiGroupP99DurationMs).value,
      ]),
      ['authorizer', api.authorizerFunction, t.apiGroupP99DurationMs.value],
    ];
    const backgroundFunctions: [name: string, fn: IFunction][] = [
      ...Object.entries(api.workers).map(([queue, fn]): [string, IFunction] => [`worker-${queue}`, fn]),
      ['webhook-relay', api.relayFunction],
      ['outbox-sweeper', api.sweeperFunction],
    ];
    const functionAlarms = (name: string) => ({
      addFaultCountAlarm: { Critical: { maxErrorCount: t.functionErrors.value, ...runbook(runbooks.errors, `${name}: the function failed (a crash, out of memory or a timeout).`) } },
      addThrottlesCountAlarm: {
        Critical: { maxErrorCount: t.functionThrottles.value, ...runbook(runbooks.throttles, `${name}: Lambda refused invocations (concurrency used up).`) },
      },
    });
    facade.addLargeHeader('Functions');
    for (const [name, fn, p99Ms] of apiFunctions) {
      facade.monitorLambdaFunction({
        lambdaFunction: fn,
        humanReadableName: name,
        alarmFriendlyName: name,
        isIterator: false,
        ...functionAlarms(name),
        addLatencyP99Alarm: { Critical: { maxLatency: Duration.millis(p99Ms), ...latency, ...runbook(runbooks.duration, `${name}: p99 duration above ${p99Ms} ms for 15 minutes.`) } },
      });
    }
    for (const [name, fn] of backgroundFunctions) {
      const relay = fn === api.relayFunction;
      facade.monitorLambdaFunction({
        lambdaFunction: fn,
        humanReadableName: name,
        alarmFriendlyName: name,
        isIterator: relay,
        ...functionAlarms(name),
        addLatencyP99Alarm: {
          Critical: { maxLatencyPercentageOfTimeout: t.backgroundP99DurationPercentOfTimeout.value, ...latency, ...runbook(runbooks.duration, `${name}: p99 duration near its timeout for 15 minutes.`) },
        },
        ...(relay && { addMaxIteratorAgeAlarm: { Critical: { maxAgeInMillis: t.relayIteratorAgeMs.value, ...runbook(runbooks.relayIteratorAge, `The webhook relay is more than ${t.relayIteratorAgeMs.value / 1000} s behind the outbox table's stream.`) } } }),
      });
    }

    // ---- Queues: the age of each queue's oldest message, and any message in any dead-letter queue.
    facade.addLargeHeader('Queues');
    for (const { definition, queue, deadLetterQueue } of stateful.queues) {
      facade.monitorSqsQueueWithDlq({
        queue,
        deadLetterQueue,
        humanReadableName: `${definition.name} queue`,
        alarmFriendlyName: `queue-${definition.name}`,
        addQueueMaxMessageAgeAlarm: {
          Critical: { maxAgeInSeconds: queueOldestMessageAgeSeconds[definition.name].value, ...runbook(runbooks.queueAge, `${definition.name} queue: its oldest message is older than ${queueOldestMessageAgeSeconds[definition.name].value} s.`) },
        },
        addDeadLetterQueueMaxSizeAlarm: { Critical: { maxMessageCount: t.deadLetterMessages.value, ...runbook(deadLetterRunbook(definition.name), `${definition.name} dead-letter queue holds messages: work that did not happen.`) } },
      });
    }
    facade.monitorSqsQueue({
      queue: stateful.webhookRelayDlq,
      humanReadableName: 'webhook-relay dead-letter queue',
      alarmFriendlyName: 'queue-webhook-relay-dlq',
      addQueueMaxSizeAlarm: { Critical: { maxMessageCount: t.deadLetterMessages.value, ...runbook(deadLetterRunbook('webhook-relay'), 'webhook-relay dead-letter queue holds a failed stream batch.') } },
    });

    // ---- Tables: throttled requests and system errors.
    /** The operations the service and its stream consumer make (at most 10: an alarm's metric math takes 10 metrics). */
    const dynamoOperations = ['GetItem', 'BatchGetItem', 'Query', 'Scan', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems', 'GetRecords'] as const;
    facade.addLargeHeader('Tables');
    const tables: [name: string, table: ITable][] = [
      ['table', stateful.table],
      ['control-table', stateful.controlTable],
      ['outbox-table', stateful.outboxTable],
    ];
    for (const [name, table] of tables) {
      const throttles = { Critical: { maxThrottledEventsThreshold: t.dynamoThrottledEvents.value, ...runbook(runbooks.dynamoThrottles, `${name}: DynamoDB throttled requests.`) } };
      facade.monitorDynamoTable({
        table,
        humanReadableName: name,
        alarmFriendlyName: name,
        addReadThrottledEventsCountAlarm: throttles,
        addWriteThrottledEventsCountAlarm: throttles,
      });
      // System errors, summed over the operations the service makes (the library's sum leaves out
      // TransactWriteItems, which most writes go through); DynamoDB reports them only when they
      // happen, so each term is FILLed with 0 or one silent operation would leave the sum empty.
      const systemErrors = Object.fromEntries(
        dynamoOperations.map((operation) => [
          `systemErrors${operation}`,
          metrics.adaptMetric(table.metric('SystemErrors', { dimensionsMap: { TableName: table.tableName, Operation: operation }, statistic: MetricStatistic.SUM })),
        ]),
      );
      facade.monitorCustom({
        humanReadableName: `${name} system errors`,
        alarmFriendlyName: name,
        metricGroups: [
          {
            title: `${name}: DynamoDB system errors`,
            metrics: [
              {
                alarmFriendlyName: 'SystemError-Count',
                metric: metrics.createMetricMath(Object.keys(systemErrors).map((id) => `FILL(${id}, 0)`).join(' + '), systemErrors, 'System errors'),
                addAlarm: {
                  Critical: {
                    threshold: t.dynamoSystemErrors.value,
                    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
                    ...runbook(runbooks.dynamoErrors, `${name}: DynamoDB system errors (HTTP 500).`),
                  },
                },
              },
            ],
          },
        ],
      });
    }

    // ---- The service's own metrics (shared/platform/metric-catalogue.ts): every entry on the dashboard, by its dimensions.
    facade.addLargeHeader('Service metrics');
    facade.monitorCustom({
      humanReadableName: 'Service metrics',
      alarmFriendlyName: 'service',
      metricGroups: Object.values(metricCatalogue).map(({ name, unit, dimensions }) => ({
        title: dimensions.length ? `${name} by ${dimensions.join(', ')}` : name,
        metrics: [
          {
            namespace: metricNamespace,
            searchQuery: `MetricName="${name}"`,
            dimensionsMap: { service: metricServiceName, ...Object.fromEntries(dimensions.map((dimension) => [dimension, undefined])) },
            statistic: unit === 'Count' ? MetricStatistic.SUM : MetricStatistic.P99,
          },
        ],
      })),
    });

    // ---- Alarms on the service's own metrics: webhooks.
    const serviceMetric = <K extends MetricKey>(key: K, dimensions: MetricDimensions<K>, label: string) =>
      metrics.createMetric(metricCatalogue[key].name, MetricStatistic.SUM, label, { service: metricServiceName, ...dimensions }, undefined, metricNamespace);
    // ---- Per function group: the share of its requests answered 5xx (the catalogue's GroupRequests).
    const statusClasses = ['2xx', '3xx', '4xx', '5xx'] as const;
    // Metric ids are unique within the dashboard graph all groups share: `<group>_<status class>`.
    const groupMetricId = (group: FunctionGroup, statusClass: string) => `${group.replace(/\W/g, '_')}_${statusClass}`;
    const groupFiveXxShare = (group: FunctionGroup) => {
      const total = statusClasses.map((statusClass) => `FILL(${groupMetricId(group, statusClass)}, 0)`).join(' + ');
      return `IF(${total} >= ${t.apiMinRequests.value}, 100 * FILL(${groupMetricId(group, '5xx')}, 0) / (${total}), 0)`;
    };
    facade.monitorCustom({
      humanReadableName: 'API 5xx share per function group',
      alarmFriendlyName: 'api-group-5xx',
      metricGroups: [
        {
          title: '5xx answers per function group (% of its requests)',
          metrics: (Object.keys(functionGroups) as FunctionGroup[]).map((group) => ({
            alarmFriendlyName: group,
            metric: metrics.createMetricMath(
              groupFiveXxShare(group),
              Object.fromEntries(statusClasses.map((statusClass) => [groupMetricId(group, statusClass), serviceMetric('groupRequests', { group, statusClass }, `${group} ${statusClass}`)])),
              `${group} 5xx %`,
            ),
            addAlarm: {
              Critical: {
                threshold: t.apiServerErrorPercent.value,
                comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
                ...runbook(runbooks.api5xx, `More than ${t.apiServerErrorPercent.value}% of the ${group} group's requests answered 5xx in 5 minutes.`),
              },
            },
          })),
        },
      ],
    });

    const outcomes = Object.fromEntries(
      Object.entries(webhookOutcomes).map(([id, outcome]) => [id, serviceMetric('webhookDeliveryOutcomes', { outcome }, outcome)]),
    );
    const attempts = 'FILL(delivered, 0) + FILL(failed, 0) + FILL(gaveUp, 0)';
    facade.monitorCustom({
      humanReadableName: 'Webhooks',
      alarmFriendlyName: 'webhooks',
      metricGroups: [
        {
          title: 'Delivery attempts by outcome',
          metrics: Object.values(outcomes),
        },
        {
          title: 'Failed delivery attempts (%)',
          metrics: [
            {
              alarmFriendlyName: 'failure-percent',
              metric: metrics.createMetricMath(
                `IF(${attempts} >= ${t.webhookMinAttempts.value}, 100 * (FILL(failed, 0) + FILL(gaveUp, 0)) / (${attempts}), 0)`,
                outcomes,
                'failed %',
              ),
              addAlarm: {
                Critical: {
                  threshold: t.webhookFailurePercent.value,
                  comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
                  ...runbook(runbooks.webhookFailures, `More than ${t.webhookFailurePercent.value}% of webhook delivery attempts failed in 5 minutes.`),
                },
              },
            },
          ],
        },
        {
          title: 'Subscriptions switched off',
          metrics: [
            {
              alarmFriendlyName: 'subscriptions-auto-disabled',
              metric: serviceMetric('subscriptionsAutoDisabled', {}, 'auto-disabled'),
              position: AxisPosition.LEFT,
              addAlarm: {
                Critical: {
                  threshold: t.subscriptionsAutoDisabled.value,
                  comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
                  ...runbook(runbooks.autoDisabled, 'The service switched off a webhook subscription after failed deliveries.'),
                },
              },
            },
          ],
        },
      ],
    });
  }

  /** Every alarm this stack defines. */
  alarms(): AlarmWithAnnotation[] {
    return this.facade.createdAlarms();
  }
}
