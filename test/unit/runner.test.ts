import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../shared/identity/principal';
import type { Claim } from '../../shared/platform/idempotency';
import { defineOperation } from '../../shared/api/operation';
import { ProblemError, problems } from '../../shared/platform/problem';
import { logger } from '../../shared/platform/logger';
import { createOperationRunner, type IdempotencyStore, type OperationCall, type OperationResponse } from '../../shared/api/runner';
import { mcpOnlyOperations, type McpOnlyOperationDefinition, type RouteDefinition } from '../../shared/routes';
import * as z from '../../shared/platform/zod';

/** The runner alone: no API Gateway event, no DynamoDB; its stores are in memory. */
const uuid = '11111111-1111-4111-8111-111111111111';
const foreign = '22222222-2222-4222-8222-222222222222';

const routes: RouteDefinition[] = [
  { method: 'GET', path: '/things/{thingId}', group: 'identity', operationId: 'getThing', summary: '', auth: 'token', scope: 'ledger:read', mutation: false },
  { method: 'POST', path: '/things/{thingId}/notes', group: 'identity', operationId: 'addNote', summary: '', auth: 'token', scope: 'companies:write', mutation: true },
  { method: 'GET', path: '/public', group: 'identity', operationId: 'publicThing', summary: '', auth: 'public', mutation: false },
  { method: 'POST', path: '/explode', group: 'identity', operationId: 'explode', summary: '', auth: 'token', mutation: true },
  { method: 'POST', path: '/things/{thingId}/busy-notes', group: 'identity', operationId: 'busyNote', summary: '', auth: 'token', scope: 'companies:write', mutation: true },
];

const principal = (scopes: Principal['scopes']): Principal => ({
  clientId: 'client-1',
  mode: 'SYSTEM',
  organizationId: 'org',
  organizationPath: 'org',
  userId: null,
  organizationIds: [],
  scopes,
  plan: 'standard',
});

const thingParams = z.strictObject({ thingId: z.string().uuid() });
let executions = 0;
const operations = {
  getThing: defineOperation({ params: thingParams, query: z.strictObject({ verbose: z.enum(['true', 'false']).optional() }), responses: { 200: { description: '' } } }, async ({ owner, query }) => {
    executions++;
    return { status: 200, body: { owner, verbose: query.verbose ?? null } };
  }),
  addNote: defineOperation(
    { params: thingParams, body: z.strictObject({ text: z.string().min(1) }), responses: { 201: { description: '' } } },
    async ({ owner, body }) => {
      executions++;
      return { status: 201, body: { owner, text: body.text, n: executions } };
    },
  ),
  publicThing: defineOperation({ responses: { 200: { description: '' } } }, async () => ({ status: 200, body: { ok: true } })),
  busyNote: defineOperation({ params: thingParams, responses: { 201: { description: '' } } }, async () => {
    executions++;
    if (executions % 2 === 1) throw new ProblemError({ status: 409, error: 'conflict', title: 'Conflict', detail: 'A job runs.', reason: 'job_in_flight' });
    return { status: 201, body: { n: executions } };
  }),
  explode: defineOperation({ responses: { 200: { description: '' } } }, async () => {
    throw new Error('boom');
  }),
};

const memoryIdempotency = (): IdempotencyStore & { records: Map<string, { fingerprint: string; response?: OperationResponse }> } => {
  const records = new Map<string, { fingerprint: string; response?: OperationResponse }>();
  return {
    records,
    claim: async (clientId, key, fingerprint): Promise<Claim> => {
      const existing = records.get(`${clientId}#${key}`);
      if (!existing) {
        records.set(`${clientId}#${key}`, { fingerprint });
        return { kind: 'claimed' };
      }
      if (existing.fingerprint !== fingerprint) throw problems.idempotencyKeyReused();
      if (!existing.response) throw problems.idempotencyInFlight();
      return { kind: 'replay', response: existing.response };
    },
    stored: async (clientId, key, fingerprint) => {
      const existing = records.get(`${clientId}#${key}`);
      return existing?.fingerprint === fingerprint ? existing.response : undefined;
    },
    store: async (clientId, key, _fingerprint, response) => {
      records.get(`${clientId}#${key}`)!.response = response;
    },
    release: async (clientId, key) => {
      records.delete(`${clientId}#${key}`);
    },
  };
};

const setup = (rateLimited = false) => {
  executions = 0;
  const idempotency = memoryIdempotency();
  const rateLimitCalls: string[] = [];
  const run = createOperationRunner(operations, {
    routes,
    idempotency,
    rateLimit: async (caller) => {
      rateLimitCalls.push(caller.clientId);
      if (rateLimited) throw problems.rateLimited(7);
      return { 'RateLimit-Remaining': '59' };
    },
    owners: { thingId: { noun: 'thing', resolve: async (id) => (id === uuid ? { id, name: 'mine' } : undefined) } },
  });
  return { run, idempotency, rateLimitCalls };
};

