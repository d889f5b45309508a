import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from './logger';

/** Handles one message; throwing reports it in batchItemFailures, so SQS redelivers it (then its DLQ). */
export type RecordHandler = (record: SQSRecord) => Promise<unknown>;

export interface QueueWorkerOptions {
  /** Logged as an error, with the message id and the error, for each message that failed. */
  failureMessage: string;
  /** Handle a batch's messages at once rather than one after another (the default). */
  inParallel?: boolean;
}

/**
 * One SQS batch through Powertools' BatchProcessor with partial batch responses
 * (ReportBatchItemFailures): only the messages whose handler threw are reported. A batch whose
 * messages all failed is reported the same way rather than thrown. A processor per batch: its
 * state must not be shared by two batches running at once in one process.
 */
export const processQueueBatch = async (event: SQSEvent, handleRecord: RecordHandler, options: QueueWorkerOptions, context?: Context): Promise<SQSBatchResponse> => {
  const handle = async (record: SQSRecord): Promise<void> => {
    try {
      await handleRecord(record);
    } catch (error) {
      logger.error(options.failureMessage, { messageId: record.messageId, error: error as Error });
      throw error;
    }
  };
  const { batchItemFailures } = await processPartialResponse(event, handle, new BatchProcessor(EventType.SQS), {
    ...(context && { context }),
    throwOnFullBatchFailure: false,
    processInParallel: options.inParallel ?? false,
  });
  return { batchItemFailures: [...batchItemFailures] };
};

/** An SQS worker (the Lambda handler's core) that hands each message of a batch to `handleRecord`. */
export const queueWorker =
  (handleRecord: RecordHandler, options: QueueWorkerOptions) =>
  (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> =>
    processQueueBatch(event, handleRecord, options, context);
