import { randomUUID } from 'node:crypto';
import { DynamoDBClient, ListTablesCommand, ResourceNotFoundException, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localAwsCredentials } from '../../infra/local/aws-env';
import { idempotencyKeys } from '../../shared/platform/keys';
import { controlTableName, dynamo, tableName } from '../../shared/platform/aws';
import { signingSecrets } from '../../shared/webhooks/delivery';
import { subscriptionKeys } from '../../shared/webhooks/keys';
import { ProblemError } from '../../shared/platform/problem';
import { subscriptionRepository } from '../../shared/webhooks/repository';
import { rotateSecret } from '../../shared/webhooks/service';
import { newSigningSecret } from '../../shared/webhooks/signing';
import { api } from '../support/api';
import { newFirm } from '../support/people';
import { queueWaitMs } from '../support/poll';
import { testStack } from '../support/stack';
import { eventually, startReceiver } from '../support/webhook-receiver';

/**
 * Signing secrets at rest: sealed in the subscription and in the idempotency record of the answer
 * that showed them (envelope encryption, docs/webhooks.md), opened only to sign. Every table of
 * the local stack is scanned raw for the secrets in plain text.
 */
type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const receivers: Receiver[] = [];
afterAll(async () => {
  for (const receiver of receivers) await receiver.stop();
});

let token: string;
let clientId: string;
beforeAll(async () => {
  testStack();
  const firm = await newFirm('Webhook secrets');
  token = firm.systemToken;
  clientId = firm.system.client.clientId;
});

