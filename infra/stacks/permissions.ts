import { contextPartitionPrefix } from '../../shared/context/keys';
import { identityPartitionPrefixes } from '../../shared/identity/keys';
import { peoplePartitionPrefixes } from '../../shared/identity/person-keys';
import { accessPartitionPrefixes } from '../../shared/identity/access-keys';
import { webhookPartitionPrefixes as webhook } from '../../shared/webhooks/keys';
import { controlPartitionPrefixes } from '../../shared/platform/keys';
import { queues, type QueueDefinition } from '../../shared/queues';
import { routesOfGroup, type FunctionGroup } from '../../shared/routes';

/**
 * Least privilege per function, as data: what each function group, queue worker and the
 * authorizer may touch. The API stack turns it into IAM statements (infra/stacks/api-stack.ts);
 * test/infra/stack.test.ts pins the resulting statements function by function.
 */
export type QueueName = QueueDefinition['name'];

export interface Permissions {
  /**
   * The single table (the books): `read` is GetItem, BatchGetItem and Query on the table and Query
   * on its indexes; `readWrite` adds PutItem, UpdateItem, DeleteItem, BatchWriteItem and
   * ConditionCheckItem (transactions). No Scan, no PartiQL, no streams: nothing uses them.
   */
  table: 'none' | 'read' | 'readWrite';
  /**
   * With `readWrite`: the only partitions it writes, by partition-key prefix (a
   * `dynamodb:LeadingKeys` condition on the write actions; reads stay table-wide). Absent: writes
   * anywhere in the table, for the reason given beside the entry.
   */
  tableWritePrefixes?: readonly string[];
  /**
   * The request-control table, written by the request pipeline (shared/platform/http.ts):
   * `rateLimit` (every route with a token) may only update `RATE#` items; `rateLimitAndIdempotency`
   * (groups with mutations) may also put, update and delete `IDEMPOTENCY#` items. It must match
   * the group's routes exactly (see controlAccessOfRoutes), which the API stack checks.
   */
  control: 'none' | 'rateLimit' | 'rateLimitAndIdempotency';
  /**
   * The outbox table (shared/outbox): `write` is PutItem only (an event is put in the transaction
   * of the change it announces); `read` is GetItem and Query on the table and Query on its
   * indexes (fan-out reads an event, the MCP context its company's newest); `relay` is UpdateItem
   * only (the relayed mark; the stream read comes with the relay's event source); `sweep` is the
   * relay's mark plus Query on the pending index and PutItem (the outbox sweeper: the job.failed
   * of an import it fails).
   */
  outbox: 'none' | 'read' | 'write' | 'relay' | 'sweep';
  cursorSecret: boolean;
  /** Documents bucket access (import payloads live there as claim checks). */
  bucket?: 'read' | 'readWrite';
  /**
   * Documents in the documents bucket (shared/documents/storage.ts): `api` presigns PUTs of
   * pending uploads and GETs of documents, reads and removes pending uploads and copies them to
   * their permanent key (completion); `worker` completes uploads (no presigning). Object actions
   * only, under the two prefixes.
   */
  documents?: 'api' | 'worker';
  /**
   * UpdateItem on the context service's items only (`CONTEXT#` partitions): a read of a stale picture
   * records its rebuild request there, so that one rebuild is queued at a time (shared/context).
   */
  contextRequests?: boolean;
  /** Queues the function sends to. */
  sendTo?: readonly QueueName[];
  /** Dead-letter queues the function sends to itself (the delivery worker moves dead deliveries there). */
  sendToDeadLetter?: readonly QueueName[];
  /**
   * The KMS key of stored secrets (shared/platform/envelope-encryption.ts): `seal` is
   * GenerateDataKey and Decrypt (the webhooks API seals new secrets and opens idempotent answers
   * that show one), `open` is Decrypt only (the delivery worker signs with the secrets).
   */
  secrets?: 'seal' | 'open';
  /** Settings the function's code reads beyond those that come with its grants (see environmentOf). */
  settings?: readonly SettingVariable[];
}

/**
 * Variables that are settings rather than a resource the function was granted: token
 * verification (the authorizer; the MCP endpoint's metadata names the issuer and scopes), URLs
 * named in documents, the MCP endpoint's host names.
 */
