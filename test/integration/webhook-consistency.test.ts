import { afterAll, describe, expect, it } from 'vitest';
import { administratorOf } from '../../shared/identity/principal';
import { allScopes } from '../../shared/identity/scopes';
import { sqs } from '../../shared/platform/aws';
import { subscriptionRepository } from '../../shared/webhooks/repository';
import { createSubscription, sendTestEvent, updateSubscription, verifyNow } from '../../shared/webhooks/service';
import { dynamo } from '../../shared/platform/aws';
import { ProblemError } from '../../shared/platform/problem';
import { api, listAll } from '../support/api';
import { newApiCompany } from '../support/ledger';
import { eventually, queueWaitMs } from '../support/poll';
import { observingCalls } from '../support/sdk-calls';
import { testStack } from '../support/stack';
import { startReceiver } from '../support/webhook-receiver';

/**
 * A webhook change is stored, then its message queued (the handshake, a delivery). When the queue
 * refuses the message the request answers 500: these show that nothing is left half-done for the
 * retry the 500 invites (the runner releases the Idempotency-Key). The service runs here, in this
 * process, with its SQS client failing every SendMessage.
 */
const whileQueueFails = <T>(run: () => Promise<T>): Promise<T> =>
  observingCalls(
    sqs(),
    (commandName) => {
      if (commandName === 'SendMessageCommand') throw new Error('SQS is unavailable');
    },
    run,
  );

const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
const subscriptions: string[] = [];
afterAll(async () => {
  for (const id of subscriptions) await api('DELETE', `/v1/webhooks/subscriptions/${id}`, { as: 'a-system' });
  for (const receiver of receivers) await receiver.stop();
});

const receiver = async () => {
  const started = await startReceiver();
  receivers.push(started);
  return started;
};

/** Organization A's administrator, as the webhooks function resolves the seeded a-system client. */
const principal = () => {
  const { id } = testStack().organizations[0]!;
  return administratorOf({ id, path: id }, 'queue-failure-test', [...allScopes]);
};

/** An active subscription to company.updated of a company of its own (no other test's events reach it). */
const activeSubscription = async () => {
  const company = await newApiCompany();
  const target = await receiver();
  const created = await api('POST', '/v1/webhooks/subscriptions', { as: 'a-system', body: { url: target.url, eventTypes: ['company.updated'], companyIds: [company] } });
  expect(created.status).toBe(201);
  subscriptions.push(created.body.id);
  target.state.secrets = [created.body.secret];
  await eventually(async () => (await api('GET', `/v1/webhooks/subscriptions/${created.body.id}`, { as: 'a-system' })).body.status === 'active', queueWaitMs, 'the handshake');
  return { id: created.body.id as string, company, secret: created.body.secret as string, receiver: target };
};

describe('webhook changes whose message cannot be queued', () => {
  it('a subscription whose handshake cannot be queued is not kept: the retry creates the one subscription', async () => {
    const company = await newApiCompany();
    const target = await receiver();
    const input = { url: target.url, eventTypes: ['company.updated' as const], companyIds: [company] };
    await expect(whileQueueFails(() => createSubscription(principal(), input))).rejects.toThrow(/SQS is unavailable/);
    const urls = async () => (await listAll<{ url: string }>('/v1/webhooks/subscriptions', { as: 'a-system' })).filter((subscription) => subscription.url === target.url);
    expect(await urls()).toEqual([]);

    const created = await createSubscription(principal(), input);
    subscriptions.push(created.id);
    expect(await urls()).toHaveLength(1);
  });

  it('a url change whose handshake cannot be queued gets its handshake when the change is sent again', async () => {
    const { id, secret } = await activeSubscription();
    const moved = await receiver();
    moved.state.secrets = [secret];
    const current = (await subscriptionRepository.get(id))!;
    await expect(whileQueueFails(() => updateSubscription(principal(), current, { url: moved.url }))).rejects.toThrow(/SQS is unavailable/);
    // The change is stored, its handshake never queued: the retry finds the url already there.
    expect(await subscriptionRepository.get(id)).toMatchObject({ url: moved.url, status: 'pending_verification' });

    const retried = await api('PATCH', `/v1/webhooks/subscriptions/${id}`, { as: 'a-system', body: { url: moved.url } });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.status).toBe('pending_verification');
    await eventually(async () => (await api('GET', `/v1/webhooks/subscriptions/${id}`, { as: 'a-system' })).body.status === 'active', queueWaitMs, 'the handshake to the new url');
    expect(moved.state.verifications).toBeGreaterThanOrEqual(1);
  });

  it('a test event that cannot be queued is logged failed, not left pending with nothing to send it', async () => {
    const { id } = await activeSubscription();
    await expect(whileQueueFails(async () => sendTestEvent((await subscriptionRepository.get(id))!))).rejects.toThrow(/SQS is unavailable/);
    const deliveries = await listAll<{ eventType: string; status: string; notice: string | null }>(`/v1/webhooks/subscriptions/${id}/deliveries`, { as: 'a-system' });
    expect(deliveries.filter((delivery) => delivery.eventType === 'webhook.test')).toEqual([
      expect.objectContaining({ status: 'failed', notice: 'The delivery could not be queued; nothing was sent.' }),
    ]);
  });
});

describe('a handshake run by POST .../verify while the subscription changes', () => {
  /** verifyNow, with `change` made just before it stores its outcome (as a request or the delivery worker would, meanwhile). */
  const verifyMeanwhile = async (id: string, change: () => Promise<unknown>) => {
    const current = (await subscriptionRepository.get(id))!;
    let changed = false;
    return observingCalls(
      dynamo(),
      async (commandName, input) => {
        if (changed || commandName !== 'UpdateItemCommand' || !JSON.stringify(input.Key).includes(id)) return;
        changed = true;
        await change();
      },
      () => verifyNow(current).then(() => undefined, (error: unknown) => error),
    );
  };

  it('stores nothing and answers 409 subscription_changed when the url moved: the new url keeps its pending handshake', async () => {
    const { id } = await activeSubscription();
    const moved = await receiver();
    const refused = await verifyMeanwhile(id, async () => {
      const before = (await subscriptionRepository.get(id))!;
      await subscriptionRepository.update(id, { url: moved.url, status: 'pending_verification', statusReason: 'moved', updatedAt: new Date().toISOString() }, [], before.url);
    });
    expect(refused).toBeInstanceOf(ProblemError);
    expect((refused as ProblemError).problem).toMatchObject({ status: 409, reason: 'subscription_changed' });
    expect(await subscriptionRepository.get(id)).toMatchObject({ url: moved.url, status: 'pending_verification', statusReason: 'moved' });
  });

  it('a failed handshake leaves disabled a subscription its receiver\'s 410 disabled meanwhile; one deleted meanwhile answers 404', async () => {
    const { id, receiver: target } = await activeSubscription();
    target.state.secrets = []; // it now refuses the genuine verification too: the handshake fails
    const refused = await verifyMeanwhile(id, () => subscriptionRepository.disable(id, 'The receiver answered 410 Gone: the subscription was disabled.', new Date().toISOString()));
    expect((refused as ProblemError).problem).toMatchObject({ status: 409, reason: 'subscription_changed' });
    expect(await subscriptionRepository.get(id)).toMatchObject({ status: 'disabled', statusReason: 'The receiver answered 410 Gone: the subscription was disabled.' });

    const { id: other } = await activeSubscription();
    const gone = await verifyMeanwhile(other, () => subscriptionRepository.delete(other));
    expect((gone as ProblemError).problem).toMatchObject({ status: 404, error: 'not_found' });
  });
});
