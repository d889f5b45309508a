import { randomUUID } from 'node:crypto';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSqsClient } from '../../infra/local/sqs';
import { api, expectProblem } from '../support/api';
import { startReceiver, verifySubscription } from '../support/webhook-receiver';
import { eventually, queueWaitMs } from '../support/poll';
import { testStack } from '../support/stack';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { outboxEventKeys } from '../../shared/outbox/keys';
import { dynamo, outboxTableName } from '../../shared/platform/aws';
import { relayHandler } from '../../shared/webhooks/relay';
import { subscriptionRepository } from '../../shared/webhooks/repository';
import type { Json } from '../support/json';
import { testWebhookSchedule } from '../support/webhook-windows';
import { typescriptNodeArgs } from '../../infra/tools/typescript-node';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const receivers: Receiver[] = [];
afterAll(async () => {
  for (const receiver of receivers) await receiver.stop();
});

/** A company of organization A with its own verified subscription to every event of it. */
const subscribed = async (eventTypes: string[] = ['*']) => {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const company = (await api('POST', '/v1/companies', { as: 'a-system', body: { displayName: `Webhook Co ${randomUUID().slice(0, 6)}`, accountingSystem: 'Api' } })).body.id as string;
  const created = await api('POST', '/v1/webhooks/subscriptions', { as: 'a-system', body: { url: receiver.url, eventTypes, companyIds: [company] } });
  expect(created.status).toBe(201);
  expect(created.body.status).toBe('pending_verification');
  expect(created.body.secret).toMatch(/^whsec_/);
  receiver.state.secrets = [created.body.secret];
  const id = created.body.id as string;
  await eventually(async () => (await api('GET', `/v1/webhooks/subscriptions/${id}`, { as: 'a-system' })).body.status === 'active', queueWaitMs, 'the handshake');
  expect((await api('GET', `/v1/webhooks/subscriptions/${id}`, { as: 'a-system' })).body.secret).toBeUndefined();
  return { receiver, company, subscription: id };
};

const deliveriesOf = async (subscription: string, query = '') => (await api('GET', `/v1/webhooks/subscriptions/${subscription}/deliveries${query}`, { as: 'a-system' })).body.data as Json[];

beforeAll(() => {
  testStack();
});

