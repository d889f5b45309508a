import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqs } from '../platform/aws';
import { logger } from '../platform/logger';
import { queueWorker } from '../platform/queue-worker';
import { queueUrl } from '../queues';
import { parsePendingUploadObjectKey } from './keys';
import { documentRepository } from './repository';
import { completeUploadFromNotification } from './service';

interface S3Notification {
  Event?: string;
  Records?: { eventName?: string; s3?: { object?: { key?: string } } }[];
}

/** S3 event notifications URL-encode object keys (spaces as +). */
const objectKeyOf = (encoded: string): string => decodeURIComponent(encoded.replace(/\+/g, ' '));

/** SQS's largest message delay. */
const maxDelaySeconds = 900;
/** The message attribute that counts how often a notification was put back (a GL-line deletion held it). */
export const deferralsAttribute = 'completionDeferrals';

/**
 * Delays before the next automatic completion while a GL-line deletion holds the company's lane,
 * by how often it was put back already: 1 minute, 2, 5, then every 15 (the last repeats). Read per
 * call from DOCUMENT_COMPLETION_RETRY_SECONDS (comma-separated seconds) so that tests can shorten it.
 */
export const completionRetrySeconds = (): number[] => {
  const configured = (process.env.DOCUMENT_COMPLETION_RETRY_SECONDS ?? '')
    .split(',')
    .map((value) => Number(value.trim()))
    .filter((value) => Number.isFinite(value) && value > 0);
  return configured.length > 0 ? configured : [60, 120, 300, 900];
};

/**
 * The delay of the next try: the schedule's, at most SQS's 15 minutes, and at most until shortly
 * before `completeBy` (the last try still lands within the declaration's lifetime); at least 1 s.
 */
export const deferralDelaySeconds = (deferrals: number, completeBy: string, now = Date.now()): number => {
  const schedule = completionRetrySeconds();
  const scheduled = schedule[Math.min(deferrals, schedule.length - 1)]!;
  const untilShortlyBeforeExpiry = Math.floor((Date.parse(completeBy) - now) / 1000) - 5;
  return Math.max(1, Math.min(Math.ceil(scheduled), maxDelaySeconds, untilShortlyBeforeExpiry));
};

const uploadsQueueUrl = (): string => queueUrl('uploads');

/**
 * The completion worker (uploads queue): S3 sends an ObjectCreated notification for each object
 * PUT under uploads/pending/, and the worker completes that upload as the explicit call would, so
 * a client that never calls complete still gets its document. Refused uploads (mismatch, expired)
 * are final. While a GL-line deletion holds the company's lane (409 job_in_flight), the
 * notification is sent again to the queue with a growing delay (completionRetrySeconds), counted
 * in a message attribute, and this delivery ends: put back, it uses none of the queue's receives,
 * which count only failures, so it is tried until the declaration expires (then refused as
 * expired). Other failures are reported as batch item failures and redelivered (then the DLQ).
 */
export const uploadWorker = queueWorker(
  async (record) => {
    const notification = JSON.parse(record.body) as S3Notification;
    if (notification.Event === 's3:TestEvent') return; // sent once when the notification is configured
    const deferrals = Number(record.messageAttributes?.[deferralsAttribute]?.stringValue ?? 0) || 0;
    const deferred: NonNullable<S3Notification['Records']> = [];
    let earliestCompleteBy: string | undefined;
    for (const s3Record of notification.Records ?? []) {
      if (!s3Record.eventName?.startsWith('ObjectCreated:')) continue;
      const ids = parsePendingUploadObjectKey(objectKeyOf(s3Record.s3?.object?.key ?? ''));
      if (!ids) continue;
      const outcome = await completeUploadFromNotification(ids.documentId);
      logger.info('Upload notification', { documentId: ids.documentId, companyId: ids.companyId, outcome, ...(outcome === 'job_in_flight' && { deferrals }) });
      if (outcome !== 'job_in_flight') continue;
      const declaration = await documentRepository.getDeclaration(ids.documentId);
      if (!declaration) continue; // completed meanwhile (the explicit call)
      deferred.push(s3Record);
      if (!earliestCompleteBy || declaration.completeBy < earliestCompleteBy) earliestCompleteBy = declaration.completeBy;
    }
    if (!earliestCompleteBy) return;
    // A failed send throws: this delivery is then retried as any failure.
    await sqs().send(
      new SendMessageCommand({
        QueueUrl: uploadsQueueUrl(),
        MessageBody: JSON.stringify({ ...notification, Records: deferred }),
        DelaySeconds: deferralDelaySeconds(deferrals, earliestCompleteBy),
        MessageAttributes: { [deferralsAttribute]: { DataType: 'Number', StringValue: String(deferrals + 1) } },
      }),
    );
  },
  { failureMessage: 'Upload completion failed; the message will be redelivered' },
);
