import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamo, sqs } from '../../shared/platform/aws';
import { deliveryWorker } from '../../shared/webhooks/delivery';
import { subscriptionKeys } from '../../shared/webhooks/keys';
import { deliveryRepository, subscriptionRepository } from '../../shared/webhooks/repository';
import { api, expectProblem } from '../support/api';
import { eventually, queueWaitMs, sleep } from '../support/poll';
import { observingCalls } from '../support/sdk-calls';
import { testStack } from '../support/stack';
import { libraryVerifies, startReceiver } from '../support/webhook-receiver';
import { testWebhookSchedule } from '../support/webhook-windows';

/**
 * The delivery worker's writes to the subscription when two attempts (or an attempt and a PATCH)
 * interleave, and what a failure between its writes leaves. The worker runs here, in this process,
 * on deliveries written straight to the table (no queue message: the stack's worker does not see
 * them until a retry is queued); a gated receiver holds a request until the test answers it, so
 * each interleaving is driven step by step.
 */

/** A receiver that verifies signatures and answers the handshake; an event's request waits for its gate when one is set. */
const gatedReceiver = async () => {
  const state = { secrets: [] as string[], gates: new Map<string, Promise<number>>(), arrived: new Map<string, () => void>(), received: [] as string[] };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const verified = state.secrets.some((secret) => libraryVerifies(secret, request.headers, body));
      if (!verified) return void response.writeHead(401).end('bad signature');
      const event = JSON.parse(body) as { id: string; type: string; data: { challenge?: string } };
      if (event.type === 'webhook.verification') return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: event.data.challenge }));
      state.received.push(event.id);
      state.arrived.get(event.id)?.();
      void (state.gates.get(event.id) ?? Promise.resolve(204)).then((status) => response.writeHead(status).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  /** Holds the event's request: `arrived` resolves when it is in, `answer` sends the status. */
  const gate = (eventId: string) => {
    let answer!: (status: number) => void;
    state.gates.set(eventId, new Promise<number>((resolve) => (answer = resolve)));
    const arrived = new Promise<void>((resolve) => state.arrived.set(eventId, resolve));
    return { arrived, answer };
  };
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, state, gate, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

type Gated = Awaited<ReturnType<typeof gatedReceiver>>;
const stops: (() => Promise<void>)[] = [];
const subscriptions: string[] = [];
const savedEnv: Record<string, string | undefined> = {};
/** This process runs the worker: loopback receivers, the test window, 1 s timeouts (2 s leases). */
const env = { WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_DISABLE_AFTER_SECONDS: String(testWebhookSchedule.disableAfterSeconds), WEBHOOK_TIMEOUT_SECONDS: '1', WEBHOOK_RETRY_DELAYS_SECONDS: testWebhookSchedule.retryDelaysSeconds };
beforeAll(() => {
  testStack();
  for (const [name, value] of Object.entries(env)) {
    savedEnv[name] = process.env[name];
    process.env[name] = value;
  }
});
afterAll(async () => {
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  for (const id of subscriptions) await api('DELETE', `/v1/webhooks/subscriptions/${id}`, { as: 'a-system' });
  for (const stop of stops) await stop();
});

const window = testWebhookSchedule.disableAfterSeconds;
const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();

/** An active subscription to webhook.test at a gated receiver. */
const activeSubscription = async (): Promise<{ receiver: Gated; id: string; secret: string }> => {
  const receiver = await gatedReceiver();
  stops.push(receiver.stop);
  const created = await api('POST', '/v1/webhooks/subscriptions', { as: 'a-system', body: { url: receiver.url, eventTypes: ['webhook.test'] } });
  expect(created.status).toBe(201);
  subscriptions.push(created.body.id);
  receiver.state.secrets = [created.body.secret];
  await eventually(async () => (await subscriptionRepository.get(created.body.id))?.status === 'active', queueWaitMs, 'the handshake');
  return { receiver, id: created.body.id as string, secret: created.body.secret as string };
};

/** A pending delivery of a new webhook.test event with `attemptsMade` failed attempts behind it (7: its next is the last). */
const pendingDelivery = async (subscriptionId: string, attemptsMade = 0) => {
  const now = new Date().toISOString();
  const organizationId = testStack().organizations[0]!.id;
  const eventId = randomUUID();
  const event = { id: eventId, type: 'webhook.test', occurredAt: now, organizationId, companyId: null, data: { ids: { subscriptionId }, link: `/v1/webhooks/subscriptions/${subscriptionId}` } };
  const attempts = Array.from({ length: attemptsMade }, () => ({ at: now, statusCode: 503, error: null, latencyMs: 1, responseBody: null, retryAfterSeconds: null }));
  const id = randomUUID();
  await deliveryRepository.create({ id, subscriptionId, organizationId, eventId, eventType: 'webhook.test', payload: JSON.stringify(event), status: 'pending', attempts, nextAttemptAt: now, createdAt: now, updatedAt: now, redeliveryOf: null, notice: null });
  return { id, eventId };
};

/** One attempt, as the worker makes it for a message naming the delivery. */
const work = (deliveryId: string) =>
  deliveryWorker({
    Records: [
      {
        messageId: randomUUID(),
        receiptHandle: randomUUID(),
        body: JSON.stringify({ deliveryId }),
        attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()), SenderId: 'test', ApproximateFirstReceiveTimestamp: String(Date.now()) },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:eu-north-1:000000000000:ledger-local-webhooks',
        awsRegion: 'eu-north-1',
      },
    ],
  });

