import { defineEvent, outboxEvents, type AnyEventDefinition } from '../outbox/events';

/** Sent on request (POST .../test), never written to the outbox. */
const webhookTest = defineEvent('webhook.test', {
  description: 'Sent on request (POST .../test) to check a receiver; nothing changed.',
  data: { subscriptionId: 'text' },
  ids: ['subscriptionId'],
  link: (ids) => `/v1/webhooks/subscriptions/${ids.subscriptionId}`,
  refreshesContext: false,
});

/** The catalogue of GET /v1/webhooks/event-types: the outbox's events and the test event; new types may appear (receivers ignore types they do not know). */
export const eventCatalog = [...outboxEvents, webhookTest] as const satisfies readonly AnyEventDefinition[];

/** Event types a subscription can name: those of the outbox and the test event. */
export type CatalogEventType = (typeof eventCatalog)[number]['type'];

export type CatalogEntry = AnyEventDefinition;

export const catalogTypes = eventCatalog.map((entry) => entry.type) as [CatalogEventType, ...CatalogEventType[]];

export const catalogEntry = (type: string): CatalogEntry | undefined => (eventCatalog as readonly CatalogEntry[]).find((entry) => entry.type === type);

/** The thin payload every receiver gets: what changed (ids) and where to fetch it (link); never ledger data. */
export interface WebhookEvent {
  id: string;
  type: string;
  occurredAt: string;
  organizationId: string;
  companyId: string | null;
  data: { ids: Record<string, string>; link: string } | { challenge: string };
}

/** The payload of an outbox event: its ids as the catalogue names them, and the link. */
export const thinEvent = (
  outbox: { id: string; type: string; occurredAt: string; companyId: string | null; data: Record<string, unknown> },
  organizationId: string,
): WebhookEvent => {
  const entry = catalogEntry(outbox.type);
  if (!entry) throw new Error(`Event type ${outbox.type} is not in the catalogue (shared/outbox/events.ts)`);
  const ids = Object.fromEntries(
    entry.ids.flatMap((name) => {
      const value = name === 'companyId' ? outbox.companyId : outbox.data[name];
      return value === undefined || value === null ? [] : [[name, String(value)]];
    }),
  );
  return { id: outbox.id, type: outbox.type, occurredAt: outbox.occurredAt, organizationId, companyId: outbox.companyId, data: { ids, link: entry.link(ids, outbox.companyId) } };
};