const call = (operationId: keyof typeof operations, overrides: Partial<Omit<OperationCall, 'operationId'>> = {}): OperationCall<keyof typeof operations> => ({
  operationId,
  authentication: { authenticated: true, principal: principal(['ledger:read', 'companies:write']) },
  params: { thingId: uuid },
  query: {},
  requestId: 'req-1',
  ...overrides,
});

const parsed = (response: OperationResponse) => ({ status: response.statusCode, body: response.body ? JSON.parse(response.body) : undefined });

afterEach(() => vi.restoreAllMocks());

describe('operation runner (transport-neutral)', () => {
  it('runs an operation with the resolved owner, validated query and rate-limit headers', async () => {
    const { run } = setup();
    const response = await run(call('getThing', { query: { verbose: 'true' } }));
    expect(parsed(response)).toEqual({ status: 200, body: { owner: { id: uuid, name: 'mine' }, verbose: 'true' } });
    expect(response.headers).toMatchObject({ 'Content-Type': 'application/json', 'RateLimit-Remaining': '59' });
  });

  it('401 without a principal, before the rate limit is consumed', async () => {
    const { run, rateLimitCalls } = setup();
    const response = await run(call('getThing', { authentication: { authenticated: false, failure: 'token expired' } }));
    expect(parsed(response).body).toMatchObject({ status: 401, error: 'invalid_token', requestId: 'req-1' });
    expect(parsed(response).body.detail).toContain('token expired');
    expect(response.headers['WWW-Authenticate']).toBe('Bearer error="invalid_token"');
    expect(rateLimitCalls).toEqual([]);
  });

  it('reach runs alongside the rate limit, yet a 429 still wins over whatever reach met (a failing read included)', async () => {
    let reads = 0;
    const run = createOperationRunner(operations, {
      routes,
      idempotency: memoryIdempotency(),
      rateLimit: async () => {
        await new Promise((done) => setTimeout(done, 5)); // the read fails first
        throw problems.rateLimited(3);
      },
      owners: { thingId: { noun: 'thing', resolve: async () => { reads++; throw new Error('the table is unreachable'); } } },
    });
    const response = await run(call('getThing'));
    expect(parsed(response).body).toMatchObject({ status: 429, error: 'rate_limited' });
    expect(reads).toBe(1);
  });

  it('429 from the rate limit comes before reach', async () => {
    const { run } = setup(true);
    const response = await run(call('getThing', { params: { thingId: foreign } }));
    expect(parsed(response).body).toMatchObject({ status: 429, error: 'rate_limited' });
    expect(response.headers['Retry-After']).toBe('7');
  });

  it('reach before scope, idempotency and validation: an unknown or malformed id is 404 whatever else is wrong', async () => {
    const { run, idempotency } = setup();
    const readOnly = { authenticated: true as const, principal: principal(['ledger:read']) };
    for (const thingId of [foreign, 'not-a-uuid']) {
      const response = await run(call('addNote', { authentication: readOnly, params: { thingId }, body: { text: '{', contentType: 'text/plain' } }));
      expect(parsed(response).body).toMatchObject({ status: 404, error: 'not_found', detail: 'The thing does not exist or is outside your reach.' });
    }
    expect(idempotency.records.size).toBe(0);
    expect(executions).toBe(0);
  });

  it('then scope (403), then the Idempotency-Key (400), then the body (415, 400, 400)', async () => {
    const { run } = setup();
    const readOnly = { authenticated: true as const, principal: principal(['ledger:read']) };
    expect(parsed(await run(call('addNote', { authentication: readOnly, idempotencyKey: 'k' }))).body).toMatchObject({ status: 403, error: 'insufficient_scope' });
    expect(parsed(await run(call('addNote'))).body).toMatchObject({ status: 400, error: 'validation_failed', errors: [{ field: 'Idempotency-Key' }] });
    const body = (text: string, contentType = 'application/json') => ({ text, contentType });
    expect(parsed(await run(call('addNote', { idempotencyKey: 'a', body: body('{}', 'text/plain') }))).body).toMatchObject({ status: 415 });
    expect(parsed(await run(call('addNote', { idempotencyKey: 'b', body: body('{') }))).body).toMatchObject({ status: 400, error: 'malformed_json' });
    expect(parsed(await run(call('addNote', { idempotencyKey: 'c', body: body('{"text": ""}') }))).body).toMatchObject({
      status: 400,
      errors: [{ field: 'text' }],
    });
    expect(executions).toBe(0);
  });

  it('a body the transport could not decode (413, 415) is answered after reach and scope, never stored', async () => {
    const { run, idempotency } = setup();
    const bodyProblem = problems.payloadTooLarge('Request bodies are limited to 4 MiB.');
    expect(parsed(await run(call('addNote', { params: { thingId: foreign }, bodyProblem, idempotencyKey: 'x' }))).body).toMatchObject({ status: 404 });
    expect(parsed(await run(call('addNote', { bodyProblem, idempotencyKey: 'x' }))).body).toMatchObject({ status: 413, error: 'payload_too_large' });
    expect(idempotency.records.size).toBe(0);
  });

  it('a mutation runs once per key: the replay is the stored answer; another body under the key is 422', async () => {
    const { run } = setup();
    const body = { text: '{"text": "hello"}', contentType: 'application/json' };
    const first = await run(call('addNote', { idempotencyKey: 'key-1', body }));
    const replay = await run(call('addNote', { idempotencyKey: 'key-1', body, requestId: 'req-2' }));
    expect(parsed(first)).toEqual({ status: 201, body: { owner: { id: uuid, name: 'mine' }, text: 'hello', n: 1 } });
    expect(replay.body).toBe(first.body);
    expect(replay.headers['Idempotency-Replayed']).toBe('true');
    const other = await run(call('addNote', { idempotencyKey: 'key-1', body: { ...body, text: '{"text": "other"}' } }));
    expect(parsed(other).body).toMatchObject({ status: 422, error: 'idempotency_key_reused' });
    expect(executions).toBe(1);
  });

  it('a 409 (the state of the moment) is not stored: its key is released, so the same request with the same key runs again once the state changed', async () => {
    const { run, idempotency } = setup();
    executions = 0;
    const refused = await run(call('busyNote', { idempotencyKey: 'busy-1' }));
    expect(parsed(refused).body).toMatchObject({ status: 409, reason: 'job_in_flight' });
    expect(idempotency.records.size).toBe(0);
    const retried = await run(call('busyNote', { idempotencyKey: 'busy-1', requestId: 'req-2' }));
    expect(parsed(retried)).toEqual({ status: 201, body: { n: 2 } });
    expect(retried.headers['Idempotency-Replayed']).toBeUndefined();
    expect(parsed(await run(call('busyNote', { idempotencyKey: 'busy-1', requestId: 'req-3' })))).toEqual({ status: 201, body: { n: 2 } });
    expect(executions).toBe(2);
  });

  it('an unexpected error is 500 internal_error, and its idempotency key is released so a retry runs again', async () => {
    const { run, idempotency } = setup();
    const response = await run(call('explode', { idempotencyKey: 'boom-1', params: {} }));
    expect(parsed(response).body).toMatchObject({ status: 500, error: 'internal_error' });
    expect(response.body).not.toContain('boom');
    expect(idempotency.records.size).toBe(0);
  });

  it('a mutation whose answer cannot be stored is still answered (its effect happened), not 500', async () => {
    const { run, idempotency } = setup();
    idempotency.store = async () => Promise.reject(new Error('control table unavailable'));
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const body = { text: '{"text": "kept"}', contentType: 'application/json' };
    const response = await run(call('addNote', { idempotencyKey: 'unstored-1', body }));
    expect(parsed(response)).toMatchObject({ status: 201, body: { text: 'kept' } });
    expect(errors).toHaveBeenCalledWith(expect.stringContaining('could not be stored'), expect.objectContaining({ idempotencyKey: 'unstored-1' }));
  });

  it('public operations run without a principal, rate limit or reach', async () => {
    const { run, rateLimitCalls } = setup();
    expect(parsed(await run(call('publicThing', { authentication: undefined, params: {} })))).toEqual({ status: 200, body: { ok: true } });
    expect(rateLimitCalls).toEqual([]);
  });

  it('runs operations declared without an HTTP route (MCP-only): owner from the declared parameters, their own scope', async () => {
    const declarations: McpOnlyOperationDefinition[] = [
      { group: 'mcp', operationId: 'getThingContext', summary: '', auth: 'token', scope: 'context:read', mutation: false, parameters: ['thingId', 'part'] },
    ];
    const run = createOperationRunner(
      { getThingContext: defineOperation({ params: z.strictObject({ thingId: z.string().uuid(), part: z.string() }), responses: { 200: { description: '' } } }, async ({ owner, params }) => ({ status: 200, body: { owner, part: params.part } })) },
      { routes: declarations, rateLimit: async () => ({}), owners: { thingId: { noun: 'thing', resolve: async (id) => (id === uuid ? { id } : undefined) } } },
    );
    const contextCall = (thingId: string, scopes: Principal['scopes']): OperationCall<'getThingContext'> => ({
      operationId: 'getThingContext',
      authentication: { authenticated: true, principal: principal(scopes) },
      params: { thingId, part: 'p1' },
      query: {},
      requestId: 'req-1',
    });
    expect(parsed(await run(contextCall(uuid, ['context:read'])))).toEqual({ status: 200, body: { owner: { id: uuid }, part: 'p1' } });
    expect(parsed(await run(contextCall(foreign, ['ledger:read']))).body).toMatchObject({ status: 404, error: 'not_found' });
    expect(parsed(await run(contextCall(uuid, ['ledger:read']))).body).toMatchObject({ status: 403, error: 'insufficient_scope' });
  });

  it("the API's MCP-only operations are not HTTP routes and each declares its scope", () => {
    expect(mcpOnlyOperations.map((operation) => operation.operationId).sort()).toEqual(['getAccountContext', 'getCompanyContext']);
    for (const operation of mcpOnlyOperations) {
      expect(operation).not.toHaveProperty('path');
      expect(operation.scope).toBe('context:read');
    }
  });
});
