import { randomUUID } from 'node:crypto';
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { toAuthorizerContext } from '../../shared/identity/principal';
import { systemClientScopes } from '../../shared/identity/scopes';
import { tokenFor } from '../support/api';
import { seededClient, testStack } from '../support/stack';
import { validateProblem } from '../support/openapi-validator';
import { observingCalls } from '../support/sdk-calls';

/**
 * The handler as Lambda runs it, with its database unreachable: the answer must be a 500
 * internal_error problem that leaks nothing, and the log a structured JSON line with the ids.
 */
const context = { functionName: 'companies', awsRequestId: randomUUID(), getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

/** Call after anything that calls testStack(), which points the environment back at the stack. */
const loadHandlerWithBrokenDatabase = async () => {
  vi.resetModules();
  process.env.DYNAMODB_ENDPOINT = 'http://127.0.0.1:9'; // nothing listens on the discard port
  process.env.AWS_MAX_ATTEMPTS = '1';
  const { resetConfig } = await import('../../shared/platform/config');
  resetConfig();
  const { logger } = await import('../../shared/platform/logger');
  logger.setLogLevel('INFO');
  const { handler } = await import('../../functions/companies/handler');
  return handler;
};

const event = (method: string, path: string, routeKey: string, extra: Record<string, unknown> = {}) => ({
  version: '2.0',
  routeKey,
  rawPath: path,
  rawQueryString: '',
  headers: { 'content-type': 'application/json' },
  requestContext: {
    requestId: randomUUID(),
    routeKey,
    http: { method, path },
    authorizer: {
      lambda: toAuthorizerContext({
        clientId: 'client-under-test',
        mode: 'SYSTEM',
        organizationId: testStack().organizations[0]!.id,
        organizationPath: testStack().organizations[0]!.id,
        userId: null,
        organizationIds: [],
        scopes: [...systemClientScopes],
        plan: 'premium',
      }),
    },
  },
  isBase64Encoded: false,
  ...extra,
});

afterEach(() => {
  vi.restoreAllMocks();
  delete process.env.AWS_MAX_ATTEMPTS;
});

// Workers run many files (isolate: false): point the environment back at the stack, and drop the
// modules loaded against the broken database so the next file builds its clients afresh.
afterAll(async () => {
  testStack();
  const { resetConfig } = await import('../../shared/platform/config');
  resetConfig();
  vi.resetModules();
});

describe('unexpected failures', () => {
  it('answer 500 internal_error as problem+json with the requestId, and log structured JSON with requestId, clientId and organizationId', async () => {
    const lines: string[] = [];
    const capture = (chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    };
    vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    const request = event('GET', '/v1/companies', 'GET /v1/companies');
    const organizationId = testStack().organizations[0]!.id;
    const handler = await loadHandlerWithBrokenDatabase();
    const response = (await handler(request as never, context));
    vi.restoreAllMocks();

    expect(response.statusCode).toBe(500);
    expect(response.headers['Content-Type']).toBe('application/problem+json');
    const body = JSON.parse(response.body);
    validateProblem(body);
    expect(body).toMatchObject({ status: 500, error: 'internal_error', requestId: request.requestContext.requestId });
    expect(response.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|at .+\(|node_modules/);

    const records = lines.flatMap((line) => line.split('\n')).filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    const error = records.find((r) => r.level === 'ERROR');
    expect(error).toMatchObject({
      message: 'Unhandled error',
      requestId: request.requestContext.requestId,
      clientId: 'client-under-test',
      organizationId,
    });
    const completed = records.find((r) => r.message === 'request completed');
    expect(completed).toMatchObject({ status: 500, routeKey: 'GET /v1/companies', requestId: request.requestContext.requestId });
  });
});

describe('a busy or failing store', () => {
  /** The companies handler, fresh, with every call of its DynamoDB client to `table` refused as DynamoDB refuses one over its throughput. */
  const throttledHandler = async () => {
    vi.resetModules();
    process.env.AWS_MAX_ATTEMPTS = '1';
    (await import('../../shared/platform/config')).resetConfig();
    const { handler } = await import('../../functions/companies/handler');
    const aws = await import('../../shared/platform/aws');
    const throttling = (table: string) => (_command: string, input: Record<string, unknown>) => {
      if (input.TableName === table || JSON.stringify(input.TransactItems ?? []).includes(`"TableName":"${table}"`)) {
        throw new ProvisionedThroughputExceededException({ message: 'The level of configured provisioned throughput for the table was exceeded.', $metadata: {} });
      }
    };
    return { handler, aws, throttling };
  };

  it('answers 503 service_unavailable with Retry-After (retryable), not 500, also when the rate limit cannot be counted', async () => {
    const { handler, aws, throttling } = await throttledHandler();
    for (const stream of [process.stdout, process.stderr]) vi.spyOn(stream, 'write').mockImplementation(() => true);
    const request = event('GET', '/v1/companies', 'GET /v1/companies');
    // The rate limit's write is the first call of the request.
    const response = await observingCalls(aws.dynamo(), throttling(aws.controlTableName()), () => handler(request as never, context));
    expect(response.statusCode).toBe(503);
    expect(response.headers['Retry-After']).toBe('2');
    expect(response.headers['Content-Type']).toBe('application/problem+json');
    const body = JSON.parse(response.body);
    validateProblem(body);
    expect(body).toMatchObject({ status: 503, error: 'service_unavailable', requestId: request.requestContext.requestId });
    expect(response.body).not.toMatch(/throughput|ProvisionedThroughput|at .+\(/);
  });

  it("a mutation that met it wrote nothing and frees its Idempotency-Key: the same request with the same key runs once the store answers", async () => {
    const { handler, aws, throttling } = await throttledHandler();
    for (const stream of [process.stdout, process.stderr]) vi.spyOn(stream, 'write').mockImplementation(() => true);
    const key = randomUUID();
    const displayName = `Throttled ${randomUUID().slice(0, 8)} AS`;
    const create = () => event('POST', '/v1/companies', 'POST /v1/companies', { headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify({ displayName, accountingSystem: 'Api' }) });
    const refused = await observingCalls(aws.dynamo(), throttling(aws.tableName()), () => handler(create() as never, context));
    expect(refused.statusCode).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'service_unavailable' });
    const created = await handler(create() as never, context);
    expect(created.statusCode).toBe(201);
    expect(created.headers['Idempotency-Replayed']).toBeUndefined();
    expect(JSON.parse(created.body)).toMatchObject({ name: displayName });
  });
});

describe('the authorizer when it cannot check a token', () => {
  it.each([
    ['its key set does not answer', { JWKS_URI: 'http://127.0.0.1:9/.well-known/jwks.json' }],
    ['the client registry does not answer', { DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', AWS_MAX_ATTEMPTS: '1' }],
  ])('%s: the request is answered 500 internal_error (retry is safe), not 401 invalid_token, and the failure is logged', async (_, brokenEnv: Record<string, string>) => {
    const client = seededClient('a-system');
    const token = await tokenFor(client.clientId, client.clientSecret);
    const request = event('GET', '/v1/companies', 'GET /v1/companies');

    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => lines.push(String(chunk)) > 0);
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => lines.push(String(chunk)) > 0);
    vi.resetModules();
    Object.assign(process.env, brokenEnv);
    let decided: { context: Record<string, unknown> };
    try {
      (await import('../../shared/platform/config')).resetConfig();
      const { handler: authorizer } = await import('../../functions/authorizer/handler');
      decided = await authorizer({ headers: { authorization: `Bearer ${token}` }, rawPath: '/v1/companies', requestContext: request.requestContext } as never, context);
    } finally {
      for (const name of Object.keys(brokenEnv)) delete process.env[name];
      testStack();
      vi.restoreAllMocks();
    }
    expect(decided.context).toMatchObject({ authenticated: false, unavailable: true });
    expect(lines.join('')).toContain('The authorizer could not check the token');

    // The handler, its database reachable, answers the decision.
    vi.resetModules();
    (await import('../../shared/platform/config')).resetConfig();
    const { handler } = await import('../../functions/companies/handler');
    const response = await handler({ ...request, requestContext: { ...request.requestContext, authorizer: { lambda: decided.context } } } as never, context);
    expect(response.statusCode).toBe(500);
    const body = JSON.parse(response.body);
    validateProblem(body);
    expect(body).toMatchObject({ status: 500, error: 'internal_error', requestId: request.requestContext.requestId });
  });
});