export const settingVariables = [
  'JWT_ISSUER',
  'JWKS_URI',
  'SCOPE_PREFIX',
  'INTERACTIVE_CLIENT_IDS',
  'MCP_CLIENT_IDS',
  'TOKEN_URL',
  'MCP_ALLOWED_HOSTS',
  'PROBLEM_TYPE_BASE',
  'IMPORT_INDEX_WRITES_PER_PARTITION_PER_SECOND',
] as const;
export type SettingVariable = (typeof settingVariables)[number];

/**
 * Exhaustive on purpose: a new group in shared/routes.ts does not compile until someone decides
 * what it may touch. Only companies, bank and imports change the books over HTTP; the other
 * groups read them (identity not even that: whoami answers from the authorizer's context).
 */
/*
 * Table-wide writes stay where LeadingKeys cannot say more: companies, bank, imports and documents
 * (and the import, reconciliation and uploads workers) write a company's books, which live in
 * partitions of many kinds whose keys start with the kind, not the company (COMPANY#, LEDGER#,
 * GLLINE#, BANKTX#, RECON#, JOB#, DOCUMENT#, ...). A condition can only list kinds; the list would
 * be nearly every kind of the books and would still reach every company's items. Their tenancy is
 * enforced by reach (shared/identity/reach.ts), not by IAM.
 */
export const groupPermissions: Record<FunctionGroup, Permissions> = {
  identity: { table: 'none', control: 'rateLimit', outbox: 'none', cursorSecret: false },
  companies: { table: 'readWrite', control: 'rateLimitAndIdempotency', outbox: 'write', cursorSecret: true },
  ledger: { table: 'read', control: 'rateLimit', outbox: 'none', cursorSecret: true },
  vat: { table: 'read', control: 'rateLimit', outbox: 'none', cursorSecret: false },
  bank: { table: 'readWrite', control: 'rateLimitAndIdempotency', outbox: 'write', cursorSecret: true },
  imports: { table: 'readWrite', control: 'rateLimitAndIdempotency', outbox: 'write', cursorSecret: true, bucket: 'readWrite', sendTo: ['imports'] },
  jobs: { table: 'read', control: 'rateLimit', outbox: 'none', cursorSecret: true },
  documents: { table: 'readWrite', control: 'rateLimitAndIdempotency', outbox: 'write', cursorSecret: true, documents: 'api' },
  // users reads people and effective access; access writes policies, assignments and recomputed effective access.
  users: { table: 'read', control: 'rateLimit', outbox: 'none', cursorSecret: true },
  // Writes policies, assignments and the effective access in each person's partition (shared/identity/access-repository.ts).
  access: {
    table: 'readWrite',
    tableWritePrefixes: [accessPartitionPrefixes.policy, accessPartitionPrefixes.assignment, peoplePartitionPrefixes.person],
    control: 'rateLimitAndIdempotency',
    outbox: 'none',
    cursorSecret: true,
  },
  // Writes subscriptions and the deliveries it queues (test events, redeliveries).
  webhooks: {
    table: 'readWrite',
    tableWritePrefixes: [webhook.subscription, webhook.delivery],
    control: 'rateLimitAndIdempotency',
    outbox: 'none',
    cursorSecret: true,
    sendTo: ['webhooks'],
    secrets: 'seal',
  },
  openapi: { table: 'none', control: 'none', outbox: 'none', cursorSecret: false, settings: ['TOKEN_URL'] },
  // The MCP tools run the read operations of the groups above, read the context service's pictures
  // (and the company's newest event, to tell whether they are current) and ask for their rebuild.
  // Its resource metadata names the issuer and scopes; its tool schemas come from the OpenAPI document (which names the token URL).
  mcp: {
    table: 'read',
    control: 'rateLimit',
    outbox: 'read',
    cursorSecret: true,
    contextRequests: true,
    sendTo: ['reconciliation'],
    settings: ['JWT_ISSUER', 'SCOPE_PREFIX', 'TOKEN_URL', 'MCP_ALLOWED_HOSTS'],
  },
  fallback: { table: 'none', control: 'none', outbox: 'none', cursorSecret: false },
};

/**
 * What each queue's worker may touch (only queues that declare a workerEntry get a worker). Workers run no request pipeline.
 * Event writers: the import worker (job.succeeded / job.failed), the reconciliation worker (automatic
 * reconciliation groups), the uploads worker (document.created); fan-out reads the event it delivers.
 */
