import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { config, perConfiguration } from './config';
import { traced } from './tracer';

/**
 * SDK clients are built once per execution environment and reused across invocations (and per
 * configuration: see perConfiguration). Marked pure: a bundle keeps only the clients its function uses.
 */
export const dynamo = /* @__PURE__ */ perConfiguration(
  () => `${config().region} ${config().dynamodbEndpoint}`,
  (): DynamoDBDocumentClient => {
    const { region, dynamodbEndpoint } = config();
    const client = traced(new DynamoDBClient({ region, ...(dynamodbEndpoint && { endpoint: dynamodbEndpoint }) }));
    // No SDK logger is configured, yet its middleware filters every request and answer for one
    // (about 4 % of the import worker's CPU on a 10k-line import); our own logs say what failed.
    client.middlewareStack.remove('loggerMiddleware');
    return DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true },
      // Numbers come back as exact text (NumberValue): amounts never pass through JS floats.
      unmarshallOptions: { wrapNumbers: true },
    });
  },
);

export const tableName = (): string => config().tableName;

/** The request-control table (rate limits, idempotency records); never falls back to the single table. */
export const controlTableName = (): string => {
  const name = config().controlTableName;
  if (!name) throw new Error('Missing environment variable CONTROL_TABLE_NAME');
  return name;
};

/** The outbox table (events; its stream feeds the webhook relay); never falls back to the single table. */
export const outboxTableName = (): string => {
  const name = config().outboxTableName;
  if (!name) throw new Error('Missing environment variable OUTBOX_TABLE_NAME');
  return name;
};

/** Path-style against the local emulator; checksums only when required (presigned URLs stay valid on real S3). */
export const s3 = /* @__PURE__ */ perConfiguration(
  () => `${config().region} ${config().s3Endpoint}`,
  (): S3Client => {
    const { region, s3Endpoint } = config();
    return traced(
      new S3Client({
        region,
        ...(s3Endpoint && { endpoint: s3Endpoint, forcePathStyle: true }),
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }),
    );
  },
);

/** The endpoint is passed explicitly: the local emulator's queue URLs are not resolvable hosts. */
export const sqs = /* @__PURE__ */ perConfiguration(
  () => `${config().region} ${config().sqsEndpoint}`,
  (): SQSClient => {
    const { region, sqsEndpoint } = config();
    return traced(new SQSClient({ region, ...(sqsEndpoint && { endpoint: sqsEndpoint }) }));
  },
);

export const bucketName = (): string => config().bucketName;
