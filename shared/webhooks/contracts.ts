import { lazySchema } from '../platform/lazy-schema';
import type { OperationContract } from '../api/operation';
import { OnePageQuerySchema, PageQuerySchema } from '../platform/schemas';
import * as z from '../platform/zod';
import {
  CreatedSubscriptionSchema,
  CreateSubscriptionSchema,
  DeliveryListQuerySchema,
  DeliveryPageSchema,
  DeliveryParamsSchema,
  DeliverySchema,
  DeliveryWithAttemptsSchema,
  EventListQuerySchema,
  EventPageSchema,
  EventTypeListSchema,
  RotatedSecretSchema,
  SubscriptionDeletionSchema,
  SubscriptionPageSchema,
  SubscriptionParamsSchema,
  SubscriptionSchema,
  UpdateSubscriptionSchema,
} from './schemas';

const systemOnly = { 403: 'system_client_required: webhooks are managed by system clients only (or insufficient_scope: webhooks:manage)' };
const subscriptionNotFound = 'not_found: no such subscription, or it belongs to an organization outside your reach';
const notActive = { 409: 'conflict: reason subscription_not_active (pending_verification or disabled: verify it first)', ...systemOnly };

/** Request and response shapes of the webhook operations, keyed by operationId. */
export const webhookContracts = {
  createWebhookSubscription: {
    description:
      'Creates a subscription of your organization (`webhooks:manage`, system clients only). The answer (**201**) holds the signing secret `whsec_...` once: store it. The subscription is `pending_verification` until the **handshake** passes: within seconds a signed `webhook.verification` event carrying `data.challenge` arrives, to be answered 2xx with `{"challenge": "<the same value>"}`, and a second one with a wrong signature, to be refused with a 4xx. A subscription hears the events of the companies within your organization\'s reach (`companyIds` narrows it). Deliveries are signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`).',
    requestExample: { url: 'https://example.com/webhooks/ledger', eventTypes: ['job.succeeded', 'company.updated'], description: 'ERP sync' },
    body: CreateSubscriptionSchema,
    secretInAnswer: true,
    responses: { 201: { description: 'Created, pending_verification; the signing secret is in this answer only. The handshake follows within seconds.', schema: CreatedSubscriptionSchema } },
    problems: { ...systemOnly, 400: 'validation_failed: url refused (not https, a port other than 443 or 8443, credentials, a private address), companyIds naming a company outside your reach, or another field (detail and errors name it); malformed_json' },
  },
  listWebhookSubscriptions: {
    description:
      "The subscriptions of your organization and its descendants (those you may read and change by id; `organizationId` says whose): your own first, each organization's oldest first, without their secrets.",
    query: /* @__PURE__ */ lazySchema(() => z.strictObject(PageQuerySchema.shape)),
    responses: { 200: { description: "The subscriptions of your organization and its descendants: your own first, each organization's oldest first", schema: SubscriptionPageSchema } },
    problems: systemOnly,
  },
  getWebhookSubscription: {
    description: 'One subscription: its status and `statusReason` (the last handshake failure, or what disabled it). Never the secret.',
    params: SubscriptionParamsSchema,
    responses: { 200: { description: 'The subscription (never its secret)', schema: SubscriptionSchema } },
    problems: { ...systemOnly, 404: subscriptionNotFound },
  },
  updateWebhookSubscription: {
    description: 'Changes `url`, `eventTypes`, `companyIds` (null: every company) or `description`. A new `url` makes the subscription `pending_verification` and runs the handshake again; events meanwhile wait and are delivered to the new url once it passes (nothing is sent to it before).',
    requestExample: { eventTypes: ['*'] },
    params: SubscriptionParamsSchema,
    body: UpdateSubscriptionSchema,
    responses: { 200: { description: 'The subscription; a new url makes it pending_verification until the handshake passes again', schema: SubscriptionSchema } },
    problems: { ...systemOnly, 404: subscriptionNotFound, 400: "validation_failed: url refused, companyIds outside your reach or the subscription's organization, or another field (detail and errors name it); malformed_json" },
  },
  deleteWebhookSubscription: {
    description: 'Deletes the subscription; nothing more is delivered to it and its pending deliveries end as `failed`.',
    params: SubscriptionParamsSchema,
    responses: { 200: { description: 'Deleted: nothing more is delivered (pending deliveries end as failed)', schema: SubscriptionDeletionSchema } },
    problems: { ...systemOnly, 404: subscriptionNotFound },
  },
  verifyWebhookSubscription: {
    description: 'Runs the handshake now and answers the outcome: `active` when it passed, else `pending_verification` (or still `disabled`) with the reason in `statusReason`. The way to enable a disabled subscription again. When the subscription changed while the handshake ran (a new url, or disabled after a 410 from its receiver), the outcome is not stored: **409** `subscription_changed`; one deleted meanwhile answers 404.',
    params: SubscriptionParamsSchema,
    responses: { 200: { description: 'The handshake ran now: active when it passed, else pending_verification (or disabled) with the reason in statusReason', schema: SubscriptionSchema } },
    problems: { ...systemOnly, 404: subscriptionNotFound, 409: 'conflict: reason subscription_changed (its url or status changed while the handshake ran; nothing stored)' },
  },
  rotateWebhookSecret: {
    description: 'A new secret, shown once. For 24 hours the previous secret signs too: `webhook-signature` then carries two signatures, `v1,<new> v1,<old>`, so a receiver verifying with either secret accepts the delivery. A second rotation within those 24 hours keeps the older secret signing until its own expiry too (three signatures meanwhile); at most 3 secrets sign at once, so a rotation that would make a fourth answers **409** `too_many_signing_secrets` (rotate again once the oldest expires). Of two rotations at the same time one stores its secret; the other answers **409** `concurrent_rotation` and stores nothing.',
    params: SubscriptionParamsSchema,
    secretInAnswer: true,
    responses: { 200: { description: 'The new secret, shown once; the previous one keeps signing until previousSecretExpiresAt', schema: RotatedSecretSchema } },
    problems: { ...systemOnly, 404: subscriptionNotFound, 409: 'conflict: reason concurrent_rotation (another rotation of the same subscription stored its secret first; this one stored nothing), or too_many_signing_secrets (3 secrets sign already; nothing stored)' },
  },
  testWebhookSubscription: {
    description: 'Sends a `webhook.test` event now (**202** with the delivery to follow). **409** `subscription_not_active` when the subscription is not active.',
    params: SubscriptionParamsSchema,
    responses: { 202: { description: 'A webhook.test event is being delivered: follow the delivery', schema: DeliverySchema } },
    problems: { ...notActive, 404: subscriptionNotFound },
  },
  listWebhookDeliveries: {
    description: 'Deliveries of the subscription, newest first; filters `status` (`pending`, `succeeded`, `failed`, `dead`) and `event_type`.',
    params: SubscriptionParamsSchema,
    query: DeliveryListQuerySchema,
    responses: { 200: { description: 'Deliveries, newest first; filtered pages may hold fewer than page_size (follow next_cursor)', schema: DeliveryPageSchema } },
    problems: { ...systemOnly, 404: subscriptionNotFound },
  },
  getWebhookDelivery: {
    description: 'One delivery with the event as sent and every attempt: time, status code or network error, latency and the first 1 KiB of the answer. Attempts follow the schedule immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (±10 % jitter; longer when `Retry-After` says so, up to 12 h); after the last the delivery is `dead`.',
    params: DeliveryParamsSchema,
    responses: { 200: { description: 'The delivery with the event and every attempt', schema: DeliveryWithAttemptsSchema } },
    problems: { ...systemOnly, 404: 'not_found: no such delivery, or its subscription is outside your reach' },
  },
  redeliverWebhookDelivery: {
    description: 'Sends the same event (same `webhook-id`, same body) again now, as a new delivery (`redeliveryOf` names this one). **409** `subscription_not_active` when the subscription is not active.',
    params: DeliveryParamsSchema,
    responses: { 202: { description: 'The same event (same id and body) is being delivered again as a new delivery', schema: DeliverySchema } },
    problems: { ...notActive, 404: 'not_found: no such delivery, or its subscription is outside your reach' },
  },
  listWebhookEventTypes: {
    description: 'The event catalogue: each type, what it means, the ids in `data.ids` and the `data.link` to fetch what changed. New types may appear: ignore types you do not know.',
    query: /* @__PURE__ */ lazySchema(() => z.strictObject(OnePageQuerySchema.shape)),
    responses: { 200: { description: 'The event catalogue: each type, what it means, its ids and link', schema: EventTypeListSchema } },
    problems: systemOnly,
  },
  listEvents: {
    description:
      "The organization's events (its own and its descendants' companies) in order of their per-organization `sequence`, kept 30 days: a receiver that was down reads what it missed without waiting for retries. Page with `pagination.next_cursor`, sent back as `cursor` with the same filters (other filters: **400** `invalid_cursor`); it is null on the last page. To come back later, keep the `sequence` of the last event you handled and send it as `after` (a resume position, with any filters); `cursor` and `after` together are refused (400 naming both). Filters `type`, `company_id`; filtered pages may hold fewer than `page_size`, even none while `has_more` is true. `sequence` is the relay's order, not the order the changes committed in (not even within a company): order by `occurredAt` where that matters. Each number is committed with its feed entry, so a page never skips a number that appears later.",
    query: EventListQuerySchema,
    responses: { 200: { description: "The organization's events after `after` (or where `cursor` left off), in sequence order (its own and its descendants' companies, kept 30 days)", schema: EventPageSchema } },
    problems: { ...systemOnly, 400: 'validation_failed (detail and errors name the fields; `cursor` and `after` together name both), or invalid_cursor: a cursor this caller did not get with these filters' },
  },
} satisfies Record<string, OperationContract>;
