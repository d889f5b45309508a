import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { isContextRefresh, type ContextRefreshMessage } from '../context/refresh-queue';
import { refreshContext } from '../context/service';
import { createPostFetchRun } from '../imports/post-fetch';
import { logger } from '../platform/logger';
import { processQueueBatch } from '../platform/queue-worker';
import { postFetchEngines } from './post-fetch-engines';

const postFetchRun = createPostFetchRun(postFetchEngines);

/** The message's body when it is a context refresh request; undefined for a fetch run (or a body that is no JSON: it fails as a run). */
const refreshOf = (record: SQSRecord): ContextRefreshMessage | undefined => {
  try {
    const message: unknown = JSON.parse(record.body);
    return isContextRefresh(message) ? message : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The reconciliation queue's worker: fetch runs go to the post-fetch engines; context refresh
 * requests (the context tools ask for them when a picture is behind the books) rebuild the
 * company's pictures. A failed refresh is redelivered. The runs go first, then one rebuild per
 * company of the batch, for every year and pending request its messages carry: each message of
 * the company shares that rebuild's outcome. A company whose messages all come from changes the
 * relay saw is not rebuilt when its stored pictures were built after the last of them.
 */
export const reconciliationQueueWorker = async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
  const refreshes = new Map<SQSRecord, ContextRefreshMessage>();
  // changedBy: the latest change relayed, while every message of the company comes from the relay.
  const byCompany = new Map<string, { years: number[]; requests: string[]; changedBy?: string; rebuild?: Promise<unknown> }>();
  for (const record of event.Records) {
    const message = refreshOf(record);
    if (!message) continue;
    refreshes.set(record, message);
    const entry = byCompany.get(message.companyId);
    const changedBy = message.changedBy && (!entry || entry.changedBy) ? [message.changedBy, entry?.changedBy ?? ''].sort().at(-1) : undefined;
    byCompany.set(message.companyId, {
      years: [...(entry?.years ?? []), ...(message.years ?? [])],
      requests: [...(entry?.requests ?? []), ...(message.requestedAt ? [message.requestedAt] : [])],
      ...(changedBy && { changedBy }),
    });
  }
  const rebuild = (companyId: string): Promise<unknown> => {
    const entry = byCompany.get(companyId)!;
    const { years, requests, changedBy } = entry;
    entry.rebuild = entry.rebuild ?? refreshContext(companyId, { years, requests, ...(changedBy && { changedBy }) }).catch((error: unknown) => {
      logger.error('Context refresh failed', { companyId, error: error as Error });
      throw error;
    });
    return entry.rebuild;
  };
  const runs = event.Records.filter((record) => !refreshes.has(record));
  return processQueueBatch(
    { Records: [...runs, ...refreshes.keys()] },
    (record) => {
      const refresh = refreshes.get(record);
      return refresh ? rebuild(refresh.companyId) : postFetchRun(record);
    },
    { failureMessage: 'Reconciliation queue message failed; it will be redelivered' },
    context,
  );
};
