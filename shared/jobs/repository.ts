import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { storedInteger, textOrNull } from '../db/attributes';
import type { TransactionWrite } from '../db/unit-of-work';
import { dynamo, tableName } from '../platform/aws';
import { queues } from '../queues';
import { jobCompanyIndexKeys, jobCompanyPartition, jobKeys, jobTreeIndexKeys, jobTreePartition, laneLockKeys } from './keys';
import type { Job, JobStatus } from './schemas';

/**
 * Jobs and their lane locks. A lane lock makes "one job per (type, scope) in flight" a
 * conditional write: taken when absent or when its lease ran out (a crashed worker), released
 * (deleted) on every terminal path, its lease extended while the job makes progress.
 */
export interface JobRecord extends Job {
  companyId: string;
}

const importsQueue = queues.find((queue) => queue.name === 'imports')!;

/**
 * A lease outlives every delivery of the import's message (each visibility timeout, redeliveries
 * included), and each delivery renews it: only a job whose message is gone loses its lane.
 */
export const laneLeaseMilliseconds = (importsQueue.visibilityTimeoutSeconds * importsQueue.maxReceiveCount + 300) * 1000;

/** Where a job's company sits: its organization tree and path (the job list's reach). */
export interface JobPlacement {
  rootOrganizationId: string;
  organizationPath: string;
}

/**
 * A new job's item, in its company's and its organization tree's list indexes. Timestamps not
 * reached yet are left out rather than stored as null, so that `if_not_exists(startedAt, ...)` in
 * markRunning and in the terminal step sets them (a stored null is an existing attribute and would
 * never be replaced); reads answer absent as null.
 */
export const jobItem = (job: JobRecord, placement: JobPlacement) => {
  const { startedAt, finishedAt, ...rest } = job;
  return {
    ...jobKeys(job.id),
    ...jobCompanyIndexKeys(job.companyId, job.createdAt, job.id),
    ...jobTreeIndexKeys(placement.rootOrganizationId, job.createdAt, job.id),
    entity: 'job',
    organizationPath: placement.organizationPath,
    ...rest,
    ...(startedAt !== null && { startedAt }),
    ...(finishedAt !== null && { finishedAt }),
  };
};

/** What the job list narrows by: the index partition, then filters on the job items. */
export interface JobListFilter {
  status?: JobStatus;
  type?: string;
  /** Only jobs of companies in this organization or below (callers below the root of their tree). */
  subtreePath?: string;
}

export type JobListSource = { companyId: string } | { rootOrganizationId: string };

export const toJobRecord = (item: Record<string, unknown>): JobRecord => ({
  id: item.id as string,
  type: item.type as string,
  scope: item.scope as JobRecord['scope'],
  status: item.status as JobStatus,
  createdAt: item.createdAt as string,
  startedAt: textOrNull(item.startedAt),
  finishedAt: textOrNull(item.finishedAt),
  resultUrl: item.resultUrl as string,
  error: (item.error as JobRecord['error'] | undefined) ?? null,
  companyId: item.companyId as string,
});

export const laneLockItem = (companyId: string, lane: string, jobId: string, importId: string, now: number) => ({
  ...laneLockKeys(companyId, lane),
  entity: 'laneLock',
  jobId,
  importId,
  leaseExpiresAt: now + laneLeaseMilliseconds,
});

/** Condition for taking a lane lock (use with :now). */
const laneFreeCondition = 'attribute_not_exists(PK) OR leaseExpiresAt < :now';

/** How a job ends: its status and, when failed, the error (code and message). */
export interface JobEnding {
  status: 'succeeded' | 'failed';
  error: { code: string; message: string } | null;
}

