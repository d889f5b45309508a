/** A field of an event's data: text, a number, or one of the listed words. */
type DataField = 'text' | 'number' | readonly [string, ...string[]];

/**
 * What an emitter writes as an event's data: a flat object of ids and small values (thin:
 * receivers fetch the resource), each field named with its kind. Written as plain values, not zod:
 * the data is typed (outboxEventWrite), never validated or documented, so the functions that only
 * relay, fan out or sweep events load no schema library.
 */
export type EventDataFields = Readonly<Record<string, DataField>>;

/** The data an emitter writes, as its fields declare it. */
export type DataOf<Fields extends EventDataFields> = {
  -readonly [Name in keyof Fields]: Fields[Name] extends 'text' ? string : Fields[Name] extends 'number' ? number : Fields[Name] extends readonly (infer Word)[] ? Word : never;
};

/**
 * One event type: what it means, the data its emitters write into the outbox, which of those
 * are the ids a receiver gets (`data.ids`, plus the event's companyId), the API path that fetches
 * what changed (`data.link`), and whether it changes a company's context pictures (the relay then
 * asks for a rebuild: changes the post-fetch engines do not see).
 */
export interface EventDefinition<Type extends string = string, Fields extends EventDataFields = EventDataFields> {
  type: Type;
  /** One line: what happened. */
  description: string;
  /** The fields of the data the emitter writes (outboxEventWrite is typed by them). */
  data: Fields;
  /** The ids in `data.ids`: fields of the data, or the event's companyId. */
  ids: readonly ((keyof Fields & string) | 'companyId')[];
  /** `data.link`: the API path that fetches what changed. */
  link: (ids: Record<string, string>, companyId: string | null) => string;
  refreshesContext: boolean;
}

/** Any event's definition, its data and ids read as plain names (the catalogue as one list). */
export type AnyEventDefinition = Omit<EventDefinition, 'ids'> & { ids: readonly string[] };

export const defineEvent = <const Type extends string, const Fields extends EventDataFields>(
  type: Type,
  definition: Omit<EventDefinition<Type, Fields>, 'type'>,
): EventDefinition<Type, Fields> => ({ type, ...definition });

const company = (c: string | null) => `/v1/companies/${c}`;
const job = (ids: Record<string, string>) => `/v1/jobs/${ids.jobId}`;
const importPath = (ids: Record<string, string>, c: string | null) => `${company(c)}/imports/${ids.importId}`;
const reconciliation = (ids: Record<string, string>, c: string | null) => `${company(c)}/reconciliations/${ids.reconciliationId}`;
const document = (ids: Record<string, string>) => `/v1/documents/${ids.documentId}`;

const importAccepted = { importId: 'text', jobId: 'text', kind: 'text' } as const;
const jobEnded = { jobId: 'text', importId: 'text', kind: 'text', status: ['succeeded', 'failed'] } as const;
const companyChanged = { companyId: 'text' } as const;
const reconciliationChanged = { reconciliationId: 'text', bankAccountId: 'text', year: 'number', period: 'number', source: 'text' } as const;
const documentChanged = { documentId: 'text' } as const;

/**
 * Every event type written to the outbox, in the order of the webhook catalogue (GET
 * /v1/webhooks/event-types lists these, then the test event): the one list the outbox's types, the
 * webhook catalogue and the relay's context refreshes are derived from.
 */
