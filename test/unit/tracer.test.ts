import { createSocket, type Socket } from 'node:dgram';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * Tracing is decided when the Tracer is built (at module load), from the environment (where it is
 * surely off, the Tracer is not even loaded: see shared/platform/tracer.ts): each test
 * loads the service's modules afresh under its own environment. The X-Ray SDK itself is loaded
 * once per process and reads the daemon address then: a UDP socket of this file stands in for it.
 */
const lambdaEnv = {
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
  AWS_REGION: 'eu-north-1',
  TABLE_NAME: 'ledger',
  JWT_ISSUER: 'https://issuer.example',
  _HANDLER: 'index.handler',
};
const saved = { ...process.env };
const daemon: Socket = createSocket('udp4');
/** The segment documents the daemon received (a JSON header line, then the document). */
const received: Record<string, unknown>[] = [];

beforeAll(async () => {
  daemon.on('message', (message) => received.push(JSON.parse(message.toString('utf8').split('\n').slice(1).join('\n')) as Record<string, unknown>));
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  Object.assign(saved, { LAMBDA_TASK_ROOT: '/var/task', AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(daemon.address()).port}` });
});
afterAll(() => daemon.close());

beforeEach(() => {
  vi.resetModules();
  process.env = { ...saved };
  for (const name of ['AWS_EXECUTION_ENV', 'POWERTOOLS_TRACE_ENABLED', '_X_AMZN_TRACE_ID']) delete process.env[name];
});
afterEach(() => {
  process.env = { ...saved };
});

/** The names of the X-Ray middleware on an SDK client's stack (captureAWSv3Client adds it). */
const xrayMiddleware = (client: { middlewareStack: { identify(): string[] } }): string[] => client.middlewareStack.identify().filter((name) => /xray/i.test(name));

const clients = async () => {
  const aws = await import('../../shared/platform/aws');
  return { dynamodb: aws.dynamo(), s3: aws.s3(), sqs: aws.sqs() };
};

describe('the Powertools Tracer', () => {
  it('instruments the SDK clients when tracing is on (in Lambda)', async () => {
    Object.assign(process.env, lambdaEnv);
    const { tracer, powertoolsTracer } = await import('../../shared/platform/tracer');
    expect(tracer.isTracingEnabled()).toBe(true);
    expect(powertoolsTracer).toBe(tracer);
    for (const [name, client] of Object.entries(await clients())) expect(xrayMiddleware(client), name).not.toEqual([]);
  });

  it('is off outside Lambda (the local stack, tools): clients stay as built, annotations are no-ops', async () => {
    Object.assign(process.env, { ...lambdaEnv, AWS_EXECUTION_ENV: '' });
    const { tracer, annotateOperation, powertoolsTracer } = await import('../../shared/platform/tracer');
    expect(tracer.isTracingEnabled()).toBe(false);
    // Not even built: the Tracer and the X-Ray SDK are not loaded where tracing is surely off.
    expect(powertoolsTracer).toBeUndefined();
    expect(() => annotateOperation('whoami')).not.toThrow();
    for (const [name, client] of Object.entries(await clients())) expect(xrayMiddleware(client), name).toEqual([]);
  });

  it('is off with POWERTOOLS_TRACE_ENABLED=false, even in Lambda', async () => {
    Object.assign(process.env, { ...lambdaEnv, POWERTOOLS_TRACE_ENABLED: 'false' });
    const { tracer, powertoolsTracer } = await import('../../shared/platform/tracer');
    expect(tracer.isTracingEnabled()).toBe(false);
    expect(powertoolsTracer).toBeUndefined();
    for (const [name, client] of Object.entries(await clients())) expect(xrayMiddleware(client), name).toEqual([]);
  });

  describe('in a traced invocation', () => {
    it("sends the handler's subsegment, annotated with the operation id, to the X-Ray daemon", async () => {
      Object.assign(process.env, lambdaEnv, {
        _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
        POWERTOOLS_LOG_LEVEL: 'ERROR',
      });
      const { handler } = await import('../../functions/openapi/handler');
      const event = {
        version: '2.0',
        routeKey: 'GET /v1/openapi.json',
        rawPath: '/v1/openapi.json',
        rawQueryString: '',
        headers: {},
        isBase64Encoded: false,
        requestContext: { requestId: 'trace-test', domainName: 'api.example', http: { method: 'GET', path: '/v1/openapi.json' } },
      } as unknown as APIGatewayProxyEventV2;
      const response = (await handler(event as never, { functionName: 'openapi', awsRequestId: 'r-1' } as Context)) as { statusCode: number };
      expect(response.statusCode).toBe(200);
      const deadline = Date.now() + 10_000;
      while (!received.some((segment) => segment.name === '## index.handler') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const subsegment = received.find((segment) => segment.name === '## index.handler');
      expect(subsegment?.trace_id).toBe('1-5759e988-bd862e3fe1be46a994272793');
      expect(subsegment?.annotations).toMatchObject({ operation: 'getOpenApiDocument', Service: 'ledger-api' });
    });
  });
});