export const workerPermissions: Record<QueueName, Permissions> = {
  imports: { table: 'readWrite', control: 'none', outbox: 'write', cursorSecret: false, bucket: 'readWrite', sendTo: ['reconciliation'], settings: ['IMPORT_INDEX_WRITES_PER_PARTITION_PER_SECOND'] },
  reconciliation: { table: 'readWrite', control: 'none', outbox: 'write', cursorSecret: false },
  // Sends to its own queue: a notification held off by a GL-line deletion is put back with a delay (shared/documents/worker.ts).
  uploads: { table: 'readWrite', control: 'none', outbox: 'write', cursorSecret: false, documents: 'worker', sendTo: ['uploads'] },
  // Fan-out writes deliveries only; the delivery worker deliveries, its slots and the subscription's state (handshake, failures, disable).
  'webhook-fanout': { table: 'readWrite', tableWritePrefixes: [webhook.delivery], control: 'none', outbox: 'read', cursorSecret: false, sendTo: ['webhooks'] },
  webhooks: {
    table: 'readWrite',
    tableWritePrefixes: [webhook.delivery, webhook.slot, webhook.subscription],
    control: 'none',
    outbox: 'none',
    cursorSecret: false,
    sendTo: ['webhooks'],
    sendToDeadLetter: ['webhooks'],
    secrets: 'open',
  },
};

/**
 * The relay (DynamoDB Streams on the outbox table): reads companies and feed counters and writes
 * the feed (single table), marks events relayed (outbox table), queues fan-out and context rebuilds.
 */
export const relayPermissions: Permissions = {
  table: 'readWrite',
  // The feed: the organization's sequence counter and its entries.
  tableWritePrefixes: [webhook.eventFeed],
  control: 'none',
  outbox: 'relay',
  cursorSecret: false,
  sendTo: ['webhook-fanout', 'reconciliation'],
};

/**
 * The outbox sweeper (functions/outbox-sweeper): the relay's step over the pending index, and the
 * imports queue for the messages of imports left queued without one (shared/saft/requeue.ts: it
 * reads their sweep index, GSI2, moves an entry it sends again on the import or SAF-T import item,
 * and fails one that never started through its terminal step: the import, its job, its lane, and
 * job.failed put in the outbox).
 */
export const sweeperPermissions: Permissions = {
  ...relayPermissions,
  tableWritePrefixes: [...(relayPermissions.tableWritePrefixes ?? []), 'IMPORT#', 'SAFT#', 'JOB#', 'LANE#'],
  outbox: 'sweep',
  sendTo: [...(relayPermissions.sendTo ?? []), 'imports'],
};

/**
 * What the request pipeline writes for a group's routes: rate limits on every route with a
 * token, idempotency records on mutations (which all need a token).
 */
export const controlAccessOfRoutes = (group: FunctionGroup): Permissions['control'] => {
  const groupRoutes = routesOfGroup(group);
  if (groupRoutes.some((route) => route.mutation)) return 'rateLimitAndIdempotency';
  if (groupRoutes.some((route) => route.auth === 'token')) return 'rateLimit';
  return 'none';
};

/** Throws when a group's declared control-table access is not exactly what its routes need. */
export const checkControlAccess = (permissions: Record<FunctionGroup, Permissions> = groupPermissions): void => {
  for (const [group, declared] of Object.entries(permissions) as [FunctionGroup, Permissions][]) {
    const needed = controlAccessOfRoutes(group);
    if (declared.control !== needed) {
      throw new Error(
        `Function group ${group}: control-table access is '${declared.control}', its routes need '${needed}' (infra/stacks/permissions.ts)`,
      );
    }
  }
};

export type DynamoAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:Query'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:BatchWriteItem'
  | 'dynamodb:ConditionCheckItem';

/** One DynamoDB grant, independent of CDK: which actions on which table, optionally only on items whose partition key starts with one of the prefixes. */
export interface DynamoGrant {
  actions: readonly DynamoAction[];
  /** `tableIndexes` / `outboxTableIndexes`: each global secondary index of that table, by name. */
  resource: 'table' | 'tableIndexes' | 'controlTable' | 'outboxTable' | 'outboxTableIndexes';
  /** IAM `ForAllValues:StringLike` on `dynamodb:LeadingKeys`, each prefix followed by `*`. */
  leadingKeyPrefixes?: readonly string[];
}

