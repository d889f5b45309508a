import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/outbox-sweeper/handler';
import { outboxEventItem } from '../../shared/outbox/repository';
import { dynamo, outboxTableName, sqs } from '../../shared/platform/aws';
import { fanoutWorker, type FanoutMessage } from '../../shared/webhooks/fanout';
import { queues } from '../../shared/queues';
import { eventsToSweep, relayHandler, sweepPendingEvents, type SweepResult } from '../../shared/webhooks/relay';
import { outboxEventKeys } from '../../shared/outbox/keys';
import { eventually, queueWaitMs } from '../support/poll';
import { observingCalls } from '../support/sdk-calls';
import { api } from '../support/api';
import { lambdaContext } from '../../infra/local/lambda-context';
import { newFirm } from '../support/people';
import { testStack } from '../support/stack';
import { runTool } from '../support/tools';

/**
 * The outbox sweeper relays events the stream relay never saw. Such an event is made here as the
 * stream cannot pass it on: put under another entity (an INSERT the relay's filter drops), then
 * turned into a pending outbox event by an update (a MODIFY, which the filter drops too), as if
 * it had been left beyond the stream's 24 hours.
 */
let firm: Awaited<ReturnType<typeof newFirm>>;
let companyId: string;

beforeAll(async () => {
  firm = await newFirm('Sweeper');
  companyId = await firm.company();
});

const missedEvent = async (minutesAgo: number, company = companyId): Promise<string> => {
  const occurredAt = new Date(Date.now() - minutesAgo * 60_000).toISOString();
  const item = outboxEventItem('company.updated', company, { companyId: company }, occurredAt);
  await dynamo().send(new PutCommand({ TableName: outboxTableName(), Item: { ...item, entity: 'sweeperTestPlaceholder' } }));
  await dynamo().send(new UpdateCommand({ TableName: outboxTableName(), Key: { PK: item.PK, SK: item.SK }, UpdateExpression: 'SET entity = :event', ExpressionAttributeValues: { ':event': 'outboxEvent' } }));
  return item.id;
};

const feedOf = async (company = companyId): Promise<{ id: string; type: string; sequence: number; occurredAt: string }[]> => (await api('GET', `/v1/events?company_id=${company}&page_size=200`, { token: firm.systemToken })).body.data;
const sweep = (olderThanSeconds: number): Promise<SweepResult> => sweepPendingEvents({ olderThanSeconds, lookbackDays: 2, limit: 1000 });
/** Whether the event is in the pending index (what a sweep finds). */
const isPending = async (eventId: string): Promise<boolean> => (await eventsToSweep({ olderThanSeconds: 0, lookbackDays: 2, limit: 100_000 })).some((item) => item.id === eventId);

/** Runs `run` with every SendMessage of the webhook-fanout queue naming `eventId` failing (an SQS blip); answers the bodies refused. */
const failingFanOutOf = async (eventId: string, run: () => Promise<unknown>): Promise<string[]> => {
  const refused: string[] = [];
  const fanOutQueueUrl = process.env[queues.find((queue) => queue.name === 'webhook-fanout')!.urlEnv];
  await observingCalls(
    sqs(),
    (commandName, input) => {
      if (commandName !== 'SendMessageCommand' || input.QueueUrl !== fanOutQueueUrl || typeof input.MessageBody !== 'string') return;
      if ((JSON.parse(input.MessageBody) as FanoutMessage).eventId !== eventId) return;
      refused.push(input.MessageBody);
      throw Object.assign(new Error('Service unavailable (simulated)'), { name: 'ServiceUnavailable' });
    },
    run,
  );
  return refused;
};

/** A subscription of the firm to the company's company.updated events (never verified: its deliveries are held, but created). */
const subscriptionTo = async (company: string): Promise<string> => {
  const created = await api('POST', '/v1/webhooks/subscriptions', { token: firm.systemToken, body: { url: 'http://127.0.0.1:9/never-verified', eventTypes: ['company.updated'], companyIds: [company] } });
  expect(created.status).toBe(201);
  return created.body.id as string;
};

const deliveriesOf = async (subscription: string, eventId: string): Promise<{ id: string; eventId: string }[]> =>
  ((await api('GET', `/v1/webhooks/subscriptions/${subscription}/deliveries?page_size=200`, { token: firm.systemToken })).body.data as { id: string; eventId: string }[]).filter(
    (delivery) => delivery.eventId === eventId,
  );

