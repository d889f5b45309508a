/** Queues of the service; CDK and the local stack both create them from this table. Each has a dead-letter queue. */
export interface QueueDefinition {
  /** Logical name; the queue is `<prefix>-<name>` and its DLQ `<prefix>-<name>-dlq`. */
  name: 'imports' | 'reconciliation' | 'uploads' | 'webhook-fanout' | 'webhooks';
  description: string;
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  /** Env var through which functions learn the queue URL. */
  urlEnv: string;
  /** SQS-triggered worker module (exports `handler`), once the feature that consumes the queue exists. */
  workerEntry?: string;
  /** Messages per worker invocation (SQS event source batch size). */
  batchSize?: number;
  /** Env var with the DLQ's URL, for a worker that moves messages there itself (webhook deliveries that end dead). */
  dlqUrlEnv?: string;
  /** Message retention in days (SQS default 4); the DLQ keeps messages 14 days. */
  retentionDays?: number;
}

export const queues: readonly QueueDefinition[] = [
  {
    name: 'imports',
    description: 'Accepted imports (the payload is a claim check in S3), applied by the import worker',
    visibilityTimeoutSeconds: 900,
    maxReceiveCount: 5,
    urlEnv: 'IMPORTS_QUEUE_URL',
    workerEntry: 'functions/import-worker/handler.ts',
    batchSize: 1,
  },
  {
    name: 'reconciliation',
    description: 'Post-fetch engines (auto-reconciliation) after each fetch run',
    visibilityTimeoutSeconds: 300,
    maxReceiveCount: 5,
    urlEnv: 'RECONCILIATION_QUEUE_URL',
    workerEntry: 'functions/post-fetch-worker/handler.ts',
    batchSize: 5,
  },
  {
    name: 'uploads',
    description: 'S3 ObjectCreated notifications of document uploads (uploads/pending/), completed by the completion worker',
    visibilityTimeoutSeconds: 120,
    maxReceiveCount: 5,
    urlEnv: 'UPLOADS_QUEUE_URL',
    workerEntry: 'functions/upload-worker/handler.ts',
    batchSize: 5,
  },
  {
    name: 'webhook-fanout',
    description: 'Outbox events relayed from the table stream, fanned out to one delivery per matching webhook subscription',
    visibilityTimeoutSeconds: 120,
    maxReceiveCount: 8,
    urlEnv: 'WEBHOOK_FANOUT_QUEUE_URL',
    workerEntry: 'functions/webhook-fanout-worker/handler.ts',
    batchSize: 10,
  },
  {
    // Retries are new messages with a delay (chained past 15 minutes), so receives count only
    // crashes: 8 of them move a message to the DLQ; a delivery out of attempts is moved there too.
    name: 'webhooks',
    description: 'Webhook deliveries and handshakes: one attempt per message, retries re-sent with a delay',
    visibilityTimeoutSeconds: 120,
    maxReceiveCount: 8,
    urlEnv: 'WEBHOOKS_QUEUE_URL',
    workerEntry: 'functions/webhook-delivery-worker/handler.ts',
    batchSize: 10,
    dlqUrlEnv: 'WEBHOOKS_DLQ_URL',
    retentionDays: 14,
  },
];

/** A queue's URL (or its dead-letter queue's) from the function's environment (urlEnv, dlqUrlEnv); throws when unset. */
export const queueUrl = (name: QueueDefinition['name'], options: { deadLetter?: boolean } = {}): string => {
  const queue = queues.find((candidate) => candidate.name === name)!;
  const env = options.deadLetter ? queue.dlqUrlEnv : queue.urlEnv;
  const url = env && process.env[env];
  if (!url) throw new Error(`Missing environment variable ${env ?? `(the ${name} queue has no dead-letter URL variable)`}`);
  return url;
};