const tableReadActions: readonly DynamoAction[] = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];
const tableWriteActions: readonly DynamoAction[] = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
];

/** The DynamoDB grants of a function group or worker. */
export const dynamoGrants = (permissions: Permissions): DynamoGrant[] => {
  const grants: DynamoGrant[] = [];
  if (permissions.table === 'readWrite' && permissions.tableWritePrefixes) {
    grants.push({ actions: tableReadActions, resource: 'table' });
    grants.push({ actions: tableWriteActions, resource: 'table', leadingKeyPrefixes: permissions.tableWritePrefixes });
    grants.push({ actions: ['dynamodb:Query'], resource: 'tableIndexes' });
  } else if (permissions.table !== 'none') {
    grants.push({ actions: permissions.table === 'readWrite' ? [...tableReadActions, ...tableWriteActions] : tableReadActions, resource: 'table' });
    grants.push({ actions: ['dynamodb:Query'], resource: 'tableIndexes' });
  }
  if (permissions.contextRequests) {
    grants.push({ actions: ['dynamodb:UpdateItem'], resource: 'table', leadingKeyPrefixes: [contextPartitionPrefix] });
  }
  if (permissions.control !== 'none') {
    // shared/platform/rate-limit.ts: conditional UpdateItem only (no read first).
    grants.push({ actions: ['dynamodb:UpdateItem'], resource: 'controlTable', leadingKeyPrefixes: [controlPartitionPrefixes.rateLimit] });
  }
  if (permissions.control === 'rateLimitAndIdempotency') {
    // shared/platform/idempotency.ts: conditional PutItem (claim), UpdateItem (store), DeleteItem
    // (release), GetItem (the stored answer of a retry whose resource is gone).
    grants.push({
      actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem'],
      resource: 'controlTable',
      leadingKeyPrefixes: [controlPartitionPrefixes.idempotency],
    });
  }
  if (permissions.outbox === 'write') {
    // shared/outbox/repository.ts: outboxEventWrite, a Put in the change's transaction.
    grants.push({ actions: ['dynamodb:PutItem'], resource: 'outboxTable' });
  }
  if (permissions.outbox === 'read') {
    grants.push({ actions: ['dynamodb:GetItem', 'dynamodb:Query'], resource: 'outboxTable' });
    grants.push({ actions: ['dynamodb:Query'], resource: 'outboxTableIndexes' });
  }
  if (permissions.outbox === 'relay' || permissions.outbox === 'sweep') {
    // shared/outbox/repository.ts outboxRelayedWrite: the relay's conditional "relayed" mark, in the feed's transaction;
    // outboxFannedOut: the mark once its fan-out message is sent (out of the pending index).
    grants.push({ actions: ['dynamodb:UpdateItem'], resource: 'outboxTable' });
  }
  if (permissions.outbox === 'sweep') {
    // shared/outbox/repository.ts pendingEventsBefore: the pending index (GSI2); outboxEventWrite:
    // the job.failed of an import the sweeper fails (shared/saft/requeue.ts).
    grants.push({ actions: ['dynamodb:Query'], resource: 'outboxTableIndexes' });
    grants.push({ actions: ['dynamodb:PutItem'], resource: 'outboxTable' });
  }
  return grants;
};

export type S3Action = 's3:GetObject' | 's3:PutObject' | 's3:DeleteObject';

/** One documents-bucket grant: object actions under a key prefix (shared/documents/keys.ts). */
export interface DocumentsGrant {
  actions: readonly S3Action[];
  prefix: 'pending' | 'documents';
}

/**
 * The documents-bucket grants. The API presigns the PUT of a pending upload (so it needs
 * PutObject there: a presigned URL carries its signer's authority) and the GET of a document;
 * completion (API and worker) reads and deletes the pending upload and copies it (GetObject on
 * the source, PutObject on the target).
 */
