import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { companyRepository, type CompanyRecord } from '../companies/repository';
import { ConditionsFailed, unitOfWork } from '../db/unit-of-work';
import { contextRefreshingEventTypes } from '../outbox/events';
import { outboxFannedOut, outboxRelayedWrite, pendingEventsBefore } from '../outbox/repository';
import { logger } from '../platform/logger';
import { relayedEvent, type FanoutMessage } from './fanout';
import { eventFeedSequence } from './repository';
import { sendMessage } from './queue';
import { requestContextRefresh } from '../context/refresh-queue';

/**
 * What the relay's event source mapping passes on (CDK's filter criteria; the local stream poller
 * applies the same). The outbox table holds only events; the filter keeps out their updates (the
 * relay's own "relayed" and "fanned out" marks) and anything else that ever lands there.
 */
export const relayStreamFilter = { eventName: 'INSERT', entity: 'outboxEvent' } as const;

export const passesRelayFilter = (record: DynamoDBRecord): boolean =>
  record.eventName === relayStreamFilter.eventName && record.dynamodb?.NewImage?.entity?.S === relayStreamFilter.entity;

/** Feed entries are kept 30 days (GET /v1/events). */
export const eventRetentionDays = 30;

/**
 * The relay: the outbox table's stream hands it every new outbox event (on AWS the event source
 * mapping filters INSERTs of outbox events; the local stack polls the same stream and calls this
 * same handler). For each event it
 * 1. assigns the next sequence number of the event's organization and of each ancestor (one
 *    feed per organization, GET /v1/events), writing the feed entries and the counters (single
 *    table) and the event's "relayed" mark (outbox table) in one transaction, conditional on the
 *    counters' values: entries commit in sequence order, so a strongly consistent read never
 *    sees n+1 without n;
 * 2. queues the event for fan-out, with what the fan-out needs of it (and, for the event types
 *    that say so, refreshesContext in shared/outbox/events.ts, a rebuild of the company's context
 *    pictures);
 * 3. only then takes the event out of the pending index (outboxFannedOut): until this, the sweeper
 *    finds it, so a message that could not be sent is sent again, also after the stream's 24 hours.
 * A failure fails the record (and, on AWS, the records after it in the shard, retried in order);
 * a repeat finds the event relayed and only queues it again: fan-out is idempotent.
 */
export const relayHandler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const known = relayMemo();
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (!image || !passesRelayFilter(record)) continue;
    try {
      await relay(unmarshall(image as Record<string, AttributeValue>), known);
    } catch (error) {
      logger.error('Relay failed; the stream record is retried', error as Error);
      // Report this record and stop: the ones after it are retried after it, in order.
      return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
    }
  }
  return { batchItemFailures: [] };
};

/**
 * What one batch of relays has learnt: the companies it read and each organization's sequence
 * number as its own last commit left it. A burst of one company's events then reads the company
 * and the counters once, not once per event; a counter another relay moved meanwhile fails the
 * commit's condition, and that round reads it again.
 */
interface RelayMemo {
  companies: Map<string, CompanyRecord>;
  sequences: Map<string, number>;
}

const relayMemo = (): RelayMemo => ({ companies: new Map(), sequences: new Map() });