export const outboxEvents = [
  defineEvent('import.requested', { description: 'An import was accepted and queued.', data: importAccepted, ids: ['importId', 'jobId'], link: importPath, refreshesContext: false }),
  defineEvent('correction.requested', { description: 'A deletion import (a correction) was accepted and queued.', data: importAccepted, ids: ['importId', 'jobId'], link: importPath, refreshesContext: false }),
  defineEvent('job.succeeded', { description: 'A job (an import) finished and its changes are applied.', data: jobEnded, ids: ['jobId', 'importId'], link: job, refreshesContext: false }),
  defineEvent('job.failed', { description: 'A job (an import) failed; the job names why.', data: jobEnded, ids: ['jobId', 'importId'], link: job, refreshesContext: false }),
  defineEvent('company.created', { description: 'A company was created.', data: companyChanged, ids: ['companyId'], link: (_, c) => company(c), refreshesContext: false }),
  defineEvent('company.updated', {
    description: "A company's name, organization number, accounting system or VAT frequency changed.",
    data: companyChanged,
    ids: ['companyId'],
    link: (_, c) => company(c),
    refreshesContext: false,
  }),
  defineEvent('company.disabled', { description: 'A company was disabled.', data: companyChanged, ids: ['companyId'], link: (_, c) => company(c), refreshesContext: false }),
  defineEvent('company.enabled', { description: 'A company was enabled again.', data: companyChanged, ids: ['companyId'], link: (_, c) => company(c), refreshesContext: false }),
  defineEvent('company.deleted', {
    description: 'A company was soft-deleted (its link answers 404 until it is restored).',
    data: companyChanged,
    ids: ['companyId'],
    link: (_, c) => company(c),
    refreshesContext: false,
  }),
  defineEvent('company.restored', { description: 'A soft-deleted company was restored.', data: companyChanged, ids: ['companyId'], link: (_, c) => company(c), refreshesContext: false }),
  defineEvent('reconciliation.created', {
    description: 'A reconciliation group was created (by hand or by auto-reconciliation).',
    data: reconciliationChanged,
    ids: ['reconciliationId', 'bankAccountId'],
    link: reconciliation,
    refreshesContext: true,
  }),
  defineEvent('reconciliation.deleted', {
    description: 'A reconciliation group was dissolved (its link answers 404).',
    data: reconciliationChanged,
    ids: ['reconciliationId', 'bankAccountId'],
    link: reconciliation,
    refreshesContext: true,
  }),
  defineEvent('document.created', { description: 'A document upload was completed.', data: documentChanged, ids: ['documentId'], link: document, refreshesContext: true }),
  defineEvent('document.deleted', {
    description: 'A document was soft-deleted (its link answers 404 until it is restored).',
    data: documentChanged,
    ids: ['documentId'],
    link: document,
    refreshesContext: true,
  }),
  defineEvent('document.restored', { description: 'A soft-deleted document was restored.', data: documentChanged, ids: ['documentId'], link: document, refreshesContext: true }),
  defineEvent('bank.statement.ingested', {
    description: "A bank statement (camt.053) was ingested; the link lists the account's transactions.",
    data: { bankAccountId: 'text', statementId: 'text' },
    ids: ['bankAccountId', 'statementId'],
    link: (ids, c) => `${company(c)}/bank/accounts/${ids.bankAccountId}/transactions`,
    refreshesContext: true,
  }),
] as const;

type OutboxEventDefinition = (typeof outboxEvents)[number];

/** An event type written to the outbox. */
export type EventType = OutboxEventDefinition['type'];

/** The data an emitter writes for one event type. */
export type EventData<Type extends EventType> = DataOf<Extract<OutboxEventDefinition, { type: Type }>['data']>;

type UnionToIntersection<U> = (U extends unknown ? (union: U) => void : never) extends (intersection: infer I) => void ? I : never;

/**
 * The data accepted for an event type that may be any of several (a union): data that fits every
 * one of them, so an emitter choosing the type at run time cannot write another type's data.
 */
export type EventDataFor<Type extends EventType> = UnionToIntersection<Type extends EventType ? EventData<Type> : never>;

export const outboxEventTypes = outboxEvents.map((event) => event.type);

/** Event types after which the relay asks for a rebuild of the company's context pictures. */
export const contextRefreshingEventTypes: ReadonlySet<string> = new Set(outboxEvents.filter((event) => event.refreshesContext).map((event) => event.type));
