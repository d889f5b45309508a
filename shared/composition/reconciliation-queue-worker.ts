import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { isContextRefresh } from '../context/refresh-queue';
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
  for (const companyId of new Set(refreshes.map((record) => (JSON.parse(record.body) as { companyId: string }).companyId))) {
    try {
      await refreshContext(companyId);
    } catch (error) {
      logger.error('Context refresh failed', { companyId, error: error as Error });
      failures.push(...refreshes.filter((record) => record.body.includes(companyId)).map((record) => ({ itemIdentifier: record.messageId })));
    }
  }
  return { batchItemFailures: failures };
};
