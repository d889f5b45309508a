import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { idempotencyKeys } from './keys';
import { controlTableName, dynamo } from './aws';
import { secretsEnvelope } from './envelope-encryption';
import { problems } from './problem';

/**
 * Idempotency-Key handling for every mutation (spec: Errors, Idempotency). Keys are scoped to
 * the client. The first request takes the key with a conditional put, so concurrent duplicates
 * produce exactly one effect; the response it produced (success or problem) is stored and
 * replayed byte for byte. 5xx answers are not stored: the key is released so a retry runs again.
 */
export interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** As the record holds it: an answer that shows a secret keeps its body sealed (envelope encryption), bound to the record. */
type RecordedResponse = Omit<StoredResponse, 'body'> & ({ body: string } | { sealedBody: string });

const recordContext = (clientId: string, key: string) => ({ purpose: 'idempotent-answer', clientId, idempotencyKey: key });

const replayed = async (clientId: string, key: string, recorded: RecordedResponse): Promise<StoredResponse> => {
  if (!('sealedBody' in recorded)) return recorded;
  const { sealedBody, ...rest } = recorded;
  return { ...rest, body: await secretsEnvelope().open(sealedBody, recordContext(clientId, key)) };
};

/** Records live at least 24 h (DynamoDB TTL deletes them some time after expiresAt). */
export const retentionSeconds = 24 * 3600;
/** An in-flight claim older than this is abandoned (the API functions time out well before). */
export const leaseMilliseconds = 60_000;

const keyPattern = /^[\x21-\x7e]{1,255}$/;

export const validateIdempotencyKey = (key: string | undefined): string => {
  if (key === undefined || key === '') {
    throw problems.validation('The Idempotency-Key header is required on every mutation.', [
      { field: 'Idempotency-Key', message: 'Required header' },
    ]);
  }
  if (!keyPattern.test(key)) {
    throw problems.validation('Idempotency-Key must be 1 to 255 visible ASCII characters.', [
      { field: 'Idempotency-Key', message: 'Must be 1 to 255 visible ASCII characters' },
    ]);
  }
  return key;
};

/** What makes two requests "the same": method, path, query and the exact body text. */
export const requestFingerprint = (method: string, path: string, query: string, body: string | undefined): string =>
  createHash('sha256').update(`${method}\n${path}\n${query}\n${body ?? ''}`).digest('hex');

export type Claim = { kind: 'claimed' } | { kind: 'replay'; response: StoredResponse };

export const claimIdempotencyKey = async (clientId: string, key: string, fingerprint: string, now = Date.now()): Promise<Claim> => {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: controlTableName(),
        Item: {
          ...idempotencyKeys(clientId, key),
          entity: 'idempotencyRecord',
          status: 'in_progress',
          fingerprint,
          leaseExpiresAt: now + leaseMilliseconds,
          expiresAt: Math.floor(now / 1000) + retentionSeconds,
          createdAt: new Date(now).toISOString(),
        },
        ConditionExpression: 'attribute_not_exists(PK) OR expiresAt < :nowSeconds OR (#status = :inProgress AND leaseExpiresAt < :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':nowSeconds': Math.floor(now / 1000), ':inProgress': 'in_progress', ':now': now },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { kind: 'claimed' };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException) || !error.Item) throw error;
    const existing = unmarshall(error.Item);
    if (existing.fingerprint !== fingerprint) throw problems.idempotencyKeyReused();
    if (existing.status !== 'completed') throw problems.idempotencyInFlight();
    return { kind: 'replay', response: await replayed(clientId, key, existing.response as RecordedResponse) };
  }
};

/**
 * The answer stored for this client, key and request, if the request completed before (no claim is
 * made): how a retried mutation whose resource it removed replays its answer instead of a 404.
 */
export const storedIdempotentResponse = async (clientId: string, key: string, fingerprint: string, now = Date.now()): Promise<StoredResponse | undefined> => {
  const { Item } = await dynamo().send(new GetCommand({ TableName: controlTableName(), Key: idempotencyKeys(clientId, key), ConsistentRead: true }));
  if (!Item || Item.status !== 'completed' || Item.fingerprint !== fingerprint || Number(Item.expiresAt) < Math.floor(now / 1000)) return undefined;
  return replayed(clientId, key, Item.response as RecordedResponse);
};

export const storeIdempotentResponse = async (clientId: string, key: string, fingerprint: string, response: StoredResponse, options: { seal?: boolean } = {}): Promise<void> => {
  const recorded: RecordedResponse = options.seal
    ? { statusCode: response.statusCode, headers: response.headers, sealedBody: await secretsEnvelope().seal(response.body, recordContext(clientId, key)) }
    : response;
  await dynamo().send(
    new UpdateCommand({
      TableName: controlTableName(),
      Key: idempotencyKeys(clientId, key),
      UpdateExpression: 'SET #status = :completed, #response = :response REMOVE leaseExpiresAt',
      ConditionExpression: 'fingerprint = :fingerprint',
      ExpressionAttributeNames: { '#status': 'status', '#response': 'response' },
      ExpressionAttributeValues: { ':completed': 'completed', ':response': recorded, ':fingerprint': fingerprint },
    }),
  );
};

export const releaseIdempotencyKey = async (clientId: string, key: string, fingerprint: string): Promise<void> => {
  try {
    await dynamo().send(
      new DeleteCommand({
        TableName: controlTableName(),
        Key: idempotencyKeys(clientId, key),
        ConditionExpression: '#status = :inProgress AND fingerprint = :fingerprint',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':inProgress': 'in_progress', ':fingerprint': fingerprint },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
};
