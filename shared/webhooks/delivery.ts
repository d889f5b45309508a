import { randomUUID } from 'node:crypto';
import { webhookSettings } from '../platform/config';
import { countMetric } from '../platform/metrics';
import { queueWorker } from '../platform/queue-worker';
import { handshake } from './handshake';
import { clipReason, postJson } from './outbound';
import { sendMessage, sendToDeadLetterQueue } from './queue';
import { commitUnlessCancelled, type TransactionWrite } from '../db/unit-of-work';
import { deliveryRepository, deliverySlots, subscriptionRepository, type DeliveryRecord, type SubscriptionAsRead, type SubscriptionRecord } from './repository';
import { openSigningSecret } from './secrets';
import { signedHeaders } from './signing';

/** Messages of the webhooks queue: one attempt of a delivery, or the handshake of a new subscription or url. */
export type DeliveryMessage = { deliveryId: string } | { verifySubscriptionId: string; url: string };

const iso = (ms: number) => new Date(ms).toISOString();

/** The secrets that sign now, opened: the current one and, for the overlap after a rotation, the previous one. */
export const signingSecrets = (subscription: SubscriptionRecord, now = Date.now()): Promise<string[]> =>
  Promise.all(
    subscription.secrets
      .filter((secret) => secret.expiresAt === null || Date.parse(secret.expiresAt) > now)
      .map((secret) => openSigningSecret(secret.secret, subscription)),
  );

/**
 * The delivery worker (webhooks queue). Per message, one attempt: it takes one of the
 * subscription's concurrency slots and the delivery's lease, POSTs the signed body, and records
 * the attempt. A failure (network error, timeout, non-2xx) schedules the next attempt after the
 * configured delay (±10 % jitter, at least Retry-After) by re-sending the message with a delay;
 * after the last one the delivery is dead and goes to the DLQ. 410 disables the subscription. A
 * crash anywhere leaves the message on the queue: it comes back after the visibility timeout and
 * the attempt is made again with the same webhook-id (a lease lasts twice the attempt timeout;
 * the message of a crashed invocation comes back only after the longer visibility timeout).
 */
export const deliveryWorker = queueWorker(
  async (record) => {
    const message = JSON.parse(record.body) as DeliveryMessage;
    if ('verifySubscriptionId' in message) await verifyQueued(message.verifySubscriptionId, message.url);
    else await attempt(message.deliveryId);
  },
  { failureMessage: 'Webhook delivery failed; the message will be redelivered', inParallel: true },
);

