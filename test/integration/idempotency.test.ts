import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api, expectProblem, listAll } from '../support/api';

const createBody = () => ({ displayName: `Idem ${randomUUID().slice(0, 8)} AS`, accountingSystem: 'Api' });
const companyNames = async () => (await listAll<{ name: string }>('/v1/companies?page_size=200', { as: 'a-system' })).map((c) => c.name);

describe('Idempotency-Key', () => {
  it('replays the stored response byte for byte with Idempotency-Replayed: true, creating nothing twice', async () => {
    const key = randomUUID();
    const body = createBody();
    const first = await api('POST', '/v1/companies', { as: 'a-system', body, idempotencyKey: key });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    const second = await api('POST', '/v1/companies', { as: 'a-system', body, idempotencyKey: key });
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotency-replayed')).toBe('true');
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect((await companyNames()).filter((name: string) => name === body.displayName)).toHaveLength(1);
  });

  it('replays a DELETE whose resource is gone when retried with its key (a new key answers 404)', async () => {
    const created = await api('POST', '/v1/webhooks/subscriptions', { as: 'a-system', body: { url: 'http://127.0.0.1:9/hook', eventTypes: ['company.updated'] } });
    expect(created.status).toBe(201);
    const key = randomUUID();
    const path = `/v1/webhooks/subscriptions/${created.body.id}`;
    const deleted = await api('DELETE', path, { as: 'a-system', idempotencyKey: key });
    expect(deleted.status).toBeLessThan(300);
    const retried = await api('DELETE', path, { as: 'a-system', idempotencyKey: key });
    expect(retried.status).toBe(deleted.status);
    expect(retried.headers.get('idempotency-replayed')).toBe('true');
    expect(retried.text).toBe(deleted.text);
    expectProblem(await api('DELETE', path, { as: 'a-system', idempotencyKey: randomUUID() }), 404, 'not_found');
    // the same key on another resource that is gone is no replay
    expectProblem(await api('DELETE', `/v1/webhooks/subscriptions/${randomUUID()}`, { as: 'a-system', idempotencyKey: key }), 404, 'not_found');
  });

  it("replays any mutation's answer when retried with its key after its resource was deleted (a key's answer never changes)", async () => {
    const company = (await api('POST', '/v1/companies', { as: 'a-system', body: createBody() })).body;
    const key = randomUUID();
    const body = { displayName: `Renamed ${randomUUID().slice(0, 8)} AS` };
    const patched = await api('PATCH', `/v1/companies/${company.id}`, { as: 'a-system', body, idempotencyKey: key });
    expect(patched.status).toBe(200);
    expect((await api('DELETE', `/v1/companies/${company.id}`, { as: 'a-system' })).status).toBe(200);
    const retried = await api('PATCH', `/v1/companies/${company.id}`, { as: 'a-system', body, idempotencyKey: key });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotency-replayed')).toBe('true');
    expect(retried.text).toBe(patched.text);
    expectProblem(await api('PATCH', `/v1/companies/${company.id}`, { as: 'a-system', body, idempotencyKey: randomUUID() }), 404, 'not_found');
  });

  it('answers 422 idempotency_key_reused for the same key with another body or path', async () => {
    const key = randomUUID();
    await api('POST', '/v1/companies', { as: 'a-system', body: createBody(), idempotencyKey: key });
    expectProblem(await api('POST', '/v1/companies', { as: 'a-system', body: createBody(), idempotencyKey: key }), 422, 'idempotency_key_reused');
    const company = (await api('POST', '/v1/companies', { as: 'a-system', body: createBody() })).body;
    expectProblem(
      await api('POST', `/v1/companies/${company.id}/actions/disable`, { as: 'a-system', idempotencyKey: key }),
      422,
      'idempotency_key_reused',
    );
  });

  it('scopes keys to the client: the same key from another client is a new request', async () => {
    const key = randomUUID();
    const mine = await api('POST', '/v1/companies', { as: 'a-system', body: createBody(), idempotencyKey: key });
    const theirs = await api('POST', '/v1/companies', { as: 'b-system', body: createBody(), idempotencyKey: key });
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotency-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('stores problems too: a replayed validation failure is the same problem', async () => {
    const key = randomUUID();
    const first = await api('POST', '/v1/companies', { as: 'a-system', body: { displayName: '' }, idempotencyKey: key });
    expectProblem(first, 400, 'validation_failed');
    const second = await api('POST', '/v1/companies', { as: 'a-system', body: { displayName: '' }, idempotencyKey: key });
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotency-replayed')).toBe('true');
  });

  it('concurrent duplicates produce exactly one company; the others replay it or answer 409 idempotency_in_flight', async () => {
    const key = randomUUID();
    const body = createBody();
    const responses = await Promise.all(Array.from({ length: 8 }, () => api('POST', '/v1/companies', { as: 'a-system', body, idempotencyKey: key })));
    const created = responses.filter((r) => r.status === 201);
    const inFlight = responses.filter((r) => r.status === 409);
    expect(created.length + inFlight.length).toBe(8);
    expect(new Set(created.map((r) => r.text)).size).toBe(1);
    for (const response of inFlight) expectProblem(response, 409, 'idempotency_in_flight');
    expect((await companyNames()).filter((name: string) => name === body.displayName)).toHaveLength(1);
  });

  it.each([
    ['missing', null],
    ['too long', 'k'.repeat(256)],
    ['with spaces', 'two words'],
  ])('a mutation with the key %s answers 400 validation_failed naming Idempotency-Key', async (_case, key) => {
    const response = await api('POST', '/v1/companies', { as: 'a-system', body: createBody(), idempotencyKey: key });
    expectProblem(response, 400, 'validation_failed');
    expect(response.body.errors[0].field).toBe('Idempotency-Key');
  });
});

describe('request-control records live in the control table, not in the books', () => {
  it('an idempotency record and the rate-limit state are in the control table; the single table holds neither', async () => {
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const { dynamo, tableName, controlTableName } = await import('../../shared/platform/aws');
    const { idempotencyKeys, rateLimitKeys } = await import('../../shared/platform/keys');
    const { seededClient } = await import('../support/stack');
    const { clientId } = seededClient('a-system');
    const key = randomUUID();
    expect((await api('POST', '/v1/companies', { as: 'a-system', body: createBody(), idempotencyKey: key })).status).toBe(201);
    const get = async (table: string, itemKey: Record<string, string>) =>
      (await dynamo().send(new GetCommand({ TableName: table, Key: itemKey, ConsistentRead: true }))).Item;
    expect(controlTableName()).not.toBe(tableName());
    const record = await get(controlTableName(), idempotencyKeys(clientId, key));
    expect(record).toMatchObject({ entity: 'idempotencyRecord', status: 'completed' });
    expect(Number(String(record?.expiresAt))).toBeGreaterThan(Date.now() / 1000);
    expect(await get(controlTableName(), rateLimitKeys(clientId))).toHaveProperty('tat');
    expect(await get(tableName(), idempotencyKeys(clientId, key))).toBeUndefined();
    expect(await get(tableName(), rateLimitKeys(clientId))).toBeUndefined();
  });
});
