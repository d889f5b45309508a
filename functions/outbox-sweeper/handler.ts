import { requeueQueuedImports, type RequeueResult } from '../../shared/saft/requeue';
import { importRequeueSettings } from '../../shared/platform/config';
import { lambdaHandler } from '../../shared/platform/lambda-handler';
import { logger } from '../../shared/platform/logger';
import { sweepOptionsFromEnv, sweepPendingEvents, type SweepResult } from '../../shared/webhooks/relay';

/**
 * EventBridge Scheduler (every few minutes): relays outbox events left pending, and sends again the
 * message of imports and SAF-T imports left queued without one (shared/saft/requeue.ts); logs
 * what it found. Either step runs when the other fails (the invocation then fails, after both).
 */
export const handler = lambdaHandler(async (): Promise<SweepResult & { imports: RequeueResult }> => {
  const [events, imports] = await Promise.allSettled([sweepPendingEvents(sweepOptionsFromEnv()), requeueQueuedImports(importRequeueSettings())]);
  if (events.status === 'rejected') throw events.reason;
  if (imports.status === 'rejected') throw imports.reason;
  const result = events.value;
  if (result.found > 0) logger.warn('Outbox sweep relayed events the stream relay had not', { ...result });
  else logger.info('Outbox sweep found nothing pending', { ...result });
  if (imports.value.found > 0) logger.warn('Import sweep sent again the messages of imports left queued', { ...imports.value });
  return { ...result, imports: imports.value };
});
