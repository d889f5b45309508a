import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { outboxEventItem } from '../outbox/repository';
import { dynamo, tableName } from '../platform/aws';
import { jobKeys, laneLockKeys } from '../jobs/keys';
import { importKeys } from './keys';
import type { ImportItem, ImportProgress } from './repository';
import type { ImportRecord } from './schemas';

type Terminal = {
  status: 'succeeded' | 'failed';
  /** Machine-readable: the import's failureReason and the job's error.code. */
  failureReason?: string;
  /** Human-readable, for this failure: the job's error.message (else the reason's standard message). */
  failureDetail?: string;
  progress?: ImportProgress;
  fetchCompletion?: ImportRecord['fetchCompletion'];
};

/**
 * The one terminal step of an import: import, job, event and lane release in one transaction,
 * so a job never ends without its event and never keeps its lane. Returns false when the import
 * was already terminal (a redelivered message).
 */
export const finishImport = async (item: ImportItem, terminal: Terminal): Promise<boolean> => {
  const at = new Date().toISOString();
  const sets = ['#status = :status', 'completedAt = :at', 'updatedAt = :at', 'failureReason = :reason'];
  const values: Record<string, unknown> = { ':status': terminal.status, ':at': at, ':reason': terminal.failureReason ?? null, ':queued': 'queued' };
  if (terminal.progress) {
    sets.push('progress = :progress');
    values[':progress'] = terminal.progress;
  }
  if (terminal.fetchCompletion) {
    sets.push('fetchCompletion = :fetch');
    values[':fetch'] = terminal.fetchCompletion;
  }
  const event = terminal.status === 'succeeded' ? 'job.succeeded' : 'job.failed';
  const items = (releaseLane: boolean): NonNullable<TransactWriteCommandInput['TransactItems']> => [
    {
      Update: {
        TableName: tableName(),
        Key: importKeys(item.id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: '#status = :queued',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: values,
      },
    },
    {
      Update: {
        TableName: tableName(),
        Key: jobKeys(item.jobId),
        UpdateExpression: 'SET #status = :status, finishedAt = :at, startedAt = if_not_exists(startedAt, :at), #error = :error',
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: {
          ':status': terminal.status,
          ':at': at,
          ':error': terminal.status === 'failed' ? { code: terminal.failureReason ?? 'failed', message: terminal.failureDetail ?? failureMessage(terminal.failureReason) } : null,
        },
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: outboxEventItem(event, item.companyId, { jobId: item.jobId, importId: item.id, kind: item.kind, status: terminal.status }, at),
      },
    },
    ...(releaseLane
      ? [
          {
            Delete: {
              TableName: tableName(),
              Key: laneLockKeys(item.companyId, item.lane),
              ConditionExpression: 'attribute_not_exists(PK) OR jobId = :job',
              ExpressionAttributeValues: { ':job': item.jobId },
            },
          },
        ]
      : []),
  ];
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: items(true) }));
    return true;
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    const [importCheck, , , laneCheck] = error.CancellationReasons ?? [];
    if (importCheck?.Code === 'ConditionalCheckFailed') return false;
    // The lease ran out and another job holds the lane now: finish without touching its lock.
    if (laneCheck?.Code === 'ConditionalCheckFailed') {
      await dynamo().send(new TransactWriteCommand({ TransactItems: items(false) }));
      return true;
    }
    throw error;
  }
};

/**
 * Fails an import that broke on the service side: its failureReason is the code, and the job's
 * error carries the code and the detail (what went wrong, for a person), else the code's
 * standard message.
 */
export const failImport = (item: ImportItem, failureReason: string, failureDetail?: string) =>
  finishImport(item, { status: 'failed', failureReason, failureDetail });

const failureMessage = (reason: string | undefined): string =>
  ({
    invalid_rows: 'At least one row is invalid; nothing was applied (see sampleErrors).',
    internal_error: 'The import failed on the service side; submit it again.',
    rejected_by_database: 'The database refused to store a row of the import; it was not retried (the same write fails every time).',
    invalid_payload: 'The stored request of the import does not pass validation any more; it was not retried. Submit it again.',
  })[reason ?? ''] ?? 'The job failed.';