export const documentsGrants = (permissions: Permissions): DocumentsGrant[] => {
  if (permissions.documents === 'api') {
    return [
      { actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'], prefix: 'pending' },
      { actions: ['s3:GetObject', 's3:PutObject'], prefix: 'documents' },
    ];
  }
  if (permissions.documents === 'worker') {
    return [
      { actions: ['s3:GetObject', 's3:DeleteObject'], prefix: 'pending' },
      { actions: ['s3:PutObject'], prefix: 'documents' },
    ];
  }
  return [];
};

/**
 * The authorizer reads the client item, and the organization item for clients stored before they
 * carried their organization's path (shared/identity/authorizer.ts): GetItem on those two kinds only.
 * For a signed-in person it reads the person's partition (the person, their memberships and a revoked token origin).
 */
export const authorizerDynamoGrants: readonly DynamoGrant[] = [
  { actions: ['dynamodb:GetItem'], resource: 'table', leadingKeyPrefixes: [identityPartitionPrefixes.apiClient, identityPartitionPrefixes.organization] },
  { actions: ['dynamodb:GetItem', 'dynamodb:Query'], resource: 'table', leadingKeyPrefixes: [peoplePartitionPrefixes.person] },
];

/** The KMS actions on the key of stored secrets. */
export const secretsKeyActions = (permissions: Permissions): string[] =>
  permissions.secrets === 'seal' ? ['kms:Decrypt', 'kms:GenerateDataKey'] : permissions.secrets === 'open' ? ['kms:Decrypt'] : [];

/** The authorizer verifies tokens (issuer, keys, scope prefix, interactive and MCP app clients) and reads the table. */
export const authorizerSettings: readonly SettingVariable[] = ['JWT_ISSUER', 'JWKS_URI', 'SCOPE_PREFIX', 'INTERACTIVE_CLIENT_IDS', 'MCP_CLIENT_IDS'];

/** Every function: the logger's service name. (No NODE_OPTIONS: stacks are source-mapped on first use, shared/platform/source-mapped-stacks.ts.) */
export const baseVariables = ['POWERTOOLS_SERVICE_NAME'] as const;

/**
 * The environment variables a function is given (names only; the API stack gives the values):
 * those of its grants (a table's name with access to it, a queue's URL with sending to it, the
 * cursor secret's ARN with reading it, the KMS key's id with using it), its declared settings,
 * and PROBLEM_TYPE_BASE for API functions (they render problems). Nothing else: a variable the
 * code reads but the function lacks fails the local stack, which checks every read of a function
 * against this set (infra/local/environment.ts), so the declaration cannot silently fall behind.
 */
export const environmentOf = (permissions: Permissions, kind: 'api' | 'worker'): string[] => {
  const names = new Set<string>(baseVariables);
  if (permissions.table !== 'none' || permissions.contextRequests) names.add('TABLE_NAME');
  if (permissions.control !== 'none') names.add('CONTROL_TABLE_NAME');
  if (permissions.outbox !== 'none') names.add('OUTBOX_TABLE_NAME');
  if (permissions.cursorSecret) names.add('CURSOR_SECRET_ARN');
  if (permissions.bucket || permissions.documents) names.add('BUCKET_NAME');
  if (permissions.secrets) names.add('SECRETS_KEY_ID');
  for (const name of permissions.sendTo ?? []) names.add(queues.find((queue) => queue.name === name)!.urlEnv);
  for (const name of permissions.sendToDeadLetter ?? []) names.add(queues.find((queue) => queue.name === name)!.dlqUrlEnv!);
  for (const name of permissions.settings ?? []) names.add(name);
  if (kind === 'api') names.add('PROBLEM_TYPE_BASE');
  return [...names].sort();
};

/** Every variable the API stack may give a function. */
export const deployedVariables: readonly string[] = [
  ...baseVariables,
  'TABLE_NAME',
  'CONTROL_TABLE_NAME',
  'OUTBOX_TABLE_NAME',
  'BUCKET_NAME',
  'CURSOR_SECRET_ARN',
  'SECRETS_KEY_ID',
  ...queues.flatMap((queue) => [queue.urlEnv, ...(queue.dlqUrlEnv ? [queue.dlqUrlEnv] : [])]),
  ...settingVariables,
];

/** The authorizer's variables (it has no Permissions entry: its grants are authorizerDynamoGrants). */
export const authorizerEnvironment = (): string[] => [...new Set([...baseVariables, 'TABLE_NAME', ...authorizerSettings])].sort();
