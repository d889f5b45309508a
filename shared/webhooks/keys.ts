/** DynamoDB keys of webhook subscriptions, deliveries, the per-organization event feed and delivery slots. */

/** Partition-key prefixes of the items the webhook functions write (IAM: dynamodb:LeadingKeys, infra/stacks/permissions.ts). */
export const webhookPartitionPrefixes = {
  subscription: 'WEBHOOK#',
  delivery: 'DELIVERY#',
  slot: 'WEBHOOKSLOT#',
  eventFeed: 'EVENTFEED#',
} as const;

export const subscriptionKeys = (subscriptionId: string) => ({ PK: `${webhookPartitionPrefixes.subscription}${subscriptionId}`, SK: 'SUBSCRIPTION' });
/** GSI1: an organization's subscriptions, oldest first. */
export const subscriptionListKeys = (organizationId: string, createdAt: string, subscriptionId: string) => ({
  GSI1PK: subscriptionsPartition(organizationId),
  GSI1SK: `${createdAt}#${subscriptionId}`,
});
export const subscriptionsPartition = (organizationId: string) => `WEBHOOKS#${organizationId}`;
/**
 * GSI2: the subscriptions of an organization tree by path, so an organization's subtree is one
 * begins_with Query. `#` sorts before any organization id: an organization's own come before its
 * descendants', each oldest first.
 */
export const subscriptionTreeKeys = (organizationPath: string, createdAt: string, subscriptionId: string) => ({
  GSI2PK: subscriptionTreePartition(organizationPath.split('/')[0]!),
  GSI2SK: `${subscriptionSubtreePrefix(organizationPath)}#${createdAt}#${subscriptionId}`,
});
export const subscriptionTreePartition = (rootOrganizationId: string) => `WEBHOOKTREE#${rootOrganizationId}`;
/** Prefix matching the subscriptions of an organization and its descendants. */
export const subscriptionSubtreePrefix = (organizationPath: string) => `${organizationPath}/`;

export const deliveryKeys = (deliveryId: string) => ({ PK: `${webhookPartitionPrefixes.delivery}${deliveryId}`, SK: 'DELIVERY' });
/** GSI1: a subscription's deliveries in creation order (read newest first). */
export const deliveryListKeys = (subscriptionId: string, createdAt: string, deliveryId: string) => ({
  GSI1PK: deliveriesPartition(subscriptionId),
  GSI1SK: `${createdAt}#${deliveryId}`,
});
export const deliveriesPartition = (subscriptionId: string) => `DELIVERIES#${subscriptionId}`;

/** The event feed of one organization (GET /v1/events): a counter and one entry per sequence number. */
export const eventFeedPartition = (organizationId: string) => `${webhookPartitionPrefixes.eventFeed}${organizationId}`;
export const eventFeedCounterKeys = (organizationId: string) => ({ PK: eventFeedPartition(organizationId), SK: 'COUNTER' });
export const eventFeedEntrySortKey = (sequence: number) => `SEQ#${String(sequence).padStart(15, '0')}`;
export const eventFeedEntryKeys = (organizationId: string, sequence: number) => ({ PK: eventFeedPartition(organizationId), SK: eventFeedEntrySortKey(sequence) });

/** One of a subscription's concurrency slots: a lease held while an attempt is in flight. */
export const deliverySlotKeys = (subscriptionId: string, slot: number) => ({ PK: `${webhookPartitionPrefixes.slot}${subscriptionId}`, SK: `SLOT#${slot}` });
