import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../platform/aws';
import { jobKeys, laneLockKeys } from '../imports/keys';
import type { Job, JobStatus } from './schemas';

/**
 * Jobs and their lane locks. A lane lock makes "one job per (type, scope) in flight" a
 * conditional write: taken when absent or when its lease ran out (a crashed worker), released
 * (deleted) on every terminal path, its lease extended while the job makes progress.
 */
export interface JobRecord extends Job {
  companyId: string;
}

/** A lease outlives the worker's visibility timeout, so only a dead job loses its lane. */
export const laneLeaseMilliseconds = 20 * 60_000;

export const jobItem = (job: JobRecord) => ({ ...jobKeys(job.id), entity: 'job', ...job });

export const laneLockItem = (companyId: string, lane: string, jobId: string, importId: string, now: number) => ({
  ...laneLockKeys(companyId, lane),
  entity: 'laneLock',
  jobId,
  importId,
  leaseExpiresAt: now + laneLeaseMilliseconds,
});

/** Condition for taking a lane lock (use with :now). */
export const laneFreeCondition = 'attribute_not_exists(PK) OR leaseExpiresAt < :now';

export const jobRepository = {
  async get(jobId: string): Promise<JobRecord | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: jobKeys(jobId) }));
    if (!Item) return undefined;
    const { PK: _pk, SK: _sk, entity: _entity, ...job } = Item;
    return job as JobRecord;
  },

  async laneHolder(companyId: string, lane: string): Promise<{ jobId: string; importId: string; leaseExpiresAt: number } | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: laneLockKeys(companyId, lane), ConsistentRead: true }));
    return Item ? { jobId: Item.jobId as string, importId: Item.importId as string, leaseExpiresAt: Number(String(Item.leaseExpiresAt)) } : undefined;
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

  async markRunning(jobId: string, startedAt: string): Promise<void> {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKeys(jobId),
        UpdateExpression: 'SET #status = :running, startedAt = if_not_exists(startedAt, :at)',
        ConditionExpression: '#status IN (:queued, :running)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':running': 'running' satisfies JobStatus, ':queued': 'queued' satisfies JobStatus, ':at': startedAt },
      }),
    );
  },
};