// Each test has its own receiver and subscription and mostly waits on the delivery schedule: they
// run side by side (the crash test too).
describe.concurrent('webhooks', () => {
  it('handshake passes for a verifying receiver and fails for one that accepts anything', async () => {
    const { receiver } = await subscribed();
    expect(receiver.state.verifications).toBeGreaterThanOrEqual(1);
    expect(receiver.state.refused).toBeGreaterThanOrEqual(1); // the wrongly signed one

    const naive = await startReceiver();
    receivers.push(naive);
    const created = await api('POST', '/v1/webhooks/subscriptions', { as: 'a-system', body: { url: naive.url, eventTypes: ['company.updated'] } });
    // This receiver never learns the secret: it refuses the genuine request too.
    const verified = await verifySubscription(created.body.id, { as: 'a-system' });
    expect(verified.body.status).toBe('pending_verification');
    expect(verified.body.statusReason).toMatch(/signed verification request was answered 401/);
    // It would hold a delivery of every company.updated of the organization for the rest of the run.
    expect((await api('DELETE', `/v1/webhooks/subscriptions/${created.body.id}`, { as: 'a-system' })).status).toBe(200);
  });

  it('a new url holds the events until it passes the handshake, then delivers them there, none to the old url', async () => {
    const { receiver: old, company, subscription } = await subscribed(['company.updated']);
    const moved = await startReceiver();
    receivers.push(moved);
    moved.state.mode = 'down'; // refuses the handshake (and anything sent before it passes)
    const changed = await api('PATCH', `/v1/webhooks/subscriptions/${subscription}`, { as: 'a-system', body: { url: moved.url } });
    expect(changed.body.status).toBe('pending_verification');
    await api('PATCH', `/v1/companies/${company}`, { as: 'a-system', body: { displayName: 'Moved Receiver AS' } });
    const held = await eventually(async () => (await deliveriesOf(subscription, '?event_type=company.updated'))[0], queueWaitMs, 'the held delivery');
    expect(held).toMatchObject({ status: 'pending', attemptCount: 0 });

    moved.state.mode = 'ok';
    moved.state.secrets = old.state.secrets;
    expect((await verifySubscription(subscription, { as: 'a-system' })).body.status).toBe('active');
    await eventually(() => moved.state.received.some((r) => r.event.type === 'company.updated'), queueWaitMs, 'the held event at the new url');
    // The receiver answers before the worker records the attempt: wait for the record.
    const delivered = await eventually(async () => {
      const detail = (await api('GET', `/v1/webhooks/deliveries/${held.id}`, { as: 'a-system' })).body;
      return detail.status !== 'pending' && detail;
    }, queueWaitMs, 'the delivery record');
    expect(delivered).toMatchObject({ status: 'succeeded' });
    expect(delivered.attempts).toHaveLength(1); // nothing was sent while the url was unverified
    expect(old.state.received.filter((r) => r.event.type === 'company.updated')).toEqual([]);
  });

  it('refuses receivers that are not https or loopback here, or on a port other than 443 or 8443, and is 404 for another organization', async () => {
    const refused = await api('POST', '/v1/webhooks/subscriptions', { as: 'a-system', body: { url: 'http://example.com/hook', eventTypes: ['*'] } });
    expectProblem(refused, 400, 'validation_failed');
    const { subscription } = await subscribed(['company.updated']);
    // https only on 443 or 8443: another port is refused at create and at a url change, naming url.
    for (const url of ['https://victim.example:22/', 'https://receiver.example.com:8080/hook']) {
      const onCreate = await api('POST', '/v1/webhooks/subscriptions', { as: 'a-system', body: { url, eventTypes: ['*'] } });
      expectProblem(onCreate, 400, 'validation_failed');
      expect(onCreate.body.errors).toEqual([{ field: 'url', message: 'url must use port 443 (the default) or 8443' }]);
      const onChange = await api('PATCH', `/v1/webhooks/subscriptions/${subscription}`, { as: 'a-system', body: { url } });
      expectProblem(onChange, 400, 'validation_failed');
      expect(onChange.body.errors).toEqual([{ field: 'url', message: 'url must use port 443 (the default) or 8443' }]);
    }
    // 8443 is allowed (deleted at once: its handshake finds nothing).
    const on8443 = await api('POST', '/v1/webhooks/subscriptions', { as: 'a-system', body: { url: 'https://receiver.example.com:8443/hook', eventTypes: ['company.updated'] } });
    expect(on8443.status).toBe(201);
    expect((await api('DELETE', `/v1/webhooks/subscriptions/${on8443.body.id}`, { as: 'a-system' })).status).toBe(200);
    expectProblem(await api('GET', `/v1/webhooks/subscriptions/${subscription}`, { as: 'b-system' }), 404, 'not_found');
    expectProblem(await api('GET', '/v1/webhooks/subscriptions', { as: 'a-readonly' }), 403, 'insufficient_scope');
  });

  it("a company's events and an import's arrive signed, thin, fetchable through their link, and in the event feed in order", async () => {
    const { receiver, company } = await subscribed();
    await api('PATCH', `/v1/companies/${company}`, { as: 'a-system', body: { displayName: 'Renamed AS' } });
    const importRecord = await api('POST', `/v1/companies/${company}/imports/accounts`, {
      as: 'a-system',
      body: { year: 2026, accounts: [{ accountCode: '1920', accountDescription: 'Bank', accountCategory: 'Balance' }] },
    });
    expect(importRecord.status).toBe(202);
    const types = ['company.updated', 'import.requested', 'job.succeeded'];
    await eventually(() => types.every((type) => receiver.state.received.some((r) => r.event.type === type)), queueWaitMs, 'the events');
    for (const received of receiver.state.received) {
      expect(received.verifiedBy).toEqual({ library: [true], crypto: [true] });
      expect(received.id).toBe(received.event.id);
      expect(Object.keys(received.event).sort()).toEqual(['companyId', 'data', 'id', 'occurredAt', 'organizationId', 'type']);
      expect(Object.keys(received.event.data).sort()).toEqual(['ids', 'link']);
      expect(received.event.companyId).toBe(company);
      const linked = await api('GET', received.event.data.link, { as: 'a-system' });
      expect(linked.status, received.event.data.link).toBe(200);
    }
    const job = receiver.state.received.find((r) => r.event.type === 'job.succeeded')!;
    expect(job.event.data).toEqual({ ids: { jobId: importRecord.body.jobId, importId: importRecord.body.id }, link: `/v1/jobs/${importRecord.body.jobId}` });

    const feed = await api('GET', `/v1/events?company_id=${company}&page_size=200`, { as: 'a-system' });
    expect(feed.status).toBe(200);
    const feedTypes = feed.body.data.map((event: Json) => event.type);
    expect(feedTypes.slice(0, 2)).toEqual(['company.created', 'company.updated']);
    const sequences = feed.body.data.map((event: Json) => event.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    const after = await api('GET', `/v1/events?company_id=${company}&after=${sequences[0]}`, { as: 'a-system' });
    expect(after.body.data[0].sequence).toBe(sequences[1]);
  });

  it('receiver down then up: retried and delivered once per event id; the log shows every attempt', async () => {
    const { receiver, company, subscription } = await subscribed(['company.disabled']);
    receiver.state.mode = 'down';
    await api('POST', `/v1/companies/${company}/actions/disable`, { as: 'a-system' });
    await eventually(() => receiver.state.received.length >= 2, queueWaitMs, 'two failed attempts');
    receiver.state.mode = 'ok';
    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(subscription);
      return list.length === 1 && list[0].status === 'succeeded' && list;
    }, queueWaitMs, 'the delivery to succeed');
    expect(new Set(receiver.state.received.map((r) => r.id)).size).toBe(1);
    const detail = await api('GET', `/v1/webhooks/deliveries/${delivery.id}`, { as: 'a-system' });
    expect(detail.body.attempts.length).toBe(receiver.state.received.length);
    expect(detail.body.attempts[0]).toMatchObject({ statusCode: 503, responseBody: 'down for maintenance' });
    expect(detail.body.attempts.at(-1).statusCode).toBe(204);

    // Redelivery: the same event id again, as a new delivery.
    const again = await api('POST', `/v1/webhooks/deliveries/${delivery.id}/redeliver`, { as: 'a-system' });
    expect(again.status).toBe(202);
    expect(again.body.redeliveryOf).toBe(delivery.id);
    await eventually(() => receiver.state.received.filter((r) => r.event.type === 'company.disabled').length === detail.body.attempts.length + 1, queueWaitMs, 'the redelivery');
    expect(receiver.state.received.at(-1)!.id).toBe(delivery.eventId);
  });

  it('a slow receiver times out and is retried; 410 disables the subscription', async () => {
    const { receiver, subscription } = await subscribed(['webhook.test']);
    receiver.state.mode = 'slow';
    const test = await api('POST', `/v1/webhooks/subscriptions/${subscription}/test`, { as: 'a-system' });
    expect(test.status).toBe(202);
    await eventually(() => receiver.state.received.length >= 2, queueWaitMs, 'a retry after the timeout');
    const detail = await api('GET', `/v1/webhooks/deliveries/${test.body.id}`, { as: 'a-system' });
    expect(detail.body.attempts[0].error).toMatch(/timeout/);
    receiver.state.mode = 'gone';
    await eventually(async () => (await api('GET', `/v1/webhooks/subscriptions/${subscription}`, { as: 'a-system' })).body.status === 'disabled', queueWaitMs, 'the 410 to disable');
    expectProblem(await api('POST', `/v1/webhooks/subscriptions/${subscription}/test`, { as: 'a-system' }), 409, 'conflict');
    // verify enables it again
    receiver.state.mode = 'ok';
    expect((await verifySubscription(subscription, { as: 'a-system' })).body.status).toBe('active');
  });

  it('every attempt failing ends dead and on the DLQ', async () => {
    const { receiver, subscription } = await subscribed(['webhook.test']);
    receiver.state.mode = 'down';
    const test = await api('POST', `/v1/webhooks/subscriptions/${subscription}/test`, { as: 'a-system' });
    await eventually(async () => (await api('GET', `/v1/webhooks/deliveries/${test.body.id}`, { as: 'a-system' })).body.status === 'dead', queueWaitMs, 'the delivery to die');
    const detail = await api('GET', `/v1/webhooks/deliveries/${test.body.id}`, { as: 'a-system' });
    expect(detail.body.attempts).toHaveLength(8);
    const sqs = localSqsClient(testStack().internal.sqsEndpoint);
    // Other dead deliveries share the DLQ: each receive hides its batch for a few seconds, so the
    // next one reads further (nothing else reads this queue).
    await eventually(async () => {
      const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: testStack().internal.queues.webhooks.dlqUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 5 }));
      return (Messages ?? []).some((message) => JSON.parse(message.Body ?? '{}').deliveryId === test.body.id);
    }, queueWaitMs, 'the DLQ message');
    expect((await deliveriesOf(subscription, '?status=dead')).map((d) => d.id)).toContain(test.body.id);
  });

  it('a subscription whose deliveries all fail for the whole window is disabled, with a webhook.disabled notice (window 480 s here, 5 days deployed)', async () => {
    const window = testWebhookSchedule.disableAfterSeconds;
    const { receiver, subscription } = await subscribed(['webhook.test']);
    receiver.state.mode = 'down';
    const read = async () => (await api('GET', `/v1/webhooks/subscriptions/${subscription}`, { as: 'a-system' })).body;
    const failingSince = async () => (await subscriptionRepository.get(subscription))?.failingSince;
    /** A new event whose delivery has failed `attempts` times, or died (each attempt reads the subscription afresh). */
    const failed = async (attempts: number | 'dead') => {
      const test = await api('POST', `/v1/webhooks/subscriptions/${subscription}/test`, { as: 'a-system' });
      expect(test.status).toBe(202);
      const delivery = await eventually(async () => {
        const detail = (await api('GET', `/v1/webhooks/deliveries/${test.body.id}`, { as: 'a-system' })).body;
        return (attempts === 'dead' ? detail.status === 'dead' : detail.attempts.length >= attempts) && detail;
      }, queueWaitMs, `${attempts} failed attempts`);
      // The worker notes the failure on the subscription after it records the attempt: wait for that too.
      const lastAttemptAt: string = delivery.attempts.at(-1).at;
      await eventually(async () => ((await subscriptionRepository.get(subscription))?.lastFailureAt ?? '') >= lastAttemptAt, queueWaitMs, 'the failure noted on the subscription');
    };
    // The first failure starts the window; the delivery's later failures keep its start.
    const before = new Date().toISOString();
    const first = failed('dead');
    const started = await eventually(failingSince, queueWaitMs, 'the start of the failing window');
    expect(started! >= before).toBe(true);
    await first;
    expect(await failingSince()).toBe(started);
    const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();
    // Rather than wait the window out, the test moves its start back. A streak that began before
    // the window but whose last failure is older than an eighth of it is over: the next failure
    // starts a new streak, and the subscription stays active.
    expect(await subscriptionRepository.update(subscription, { failingSince: ago(window + 1), lastFailureAt: ago(window / 8 + 1) })).toBe(true);
    const restarted = new Date().toISOString();
    await failed(1);
    await eventually(async () => ((await failingSince()) ?? '') >= restarted, queueWaitMs, 'a new failing streak');
    expect((await read()).status).toBe('active');
    // Failing for less than the window: a new event's failures keep the start, and the subscription stays active.
    const inside = ago(window / 2);
    expect(await subscriptionRepository.update(subscription, { failingSince: inside, lastFailureAt: ago(0) })).toBe(true);
    await failed(2);
    expect(await failingSince()).toBe(inside);
    expect((await read()).status).toBe('active');
    // Failing for the whole window: the next failure disables it, once.
    const outside = ago(window + 1);
    expect(await subscriptionRepository.update(subscription, { failingSince: outside, lastFailureAt: ago(0) })).toBe(true);
    await api('POST', `/v1/webhooks/subscriptions/${subscription}/test`, { as: 'a-system' });
    await eventually(async () => (await read()).status === 'disabled', queueWaitMs, 'the subscription to be disabled');
    const disabled = await read();
    expect(disabled.statusReason).toMatch(/^Every delivery failed since /);
    expect(disabled.statusReason).toContain(`since ${outside}:`);
    // The notice is written after the status: wait for it, then make sure it stays one.
    await eventually(async () => (await deliveriesOf(subscription, '?event_type=webhook.disabled')).length > 0, queueWaitMs, 'the webhook.disabled notice');
    expect((await deliveriesOf(subscription, '?event_type=webhook.disabled')).length).toBe(1);
  });

  it('of deliveries disabling a subscription side by side, exactly one disables it (and leaves the notice)', async () => {
    const { subscription } = await subscribed(['webhook.test']);
    const at = new Date().toISOString();
    const outcomes = await Promise.all(Array.from({ length: 4 }, () => subscriptionRepository.disable(subscription, 'Every delivery failed since then', at)));
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect((await api('GET', `/v1/webhooks/subscriptions/${subscription}`, { as: 'a-system' })).body.status).toBe('disabled');
    expect(await subscriptionRepository.disable(randomUUID(), 'gone', at)).toBe(false);
  });

  it('a slow receiver holds at most the per-subscription concurrency (4) of requests at once', async () => {
    const { receiver, subscription } = await subscribed(['webhook.test']);
    // Slow but within the timeout: the deliveries succeed, so no failing window can disable the
    // subscription however long the machine takes to work through the ten.
    receiver.state.mode = 'busy';
    const sent = await Promise.all(Array.from({ length: 10 }, () => api('POST', `/v1/webhooks/subscriptions/${subscription}/test`, { as: 'a-system' })));
    expect(sent.map((response) => response.status)).toEqual(Array(10).fill(202));
    await eventually(() => new Set(receiver.state.received.map((r) => r.id)).size === 10, queueWaitMs, 'every event to arrive at least once');
    expect(receiver.state.maxInFlight).toBeGreaterThanOrEqual(2);
    expect(receiver.state.maxInFlight).toBeLessThanOrEqual(4);
    receiver.state.mode = 'ok';
  });

  it('a stream record delivered twice (at-least-once) adds no second feed entry and no second delivery', async () => {
    const { receiver, company, subscription } = await subscribed(['company.updated']);
    await api('PATCH', `/v1/companies/${company}`, { as: 'a-system', body: { displayName: 'Twice Told AS' } });
    const first = await eventually(() => receiver.state.received.find((r) => r.event.type === 'company.updated'), queueWaitMs, 'the event');
    const { Item } = await dynamo().send(new GetCommand({ TableName: outboxTableName(), Key: outboxEventKeys(first.id), ConsistentRead: true }));
    const record = { eventName: 'INSERT', dynamodb: { SequenceNumber: '1', NewImage: marshall(Item!) } } as DynamoDBStreamEvent['Records'][number];
    expect(await relayHandler({ Records: [record] })).toEqual({ batchItemFailures: [] });
    await new Promise((done) => setTimeout(done, 3000)); // a second fan-out, if any, has had time to act
    // The whole feed of the company's company.updated events (filtered pages may be short: follow the cursor).
    const feed: Json[] = [];
    for (let cursor: string | null = null, pages = 0; pages < 100; pages++) {
      const page: Json = (await api('GET', `/v1/events?company_id=${company}&type=company.updated&page_size=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { as: 'a-system' })).body;
      feed.push(...page.data);
      if (!page.pagination.has_more) break;
      cursor = page.pagination.next_cursor;
    }
    expect(feed.filter((entry) => entry.id === first.id)).toHaveLength(1);
    const deliveries = await deliveriesOf(subscription, '?event_type=company.updated');
    expect(deliveries).toHaveLength(1);
    expect(new Set(receiver.state.received.filter((r) => r.event.type === 'company.updated').map((r) => r.id))).toEqual(new Set([first.id]));
  });

  it('rotation: two signatures for a day, each verifying with its secret', async () => {
    const { receiver, subscription } = await subscribed(['webhook.test']);
    const old = receiver.state.secrets[0]!;
    const rotated = await api('POST', `/v1/webhooks/subscriptions/${subscription}/rotate-secret`, { as: 'a-system' });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    receiver.state.secrets = [rotated.body.secret, old];
    await api('POST', `/v1/webhooks/subscriptions/${subscription}/test`, { as: 'a-system' });
    const received = await eventually(() => receiver.state.received.find((r) => r.event.type === 'webhook.test'), queueWaitMs, 'the test event');
    expect(String(received.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(received.verifiedBy).toEqual({ library: [true, true], crypto: [true, true] });
  });

  it('the catalogue lists every type with its ids and link', async () => {
    const catalogue = await api('GET', '/v1/webhooks/event-types', { as: 'a-system' });
    const types = catalogue.body.data.map((entry: Json) => entry.type);
    for (const type of ['job.succeeded', 'job.failed', 'import.requested', 'correction.requested', 'company.created', 'company.restored', 'reconciliation.created', 'document.created', 'bank.statement.ingested', 'webhook.test']) {
      expect(types).toContain(type);
    }
  });
});

describe.concurrent('webhooks: a crash of the delivery worker', () => {
  it('mid-batch repeats the deliveries with the same webhook-id once the message comes back (no loss)', async () => {
    const { deliveryRepository } = await import('../../shared/webhooks/repository');
    const { sendMessage } = await import('../../shared/webhooks/queue');
    const { receiver, subscription } = await subscribed(['webhook.test']);
    // Two pending deliveries with no queue message yet: only the child worker below sees them.
    const now = new Date().toISOString();
    const ids = [randomUUID(), randomUUID()];
    for (const id of ids) {
      const event = { id: randomUUID(), type: 'webhook.test', occurredAt: now, organizationId: testStack().organizations[0]!.id, companyId: null, data: { ids: { subscriptionId: subscription }, link: `/v1/webhooks/subscriptions/${subscription}` } };
      await deliveryRepository.create({ id, subscriptionId: subscription, organizationId: event.organizationId, eventId: event.id, eventType: 'webhook.test', payload: JSON.stringify(event), status: 'pending', attempts: [], nextAttemptAt: now, createdAt: now, updatedAt: now, redeliveryOf: null, notice: null });
    }
    receiver.state.mode = 'hold';
    const { spawn } = await import('node:child_process');
    // Its attempts time out (and their leases end) long after the kill below, which follows the
    // second request within a poll: a lease is twice the timeout, so the repeats start 12 s after
    // the crash at most.
    const child = spawn(process.execPath, [...typescriptNodeArgs, 'test/support/delivery-worker-child.ts', ...ids], {
      env: { ...process.env, WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_TIMEOUT_SECONDS: '6', POWERTOOLS_LOG_LEVEL: 'ERROR' },
      stdio: 'ignore',
    });
    await eventually(() => receiver.state.received.length === 2, queueWaitMs, 'both requests of the batch in flight');
    const inFlight = receiver.state.received.map((r) => r.id).sort();
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    for (const id of ids) expect((await deliveryRepository.get(id))!.attempts).toHaveLength(0); // nothing recorded: it crashed

    // The messages come back (SQS does so after the visibility timeout): the same events are delivered.
    receiver.state.mode = 'ok';
    for (const id of ids) await sendMessage('webhooks', { deliveryId: id });
    await eventually(async () => (await Promise.all(ids.map((id) => deliveryRepository.get(id)))).every((d) => d?.status === 'succeeded'), queueWaitMs, 'the repeats');
    const delivered = receiver.state.received.slice(2).map((r) => r.id).sort();
    expect(delivered).toEqual(inFlight);
  });
});
