import { lazySchema } from '../platform/lazy-schema';
import { CountSchema, limits, PageQuerySchema, pageOf, PaginationSchema, queryInteger, text, textOut, textPattern, TimestampSchema, UuidSchema, withTextRule } from '../platform/schemas';
import * as z from '../platform/zod';
import { catalogTypes } from './catalog';

/** A signing secret: whsec_ and the base64 key. */
const secretLength = 128;
/** Attempts of one delivery: the schedule's (at most 8), redeliveries being deliveries of their own. */
const maxAttempts = 20;
/** An event type name: dotted lower-case words (job.succeeded). */
const eventTypePattern = /^[a-z0-9_]+(\.[a-z0-9_]+)*$/;

export const subscriptionStatuses = ['pending_verification', 'active', 'disabled'] as const;
export const deliveryStatuses = ['pending', 'succeeded', 'failed', 'dead'] as const;

const eventTypes = /* @__PURE__ */ lazySchema(() => z
  .array(z.enum([...catalogTypes, '*']))
  .min(1)
  .max(50)
  .openapi({ description: 'Event types to receive, from GET /v1/webhooks/event-types, or ["*"] for every type (including types added later)', example: ['job.succeeded', 'company.updated'] }));
const companyIds = /* @__PURE__ */ lazySchema(() => z
  .array(UuidSchema)
  .min(1)
  .max(100)
  .nullable()
  .openapi({ description: 'Only events of these companies (within your reach); null or omitted: every company within reach' }));
/** The receiver's url: the character rule, no leading or trailing whitespace, stored exactly as sent. */
const url = /* @__PURE__ */ lazySchema(() => withTextRule(z.string().min(1).max(limits.url))
  .refine((value) => value.trim() === value, 'must not begin or end with whitespace')
  .openapi({
    format: 'uri',
    pattern: textPattern().replace('^(?=[\\s\\S]*\\S)', '^(?!\\s)(?![\\s\\S]*\\s$)'),
    description: 'The receiver: https on port 443 (the default) or 8443, to a public address (plain http, and any port, only to a loopback address, and only where the deployment allows it); no credentials; stored exactly as sent (no surrounding whitespace, no control or bidirectional characters)',
    example: 'https://example.com/webhooks/ledger',
  }));
const description = /* @__PURE__ */ lazySchema(() => text({ max: limits.note, multiline: true, blank: true }).nullable().openapi({ description: 'Your note on what it is for' }));
const timestamp = TimestampSchema;
const eventTypeName = /* @__PURE__ */ lazySchema(() => textOut(limits.code));

export const CreateSubscriptionSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({ url, eventTypes, companyIds: companyIds.optional(), description: description.optional() })
  .openapi('CreateWebhookSubscription', { description: 'A new webhook subscription: receiver url, event types, optional company filter' }));
export type CreateSubscriptionInput = z.infer<typeof CreateSubscriptionSchema>;

export const UpdateSubscriptionSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({ url: url.optional(), eventTypes: eventTypes.optional(), companyIds: companyIds.optional(), description: description.optional() })
  .openapi('UpdateWebhookSubscription', { description: 'Changes to a webhook subscription (patch semantics); a new url runs the handshake again' }));
export type UpdateSubscriptionInput = z.infer<typeof UpdateSubscriptionSchema>;

