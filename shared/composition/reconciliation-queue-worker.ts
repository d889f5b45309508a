import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { isContextRefresh, type ContextRefreshMessage } from '../context/refresh-queue';
import { refreshContext } from '../context/service';
import { createPostFetchWorker } from '../imports/post-fetch';
import { logger } from '../platform/logger';
import { postFetchEngines } from './post-fetch-engines';

const postFetch = createPostFetchWorker(postFetchEngines);

/**
 * The reconciliation queue's worker: fetch runs go to the post-fetch engines; context refresh
 * requests (the context tools ask for them when a picture is behind the books) rebuild the
 * company's pictures. A failed refresh is redelivered.
 */
export const reconciliationQueueWorker = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const refreshes = event.Records.filter((record) => isContextRefresh(JSON.parse(record.body)));
  const runs = event.Records.filter((record) => !refreshes.includes(record));
  const failures: SQSBatchResponse['batchItemFailures'] = runs.length ? (await postFetch({ Records: runs })).batchItemFailures : [];
  // One rebuild per company of the batch, for every year and pending request its messages carry.
  const byCompany = new Map<string, { messageIds: string[]; years: number[]; requests: string[] }>();
  for (const record of refreshes) {
    const message = JSON.parse(record.body) as ContextRefreshMessage;
    const entry = byCompany.get(message.companyId) ?? { messageIds: [], years: [], requests: [] };
    entry.messageIds.push(record.messageId);
    entry.years.push(...(message.years ?? []));
    if (message.requestedAt) entry.requests.push(message.requestedAt);
    byCompany.set(message.companyId, entry);
  }
  for (const [companyId, { messageIds, years, requests }] of byCompany) {
    try {
      await refreshContext(companyId, { years, requests });
    } catch (error) {
      logger.error('Context refresh failed', { companyId, error: error as Error });
      failures.push(...messageIds.map((itemIdentifier) => ({ itemIdentifier })));
    }
  }
  return { batchItemFailures: failures };
};