describe('outbox sweeper', () => {
  it('relays an event the stream relay missed into the feed, exactly once, even when two sweeps run at once', async () => {
    const eventId = await missedEvent(30);
    // The stream relay does not see it (nothing but the sweeper will relay it).
    expect((await feedOf()).map((entry) => entry.id)).not.toContain(eventId);

    const [first, second] = await Promise.all([sweep(600), sweep(600)]);
    expect(first.relayed + second.relayed).toBe(1);
    expect(first.failed + second.failed).toBe(0);
    const feed = (await feedOf()).filter((entry) => entry.id === eventId);
    expect(feed).toHaveLength(1);

    // Relayed, it leaves the pending index: a later sweep finds it no more.
    const again = await sweep(600);
    expect(again.found).toBe(again.alreadyRelayed + again.relayed + again.failed);
    expect((await feedOf()).filter((entry) => entry.id === eventId)).toHaveLength(1);
  });

  it('an event whose fan-out message could not be sent stays pending: the next sweep queues it again, and a repeated fan-out makes no second delivery', async () => {
    const company = await firm.company();
    const subscription = await subscriptionTo(company);
    const eventId = await missedEvent(30, company);

    let failedSweep: SweepResult | undefined;
    const refused = await failingFanOutOf(eventId, async () => (failedSweep = await sweep(600)));
    expect(refused).toHaveLength(1);
    expect(failedSweep!.failed).toBeGreaterThanOrEqual(1);
    // In the feed, but not yet queued for fan-out: still pending, so the next sweep finds it.
    expect((await feedOf(company)).filter((entry) => entry.id === eventId)).toHaveLength(1);
    expect(await isPending(eventId)).toBe(true);

    const again = await sweep(600);
    expect(again.alreadyRelayed).toBeGreaterThanOrEqual(1);
    expect(await isPending(eventId)).toBe(false);
    expect((await feedOf(company)).filter((entry) => entry.id === eventId)).toHaveLength(1);
    const [delivery] = await eventually(async () => {
      const found = await deliveriesOf(subscription, eventId);
      return found.length > 0 && found;
    }, queueWaitMs, 'the delivery of the re-queued event');

    // The same fan-out message twice more: the delivery's id is derived from event and subscription, so no second one.
    const message = { messageId: randomUUID(), body: refused[0]! };
    expect(await fanoutWorker({ Records: [message, { ...message, messageId: randomUUID() }] } as SQSEvent)).toEqual({ batchItemFailures: [] });
    expect(await fanoutWorker({ Records: [{ ...message, messageId: randomUUID() }] } as SQSEvent)).toEqual({ batchItemFailures: [] });
    expect((await deliveriesOf(subscription, eventId)).map((found) => found.id)).toEqual([delivery!.id]);
    expect((await api('DELETE', `/v1/webhooks/subscriptions/${subscription}`, { token: firm.systemToken })).status).toBe(200);
  });

  it('the stream relay whose fan-out message could not be sent fails the record and leaves the event pending for the sweeper', async () => {
    const eventId = await missedEvent(0);
    const record = await insertRecord(eventId, 1);
    await failingFanOutOf(eventId, async () => expect(await relayHandler({ Records: [record] })).toEqual({ batchItemFailures: [{ itemIdentifier: '1' }] }));
    expect((await feedOf()).filter((entry) => entry.id === eventId)).toHaveLength(1);
    // Were the stream record gone (24 h), the sweeper would still find the event.
    expect(await isPending(eventId)).toBe(true);
    const swept = await sweep(0);
    expect(swept.alreadyRelayed).toBeGreaterThanOrEqual(1);
    expect(await isPending(eventId)).toBe(false);
    expect((await feedOf()).filter((entry) => entry.id === eventId)).toHaveLength(1);
  });

  it('leaves events younger than its bound to the stream relay', async () => {
    const eventId = await missedEvent(1);
    await sweep(600);
    expect((await feedOf()).map((entry) => entry.id)).not.toContain(eventId);
    // With a bound of a few seconds it takes it.
    await sweep(5);
    expect((await feedOf()).map((entry) => entry.id)).toContain(eventId);
  });

  it('the scheduled handler sweeps with the bounds of its environment and answers what it did', async () => {
    const eventId = await missedEvent(30);
    const result = (await handler({}, lambdaContext('outbox-sweeper', 300)));
    expect(result.relayed).toBeGreaterThanOrEqual(1);
    expect(result.limitReached).toBe(false);
    expect((await feedOf()).filter((entry) => entry.id === eventId)).toHaveLength(1);
  });

  it('npm run admin -- outbox-sweep lists the pending events with --dry-run and relays them without', async () => {
    const eventId = await missedEvent(30);
    const dir = mkdtempSync(join(tmpdir(), 'outbox-sweep-'));
    try {
      writeFileSync(join(dir, 'stack.json'), JSON.stringify(testStack()));
      const admin = (...args: string[]) => runTool('infra/tools/admin.ts', 'outbox-sweep', '--stack', join(dir, 'stack.json'), ...args);
      const dry = await admin('--dry-run', '--json');
      expect(dry.code, dry.stderr).toBe(0);
      expect(JSON.parse(dry.stdout).pending.map((event: { id: string }) => event.id)).toContain(eventId);
      expect((await feedOf()).map((entry) => entry.id)).not.toContain(eventId);

      const run = await admin();
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^Found \d+ pending: relayed [1-9]\d*, already relayed \d+, failed \d+$/m);
      expect((await feedOf()).filter((entry) => entry.id === eventId)).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The stream record of an outbox event, as the relay's event source mapping passes it. */
const insertRecord = async (eventId: string, sequenceNumber: number): Promise<DynamoDBStreamEvent['Records'][number]> => {
  const { Item } = await dynamo().send(new GetCommand({ TableName: outboxTableName(), Key: outboxEventKeys(eventId), ConsistentRead: true }));
  return { eventName: 'INSERT', dynamodb: { SequenceNumber: String(sequenceNumber), NewImage: marshall(Item!) } } as DynamoDBStreamEvent['Records'][number];
};

/** The reads (GetItem, Query) of the service's DynamoDB client while `run` runs, by the first part of the key read (COMPANY, EVENTFEED, ...). */
const countingReads = async (run: () => Promise<unknown>): Promise<Map<string, number>> => {
  const reads = new Map<string, number>();
  await observingCalls(
    dynamo(),
    (commandName, input) => {
      if (commandName !== 'GetItemCommand' && commandName !== 'QueryCommand') return;
      const key = commandName === 'QueryCommand' ? (input.ExpressionAttributeValues as Record<string, unknown> | undefined)?.[':pk'] : (input.Key as Record<string, unknown> | undefined)?.PK;
      const prefix = (typeof key === 'string' ? key : ((key as { S?: string } | undefined)?.S ?? '')).split('#')[0]!;
      reads.set(prefix, (reads.get(prefix) ?? 0) + 1);
    },
    run,
  );
  return reads;
};

/** The bodies of the messages `run` sends to the webhook-fanout queue (they are sent too). */
const capturingFanOutMessages = async (run: () => Promise<unknown>): Promise<string[]> => {
  const bodies: string[] = [];
  const fanOutQueueUrl = process.env[queues.find((queue) => queue.name === 'webhook-fanout')!.urlEnv];
  await observingCalls(
    sqs(),
    (commandName, input) => {
      if (commandName === 'SendMessageCommand' && input.QueueUrl === fanOutQueueUrl && typeof input.MessageBody === 'string') bodies.push(input.MessageBody);
    },
    run,
  );
  return bodies;
};

describe('the stream relay and the fan-out, a batch at a time', () => {
  beforeAll(async () => {
    // The company's own event is relayed first: no other relay moves the organization's counter below.
    await eventually(async () => (await feedOf()).some((entry) => entry.type === 'company.created'), queueWaitMs, 'company.created in the feed');
  });

  it("reads a company and its organization's counter once for a burst of the company's events, and numbers them in order; their fan-out reads the subscriptions once", async () => {
    const events = [await missedEvent(0), await missedEvent(0), await missedEvent(0)];
    const records = await Promise.all(events.map((id, index) => insertRecord(id, index + 1)));
    const fanOutMessages: string[] = [];
    const reads = await countingReads(async () => {
      const sent = await capturingFanOutMessages(async () => expect(await relayHandler({ Records: records })).toEqual({ batchItemFailures: [] }));
      fanOutMessages.push(...sent);
    });
    expect(reads.get('COMPANY')).toBe(1);
    expect(reads.get('EVENTFEED')).toBe(1); // one organization, no parent
    const feed = await feedOf();
    const sequences = events.map((id) => feed.find((entry) => entry.id === id)?.sequence);
    expect(sequences.every((sequence) => typeof sequence === 'number')).toBe(true);
    expect(sequences).toEqual([sequences[0], sequences[0]! + 1, sequences[0]! + 2]);

    // The relay sends each event along to the fan-out: its messages need no read of the event, and
    // the three in one batch of the queue read the organization's subscriptions once.
    expect(fanOutMessages.map((body) => (JSON.parse(body) as FanoutMessage).eventId)).toEqual(events);
    const feedEvent = (id: string) => JSON.stringify((({ sequence: _sequence, ...event }) => event)(feed.find((entry) => entry.id === id)!));
    for (const body of fanOutMessages) {
      const { eventId, relayed } = JSON.parse(body) as FanoutMessage;
      expect(relayed).toMatchObject({ type: 'company.updated', companyId, organizationPath: firm.root.path });
      expect(relayed!.payload).toBe(feedEvent(eventId)); // what the feed serves, but its sequence
    }
    const batchOf = (bodies: string[]) => ({ Records: bodies.map((body) => ({ messageId: randomUUID(), body })) }) as SQSEvent;
    const fanOutReads = await countingReads(async () => expect(await fanoutWorker(batchOf(fanOutMessages))).toEqual({ batchItemFailures: [] }));
    expect(Object.fromEntries(fanOutReads)).toEqual({ WEBHOOKS: 1 });
    // A message without the event (queued before the relay sent it along) reads it.
    const olderReads = await countingReads(async () => expect(await fanoutWorker(batchOf(events.map((eventId) => JSON.stringify({ eventId }))))).toEqual({ batchItemFailures: [] }));
    expect(Object.fromEntries(olderReads)).toEqual({ WEBHOOKS: 1, EVENT: 3 });
  });

  it("sequence is the relay's order, not the order of the changes, even within one company (docs/webhooks.md): occurredAt keeps that", async () => {
    // Two events of the company, the earlier one reaching the relay last (another shard, a retry, the sweeper).
    const [earlier, later] = [await missedEvent(1), await missedEvent(0)];
    expect(await relayHandler({ Records: [await insertRecord(later, 1)] })).toEqual({ batchItemFailures: [] });
    expect(await relayHandler({ Records: [await insertRecord(earlier, 2)] })).toEqual({ batchItemFailures: [] });
    const feed = await feedOf();
    const [a, b] = [feed.find((entry) => entry.id === earlier)!, feed.find((entry) => entry.id === later)!];
    expect(a.sequence).toBeGreaterThan(b.sequence);
    expect(a.occurredAt < b.occurredAt).toBe(true);
  });

  it('a counter another relay moved between two events of the batch is read again: every event is in the feed once, numbered without gaps', async () => {
    const [first, second, other] = [await missedEvent(0), await missedEvent(0), await missedEvent(0)];
    const otherRecord = await insertRecord(other, 3);
    // The other relay commits just before the batch's second commit.
    let commits = 0;
    const batch = [await insertRecord(first, 1), await insertRecord(second, 2)];
    const reads = await countingReads(() =>
      observingCalls(
        dynamo(),
        async (commandName) => {
          if (commandName === 'TransactWriteItemsCommand' && ++commits === 2) expect(await relayHandler({ Records: [otherRecord] })).toEqual({ batchItemFailures: [] });
        },
        async () => expect(await relayHandler({ Records: batch })).toEqual({ batchItemFailures: [] }),
      ),
    );
    // The batch: its first read, and again after the refused commit; the other relay: one.
    expect(reads.get('EVENTFEED')).toBe(3);
    const feed = await feedOf();
    const sequenceOf = (id: string) => feed.filter((entry) => entry.id === id).map((entry) => entry.sequence);
    const [a] = sequenceOf(first);
    expect(sequenceOf(other)).toEqual([a! + 1]);
    expect(sequenceOf(second)).toEqual([a! + 2]);
  });
});
