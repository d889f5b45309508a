/**
 * Every metric the functions emit (CloudWatch embedded metric format), and the dimensions each carries.
 * The functions publish through this list and the dashboard and alarms read from it, so a name is written once.
 * Dimensions stay low-cardinality: never a company, organization or client id.
 */
export const metricNamespace = 'LedgerService';

/** Powertools adds `service` to every metric; one value for the whole service keeps alarm dimension sets fixed. */
export const metricServiceName = 'ledger-api';

export const metricCatalogue = {
  /** One per API request; `statusClass` is `2xx`, `3xx`, `4xx` or `5xx`. */
  requests: { name: 'Requests', unit: 'Count', dimensions: ['operation', 'statusClass'] },
  /** The same requests by function group (`fallback` for unknown routes): the per-group 5xx alarms read it. */
  groupRequests: { name: 'GroupRequests', unit: 'Count', dimensions: ['group', 'statusClass'] },
  /** One per problem+json answer, by problem code (the `code` member, e.g. `validation_failed`). */
  problems: { name: 'Problems', unit: 'Count', dimensions: ['code'] },
  /** Requests refused by the rate limiter (429). */
  rateLimitRefusals: { name: 'RateLimitRefusals', unit: 'Count', dimensions: [] },
  /** Import rows applied and rejected, per import kind. */
  importRowsApplied: { name: 'ImportRowsApplied', unit: 'Count', dimensions: ['kind'] },
  importRowsFailed: { name: 'ImportRowsFailed', unit: 'Count', dimensions: ['kind'] },
  /** Wall time of one import job from start to its final status, per kind. */
  importDuration: { name: 'ImportDuration', unit: 'Milliseconds', dimensions: ['kind'] },
  /** Import messages the outbox sweeper sent again (an import left queued, its message never sent), per import kind (`saft` for a SAF-T import). */
  importsRequeued: { name: 'ImportsRequeued', unit: 'Count', dimensions: ['kind'] },
  /** Webhook delivery attempts by `outcome` (`delivered`, `failed`, `gave_up`) and `attempt` (`1`…`n`, capped at `6+`). */
  webhookDeliveries: { name: 'WebhookDeliveries', unit: 'Count', dimensions: ['outcome', 'attempt'] },
  /** Webhook delivery attempts by outcome only: the numerator and denominator of the failure-rate alarm. */
  webhookDeliveryOutcomes: { name: 'WebhookDeliveryOutcomes', unit: 'Count', dimensions: ['outcome'] },
  /** Subscriptions the service switched off after repeated failed deliveries. */
  subscriptionsAutoDisabled: { name: 'SubscriptionsAutoDisabled', unit: 'Count', dimensions: [] },
  /** Company context rebuilds (the MCP context), and the lag from the change to the rebuild. */
  contextRebuilds: { name: 'ContextRebuilds', unit: 'Count', dimensions: [] },
  contextRebuildLag: { name: 'ContextRebuildLag', unit: 'Milliseconds', dimensions: [] },
  /** MCP tool calls by `tool` (one of the tools; `unknown` for a name that is none) and `outcome` (`ok`, or the tool error's code: `not_found`, `validation_failed`, ...). */
  mcpToolCalls: { name: 'McpToolCalls', unit: 'Count', dimensions: ['tool', 'outcome'] },
  /** Authorizer decisions served from its cache, and those verified afresh. */
  authorizerCacheHits: { name: 'AuthorizerCacheHits', unit: 'Count', dimensions: [] },
  authorizerCacheMisses: { name: 'AuthorizerCacheMisses', unit: 'Count', dimensions: [] },
} as const satisfies Record<string, { name: string; unit: 'Count' | 'Milliseconds'; dimensions: readonly string[] }>;

export type MetricKey = keyof typeof metricCatalogue;
export type MetricDimensions<K extends MetricKey> = Record<(typeof metricCatalogue)[K]['dimensions'][number], string>;
