import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { contextRefreshingEventTypes, outboxEvents, outboxEventTypes, type EventType } from '../../shared/outbox/events';
import { outboxEventWrite } from '../../shared/outbox/repository';
import { resetConfig } from '../../shared/platform/config';
import { catalogEntry, catalogTypes, eventCatalog, thinEvent } from '../../shared/webhooks/catalog';

/** The event types (`a.b` in backticks) of the "Events written to the outbox" rule of docs/webhooks.md. */
const documentedOutboxTypes = (markdown: string): string[] => {
  const rule = /^- \*\*Events written to the outbox\*\*[^\n]*(?:\n {2}[^\n]*)*/m.exec(markdown)?.[0] ?? '';
  return [...rule.matchAll(/`([a-z0-9_]+(?:\.[a-z0-9_]+)+)`/g)].map((match) => match[1]!);
};

/** The item an outboxEventWrite puts into the outbox table. */
const written = (write: ReturnType<typeof outboxEventWrite>) => (write as { Put: { Item: Record<string, unknown> } }).Put.Item;

describe('event catalogue (shared/outbox/events.ts)', () => {
  // The outbox writes name their table: one of this file's own (no stack needed).
  beforeAll(() => {
    vi.stubEnv('OUTBOX_TABLE_NAME', 'outbox-of-this-test');
    resetConfig();
  });
  afterAll(() => {
    vi.unstubAllEnvs();
    resetConfig();
  });

  it('lists each type once; the webhook catalogue is the outbox types and then the test event', () => {
    expect(new Set(outboxEventTypes).size).toBe(outboxEventTypes.length);
    expect(catalogTypes).toEqual([...outboxEventTypes, 'webhook.test']);
    expect(eventCatalog.map((entry) => entry.type)).toEqual(catalogTypes);
  });

  it('names as ids only fields of the data the emitters write, or the companyId', () => {
    for (const entry of eventCatalog) {
      const fields = Object.keys(entry.data);
      for (const [field, kind] of Object.entries(entry.data)) {
        const words = Array.isArray(kind) && kind.length > 0 && kind.every((word) => typeof word === 'string' && word.length > 0);
        expect(kind === 'text' || kind === 'number' || words, `${entry.type}: ${field}`).toBe(true);
      }
      expect(entry.ids.length, entry.type).toBeGreaterThan(0);
      for (const id of entry.ids) expect([...fields, 'companyId'], `${entry.type}: ${id}`).toContain(id);
    }
  });

  it('docs/webhooks.md lists every type written to the outbox, in the catalogue order, and no other', () => {
    expect(documentedOutboxTypes(readFileSync(resolve(import.meta.dirname, '../../docs/webhooks.md'), 'utf8'))).toEqual(outboxEventTypes);
  });

  it('asks for a context refresh after reconciliation, bank statement and document events only', () => {
    expect([...contextRefreshingEventTypes].sort()).toEqual(
      ['bank.statement.ingested', 'document.created', 'document.deleted', 'document.restored', 'reconciliation.created', 'reconciliation.deleted'].sort(),
    );
  });

  it('builds each thin payload from the definition: its ids and its link', () => {
    const event = { id: 'e1', occurredAt: '2026-01-01T00:00:00.000Z', companyId: 'c1' };
    expect(thinEvent({ ...event, type: 'reconciliation.created', data: { reconciliationId: 'r1', bankAccountId: 'b1', year: 2026, period: 1, source: 'manual' } }, 'o1').data).toEqual({
      ids: { reconciliationId: 'r1', bankAccountId: 'b1' },
      link: '/v1/companies/c1/reconciliations/r1',
    });
    expect(thinEvent({ ...event, type: 'company.updated', data: { companyId: 'c1' } }, 'o1').data).toEqual({ ids: { companyId: 'c1' }, link: '/v1/companies/c1' });
    expect(catalogEntry('no.such.type')).toBeUndefined();
    expect(() => thinEvent({ ...event, type: 'no.such.type', data: {} }, 'o1')).toThrow(/not in the catalogue/);
  });

  it('accepts in the outbox only the data its definition names (a wrong payload does not compile)', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const item = written(outboxEventWrite('document.created', 'c1', { documentId: 'd1' }, at));
    expect(item).toMatchObject({ type: 'document.created', companyId: 'c1', occurredAt: at, data: { documentId: 'd1' }, deliveryStatus: 'pending', entity: 'outboxEvent' });

    const jobEvent = 'job.failed' as 'job.succeeded' | 'job.failed';
    const data = { jobId: 'j1', importId: 'i1', kind: 'accounts', status: 'failed' } as const;
    expect(written(outboxEventWrite(jobEvent, 'c1', data, at)).data).toEqual(data);

    // Each line below is a compile error (tsc --noEmit covers test/); the writes themselves only build items.
    // @ts-expect-error a field of the type's data is missing
    outboxEventWrite('job.succeeded', 'c1', { jobId: 'j1', importId: 'i1', kind: 'accounts' }, at);
    // @ts-expect-error a field the type's data does not have
    outboxEventWrite('document.deleted', 'c1', { documentId: 'd1', companyId: 'c1' }, at);
    // @ts-expect-error a field of the wrong type
    outboxEventWrite('reconciliation.deleted', 'c1', { reconciliationId: 'r1', bankAccountId: 'b1', year: '2026', period: 1, source: 'manual' }, at);
    // @ts-expect-error another type's data
    outboxEventWrite('bank.statement.ingested', 'c1', { documentId: 'd1' }, at);
    // @ts-expect-error a type not in the catalogue
    outboxEventWrite('webhook.test', 'c1', { subscriptionId: 's1' }, at);
    const anyType = 'company.created' as EventType;
    // @ts-expect-error a type chosen at run time among all: the data must fit every one of them
    outboxEventWrite(anyType, 'c1', { companyId: 'c1' }, at);
    expect(outboxEvents.length).toBe(outboxEventTypes.length);
  });
});
