import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryPage, type Page, type PageRequest } from '../db/query-page';
import type { TransactionWrite } from '../db/unit-of-work';
import { dynamo, tableName } from '../platform/aws';
import { queuedBefore, releaseSweepEntry, takeSweepEntry, type SweepEntry } from '../imports/repository';
import { queuedSaftIndexKeys, queuedSaftPartition, saftKeys as keys, saftListKeys, saftListPartition as listPartition } from './keys';
import type { SaftImport, SaftReport } from './schemas';

/** A SAF-T import's item: the record and where its file is (imports/saft/..., under the import payload grants). */
export interface SaftItem extends SaftImport {
  objectKey: string;
  /** Where the company sits (the placement of the jobs it creates). */
  rootOrganizationId: string;
  organizationPath: string;
}

export const toSaftImport = (item: SaftItem): SaftImport => ({
  id: item.id,
  companyId: item.companyId,
  status: item.status,
  fileName: item.fileName,
  sizeBytes: item.sizeBytes,
  sha256: item.sha256,
  jobId: item.jobId,
  failureReason: item.failureReason,
  problems: item.problems,
  allowOrganizationNumberMismatch: item.allowOrganizationNumberMismatch,
  deleteMissing: item.deleteMissing,
  importIds: item.importIds,
  report: item.report,
  createdAt: item.createdAt,
  updatedAt: item.updatedAt,
  completedAt: item.completedAt,
});

const fromItem = (item: Record<string, unknown>): SaftItem => {
  const { PK: _pk, SK: _sk, GSI1PK: _gpk, GSI1SK: _gsk, GSI2PK: _g2pk, GSI2SK: _g2sk, entity: _entity, ...rest } = item;
  // The report and problems are kept as JSON text: plain numbers and strings, read back as written.
  const report = typeof rest.report === 'string' ? (JSON.parse(rest.report) as SaftReport) : null;
  if (report) report.counts.linesDeleted ??= 0; // records from before the count
  return {
    ...(rest as unknown as SaftItem),
    deleteMissing: rest.deleteMissing === true,
    sizeBytes: Number(rest.sizeBytes),
    report,
    problems: typeof rest.problems === 'string' ? (JSON.parse(rest.problems) as SaftImport['problems']) : [],
  };
};

export const saftRepository = {
  /** SAF-T imports in the sweep index started (or last sent again) before `before` (ISO instant), oldest first, at most `limit` (one page). */
  async queuedBefore(before: string, limit: number): Promise<SweepEntry[]> {
    return queuedBefore(queuedSaftPartition, before, limit);
  },

  /** The sweeper's hold on a SAF-T import's sweep-index entry (shared/imports/repository.ts takeSweepEntry). */
  takeSweepEntry(entry: SweepEntry, at: string, options: { countResend: boolean }): Promise<boolean> {
    return takeSweepEntry(keys(entry.id), queuedSaftPartition, entry, at, options);
  },

  /** Undoes takeSweepEntry after a send that failed (shared/imports/repository.ts releaseSweepEntry). */
  releaseSweepEntry(entry: SweepEntry, takenAt: string): Promise<void> {
    return releaseSweepEntry(keys(entry.id), queuedSaftPartition, entry, takenAt);
  },

  async create(item: SaftItem): Promise<void> {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys(item.id), ...saftListKeys(item.companyId, item.createdAt, item.id), entity: 'saftImport', ...item, report: null, problems: '[]' },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  },

  async get(id: string): Promise<SaftItem | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys(id), ConsistentRead: true }));
    return Item ? fromItem(Item) : undefined;
  },

  listOfCompany(companyId: string, page: PageRequest): Promise<Page<SaftItem>> {
    return queryPage(
      { TableName: tableName(), IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': listPartition(companyId) }, ScanIndexForward: false },
      page,
      fromItem,
    );
  },

  /**
   * For the start's unit of work: awaiting_upload -> queued with its job (refused when already
   * started), in the sweep index until the worker moves it on (its queue message follows the commit).
   */
  startWrite(id: string, jobId: string, options: { allowOrganizationNumberMismatch: boolean; deleteMissing: boolean }, at: string): TransactionWrite {
    const { GSI2PK, GSI2SK } = queuedSaftIndexKeys(at, id);
    return {
      Update: {
        TableName: tableName(),
        Key: keys(id),
        UpdateExpression: 'SET #status = :queued, jobId = :job, allowOrganizationNumberMismatch = :allow, deleteMissing = :deleteMissing, updatedAt = :at, GSI2PK = :sweepPk, GSI2SK = :sweepSk',
        ConditionExpression: '#status = :awaiting',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':queued': 'queued',
          ':awaiting': 'awaiting_upload',
          ':job': jobId,
          ':allow': options.allowOrganizationNumberMismatch,
          ':deleteMissing': options.deleteMissing,
          ':at': at,
          ':sweepPk': GSI2PK,
          ':sweepSk': GSI2SK,
        },
      },
    };
  },

  /** For a start that could not be queued: queued -> awaiting_upload again, without its job (which ended failed), out of the sweep index. */
  unstartWrite(id: string, jobId: string, at: string): TransactionWrite {
    return {
      Update: {
        TableName: tableName(),
        Key: keys(id),
        UpdateExpression: 'SET #status = :awaiting, jobId = :none, updatedAt = :at REMOVE GSI2PK, GSI2SK',
        ConditionExpression: '#status = :queued AND jobId = :job',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':awaiting': 'awaiting_upload', ':queued': 'queued', ':none': null, ':job': jobId, ':at': at },
      },
    };
  },

  /** The worker's progress: running (out of the sweep index), the file's report, the per-kind imports so far. */
  async recordProgress(id: string, progress: { report?: SaftReport; importIds: string[] }): Promise<void> {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys(id),
        UpdateExpression: `SET #status = :running, importIds = :ids, updatedAt = :at${progress.report ? ', report = :report' : ''} REMOVE GSI2PK, GSI2SK`,
        ConditionExpression: '#status IN (:queued, :running)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':running': 'running',
          ':queued': 'queued',
          ':ids': progress.importIds,
          ':at': new Date().toISOString(),
          ...(progress.report && { ':report': JSON.stringify(progress.report) }),
        },
      }),
    );
  },

  /** For the terminal unit of work: succeeded or failed, once (out of the sweep index). */
  finishWrite(id: string, ending: { status: 'succeeded' | 'failed'; failureReason: string | null; problems: SaftImport['problems']; report?: SaftReport | null }, at: string): TransactionWrite {
    return {
      Update: {
        TableName: tableName(),
        Key: keys(id),
        UpdateExpression: `SET #status = :status, failureReason = :reason, problems = :problems, completedAt = :at, updatedAt = :at${ending.report ? ', report = :report' : ''} REMOVE GSI2PK, GSI2SK`,
        ConditionExpression: '#status IN (:queued, :running)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':status': ending.status,
          ':reason': ending.failureReason,
          ':problems': JSON.stringify(ending.problems),
          ':at': at,
          ':queued': 'queued',
          ':running': 'running',
          ...(ending.report && { ':report': JSON.stringify(ending.report) }),
        },
      },
    };
  },
};
