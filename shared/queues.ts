/** Queues of the service; CDK and the local stack both create them from this table. Each has a dead-letter queue. */
export interface QueueDefinition {
  /** Logical name; the queue is `<prefix>-<name>` and its DLQ `<prefix>-<name>-dlq`. */
  name: 'imports' | 'reconciliation' | 'uploads' | 'webhooks';
  description: string;
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  /** Env var through which functions learn the queue URL. */
  urlEnv: string;
  /** SQS-triggered worker module (exports `handler`), once the feature that consumes the queue exists. */
  workerEntry?: string;
  /** Messages per worker invocation (SQS event source batch size). */
  batchSize?: number;
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
  { name: 'webhooks', description: 'Webhook fan-out and delivery', visibilityTimeoutSeconds: 120, maxReceiveCount: 8, urlEnv: 'WEBHOOKS_QUEUE_URL' },
];
