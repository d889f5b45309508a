import type { QueueDefinition } from '../../shared/queues';
import type { FunctionGroup } from '../../shared/routes';

/**
 * Every alarm threshold of the monitoring stack (infra/stacks/monitoring.ts), each with its reason.
 * docs/operations.md lists them (test/infra/monitoring.test.ts holds the two together).
 */
export interface Threshold {
  readonly value: number;
  readonly unit: string;
  readonly reason: string;
}

/** Each alarm looks at 5-minute periods; latency alarms need this many breaching periods in a row, the others one. */
export const alarmPeriodMinutes = 5;
export const latencyDatapointsToAlarm = 3;

/** API groups whose requests do heavy work by design, held to `slowApiGroupP99DurationMs` instead of `apiGroupP99DurationMs`. */
export const slowApiGroups: readonly FunctionGroup[] = ['imports', 'documents', 'access', 'webhooks', 'mcp'];

export const alarmThresholds = {
  apiServerErrorPercent: {
    value: 1,
    unit: '% of requests',
    reason: 'More than 1 in 100 requests answered 5xx in 5 minutes is a fault of the service, not a client mistake.',
  },
  apiMinRequests: {
    value: 20,
    unit: 'requests / 5 min',
    reason: 'Below this a single failure is a large share; the function error alarms still catch crashes at low traffic.',
  },
  apiP99LatencyMs: {
    value: 5000,
    unit: 'ms',
    reason: 'Reads answer in well under a second; a p99 of 5 s for 15 minutes means callers are timing out or retrying.',
  },
  apiGroupP99DurationMs: {
    value: 3000,
    unit: 'ms',
    reason: 'Reads and small writes of the other API groups, and the authorizer; 3 s p99 for 15 minutes is a slow dependency or a hot partition.',
  },
  slowApiGroupP99DurationMs: {
    value: 15000,
    unit: 'ms',
    reason: 'Import payloads, 50 MiB document checks, access recomputation, webhook handshakes (15 s bound) and MCP tool calls; near their 29 s timeout they start failing.',
  },
  backgroundP99DurationPercentOfTimeout: {
    value: 80,
    unit: '% of the function timeout',
    reason: 'Queue workers, the webhook relay and the outbox sweeper: close to the timeout the next slower run is cut off and retried.',
  },
  functionErrors: {
    value: 0,
    unit: 'errors / 5 min',
    reason: 'Handlers answer failures themselves (problem+json, batch item failures): a Lambda error is a crash or a timeout.',
  },
  functionThrottles: {
    value: 0,
    unit: 'throttles / 5 min',
    reason: 'No function has reserved concurrency: a throttle means the account concurrency limit is reached and requests are refused.',
  },
  deadLetterMessages: {
    value: 0,
    unit: 'visible messages',
    reason: 'A message in a dead-letter queue is work that did not happen; each one needs a decision (redrive or purge).',
  },
  dynamoThrottledEvents: {
    value: 0,
    unit: 'throttled requests / 5 min',
    reason: 'On-demand tables throttle only past a partition or account limit: every throttle is a request retried or failed.',
  },
  dynamoSystemErrors: {
    value: 0,
    unit: 'errors / 5 min',
    reason: 'DynamoDB internal errors (HTTP 500); the SDK retries them, so a count above zero means some still failed or slowed.',
  },
  relayIteratorAgeMs: {
    value: 300_000,
    unit: 'ms',
    reason: 'Outbox events reach the feed within seconds; 5 minutes behind means the relay is stuck on a batch (the sweeper takes over at 10).',
  },
  webhookFailurePercent: {
    value: 25,
    unit: '% of delivery attempts',
    reason: 'Single receivers fail often; a quarter of all attempts failing points at the sender (network, signing) or a large receiver down.',
  },
  webhookMinAttempts: {
    value: 20,
    unit: 'attempts / 5 min',
    reason: 'Below this one unreachable receiver alone crosses the share.',
  },
  subscriptionsAutoDisabled: {
    value: 0,
    unit: 'subscriptions / 5 min',
    reason: 'A subscription switched off stops all deliveries to that integrator until they re-enable it: tell them.',
  },
} as const satisfies Record<string, Threshold>;

/** Age of the oldest message per queue, in seconds: above it the queue's worker is not keeping up. */
export const queueOldestMessageAgeSeconds = {
  imports: {
    value: 3600,
    unit: 's',
    reason: "One import runs up to 12.5 minutes (the worker's timeout, a sixth under the queue's 15-minute visibility timeout); an hour means imports are stuck or retried (5 receives of 15 minutes each).",
  },
  reconciliation: { value: 1800, unit: 's', reason: 'Post-fetch runs take seconds to minutes; 30 minutes means they fail and are retried.' },
  uploads: { value: 1200, unit: 's', reason: 'A person waits for the document to become available; a completion that waits for a GL-line deletion is sent again after up to 15 minutes, so 20 minutes means completion is failing.' },
  'webhook-fanout': { value: 600, unit: 's', reason: 'Fan-out is a few table reads per event; 10 minutes behind delays every delivery.' },
  webhooks: {
    value: 1800,
    unit: 's',
    reason: 'Retries are re-sent with up to 15 minutes of delay; twice that means deliveries are not being attempted.',
  },
} as const satisfies Record<QueueDefinition['name'], Threshold>;

/** Every threshold as `name`, value, unit and reason: the table in docs/operations.md. */
export const thresholdRows = (): { name: string; value: number; unit: string; reason: string }[] => [
  ...Object.entries(alarmThresholds).map(([name, threshold]) => ({ name, ...threshold })),
  ...Object.entries(queueOldestMessageAgeSeconds).map(([queue, threshold]) => ({ name: `queueOldestMessageAgeSeconds.${queue}`, ...threshold })),
];
