import { createServer } from 'node:net';
import { describe, it, expect } from 'vitest';
import { applyLocalAwsEnv, localAwsEnv } from '../../infra/local/aws-env';
import { freePort } from '../../infra/local/ports';

describe('applyLocalAwsEnv', () => {
  it('sets local credentials, keeps a given region and disables instance metadata', () => {
    const env: NodeJS.ProcessEnv = { AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIAREAL', AWS_SECRET_ACCESS_KEY: 'real', AWS_SESSION_TOKEN: 'tok' };
    applyLocalAwsEnv(env);
    expect(env).toEqual({
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
      AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
    });
  });

  it('defaults the region', () => {
    const env: NodeJS.ProcessEnv = {};
    applyLocalAwsEnv(env);
    expect(env.AWS_REGION).toBe(localAwsEnv.region);
  });
});

describe('freePort', () => {
  it('returns a port that can be bound on 127.0.0.1', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