describe.concurrent('webhook deliveries side by side', () => {
  it('a failure that read the streak before a success ended it does not disable the subscription', async () => {
    const { receiver, id } = await activeSubscription();
    // Failing for longer than the window: the next failure, as read now, would disable it.
    expect(await subscriptionRepository.update(id, { failingSince: ago(window + 60), lastFailureAt: ago(1) })).toBe(true);
    const failing = await pendingDelivery(id, 7);
    const succeeding = await pendingDelivery(id);
    const held = receiver.gate(failing.eventId);
    const failingRun = work(failing.id); // reads the subscription (the old streak), then waits on the receiver
    await held.arrived;
    expect(await work(succeeding.id)).toEqual({ batchItemFailures: [] }); // succeeds: the streak ends
    expect((await subscriptionRepository.get(id))!.failingSince).toBeNull();
    held.answer(503);
    expect(await failingRun).toEqual({ batchItemFailures: [] });
    const after = (await subscriptionRepository.get(id))!;
    expect(after.status).toBe('active');
    expect((await deliveryRepository.get(failing.id))!.status).toBe('dead');
    expect((await api('GET', `/v1/webhooks/subscriptions/${id}/deliveries?event_type=webhook.disabled`, { as: 'a-system' })).body.data).toEqual([]);
  });

  it('a success writes to the subscription only when it read a streak: a streak a failure began beside it is ended by the next success', async () => {
    const { receiver, id } = await activeSubscription();
    const failing = await pendingDelivery(id, 7);
    const succeeding = await pendingDelivery(id);
    const failingHeld = receiver.gate(failing.eventId);
    const failingRun = work(failing.id);
    await failingHeld.arrived;
    const succeedingHeld = receiver.gate(succeeding.eventId);
    const succeedingRun = work(succeeding.id); // reads the subscription: no streak yet
    await succeedingHeld.arrived;
    failingHeld.answer(503);
    await failingRun;
    expect((await subscriptionRepository.get(id))!.failingSince).toEqual(expect.any(String)); // the failure began a streak
    succeedingHeld.answer(204);
    await succeedingRun;
    expect((await deliveryRepository.get(succeeding.id))!.status).toBe('succeeded');
    // It read no streak: no write (a success costs no write on a healthy subscription); the streak stays, off by one attempt.
    expect((await subscriptionRepository.get(id))!.failingSince).toEqual(expect.any(String));
    const { PK } = subscriptionKeys(id);
    const next = await pendingDelivery(id);
    const writes: string[] = [];
    await observingCalls(
      dynamo(),
      (commandName, input) => {
        if (JSON.stringify(input).includes(PK) && !commandName.startsWith('Get')) writes.push(commandName);
      },
      () => work(next.id),
    );
    expect((await deliveryRepository.get(next.id))!.status).toBe('succeeded');
    expect(writes).toEqual(['UpdateItemCommand']); // it read the streak, and ends it
    const after = (await subscriptionRepository.get(id))!;
    expect(after.failingSince ?? null).toBeNull();
    expect(after.lastFailureAt ?? null).toBeNull();
    const healthy = await pendingDelivery(id);
    writes.length = 0;
    await observingCalls(
      dynamo(),
      (commandName, input) => {
        if (JSON.stringify(input).includes(PK) && !commandName.startsWith('Get')) writes.push(commandName);
      },
      () => work(healthy.id),
    );
    expect(writes).toEqual([]);
  });

  it("a 410 from the url the subscription had before a PATCH disables nothing and does not count against the new url; the event goes to the new url", async () => {
    const { receiver, id, secret } = await activeSubscription();
    const moved = await gatedReceiver();
    stops.push(moved.stop);
    moved.state.secrets = [secret];
    const delivery = await pendingDelivery(id);
    const held = receiver.gate(delivery.eventId);
    const run = work(delivery.id); // reads the subscription at the old url, posts there
    await held.arrived;
    const patched = await api('PATCH', `/v1/webhooks/subscriptions/${id}`, { as: 'a-system', body: { url: moved.url } });
    expect(patched.status).toBe(200);
    held.answer(410);
    expect(await run).toEqual({ batchItemFailures: [] });
    const after = (await subscriptionRepository.get(id))!;
    expect(after.status).not.toBe('disabled');
    expect(after.url).toBe(moved.url);
    expect(after.failingSince ?? null).toBeNull();
    // The handshake of the new url passes, and the event is delivered there (the retry went to the queue).
    await eventually(async () => (await subscriptionRepository.get(id))?.status === 'active', queueWaitMs, 'the handshake of the new url');
    await eventually(async () => (await deliveryRepository.get(delivery.id))?.status === 'succeeded', queueWaitMs, 'the delivery at the new url');
    expect(moved.state.received).toContain(delivery.eventId);
    expect((await api('GET', `/v1/webhooks/subscriptions/${id}/deliveries?event_type=webhook.disabled`, { as: 'a-system' })).body.data).toEqual([]);
  });
});