export const jobRepository = {
  /** Writes for a unit of work: take a company's lane for a job (refused while a live lease holds it). */
  takeLaneWrite(companyId: string, lane: string, jobId: string, importId: string, now: number): TransactionWrite {
    return {
      Put: {
        TableName: tableName(),
        Item: laneLockItem(companyId, lane, jobId, importId, now),
        ConditionExpression: laneFreeCondition,
        ExpressionAttributeValues: { ':now': now },
      },
    };
  },

  /** A check for a unit of work: the company's lane is free (no live lease holds it); nothing is written. */
  laneFreeCheck(companyId: string, lane: string, now: number): TransactionWrite {
    return {
      ConditionCheck: {
        TableName: tableName(),
        Key: laneLockKeys(companyId, lane),
        ConditionExpression: laneFreeCondition,
        ExpressionAttributeValues: { ':now': now },
      },
    };
  },

  /** Releases a lane, unless another job took it meanwhile (its lease ran out): that holder's lock stays. */
  releaseLaneWrite(companyId: string, lane: string, jobId: string): TransactionWrite {
    return {
      Delete: {
        TableName: tableName(),
        Key: laneLockKeys(companyId, lane),
        ConditionExpression: 'attribute_not_exists(PK) OR jobId = :job',
        ExpressionAttributeValues: { ':job': jobId },
      },
    };
  },

  createWrite(job: JobRecord, placement: JobPlacement): TransactionWrite {
    return { Put: { TableName: tableName(), Item: jobItem(job, placement) } };
  },

  /** The job's terminal status; startedAt is set too when the worker never got to start it. */
  finishWrite(jobId: string, ending: JobEnding, at: string): TransactionWrite {
    return {
      Update: {
        TableName: tableName(),
        Key: jobKeys(jobId),
        UpdateExpression: 'SET #status = :status, finishedAt = :at, startedAt = if_not_exists(startedAt, :at), #error = :error',
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: { ':status': ending.status, ':at': at, ':error': ending.error },
      },
    };
  },

  /** Read strongly: a client polls its job right after the 202 that created it (an eventually consistent read could answer 404). */
  async get(jobId: string): Promise<JobRecord | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: jobKeys(jobId), ConsistentRead: true }));
    return Item ? toJobRecord(Item) : undefined;
  },

  /**
   * One Query of a job index, newest first: a company's jobs (GSI1) or an organization tree's
   * (GSI2), narrowed by status, type and subtree with a filter (so a result may hold fewer items
   * than Limit; the caller goes on from LastEvaluatedKey).
   */
  async queryList(source: JobListSource, filter: JobListFilter, limit: number, startKey: Record<string, unknown> | undefined) {
    const conditions: string[] = [];
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    if (filter.status) {
      conditions.push('#status = :status');
      names['#status'] = 'status';
      values[':status'] = filter.status;
    }
    if (filter.type) {
      conditions.push('#type = :type');
      names['#type'] = 'type';
      values[':type'] = filter.type;
    }
    if (filter.subtreePath) {
      conditions.push('(organizationPath = :path OR begins_with(organizationPath, :below))');
      values[':path'] = filter.subtreePath;
      values[':below'] = `${filter.subtreePath}/`;
    }
    const index =
      'companyId' in source
        ? { IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk', pk: jobCompanyPartition(source.companyId) }
        : { IndexName: 'GSI2', KeyConditionExpression: 'GSI2PK = :pk', pk: jobTreePartition(source.rootOrganizationId) };
    return dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: index.IndexName,
        KeyConditionExpression: index.KeyConditionExpression,
        ...(conditions.length > 0 && { FilterExpression: conditions.join(' AND ') }),
        ...(Object.keys(names).length > 0 && { ExpressionAttributeNames: names }),
        ExpressionAttributeValues: { ':pk': index.pk, ...values },
        ScanIndexForward: false,
        Limit: limit,
        ExclusiveStartKey: startKey,
      }),
    );
  },

  async laneHolder(companyId: string, lane: string): Promise<{ jobId: string; importId: string; leaseExpiresAt: number } | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: laneLockKeys(companyId, lane), ConsistentRead: true }));
    return Item ? { jobId: Item.jobId as string, importId: Item.importId as string, leaseExpiresAt: storedInteger(Item.leaseExpiresAt) } : undefined;
  },

  /**
   * A delivery of the job's message holds its lane for a new lease: refused (false) when another
   * job's live lease holds it (the job waited past its lease, and the lane was taken meanwhile).
   */
  async holdLane(companyId: string, lane: string, jobId: string, importId: string, now: number): Promise<boolean> {
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: laneLockItem(companyId, lane, jobId, importId, now),
          ConditionExpression: `jobId = :job OR ${laneFreeCondition}`,
          ExpressionAttributeValues: { ':job': jobId, ':now': now },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  },

  async extendLease(companyId: string, lane: string, jobId: string, now: number): Promise<void> {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: laneLockKeys(companyId, lane),
        UpdateExpression: 'SET leaseExpiresAt = :until',
        ConditionExpression: 'jobId = :job',
        ExpressionAttributeValues: { ':until': now + laneLeaseMilliseconds, ':job': jobId },
      }),
    );
  },

  /**
   * The worker picked the job up: status running and, the first time, startedAt. A redelivery
   * keeps the first start. Jobs stored before timestamps were left out until reached carry
   * `startedAt: null`; the condition treats that as not started, so they get their start too.
   */
  async markRunning(jobId: string, startedAt: string): Promise<void> {
    const names = { '#status': 'status' };
    const values = { ':running': 'running' satisfies JobStatus, ':queued': 'queued' satisfies JobStatus };
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: jobKeys(jobId),
          UpdateExpression: 'SET #status = :running, startedAt = :at',
          ConditionExpression: '#status IN (:queued, :running) AND (attribute_not_exists(startedAt) OR startedAt = :null)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ...values, ':at': startedAt, ':null': null },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // Started before (a redelivery): only the status, and only while the job is not terminal.
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: jobKeys(jobId),
          UpdateExpression: 'SET #status = :running',
          ConditionExpression: '#status IN (:queued, :running)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    }
  },
};
