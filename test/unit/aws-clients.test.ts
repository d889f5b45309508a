import { afterEach, describe, expect, it } from 'vitest';
import { dynamo, s3, sqs } from '../../shared/platform/aws';

const names = ['AWS_REGION', 'DYNAMODB_ENDPOINT', 'S3_ENDPOINT', 'SQS_ENDPOINT'] as const;
const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));

afterEach(() => {
  for (const name of names) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

const endpointOf = async (client: { config: { endpoint?: () => Promise<{ port?: number | string }> } }) => Number((await client.config.endpoint!()).port);

describe('the SDK clients of a process', () => {
  it('are built once and reused while the configuration stays, and rebuilt for another endpoint (a tool that starts a second stack)', async () => {
    process.env.AWS_REGION = 'eu-north-1';
    Object.assign(process.env, { DYNAMODB_ENDPOINT: 'http://127.0.0.1:41001', S3_ENDPOINT: 'http://127.0.0.1:41002', SQS_ENDPOINT: 'http://127.0.0.1:41003' });
    const first = { dynamo: dynamo(), s3: s3(), sqs: sqs() };
    expect({ dynamo: dynamo(), s3: s3(), sqs: sqs() }).toEqual(first);
    expect(dynamo()).toBe(first.dynamo);
    expect(s3()).toBe(first.s3);
    expect(sqs()).toBe(first.sqs);
    expect(await endpointOf(s3())).toBe(41002);
    expect(await endpointOf(sqs())).toBe(41003);

    Object.assign(process.env, { DYNAMODB_ENDPOINT: 'http://127.0.0.1:42001', S3_ENDPOINT: 'http://127.0.0.1:42002', SQS_ENDPOINT: 'http://127.0.0.1:42003' });
    expect(dynamo()).not.toBe(first.dynamo);
    expect(s3()).not.toBe(first.s3);
    expect(sqs()).not.toBe(first.sqs);
    expect(await endpointOf(s3())).toBe(42002);
    expect(await endpointOf(sqs())).toBe(42003);
  });
});
