import type { EventType } from '../outbox/repository';

/** Event types a subscription can name: those of the outbox and the test event. */
export type CatalogEventType = EventType | 'webhook.test';

export interface CatalogEntry {
  type: CatalogEventType;
  /** One line: what happened. */
  description: string;
  /** The ids in `data.ids`. */
  ids: readonly string[];
  /** `data.link`: the API path that fetches what changed. */
  link: (ids: Record<string, string>, companyId: string | null) => string;
}

const company = (c: string | null) => `/v1/companies/${c}`;
const job = (ids: Record<string, string>) => `/v1/jobs/${ids.jobId}`;
const importPath = (ids: Record<string, string>, c: string | null) => `${company(c)}/imports/${ids.importId}`;
const reconciliation = (ids: Record<string, string>, c: string | null) => `${company(c)}/reconciliations/${ids.reconciliationId}`;
const document = (ids: Record<string, string>) => `/v1/documents/${ids.documentId}`;

/** The catalogue of GET /v1/webhooks/event-types; new types may appear (receivers ignore types they do not know). */
export const eventCatalog: readonly CatalogEntry[] = [
  { type: 'import.requested', description: 'An import was accepted and queued.', ids: ['importId', 'jobId'], link: importPath },
  { type: 'correction.requested', description: 'A deletion import (a correction) was accepted and queued.', ids: ['importId', 'jobId'], link: importPath },
  { type: 'job.succeeded', description: 'A job (an import) finished and its changes are applied.', ids: ['jobId', 'importId'], link: job },
  { type: 'job.failed', description: 'A job (an import) failed; the job names why.', ids: ['jobId', 'importId'], link: job },
  { type: 'company.created', description: 'A company was created.', ids: ['companyId'], link: (_, c) => company(c) },
  { type: 'company.updated', description: "A company's name, organization number, accounting system or VAT frequency changed.", ids: ['companyId'], link: (_, c) => company(c) },
  { type: 'company.disabled', description: 'A company was disabled.', ids: ['companyId'], link: (_, c) => company(c) },
  { type: 'company.enabled', description: 'A company was enabled again.', ids: ['companyId'], link: (_, c) => company(c) },
  { type: 'company.deleted', description: 'A company was soft-deleted (its link answers 404 until it is restored).', ids: ['companyId'], link: (_, c) => company(c) },
  { type: 'company.restored', description: 'A soft-deleted company was restored.', ids: ['companyId'], link: (_, c) => company(c) },
  { type: 'reconciliation.created', description: 'A reconciliation group was created (by hand or by auto-reconciliation).', ids: ['reconciliationId', 'bankAccountId'], link: reconciliation },
  { type: 'reconciliation.deleted', description: 'A reconciliation group was dissolved (its link answers 404).', ids: ['reconciliationId', 'bankAccountId'], link: reconciliation },
  { type: 'document.created', description: 'A document upload was completed.', ids: ['documentId'], link: document },
  { type: 'document.deleted', description: 'A document was soft-deleted (its link answers 404 until it is restored).', ids: ['documentId'], link: document },
  { type: 'document.restored', description: 'A soft-deleted document was restored.', ids: ['documentId'], link: document },
  {
    type: 'bank.statement.ingested',
    description: "A bank statement (camt.053) was ingested; the link lists the account's transactions.",
    ids: ['bankAccountId', 'statementId'],
    link: (ids, c) => `${company(c)}/bank/accounts/${ids.bankAccountId}/transactions`,
  },
  { type: 'webhook.test', description: 'Sent on request (POST .../test) to check a receiver; nothing changed.', ids: ['subscriptionId'], link: (ids) => `/v1/webhooks/subscriptions/${ids.subscriptionId}` },
];

export const catalogTypes = eventCatalog.map((entry) => entry.type) as [CatalogEventType, ...CatalogEventType[]];

export const catalogEntry = (type: string): CatalogEntry | undefined => eventCatalog.find((entry) => entry.type === type);

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
  if (!entry) throw new Error(`Event type ${outbox.type} is not in the catalogue (shared/webhooks/catalog.ts)`);
  const ids = Object.fromEntries(
    entry.ids.flatMap((name) => {
      const value = name === 'companyId' ? outbox.companyId : outbox.data[name];
      return value === undefined || value === null ? [] : [[name, String(value)]];
    }),
  );
  return { id: outbox.id, type: outbox.type, occurredAt: outbox.occurredAt, organizationId, companyId: outbox.companyId, data: { ids, link: entry.link(ids, outbox.companyId) } };
};
