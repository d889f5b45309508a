import type { OperationContract } from '../api/operation';
import { PageQuerySchema } from '../platform/schemas';
import { z } from '../platform/zod';
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
    body: CreateSubscriptionSchema,
    responses: { 201: { description: 'Created, pending_verification; the signing secret is in this answer only. The handshake follows within seconds.', schema: CreatedSubscriptionSchema } },
    problems: { ...systemOnly, 400: 'validation_failed: url refused (not https, credentials, a private address), companyIds naming a company outside your reach, or another field (detail and errors name it); malformed_json' },
  },
  listWebhookSubscriptions: {
    query: z.strictObject(PageQuerySchema.shape),
    responses: { 200: { description: "The subscriptions of your organization and its descendants: your own first, each organization's oldest first", schema: SubscriptionPageSchema } },
    problems: systemOnly,
  },
  getWebhookSubscription: {
    params: SubscriptionParamsSchema,
    responses: { 200: { description: 'The subscription (never its secret)', schema: SubscriptionSchema } },
    problems: { ...systemOnly, 404: subscriptionNotFound },
  },
  updateWebhookSubscription: {
    params: SubscriptionParamsSchema,
    body: UpdateSubscriptionSchema,
    responses: { 200: { description: 'The subscription; a new url makes it pending_verification until the handshake passes again', schema: SubscriptionSchema } },
    problems: { ...systemOnly, 404: subscriptionNotFound, 400: "validation_failed: url refused, companyIds outside your reach or the subscription's organization, or another field (detail and errors name it); malformed_json" },
  },
  deleteWebhookSubscription: {
    params: SubscriptionParamsSchema,
    responses: { 200: { description: 'Deleted: nothing more is delivered (pending deliveries end as failed)', schema: SubscriptionDeletionSchema } },
    problems: { ...systemOnly, 404: subscriptionNotFound },
  },
  verifyWebhookSubscription: {
    params: SubscriptionParamsSchema,
    responses: { 200: { description: 'The handshake ran now: active when it passed, else pending_verification (or disabled) with the reason in statusReason', schema: SubscriptionSchema } },
    problems: { ...systemOnly, 404: subscriptionNotFound },
  },
  rotateWebhookSecret: {
    params: SubscriptionParamsSchema,
    responses: { 200: { description: 'The new secret, shown once; the previous one keeps signing until previousSecretExpiresAt', schema: RotatedSecretSchema } },
    problems: { ...systemOnly, 404: subscriptionNotFound },
  },
  testWebhookSubscription: {
    params: SubscriptionParamsSchema,
    responses: { 202: { description: 'A webhook.test event is being delivered: follow the delivery', schema: DeliverySchema } },
    problems: { ...notActive, 404: subscriptionNotFound },
  },
  listWebhookDeliveries: {
    params: SubscriptionParamsSchema,
    query: DeliveryListQuerySchema,
    responses: { 200: { description: 'Deliveries, newest first; filtered pages may hold fewer than page_size (follow next_cursor)', schema: DeliveryPageSchema } },
    problems: { ...systemOnly, 404: subscriptionNotFound },
  },
  getWebhookDelivery: {
    params: DeliveryParamsSchema,
    responses: { 200: { description: 'The delivery with the event and every attempt', schema: DeliveryWithAttemptsSchema } },
    problems: { ...systemOnly, 404: 'not_found: no such delivery, or its subscription is outside your reach' },
  },
  redeliverWebhookDelivery: {
    params: DeliveryParamsSchema,
    responses: { 202: { description: 'The same event (same id and body) is being delivered again as a new delivery', schema: DeliverySchema } },
    problems: { ...notActive, 404: 'not_found: no such delivery, or its subscription is outside your reach' },
  },
  listWebhookEventTypes: {
    responses: { 200: { description: 'The event catalogue: each type, what it means, its ids and link', schema: EventTypeListSchema } },
    problems: systemOnly,
  },
  listEvents: {
    query: EventListQuerySchema,
    responses: { 200: { description: "The organization's events after `after`, in sequence order (its own and its descendants' companies, kept 30 days)", schema: EventPageSchema } },
    problems: systemOnly,
  },
} satisfies Record<string, OperationContract>;