/** One attempt of a delivery (what the worker does per message; exported for tests that drive the steps). */
export const attempt = async (deliveryId: string): Promise<void> => {
  const settings = webhookSettings();
  const delivery = await deliveryRepository.get(deliveryId);
  if (!delivery || delivery.status !== 'pending') return;
  const now = Date.now();
  const due = delivery.nextAttemptAt ? Date.parse(delivery.nextAttemptAt) : now;
  if (due > now + 500) return sendMessage('webhooks', { deliveryId }, (due - now) / 1000); // early (a chained delay): wait on
  const subscription = await subscriptionRepository.get(delivery.subscriptionId);
  if (!subscription) return void (await deliveryRepository.end(deliveryId, 'failed', 'The subscription was deleted.'));
  if (subscription.status === 'pending_verification') return holdUntilVerified(delivery, settings, now);
  if (subscription.status !== 'active') return void (await deliveryRepository.end(deliveryId, 'failed', clipReason(`The subscription is ${subscription.status}: ${subscription.statusReason ?? ''}`.trim())));

  const token = randomUUID();
  const leaseUntil = iso(now + 2 * settings.timeoutMs);
  const slot = await deliverySlots.acquire(subscription.id, settings.concurrencyPerSubscription, token, leaseUntil, iso(now));
  if (slot === undefined) return sendMessage('webhooks', { deliveryId }, 1 + Math.random() * 2); // the receiver is busy with others
  try {
    if (!(await deliveryRepository.claim(deliveryId, delivery.attempts.length, token, leaseUntil, iso(now)))) {
      // Another message of this delivery holds the lease (or moved it on): look again when the lease ends.
      const current = await deliveryRepository.get(deliveryId);
      if (current?.status === 'pending') await sendMessage('webhooks', { deliveryId }, current.leaseUntil ? (Date.parse(current.leaseUntil) - now) / 1000 : 1);
      return;
    }
    const outcome = await postJson(subscription.url, delivery.payload, signedHeaders(await signingSecrets(subscription), delivery.eventId, delivery.payload), {
      subscriptionId: subscription.id,
      deliveryId,
    });
    const succeeded = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
    const made = delivery.attempts.length + 1;
    const gaveUp = outcome.statusCode === 410 || made > settings.retryDelaysSeconds.length;
    countDeliveryAttempt(succeeded ? 'delivered' : gaveUp ? 'gave_up' : 'failed', made, { deliveryId, subscriptionId: subscription.id });
    if (succeeded) {
      await deliveryRepository.recordAttempt(deliveryId, token, outcome, { status: 'succeeded', nextAttemptAt: null });
      await noteSuccess(subscription, outcome.at);
      return;
    }
    if (outcome.statusCode === 410) {
      // The subscription, its notice and the attempt in one transaction: nothing half-written.
      const reason = 'The receiver answered 410 Gone: the subscription was disabled.';
      const record = deliveryRepository.recordAttemptWrite(deliveryId, token, outcome, { status: 'failed', nextAttemptAt: null, notice: reason });
      let current: SubscriptionRecord | undefined = subscription;
      for (let tries = 0; tries < 3 && current?.url === subscription.url && current.status !== 'disabled'; tries++) {
        if (await disable(current, reason, { url: subscription.url }, [record])) return;
        current = await subscriptionRepository.get(subscription.id);
      }
      if (current?.url === subscription.url || !current) {
        const notice = current ? `The receiver answered 410 Gone; the subscription is ${current.status}.` : 'The receiver answered 410 Gone; the subscription was deleted.';
        await deliveryRepository.recordAttempt(deliveryId, token, outcome, { status: 'failed', nextAttemptAt: null, notice });
        return;
      }
      // Its url changed meanwhile: the old url's 410 is an ordinary failed attempt (the next goes to the new url).
    }
    if (made > settings.retryDelaysSeconds.length) {
      // The DLQ first: a crash before the log says dead makes the attempt again and sends it again (at least once, never lost).
      const notice = `No success after ${made} attempts: the delivery is dead (redeliver it when the receiver is fixed).`;
      await sendToDeadLetterQueue({ deliveryId, eventId: delivery.eventId, subscriptionId: subscription.id, eventType: delivery.eventType });
      await deliveryRepository.recordAttempt(deliveryId, token, outcome, { status: 'dead', nextAttemptAt: null, notice });
      await noteFailure(subscription, subscription.url, outcome.at);
      return;
    }
    const scheduled = settings.retryDelaysSeconds[made - 1]! * (0.9 + Math.random() * 0.2);
    const delaySeconds = Math.min(12 * 3600, Math.max(scheduled, outcome.retryAfterSeconds ?? 0));
    const next = Date.now() + delaySeconds * 1000;
    if (await deliveryRepository.recordAttempt(deliveryId, token, outcome, { status: 'pending', nextAttemptAt: iso(next) })) {
      await sendMessage('webhooks', { deliveryId }, delaySeconds);
    }
    await noteFailure(subscription, subscription.url, outcome.at);
  } finally {
    await deliverySlots.release(subscription.id, slot, token);
  }
};

/**
 * A subscription pending its handshake (new, or its url changed) gets nothing sent: its deliveries
 * wait, looked at again after a tenth of their age (at least the timeout, at most 15 minutes), and
 * go out once it is active. One held for the whole disable window (5 days) ends failed.
 */
const holdUntilVerified = async (delivery: DeliveryRecord, settings: ReturnType<typeof webhookSettings>, now: number): Promise<void> => {
  const age = now - Date.parse(delivery.createdAt);
  if (age >= settings.disableAfterSeconds * 1000) {
    await deliveryRepository.end(delivery.id, 'failed', `The subscription did not pass its handshake within ${settings.disableAfterSeconds} seconds of the event; nothing was sent.`);
    return;
  }
  await sendMessage('webhooks', { deliveryId: delivery.id }, Math.min(900, Math.max(settings.timeoutMs / 1000, age / 10_000)));
};

/**
 * One attempt's outcome: `delivered`; `failed` with another attempt to come; `gave_up` when none
 * will (out of attempts, or 410). By attempt number (`6+` beyond five: few series) and by outcome alone.
 */
const countDeliveryAttempt = (outcome: 'delivered' | 'failed' | 'gave_up', attempt: number, metadata: Record<string, string>): void => {
  countMetric('webhookDeliveries', { outcome, attempt: attempt > 5 ? '6+' : String(attempt) }, 1, metadata);
  countMetric('webhookDeliveryOutcomes', { outcome }, 1, metadata);
};

/**
 * A success ends the failing streak it read, unless a failure of an attempt that started after
 * this one began a new one. It writes nothing when it read no streak (a success costs no write on a
 * healthy subscription): a streak a failure began beside it is ended by the next success, and
 * differs from "every delivery failed since" by at most one attempt's duration.
 */
export const noteSuccess = async (read: SubscriptionRecord, attemptStartedAt: string): Promise<void> => {
  if (!read.failingSince) return;
  await subscriptionRepository.endFailingStreak(read.id, attemptStartedAt);
};

