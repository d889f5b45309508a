import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { companyRepository } from '../companies/repository';
import { ConditionsFailed, unitOfWork } from '../db/unit-of-work';
import { contextRefreshingEventTypes } from '../outbox/events';
import { outboxRelayedWrite } from '../outbox/repository';
import { logger } from '../platform/logger';
import { thinEvent } from './catalog';
import { eventFeedSequence } from './repository';
import { sendMessage } from './queue';
import { requestContextRefresh } from '../context/refresh-queue';

/**
 * What the relay's event source mapping passes on (CDK's filter criteria; the local stream poller
 * applies the same). The outbox table holds only events; the filter keeps out their updates (the
 * relay's own "relayed" mark) and anything else that ever lands there.
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
 * 2. queues the event for fan-out (and, for the event types that say so, refreshesContext in
 *    shared/outbox/events.ts, a rebuild of the company's context pictures).
 * A failure fails the record (and, on AWS, the records after it in the shard, retried in order);
 * a repeat finds the event relayed and only queues it again: fan-out is idempotent.
 */
export const relayHandler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (!image || !passesRelayFilter(record)) continue;
    try {
      await relay(unmarshall(image as Record<string, AttributeValue>));
    } catch (error) {
      logger.error('Relay failed; the stream record is retried', error as Error);
      // Report this record and stop: the ones after it are retried after it, in order.
      return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
    }
  }
  return { batchItemFailures: [] };
};

const relay = async (item: Record<string, unknown>): Promise<void> => {
  const eventId = item.id as string;
  const companyId = item.companyId as string;
  const company = await companyRepository.get(companyId);
  if (!company) throw new Error(`Event ${eventId} names company ${companyId}, which does not exist`);
  const organizations = company.organizationPath.split('/');
  const payload = JSON.stringify(thinEvent({ id: eventId, type: item.type as string, occurredAt: item.occurredAt as string, companyId, data: (item.data as Record<string, unknown>) ?? {} }, company.organizationId));
  const expiresAt = Math.floor(Date.now() / 1000) + eventRetentionDays * 86_400;

  for (let round = 0; ; round++) {
    const counters = await Promise.all(organizations.map((organizationId) => eventFeedSequence.current(organizationId)));
    const work = unitOfWork().add('event', outboxRelayedWrite(eventId, company, new Date().toISOString()));
    organizations.forEach((organizationId, level) => {
      const current = counters[level]!;
      work.add(`counter:${organizationId}`, eventFeedSequence.advanceWrite(organizationId, current));
      work.add(`entry:${organizationId}`, eventFeedSequence.entryWrite(organizationId, current + 1, { eventId, eventType: item.type as string, companyId, event: payload, expiresAt }));
    });
    try {
      await work.commit();
      break;
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      if (error.names.includes('event')) break; // relayed before (a repeated record): only queue it again
      if (round >= 50) throw error; // counters kept moving: fail the record, the stream retries it
    }
  }
  await sendMessage('webhook-fanout', { eventId });
  // The MCP context pictures follow the changes the post-fetch engines do not see, asynchronously.
  if (contextRefreshingEventTypes.has(item.type as string)) await requestContextRefresh(companyId);
};
