import { webhookContracts as contracts } from '../../shared/webhooks/contracts';
import { defineDeliveryOperation, defineSubscriptionOperation, defineWebhookOperation } from '../../shared/webhooks/operation';
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

/** Webhooks: subscriptions, handshake, rotation, deliveries and redelivery, the catalogue, the event feed (webhooks:manage). */
export const webhookOperations = {
  createWebhookSubscription: defineWebhookOperation(contracts.createWebhookSubscription, async ({ principal, body }) => {
    const created = await createSubscription(principal, body);
    return { status: 201, body: created, headers: { Location: `/v1/webhooks/subscriptions/${created.id}` } };
  }),
  listWebhookSubscriptions: defineWebhookOperation(contracts.listWebhookSubscriptions, async ({ principal, query, operationId }) => ({
    status: 200,
    body: await listSubscriptions(principal, { pageSize: query.page_size, cursor: query.cursor }, operationId),
  })),
  getWebhookSubscription: defineSubscriptionOperation(contracts.getWebhookSubscription, async ({ subscription }) => ({ status: 200, body: toSubscription(subscription) })),
  updateWebhookSubscription: defineSubscriptionOperation(contracts.updateWebhookSubscription, async ({ principal, subscription, body }) => ({
    status: 200,
    body: await updateSubscription(principal, subscription, body),
  })),
  deleteWebhookSubscription: defineSubscriptionOperation(contracts.deleteWebhookSubscription, async ({ subscription }) => ({ status: 200, body: await deleteSubscription(subscription) })),
  verifyWebhookSubscription: defineSubscriptionOperation(contracts.verifyWebhookSubscription, async ({ subscription }) => ({ status: 200, body: await verifyNow(subscription) })),
  rotateWebhookSecret: defineSubscriptionOperation(contracts.rotateWebhookSecret, async ({ subscription }) => ({ status: 200, body: await rotateSecret(subscription) })),
  testWebhookSubscription: defineSubscriptionOperation(contracts.testWebhookSubscription, async ({ subscription }) => ({ status: 202, body: await sendTestEvent(subscription) })),
  listWebhookDeliveries: defineSubscriptionOperation(contracts.listWebhookDeliveries, async ({ principal, subscription, query, operationId }) => ({
    status: 200,
    body: await listDeliveries(principal, subscription, query, operationId),
  })),
  getWebhookDelivery: defineDeliveryOperation(contracts.getWebhookDelivery, async ({ delivery }) => ({ status: 200, body: toDeliveryWithAttempts(delivery) })),
  redeliverWebhookDelivery: defineDeliveryOperation(contracts.redeliverWebhookDelivery, async ({ delivery, subscription }) => ({ status: 202, body: await redeliver(delivery, subscription) })),
  listWebhookEventTypes: defineWebhookOperation(contracts.listWebhookEventTypes, async () => ({ status: 200, body: eventTypes() })),
  listEvents: defineWebhookOperation(contracts.listEvents, async ({ principal, query }) => ({ status: 200, body: await listEvents(principal, query) })),
};