export const SubscriptionSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    id: UuidSchema,
    organizationId: UuidSchema.openapi({ description: 'The organization the subscription belongs to; it hears the companies of that organization and its descendants' }),
    url: textOut(limits.url).openapi({ description: 'The receiver the events are POSTed to' }),
    eventTypes: z.array(eventTypeName).max(50).openapi({ description: 'Event types it receives (["*"]: every type)' }),
    companyIds: z.array(UuidSchema).max(100).nullable().openapi({ description: 'Only events of these companies; null: every company within reach' }),
    description: textOut(limits.note).nullable(),
    status: z.enum(subscriptionStatuses).openapi({ description: 'pending_verification until the handshake passes; active; disabled (a 410 answer, 5 days in which every attempt failed with no 15-hour pause, or a failed handshake while disabled)' }),
    statusReason: textOut(limits.message).nullable().openapi({ description: 'Why it is pending or disabled: the last handshake failure or what disabled it' }),
    verifiedAt: timestamp.nullable().openapi({ description: 'When the handshake last passed; UTC timestamp (ISO 8601), or null' }),
    previousSecretExpiresAt: timestamp.nullable().openapi({ description: 'After a rotation: until when the previous secret also signs (webhook-signature carries one signature per signing secret, at most 3)' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .openapi('WebhookSubscription', { description: 'A webhook subscription: where events go, which, and its verification status' }));
export type Subscription = z.infer<typeof SubscriptionSchema>;

export const CreatedSubscriptionSchema = /* @__PURE__ */ lazySchema(() => SubscriptionSchema.extend({
  secret: textOut(secretLength).openapi({ description: 'The signing secret (whsec_...), shown this once: store it now', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }),
}).openapi('CreatedWebhookSubscription', { description: 'A new webhook subscription with its signing secret (shown only here)' }));

export const RotatedSecretSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    id: UuidSchema,
    secret: textOut(secretLength).openapi({ description: 'The new signing secret, shown this once' }),
    previousSecretExpiresAt: timestamp.openapi({ description: 'Until then the previous secret signs too: deliveries carry one signature per signing secret (the new one, the previous one, and an older one still in its overlap)' }),
  })
  .openapi('RotatedWebhookSecret', { description: 'A new signing secret and until when the previous one also signs' }));

export const SubscriptionPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(SubscriptionSchema, 'WebhookSubscriptionPage'));
export const SubscriptionDeletionSchema = /* @__PURE__ */ lazySchema(() => z.object({ id: UuidSchema, deleted: z.literal(true) }).openapi('WebhookSubscriptionDeletion', { description: 'The answer to deleting a webhook subscription' }));

export const AttemptSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    at: timestamp.openapi({ description: 'When the attempt started; UTC timestamp (ISO 8601)' }),
    statusCode: z.number().int().min(100).max(599).nullable().openapi({ description: 'The HTTP status; null on a network error or timeout' }),
    error: textOut(limits.message).nullable().openapi({ description: 'Network error, timeout or refused address' }),
    latencyMs: CountSchema.openapi({ description: 'From sending to the answer (or the error), in milliseconds' }),
    responseBody: textOut(1024).nullable().openapi({ description: 'The first 1 KiB of the answer' }),
  })
  .openapi('WebhookAttempt', { description: 'One attempt of a delivery: when, the answer or the error, how long it took' }));

export const DeliverySchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    id: UuidSchema,
    subscriptionId: UuidSchema.openapi({ description: 'The subscription delivered to (UUID)' }),
    eventId: textOut(limits.serviceId).openapi({ description: 'The event id: the webhook-id header, the same on every attempt and redelivery' }),
    eventType: eventTypeName.openapi({ description: 'The type of the event delivered' }),
    status: z.enum(deliveryStatuses).openapi({ description: 'pending (attempts go on, or wait for the handshake of a new url), succeeded, failed (subscription disabled or deleted, or its handshake not passed within the disable window; or a webhook.disabled notice), dead (every attempt failed; on the DLQ)' }),
    attemptCount: CountSchema.openapi({ description: 'Attempts made so far' }),
    nextAttemptAt: timestamp.nullable().openapi({ description: 'When the next attempt is due (pending deliveries); UTC timestamp (ISO 8601), or null' }),
    notice: textOut(limits.message).nullable().openapi({ description: 'Why it ended without success, or the reason of a webhook.disabled notice' }),
    redeliveryOf: UuidSchema.nullable().openapi({ description: 'The delivery this one sends again (POST ./redeliver)' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .openapi('WebhookDelivery', { description: 'One delivery of one event to one subscription' }));

export const EventSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    id: textOut(limits.serviceId),
    sequence: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).openapi({ description: "Position in the organization's event feed (1, 2, 3, ...)" }),
    type: eventTypeName,
    occurredAt: timestamp.openapi({ description: 'When the change happened; UTC timestamp (ISO 8601)' }).openapi({ description: 'When the change happened; UTC timestamp (ISO 8601)' }),
    organizationId: UuidSchema.openapi({ description: "The company's organization" }),
    companyId: UuidSchema.nullable(),
    data: z.object({
      ids: z.record(textOut(limits.code), textOut(limits.serviceId)).openapi({ maxProperties: 10 }).openapi({ description: 'The ids of what changed, named as the catalogue lists them' }).openapi({ description: 'The ids of what changed, named as the catalogue lists them' }),
      link: textOut(limits.url).openapi({ description: 'The API path that fetches what changed' }).openapi({ description: 'The API path that fetches what changed' }),
    }),
  })
  .openapi('Event', { description: 'A thin event: what changed (ids) and where to fetch it (link); no ledger data' }));

