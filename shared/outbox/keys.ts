/** Durable outbox: one item per event; GSI1 lists a company's events in order, GSI2 per day the ones not yet relayed and queued for fan-out. */
export const outboxEventKeys = (eventId: string) => ({ PK: `EVENT#${eventId}`, SK: 'EVENT' });
export const outboxCompanyIndexKeys = (companyId: string, occurredAt: string, eventId: string) => ({
  GSI1PK: `EVENTS#${companyId}`,
  GSI1SK: `${occurredAt}#${eventId}`,
});
export const outboxPendingIndexKeys = (occurredAt: string, eventId: string) => ({
  GSI2PK: outboxPendingPartition(occurredAt.slice(0, 10)),
  GSI2SK: `${occurredAt}#${eventId}`,
});
export const outboxCompanyPartition = (companyId: string) => `EVENTS#${companyId}`;
export const outboxPendingPartition = (day: string) => `OUTBOX#pending#${day}`;
