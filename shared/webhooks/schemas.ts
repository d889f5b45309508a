import { PageQuerySchema, pageOf, PaginationSchema, UuidSchema } from '../platform/schemas';
import { z } from '../platform/zod';
import { catalogTypes } from './catalog';

export const subscriptionStatuses = ['pending_verification', 'active', 'disabled'] as const;
export const deliveryStatuses = ['pending', 'succeeded', 'failed', 'dead'] as const;

const eventTypes = z
  .array(z.enum([...catalogTypes, '*']))
  .min(1)
  .max(50)
  .openapi({ description: 'Event types to receive, from GET /v1/webhooks/event-types, or ["*"] for every type (including types added later)', example: ['job.succeeded', 'company.updated'] });
const companyIds = z
  .array(UuidSchema)
  .min(1)
  .max(100)
  .nullable()
  .openapi({ description: 'Only events of these companies (within your reach); null or omitted: every company within reach' });
const url = z.string().min(1).max(2048).openapi({ description: 'The receiver: https (plain http only to a loopback address, and only where the deployment allows it)', example: 'https://example.com/webhooks/ledger' });
const description = z.string().max(500).nullable().openapi({ description: 'Your note on what it is for' });

export const CreateSubscriptionSchema = z
  .strictObject({ url, eventTypes, companyIds: companyIds.optional(), description: description.optional() })
  .openapi('CreateWebhookSubscription');
export type CreateSubscriptionInput = z.infer<typeof CreateSubscriptionSchema>;

export const UpdateSubscriptionSchema = z
  .strictObject({ url: url.optional(), eventTypes: eventTypes.optional(), companyIds: companyIds.optional(), description: description.optional() })
  .openapi('UpdateWebhookSubscription');
export type UpdateSubscriptionInput = z.infer<typeof UpdateSubscriptionSchema>;

export const SubscriptionSchema = z
  .object({
    id: UuidSchema,
    organizationId: UuidSchema,
    url: z.string(),
    eventTypes: z.array(z.string()),
    companyIds: z.array(UuidSchema).nullable(),
    description: z.string().nullable(),
    status: z.enum(subscriptionStatuses).openapi({ description: 'pending_verification until the handshake passes; active; disabled (a 410 answer, 5 days of failures, or a failed handshake while disabled)' }),
    statusReason: z.string().nullable().openapi({ description: 'Why it is pending or disabled: the last handshake failure or what disabled it' }),
    verifiedAt: z.string().nullable(),
    previousSecretExpiresAt: z.string().nullable().openapi({ description: 'After a rotation: until when the previous secret also signs (two signatures in webhook-signature)' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('WebhookSubscription');
export type Subscription = z.infer<typeof SubscriptionSchema>;

export const CreatedSubscriptionSchema = SubscriptionSchema.extend({
  secret: z.string().openapi({ description: 'The signing secret (whsec_...), shown this once: store it now', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }),
}).openapi('CreatedWebhookSubscription');

export const RotatedSecretSchema = z
  .object({
    id: UuidSchema,
    secret: z.string().openapi({ description: 'The new signing secret, shown this once' }),
    previousSecretExpiresAt: z.string().openapi({ description: 'Until then deliveries carry two signatures, one per secret' }),
  })
  .openapi('RotatedWebhookSecret');

export const SubscriptionPageSchema = pageOf(SubscriptionSchema, 'WebhookSubscriptionPage');
export const SubscriptionDeletionSchema = z.object({ id: UuidSchema, deleted: z.literal(true) }).openapi('WebhookSubscriptionDeletion');

export const AttemptSchema = z
  .object({
    at: z.string(),
    statusCode: z.number().int().nullable().openapi({ description: 'The HTTP status; null on a network error or timeout' }),
    error: z.string().nullable().openapi({ description: 'Network error, timeout or refused address' }),
    latencyMs: z.number().int(),
    responseBody: z.string().nullable().openapi({ description: 'The first 1 KiB of the answer' }),
  })
  .openapi('WebhookAttempt');

export const DeliverySchema = z
  .object({
    id: UuidSchema,
    subscriptionId: UuidSchema,
    eventId: z.string().openapi({ description: 'The event id: the webhook-id header, the same on every attempt and redelivery' }),
    eventType: z.string(),
    status: z.enum(deliveryStatuses).openapi({ description: 'pending (attempts go on), succeeded, failed (subscription disabled or deleted; or a webhook.disabled notice), dead (every attempt failed; on the DLQ)' }),
    attemptCount: z.number().int(),
    nextAttemptAt: z.string().nullable(),
    notice: z.string().nullable().openapi({ description: 'Why it ended without success, or the reason of a webhook.disabled notice' }),
    redeliveryOf: z.string().uuid().nullable().openapi({ description: 'The delivery this one sends again (POST ./redeliver)' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('WebhookDelivery');

export const EventSchema = z
  .object({
    id: z.string(),
    sequence: z.number().int().openapi({ description: "Position in the organization's event feed (1, 2, 3, ...)" }),
    type: z.string(),
    occurredAt: z.string(),
    organizationId: UuidSchema.openapi({ description: "The company's organization" }),
    companyId: z.string().uuid().nullable(),
    data: z.object({ ids: z.record(z.string(), z.string()), link: z.string() }),
  })
  .openapi('Event');

export const DeliveryWithAttemptsSchema = DeliverySchema.extend({
  event: EventSchema.omit({ sequence: true }).openapi({ description: 'The event as signed and sent' }),
  attempts: z.array(AttemptSchema),
}).openapi('WebhookDeliveryWithAttempts');

export const DeliveryPageSchema = pageOf(DeliverySchema, 'WebhookDeliveryPage');

export const DeliveryListQuerySchema = z.strictObject({
  ...PageQuerySchema.shape,
  status: z.enum(deliveryStatuses).optional(),
  event_type: z.string().min(1).max(100).optional(),
});

export const EventTypeSchema = z
  .object({
    type: z.string(),
    description: z.string(),
    ids: z.array(z.string()).openapi({ description: 'The ids in data.ids' }),
    link: z.string().openapi({ description: 'data.link: the path that fetches what changed' }),
  })
  .openapi('WebhookEventType');
export const EventTypeListSchema = z.object({ data: z.array(EventTypeSchema) }).openapi('WebhookEventTypeList');

export const EventPageSchema = z
  .object({
    data: z.array(EventSchema),
    pagination: PaginationSchema.openapi({ description: 'next_cursor: pass it as `after` (it is the last sequence read, also when has_more is false, to poll for newer events later)' }),
  })
  .openapi('EventPage');

export const EventListQuerySchema = z.strictObject({
  after: z.coerce.number().int().min(0).default(0).openapi({ type: 'integer', minimum: 0, default: 0, description: 'Events after this sequence number (0: from the oldest kept, 30 days)' }),
  page_size: PageQuerySchema.shape.page_size,
  type: z.string().min(1).max(100).optional(),
  company_id: UuidSchema.optional(),
});

export const SubscriptionParamsSchema = z.object({ subscriptionId: UuidSchema });
export const DeliveryParamsSchema = z.object({ deliveryId: UuidSchema });
