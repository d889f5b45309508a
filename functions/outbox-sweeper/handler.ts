import { lambdaHandler } from '../../shared/platform/lambda-handler';
import { logger } from '../../shared/platform/logger';
import { sweepOptionsFromEnv, sweepPendingEvents, type SweepResult } from '../../shared/webhooks/relay';

/** EventBridge Scheduler (every few minutes): relays outbox events left pending; logs what it found. */
export const handler = lambdaHandler(async (): Promise<SweepResult> => {
  const result = await sweepPendingEvents(sweepOptionsFromEnv());
  if (result.found > 0) logger.warn('Outbox sweep relayed events the stream relay had not', { ...result });
  else logger.info('Outbox sweep found nothing pending', { ...result });
  return result;
});
