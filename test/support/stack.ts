import { inject } from 'vitest';
import { queues } from '../../shared/queues';
import { resetConfig } from '../../shared/platform/config';
import { applyLocalAwsEnv } from '../../infra/local/aws-env';
import type { StackInfo } from '../../infra/local/stack';

/**
 * The stack started by the global setup. Calling it also points this test process's shared/
 * modules (repositories, admin services) at the same stand-ins, as the tools do.
 */
export const testStack = (): StackInfo => {
  const info = inject('stack');
  applyLocalAwsEnv();
  Object.assign(process.env, {
    TABLE_NAME: info.internal.tableName,
    BUCKET_NAME: info.internal.bucketName,
    DYNAMODB_ENDPOINT: info.internal.dynamodbEndpoint,
    S3_ENDPOINT: info.internal.s3Endpoint,
    SQS_ENDPOINT: info.internal.sqsEndpoint,
    JWT_ISSUER: info.internal.jwtIssuer,
    JWKS_URI: info.internal.jwksUri,
    SCOPE_PREFIX: info.internal.scopePrefix,
    CURSOR_SECRET: info.internal.cursorSecret,
    ...Object.fromEntries(queues.map((queue) => [queue.urlEnv, info.internal.queues[queue.name].url])),
  });
  resetConfig();
  return info;
};

export const seededClient = (name: string) => {
  const client = testStack().clients.find((c) => c.name === name);
  if (!client) throw new Error(`No seeded client ${name}`);
  return client;
};

export const seededCompanies = (organizationId: string) => testStack().companies.filter((c) => c.organizationId === organizationId);