/** Relays one outbox event; 'already' when it was relayed before (it is queued for fan-out again, which is idempotent, and marked). */
const relay = async (item: Record<string, unknown>, known: RelayMemo): Promise<'relayed' | 'already'> => {
  let outcome: 'relayed' | 'already' = 'relayed';
  const eventId = item.id as string;
  const companyId = item.companyId as string;
  const company = known.companies.get(companyId) ?? (await companyRepository.get(companyId));
  if (!company) throw new Error(`Event ${eventId} names company ${companyId}, which does not exist`);
  known.companies.set(companyId, company);
  const organizations = company.organizationPath.split('/');
  const relayed = relayedEvent(item, company);
  const { payload } = relayed;
  const expiresAt = Math.floor(Date.now() / 1000) + eventRetentionDays * 86_400;

  for (let round = 0; ; round++) {
    const counters = await Promise.all(organizations.map((organizationId) => known.sequences.get(organizationId) ?? eventFeedSequence.current(organizationId)));
    const work = unitOfWork().add('event', outboxRelayedWrite(eventId, company, new Date().toISOString()));
    organizations.forEach((organizationId, level) => {
      const current = counters[level]!;
      work.add(`counter:${organizationId}`, eventFeedSequence.advanceWrite(organizationId, current));
      work.add(`entry:${organizationId}`, eventFeedSequence.entryWrite(organizationId, current + 1, { eventId, eventType: item.type as string, companyId, event: payload, expiresAt }));
    });
    try {
      await work.commit();
      organizations.forEach((organizationId, level) => known.sequences.set(organizationId, counters[level]! + 1));
      break;
    } catch (error) {
      for (const organizationId of organizations) known.sequences.delete(organizationId);
      if (!(error instanceof ConditionsFailed)) throw error;
      if (error.names.includes('event')) {
        outcome = 'already'; // relayed before (a repeated record): only queue it again
        break;
      }
      if (round >= 50) throw error; // counters kept moving: fail the record, the stream retries it
    }
  }
  const message: FanoutMessage = { eventId, relayed };
  await sendMessage('webhook-fanout', message);
  // The MCP context pictures follow the changes the post-fetch engines do not see, asynchronously.
  if (contextRefreshingEventTypes.has(item.type as string)) await requestContextRefresh(companyId, { changedBy: new Date().toISOString() });
  // Sent: out of the pending index (before this, a failure leaves the event for the sweeper).
  await outboxFannedOut(eventId, new Date().toISOString());
  return outcome;
};

export interface SweepOptions {
  /** Only events pending at least this long (the stream relay normally takes seconds). */
  olderThanSeconds: number;
  /** How many days of the pending index to look through, back from today. */
  lookbackDays: number;
  /** At most this many events per run (a run that hits it says so; the next run takes the rest). */
  limit: number;
  now?: Date;
}

export interface SweepResult {
  found: number;
  relayed: number;
  /** Relayed before (e.g. its fan-out message could not be sent then): queued for fan-out again. */
  alreadyRelayed: number;
  failed: number;
  limitReached: boolean;
}

/** The pending events a sweep with these bounds takes, oldest first (what `--dry-run` lists). */
export const eventsToSweep = (options: SweepOptions): Promise<Record<string, unknown>[]> => {
  const now = options.now ?? new Date();
  const before = new Date(now.getTime() - options.olderThanSeconds * 1000).toISOString();
  const days = Array.from({ length: options.lookbackDays + 1 }, (_, back) => new Date(now.getTime() - (options.lookbackDays - back) * 86_400_000).toISOString().slice(0, 10));
  return pendingEventsBefore(before, days, options.limit);
};

/**
 * The outbox sweeper: relays events the stream relay has not, e.g. left pending beyond the stream's
 * 24-hour window after a long outage, oldest first, through the same relay step, and queues again
 * for fan-out those relayed whose message was never sent (they stay pending until it is). Running
 * it beside the stream relay is safe: the "relayed" mark is conditional, so each event enters the
 * feed once and an event found relayed is only queued for fan-out again (idempotent per event).
 */
export const sweepPendingEvents = async (options: SweepOptions): Promise<SweepResult> => {
  const pending = await eventsToSweep(options);
  const result: SweepResult = { found: pending.length, relayed: 0, alreadyRelayed: 0, failed: 0, limitReached: pending.length >= options.limit };
  const known = relayMemo();
  for (const item of pending) {
    try {
      if ((await relay(item, known)) === 'relayed') result.relayed++;
      else result.alreadyRelayed++;
    } catch (error) {
      result.failed++;
      logger.error('Sweep could not relay an event; the next run tries again', { eventId: item.id, error: error as Error });
    }
  }
  return result;
};

/** The sweeper's bounds from the environment (OUTBOX_SWEEP_*), with the deployed defaults. */
export const sweepOptionsFromEnv = (): SweepOptions => ({
  olderThanSeconds: boundedNumber(process.env.OUTBOX_SWEEP_AFTER_SECONDS, 600, 0, 30 * 86_400),
  lookbackDays: boundedNumber(process.env.OUTBOX_SWEEP_LOOKBACK_DAYS, 14, 0, 365),
  limit: boundedNumber(process.env.OUTBOX_SWEEP_LIMIT, 1000, 1, 100_000),
});

const boundedNumber = (value: string | undefined, fallback: number, min: number, max: number): number => {
  const number = value === undefined || value === '' ? fallback : Number(value);
  if (!Number.isInteger(number) || number < min || number > max) throw new Error(`Expected a whole number from ${min} to ${max}, got ${value}`);
  return number;
};