describe.concurrent('webhook deliveries interrupted between writes', () => {
  it('a 410 whose disable fails leaves nothing half-written; the attempt made again disables it, logs the attempt and leaves one notice', async () => {
    const { receiver, id } = await activeSubscription();
    const delivery = await pendingDelivery(id);
    receiver.state.gates.set(delivery.eventId, Promise.resolve(410));
    const { PK } = subscriptionKeys(id);
    // Any write that disables the subscription fails (as if the invocation died there).
    const failed = await observingCalls(
      dynamo(),
      (commandName, input) => {
        const text = JSON.stringify(input);
        if (!/^(Get|Query)/.test(commandName) && text.includes(PK) && text.includes('disabled')) throw new Error('the invocation died');
      },
      () => work(delivery.id),
    );
    expect(failed.batchItemFailures).toHaveLength(1);
    const logged = (await deliveryRepository.get(delivery.id))!;
    expect(logged.status).toBe('pending'); // not "failed: the subscription was disabled" while it is active
    expect(logged.attempts).toHaveLength(0);
    expect((await subscriptionRepository.get(id))!.status).toBe('active');

    // The message comes back once the lease (twice the 1 s timeout) is over.
    await sleep(2_500);
    expect(await work(delivery.id)).toEqual({ batchItemFailures: [] });
    const disabled = (await subscriptionRepository.get(id))!;
    expect(disabled.status).toBe('disabled');
    expect(disabled.statusReason).toMatch(/410/);
    const done = (await deliveryRepository.get(delivery.id))!;
    expect(done.status).toBe('failed');
    expect(done.attempts.map((made) => made.statusCode)).toEqual([410]);
    expect((await api('GET', `/v1/webhooks/subscriptions/${id}/deliveries?event_type=webhook.disabled`, { as: 'a-system' })).body.data).toHaveLength(1);
  });

  it('a last attempt whose dead-letter message cannot be sent is made again, so the delivery is never dead without its DLQ message', async () => {
    const { receiver, id } = await activeSubscription();
    const delivery = await pendingDelivery(id, 7);
    receiver.state.gates.set(delivery.eventId, Promise.resolve(503));
    let refused = 0;
    const failed = await observingCalls(
      sqs(),
      (commandName, input) => {
        if (commandName === 'SendMessageCommand' && JSON.stringify(input).includes(delivery.id)) {
          refused++;
          throw new Error('SQS is unavailable');
        }
      },
      () => work(delivery.id),
    );
    expect(refused).toBe(1);
    expect(failed.batchItemFailures).toHaveLength(1);
    expect((await deliveryRepository.get(delivery.id))!.status).toBe('pending'); // not dead with no DLQ message

    await sleep(2_500); // the lease ends; the message comes back
    let sent = 0;
    await observingCalls(
      sqs(),
      (commandName, input) => {
        if (commandName === 'SendMessageCommand' && JSON.stringify(input).includes(delivery.id)) sent++;
      },
      () => work(delivery.id),
    );
    expect(sent).toBe(1);
    expect((await deliveryRepository.get(delivery.id))!.status).toBe('dead');
  });
});