export const DeliveryWithAttemptsSchema = /* @__PURE__ */ lazySchema(() => DeliverySchema.extend({
  event: EventSchema.omit({ sequence: true }).openapi({ description: 'The event as signed and sent' }),
  attempts: z.array(AttemptSchema).max(maxAttempts).openapi({ description: 'Every attempt, oldest first' }),
}).openapi('WebhookDeliveryWithAttempts', { description: 'One delivery with the event as sent and every attempt' }));

export const DeliveryPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(DeliverySchema, 'WebhookDeliveryPage'));

export const DeliveryListQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject({
  ...PageQuerySchema.shape,
  status: z.enum(deliveryStatuses).optional(),
  event_type: z.string().min(1).max(limits.code).regex(eventTypePattern).optional(),
}));

export const EventTypeSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    type: eventTypeName,
    description: textOut(limits.description),
    ids: z.array(textOut(limits.code)).max(10).openapi({ description: 'The ids in data.ids' }),
    link: textOut(limits.url).openapi({ description: 'data.link: the path that fetches what changed' }),
  })
  .openapi('WebhookEventType', { description: 'One event type: what it means, its ids and its link' }));
export const EventTypeListSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({ data: z.array(EventTypeSchema).max(catalogTypes.length), pagination: PaginationSchema }).openapi('WebhookEventTypeList', { description: 'The event catalogue, in one page (next_cursor is always null)' }),
);

export const EventPageSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    data: z.array(EventSchema).max(limits.pageItems),
    pagination: PaginationSchema.openapi({
      description: 'next_cursor: send it as `cursor` (with the same filters) for the next page; null when has_more is false. To poll for newer events later, send the `sequence` of the last event you handled as `after`.',
    }),
  })
  .openapi('EventPage'));

export const EventListQuerySchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    after: queryInteger(0, Number.MAX_SAFE_INTEGER)
      .optional()
      .openapi({
        description:
          'A resume position, not a cursor: events after this `sequence` (the last one you handled; absent or 0: from the oldest kept, 30 days). Any filters may go with it. Not together with `cursor`.',
      }),
    cursor: PageQuerySchema.shape.cursor.openapi({ description: 'Opaque cursor from pagination.next_cursor of the previous page, with the same type and company_id (other filters: 400 invalid_cursor). Not together with `after`.' }),
    page_size: PageQuerySchema.shape.page_size,
    type: z.string().min(1).max(limits.code).regex(eventTypePattern).optional(),
    company_id: UuidSchema.optional(),
  })
  .superRefine((query, ctx) => {
    if (query.after === undefined || query.cursor === undefined) return;
    for (const field of ['cursor', 'after'] as const) ctx.addIssue({ code: 'custom', path: [field], message: 'send either cursor (the next page) or after (a resume position), not both' });
  }));

export const SubscriptionParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ subscriptionId: UuidSchema }));
export const DeliveryParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ deliveryId: UuidSchema }));
