import { webhookContracts as contracts } from '../../shared/webhooks/contracts';
import { defineOperations } from '../../shared/composition/operations';
import {
  createSubscription,
  deleteSubscription,
  eventTypes,
  listDeliveries,
  listEvents,
  listSubscriptions,
  redeliver,
  rotateSecret,
  sendTestEvent,
  toDeliveryWithAttempts,
  toSubscription,
  updateSubscription,
  verifyNow,
} from '../../shared/webhooks/service';

/**
 * Webhooks: subscriptions, handshake, rotation, deliveries and redelivery, the catalogue, the event
 * feed (webhooks:manage, system clients only: `systemOnly` on their routes). {subscriptionId}
 * resolves to the subscription, {deliveryId} to the delivery with its subscription.
 */
export const webhookOperations = defineOperations('webhooks', contracts, {
  createWebhookSubscription: async ({ principal, body }) => {
    const created = await createSubscription(principal, body);
    return { status: 201, body: created, headers: { Location: `/v1/webhooks/subscriptions/${created.id}` } };
  },
  listWebhookSubscriptions: async ({ principal, query, operationId }) => ({
    status: 200,
    body: await listSubscriptions(principal, { pageSize: query.page_size, cursor: query.cursor }, operationId),
  }),
  getWebhookSubscription: async ({ owner: subscription }) => ({ status: 200, body: toSubscription(subscription) }),
  updateWebhookSubscription: async ({ principal, owner: subscription, body }) => ({
    status: 200,
    body: await updateSubscription(principal, subscription, body),
  }),
  deleteWebhookSubscription: async ({ owner: subscription }) => ({ status: 200, body: await deleteSubscription(subscription) }),
  verifyWebhookSubscription: async ({ owner: subscription }) => ({ status: 200, body: await verifyNow(subscription) }),
  rotateWebhookSecret: async ({ owner: subscription }) => ({ status: 200, body: await rotateSecret(subscription) }),
  testWebhookSubscription: async ({ owner: subscription }) => ({ status: 202, body: await sendTestEvent(subscription) }),
  listWebhookDeliveries: async ({ principal, owner: subscription, query, operationId }) => ({
    status: 200,
    body: await listDeliveries(principal, subscription, query, operationId),
  }),
  getWebhookDelivery: async ({ owner: { delivery } }) => ({ status: 200, body: toDeliveryWithAttempts(delivery) }),
  redeliverWebhookDelivery: async ({ owner: { delivery, subscription } }) => ({ status: 202, body: await redeliver(delivery, subscription) }),
  listWebhookEventTypes: async () => ({ status: 200, body: eventTypes() }),
  listEvents: async ({ principal, query, operationId }) => ({ status: 200, body: await listEvents(principal, query, operationId) }),
});