describe('webhook subscriptions over HTTP', () => {
  it('a second rotation within the overlap keeps the first secret signing until its expiry; a rotation that would make a fourth signing secret is 409', async () => {
    const receiver = await startReceiver();
    stops.push(receiver.stop);
    const created = await api('POST', '/v1/webhooks/subscriptions', { as: 'a-system', body: { url: receiver.url, eventTypes: ['webhook.test'] } });
    subscriptions.push(created.body.id);
    receiver.state.secrets = [created.body.secret];
    const id = created.body.id as string;
    await eventually(async () => (await api('GET', `/v1/webhooks/subscriptions/${id}`, { as: 'a-system' })).body.status === 'active', queueWaitMs, 'the handshake');
    const first = await api('POST', `/v1/webhooks/subscriptions/${id}/rotate-secret`, { as: 'a-system' });
    expect(first.status).toBe(200);
    const second = await api('POST', `/v1/webhooks/subscriptions/${id}/rotate-secret`, { as: 'a-system' });
    expect(second.status).toBe(200);
    // The original secret was promised until first.previousSecretExpiresAt: it still signs, beside the two new ones.
    receiver.state.secrets = [second.body.secret, first.body.secret, created.body.secret];
    const test = await api('POST', `/v1/webhooks/subscriptions/${id}/test`, { as: 'a-system' });
    expect(test.status).toBe(202);
    const received = await eventually(() => receiver.state.received.find((r) => r.id === test.body.eventId), queueWaitMs, 'the test event');
    expect(String(received.headers['webhook-signature']).split(' ')).toHaveLength(3);
    expect(received.verifiedBy).toEqual({ library: [true, true, true], crypto: [true, true, true] });
    expect((await api('GET', `/v1/webhooks/subscriptions/${id}`, { as: 'a-system' })).body.previousSecretExpiresAt).toBe(second.body.previousSecretExpiresAt);

    const third = await api('POST', `/v1/webhooks/subscriptions/${id}/rotate-secret`, { as: 'a-system' });
    expectProblem(third, 409, 'conflict');
    expect(third.body.reason).toBe('too_many_signing_secrets');
    expect((await subscriptionRepository.get(id))!.secrets).toHaveLength(3);
  });

  it('a url with surrounding whitespace, control or bidirectional characters is refused (400 naming url) on create and change; a url is stored as sent', async () => {
    const refusedUrls = ['  https://example.com/hook\n', 'https://example.com/hook ', 'https://example.com/\u0001\u202e\u0085', 'https://example.com/\u202ehook', 'https://example.com/\u0085'];
    for (const url of refusedUrls) {
      const response = await api('POST', '/v1/webhooks/subscriptions', { as: 'a-system', body: { url, eventTypes: ['webhook.test'] } });
      if (response.status === 201) subscriptions.push(response.body.id);
      expectProblem(response, 400, 'validation_failed');
      expect((response.body.errors as { field: string }[]).map((error) => error.field), JSON.stringify(url)).toContain('url');
    }
    const created = await api('POST', '/v1/webhooks/subscriptions', { as: 'a-system', body: { url: 'https://example.com/hook', eventTypes: ['webhook.test'] } });
    expect(created.status).toBe(201);
    subscriptions.push(created.body.id);
    expect(created.body.url).toBe('https://example.com/hook');
    for (const url of refusedUrls) {
      const response = await api('PATCH', `/v1/webhooks/subscriptions/${created.body.id}`, { as: 'a-system', body: { url } });
      expectProblem(response, 400, 'validation_failed');
      expect((response.body.errors as { field: string }[]).map((error) => error.field), JSON.stringify(url)).toContain('url');
    }
    expect((await subscriptionRepository.get(created.body.id))!.url).toBe('https://example.com/hook');
  });
});
