import { logger } from '../platform/logger';
import { queueWorker } from '../platform/queue-worker';
import { parsePendingUploadObjectKey } from './keys';
import { completeUploadFromNotification } from './service';

interface S3Notification {
  Event?: string;
  Records?: { eventName?: string; s3?: { object?: { key?: string } } }[];
}

/** S3 event notifications URL-encode object keys (spaces as +). */
const objectKeyOf = (encoded: string): string => decodeURIComponent(encoded.replace(/\+/g, ' '));

/**
 * The completion worker (uploads queue): S3 sends an ObjectCreated notification for each object
 * PUT under uploads/pending/, and the worker completes that upload as the explicit call would, so
 * a client that never calls complete still gets its document. Refused uploads (mismatch, expired)
 * are final; other failures are reported as batch item failures and redelivered (then the DLQ).
 */
export const uploadWorker = queueWorker(
  async (record) => {
    const notification = JSON.parse(record.body) as S3Notification;
    if (notification.Event === 's3:TestEvent') return; // sent once when the notification is configured
    for (const s3Record of notification.Records ?? []) {
      if (!s3Record.eventName?.startsWith('ObjectCreated:')) continue;
      const ids = parsePendingUploadObjectKey(objectKeyOf(s3Record.s3?.object?.key ?? ''));
      if (!ids) continue;
      const outcome = await completeUploadFromNotification(ids.documentId);
      logger.info('Upload notification', { documentId: ids.documentId, companyId: ids.companyId, outcome });
    }
  },
  { failureMessage: 'Upload completion failed; the message will be redelivered' },
);