/**
 * A failing streak: every attempt since failingSince failed, none more than an eighth of the
 * window after the one before (15 h deployed, longer than any wait between two attempts). Past
 * the window (5 days deployed) the subscription is disabled. After a quiet spell a failure starts a
 * new streak: a receiver that failed weeks ago is not disabled for one failure now. `read` is the
 * subscription as the attempt read it; each write holds only while the url is the one the attempt
 * went to and the streak is as read (a success, another failure or a new url meanwhile: read again
 * and decide again). Times are the attempts' starts.
 */
export const noteFailure = async (read: SubscriptionRecord, attemptedUrl: string, attemptStartedAt: string): Promise<void> => {
  const windowMs = webhookSettings().disableAfterSeconds * 1000;
  const at = Date.parse(attemptStartedAt);
  let subscription: SubscriptionRecord | undefined = read;
  for (let tries = 0; tries < 10 && subscription && subscription.url === attemptedUrl && subscription.status !== 'disabled'; tries++) {
    const asRead = { url: attemptedUrl, failingSince: subscription.failingSince, lastFailureAt: subscription.lastFailureAt };
    const lastFailure = subscription.lastFailureAt ?? subscription.failingSince;
    let written: boolean;
    if (!subscription.failingSince || !lastFailure || at - Date.parse(lastFailure) > windowMs / 8) {
      written = await subscriptionRepository.noteFailingStreak(subscription.id, asRead, { failingSince: attemptStartedAt, lastFailureAt: attemptStartedAt });
    } else if (at - Date.parse(subscription.failingSince) >= windowMs) {
      const reason = `Every delivery failed since ${subscription.failingSince}: the subscription was disabled (verify it to enable it again).`;
      written = await disable(subscription, reason, asRead);
    } else {
      written = await subscriptionRepository.noteFailingStreak(subscription.id, asRead, { lastFailureAt: lastFailure > attemptStartedAt ? lastFailure : attemptStartedAt });
    }
    if (written) return;
    subscription = await subscriptionRepository.get(read.id);
  }
};

/**
 * Disables the subscription if it is still as `read` says, with a `webhook.disabled` notice in its
 * delivery log and any `also` writes, in one transaction; false when it was not (disabled already,
 * gone, or changed).
 */
const disable = async (subscription: SubscriptionRecord, reason: string, read: SubscriptionAsRead, also: TransactionWrite[] = []): Promise<boolean> => {
  const at = new Date().toISOString();
  const id = randomUUID();
  const notice = {
    id,
    type: 'webhook.disabled',
    occurredAt: at,
    organizationId: subscription.organizationId,
    companyId: null,
    data: { ids: { subscriptionId: subscription.id }, link: `/v1/webhooks/subscriptions/${subscription.id}` },
  };
  const noticeWrite = deliveryRepository.createWrite({
    id,
    subscriptionId: subscription.id,
    organizationId: subscription.organizationId,
    eventId: id,
    eventType: 'webhook.disabled',
    payload: JSON.stringify(notice),
    status: 'failed',
    attempts: [],
    nextAttemptAt: null,
    createdAt: at,
    updatedAt: at,
    redeliveryOf: null,
    notice: reason,
  });
  if (!(await commitUnlessCancelled([subscriptionRepository.disableWrite(subscription.id, reason, at, read), noticeWrite, ...also]))) return false;
  countMetric('subscriptionsAutoDisabled', {}, 1, { subscriptionId: subscription.id });
  return true;
};

/**
 * The handshake to the subscription's url; its outcome is stored only if the url and status are still
 * the ones it was run for (a change, a deletion or an automatic disable meanwhile wins): undefined then.
 */
export const verifySubscription = async (subscription: SubscriptionRecord): Promise<SubscriptionRecord | undefined> => {
  const failure = await handshake(subscription.url, subscription.organizationId, await signingSecrets(subscription), { subscriptionId: subscription.id });
  const at = new Date().toISOString();
  const changes: Partial<SubscriptionRecord> = failure
    ? { status: subscription.status === 'disabled' ? 'disabled' : 'pending_verification', statusReason: clipReason(failure), updatedAt: at }
    : { status: 'active', statusReason: null, verifiedAt: at, failingSince: null, lastFailureAt: null, updatedAt: at };
  if (!(await subscriptionRepository.update(subscription.id, changes, [], subscription.url, subscription.status))) return undefined;
  return { ...subscription, ...changes };
};

const verifyQueued = async (subscriptionId: string, url: string): Promise<void> => {
  const subscription = await subscriptionRepository.get(subscriptionId);
  if (!subscription || subscription.url !== url || subscription.status !== 'pending_verification') return;
  await verifySubscription(subscription);
};