/** Every item of every table of the local DynamoDB, as raw JSON text. */
const everyTableAsText = async (): Promise<string> => {
  const { dynamodbEndpoint, region } = testStack().internal;
  const client = new DynamoDBClient({ endpoint: dynamodbEndpoint, region, credentials: localAwsCredentials });
  const texts: string[] = [];
  const tables = (await client.send(new ListTablesCommand({}))).TableNames ?? [];
  expect(tables).toEqual(expect.arrayContaining([testStack().internal.tableName, testStack().internal.controlTableName, testStack().internal.outboxTableName]));
  const stackTables = new Set([testStack().internal.tableName, testStack().internal.controlTableName, testStack().internal.outboxTableName]);
  for (const table of tables) {
    let startKey: Record<string, AttributeValue> | undefined;
    for (let pages = 0; pages < 10_000; pages++) {
      // Another test's own table may be deleted between the list and its scan: only the stack's must be there.
      const page = await client.send(new ScanCommand({ TableName: table, ExclusiveStartKey: startKey })).catch((error: unknown) => {
        if (error instanceof ResourceNotFoundException && !stackTables.has(table)) return undefined;
        throw error;
      });
      if (!page) break;
      texts.push(JSON.stringify(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
      if (!startKey) break;
    }
  }
  client.destroy();
  return texts.join('\n');
};

const expectNowhereInPlainText = (text: string, secrets: readonly string[]) => {
  for (const secret of secrets) {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(text.includes(secret), 'the whsec_ secret in a table').toBe(false);
    expect(text.includes(secret.slice('whsec_'.length)), 'its base64 key in a table').toBe(false);
    expect(text.includes(Buffer.from(secret.slice('whsec_'.length), 'base64').toString('hex')), 'its key in hex in a table').toBe(false);
  }
};

const storedSubscription = async (id: string) => (await dynamo().send(new GetCommand({ TableName: tableName(), Key: subscriptionKeys(id), ConsistentRead: true }))).Item!;

const activeSubscription = async (receiver: Receiver, idempotencyKey: string) => {
  const created = await api('POST', '/v1/webhooks/subscriptions', { token, idempotencyKey, body: { url: receiver.url, eventTypes: ['webhook.test'] } });
  expect(created.status).toBe(201);
  receiver.state.secrets = [created.body.secret];
  const id = created.body.id as string;
  await eventually(async () => (await api('GET', `/v1/webhooks/subscriptions/${id}`, { token })).body.status === 'active', queueWaitMs, 'the handshake');
  return { created, id };
};

const testEventVerified = async (receiver: Receiver, id: string, idempotencyKey = randomUUID()) => {
  const sent = await api('POST', `/v1/webhooks/subscriptions/${id}/test`, { token, idempotencyKey });
  expect(sent.status).toBe(202);
  return eventually(() => receiver.state.received.find((r) => r.id === sent.body.eventId), queueWaitMs, 'the test event');
};

describe('webhook signing secrets at rest', () => {
  it('create and rotate show the secret; deliveries verify with it; replays answer the same bytes; no table holds a secret in plain text', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const createKey = randomUUID();
    const { created, id } = await activeSubscription(receiver, createKey);
    expect(receiver.state.verifications).toBeGreaterThanOrEqual(1); // the handshake verified with the standardwebhooks library

    const replayedCreate = await api('POST', '/v1/webhooks/subscriptions', { token, idempotencyKey: createKey, body: { url: receiver.url, eventTypes: ['webhook.test'] } });
    expect(replayedCreate.headers.get('idempotency-replayed')).toBe('true');
    expect(replayedCreate.status).toBe(201);
    expect(replayedCreate.text).toBe(created.text);

    const rotateKey = randomUUID();
    const rotated = await api('POST', `/v1/webhooks/subscriptions/${id}/rotate-secret`, { token, idempotencyKey: rotateKey });
    expect(rotated.status).toBe(200);
    const replayedRotation = await api('POST', `/v1/webhooks/subscriptions/${id}/rotate-secret`, { token, idempotencyKey: rotateKey });
    expect(replayedRotation.headers.get('idempotency-replayed')).toBe('true');
    expect(replayedRotation.text).toBe(rotated.text);

    receiver.state.secrets = [rotated.body.secret, created.body.secret];
    const testKey = randomUUID();
    const received = await testEventVerified(receiver, id, testKey);
    expect(String(received.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(received.verifiedBy).toEqual({ library: [true, true], crypto: [true, true] });

    // What is stored: sealed secrets in the subscription, a sealed body in the records of the two answers that showed one.
    const item = await storedSubscription(id);
    expect((item.secrets as { secret: string }[]).map((secret) => secret.secret.startsWith('sealed:v1:'))).toEqual([true, true]);
    for (const key of [createKey, rotateKey]) {
      const record = (await dynamo().send(new GetCommand({ TableName: controlTableName(), Key: idempotencyKeys(clientId, key), ConsistentRead: true }))).Item!;
      expect(record.response.body).toBeUndefined();
      expect(String(record.response.sealedBody)).toMatch(/^sealed:v1:/);
    }
    // An answer without a secret is stored as it was (the test event's).
    const plainRecord = (await dynamo().send(new GetCommand({ TableName: controlTableName(), Key: idempotencyKeys(clientId, testKey), ConsistentRead: true }))).Item!;
    expect(plainRecord.response.sealedBody).toBeUndefined();
    expect(JSON.parse(String(plainRecord.response.body)).eventId).toBe(received.id);
    expectNowhereInPlainText(await everyTableAsText(), [created.body.secret, rotated.body.secret]);
  });

  it('of two rotations that read the same secrets, the second stores nothing and answers 409 concurrent_rotation; the first secret signs', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const { created, id } = await activeSubscription(receiver, randomUUID());
    // The second rotation as the function runs it, with the subscription as read before the first one stored its secret.
    const readBefore = (await subscriptionRepository.get(id))!;
    const first = await api('POST', `/v1/webhooks/subscriptions/${id}/rotate-secret`, { token, idempotencyKey: randomUUID() });
    expect(first.status).toBe(200);
    const second = await rotateSecret(readBefore).catch((error: unknown) => error as ProblemError);
    expect(second).toBeInstanceOf(ProblemError);
    expect((second as ProblemError).problem).toMatchObject({ status: 409, error: 'conflict', reason: 'concurrent_rotation' });
    receiver.state.secrets = [first.body.secret, created.body.secret];
    const received = await testEventVerified(receiver, id);
    expect(received.verifiedBy).toEqual({ library: [true, true], crypto: [true, true] });
    // A rotation that read the stored secrets goes through.
    expect((await api('POST', `/v1/webhooks/subscriptions/${id}/rotate-secret`, { token, idempotencyKey: randomUUID() })).status).toBe(200);
  });

  it('a subscription stored before encryption (its secret in plain text) still signs, and its next rotation seals both secrets', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const { id } = await activeSubscription(receiver, randomUUID());
    // As a deployed table holds it from before: the secret itself in the item.
    const plain = newSigningSecret();
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: subscriptionKeys(id),
        UpdateExpression: 'SET secrets = :secrets',
        ExpressionAttributeValues: { ':secrets': [{ secret: plain, createdAt: new Date().toISOString(), expiresAt: null }] },
      }),
    );
    receiver.state.secrets = [plain];
    expect((await testEventVerified(receiver, id)).verifiedBy).toEqual({ library: [true], crypto: [true] });

    const rotated = await api('POST', `/v1/webhooks/subscriptions/${id}/rotate-secret`, { token });
    expect(rotated.status).toBe(200);
    const item = await storedSubscription(id);
    expect((item.secrets as { secret: string }[]).map((secret) => secret.secret.startsWith('sealed:v1:'))).toEqual([true, true]);
    receiver.state.secrets = [rotated.body.secret, plain];
    expect((await testEventVerified(receiver, id)).verifiedBy).toEqual({ library: [true, true], crypto: [true, true] });
    expectNowhereInPlainText(JSON.stringify(item), [plain, rotated.body.secret]);
  });

  it("a sealed secret copied into another subscription's item does not open there", async () => {
    const [first, second] = [await startReceiver(), await startReceiver()];
    receivers.push(first, second);
    const a = await activeSubscription(first, randomUUID());
    const b = await activeSubscription(second, randomUUID());
    const [recordOfA, recordOfB] = [await subscriptionRepository.get(a.id), await subscriptionRepository.get(b.id)];
    expect(await signingSecrets(recordOfA!)).toEqual([a.created.body.secret]);
    await expect(signingSecrets({ ...recordOfB!, secrets: recordOfA!.secrets })).rejects.toThrow();
  });
});
