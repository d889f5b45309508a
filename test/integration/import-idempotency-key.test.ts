import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { companyRepository } from '../../shared/companies/repository';
import { importKind } from '../../shared/composition/import-kinds';
import { importIdempotencyKeys, importKeys } from '../../shared/imports/keys';
import type { Principal } from '../../shared/identity/principal';
import { systemClientScopes } from '../../shared/identity/scopes';
import { acceptKeyedImport, submitKeyedImport, type ImportIdempotency } from '../../shared/imports/pipeline';
import { importRepository } from '../../shared/imports/repository';
import { laneLockKeys } from '../../shared/jobs/keys';
import { jobRepository } from '../../shared/jobs/repository';
import { controlTableName, dynamo, sqs, tableName } from '../../shared/platform/aws';
import { idempotencyKeys } from '../../shared/platform/keys';
import { parseLosslessJson } from '../../shared/platform/lossless-json';
import { ProblemError } from '../../shared/platform/problem';
import { api, expectProblem } from '../support/api';
import { chartOf, newApiCompany, submitImport, waitForImport } from '../support/ledger';
import { observingCalls } from '../support/sdk-calls';
import { seededClient, testStack } from '../support/stack';

const clientIdOf = (name: string) => seededClient(name).clientId;

/** What DynamoDB TTL does to the request-control record once its 24 h have passed. */
const expireIdempotencyRecord = async (clientName: string, key: string) => {
  await dynamo().send(new DeleteCommand({ TableName: controlTableName(), Key: idempotencyKeys(clientIdOf(clientName), key) }));
  const { Item } = await dynamo().send(new GetCommand({ TableName: controlTableName(), Key: idempotencyKeys(clientIdOf(clientName), key), ConsistentRead: true }));
  expect(Item).toBeUndefined();
};

const keyItem = async (clientName: string, key: string) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: importIdempotencyKeys(clientIdOf(clientName), key), ConsistentRead: true }))).Item;

const importsOf = async (companyId: string, as = 'a-system') => (await api('GET', `/v1/companies/${companyId}/imports?page_size=100`, { as })).body.data as { id: string }[];

describe('imports: an Idempotency-Key keeps its import beyond the 24 h idempotency record (Import rules 6)', () => {
  it('the same request with the key after the record expired answers 202 with the same import and creates no second', async () => {
    const companyId = await newApiCompany();
    const key = randomUUID();
    const first = await submitImport(companyId, 'accounts', chartOf(2025, ['1920']), { idempotencyKey: key });
    expect(first.status).toBe(202);
    // Done, so the lane is free: a second import could be accepted now.
    const done = await waitForImport(companyId, first.body.id);
    await expireIdempotencyRecord('a-system', key);

    const again = await submitImport(companyId, 'accounts', chartOf(2025, ['1920']), { idempotencyKey: key });
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    // The import as it is now, in the shape of the first answer.
    expect(again.body).toEqual(done.body);
    expect(Object.keys(again.body).sort()).toEqual(Object.keys(first.body).sort());
    expect((await importsOf(companyId)).map((entry) => entry.id)).toEqual([first.body.id]);

    // That answer is the key's record for the next 24 h: replayed as such.
    const replayed = await submitImport(companyId, 'accounts', chartOf(2025, ['1920']), { idempotencyKey: key });
    expect(replayed.text).toBe(again.text);
    expect((await importsOf(companyId))).toHaveLength(1);
  });

  it('another request with the key after the record expired answers 422 idempotency_key_reused and accepts nothing', async () => {
    const companyId = await newApiCompany();
    const key = randomUUID();
    const first = await submitImport(companyId, 'accounts', chartOf(2025, ['1920']), { idempotencyKey: key });
    expect(first.status).toBe(202);
    await waitForImport(companyId, first.body.id);
    await expireIdempotencyRecord('a-system', key);

    expectProblem(await submitImport(companyId, 'accounts', chartOf(2025, ['1920', '3000']), { idempotencyKey: key }), 422, 'idempotency_key_reused');
    expectProblem(await submitImport(companyId, 'dimensions', { dimensions: [{ key: 'D1', value: 'Sales', type: 'department' }] }, { idempotencyKey: key }), 422, 'idempotency_key_reused');
    // Another company is another path: the key stays the first request's.
    const other = await newApiCompany();
    expectProblem(await submitImport(other, 'accounts', chartOf(2025, ['1920']), { idempotencyKey: key }), 422, 'idempotency_key_reused');
    expect(await importsOf(companyId)).toHaveLength(1);
    expect(await importsOf(other)).toHaveLength(0);
  });

  it("another client's same key is its own: it accepts its own import, before and after the records expired", async () => {
    // A company of A1: its own system client and A's (the parent) both reach it.
    const companyId = await newApiCompany('a1-system');
    const key = randomUUID();
    const body = chartOf(2025, ['1920']);
    const ofA1 = await submitImport(companyId, 'accounts', body, { as: 'a1-system', idempotencyKey: key });
    expect(ofA1.status).toBe(202);
    await waitForImport(companyId, ofA1.body.id, 'a1-system');
    const ofA = await submitImport(companyId, 'accounts', body, { as: 'a-system', idempotencyKey: key });
    expect(ofA.status, JSON.stringify(ofA.body)).toBe(202);
    expect(ofA.body.id).not.toBe(ofA1.body.id);
    expect(ofA.headers.get('idempotency-replayed')).toBeNull();
    await waitForImport(companyId, ofA.body.id);

    await expireIdempotencyRecord('a1-system', key);
    await expireIdempotencyRecord('a-system', key);
    expect((await submitImport(companyId, 'accounts', body, { as: 'a1-system', idempotencyKey: key })).body.id).toBe(ofA1.body.id);
    expect((await submitImport(companyId, 'accounts', body, { as: 'a-system', idempotencyKey: key })).body.id).toBe(ofA.body.id);
    expect(await importsOf(companyId)).toHaveLength(2);
    expect(await keyItem('a1-system', key)).toMatchObject({ importId: ofA1.body.id, companyId });
    expect(await keyItem('a-system', key)).toMatchObject({ importId: ofA.body.id, companyId });
  });

  it('a deletion by path (202 import) keeps its key too: the same DELETE after the record expired answers the same import', async () => {
    const companyId = await newApiCompany();
    const key = randomUUID();
    const path = `/v1/companies/${companyId}/dimensions/D-gone`;
    const first = await api('DELETE', path, { as: 'a-system', idempotencyKey: key });
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    await waitForImport(companyId, first.body.id);
    await expireIdempotencyRecord('a-system', key);

    const again = await api('DELETE', path, { as: 'a-system', idempotencyKey: key });
    expect(again.status).toBe(202);
    expect(again.body.id).toBe(first.body.id);
    expectProblem(await api('DELETE', `/v1/companies/${companyId}/dimensions/D-other`, { as: 'a-system', idempotencyKey: key }), 422, 'idempotency_key_reused');
    expect(await importsOf(companyId)).toHaveLength(1);
  });
});

describe('imports: the Idempotency-Key is written in the accept transaction', () => {
  const accountsBody = chartOf(2025, ['1920']);
  const accept = async (companyId: string, idempotency: ImportIdempotency) => {
    const kind = importKind('accounts');
    const company = (await companyRepository.get(companyId))!;
    return acceptKeyedImport(companyId, company, kind, kind.bodySchema.parse(parseLosslessJson(JSON.stringify(accountsBody))), accountsBody, { enqueue: false, idempotency });
  };

  const freeLane = (companyId: string) => dynamo().send(new DeleteCommand({ TableName: tableName(), Key: laneLockKeys(companyId, 'accounts') }));

  it('the transaction that creates the import puts the key item (no expiry), conditioned on the key being new', async () => {
    const companyId = await newApiCompany();
    const idempotency = { caller: `test-${randomUUID()}`, idempotencyKey: randomUUID(), fingerprint: 'f1' };
    const transactions: Record<string, unknown>[][] = [];
    const accepted = await observingCalls(
      dynamo(),
      (commandName, input) => {
        if (commandName === 'TransactWriteItemsCommand') transactions.push(input.TransactItems as Record<string, unknown>[]);
      },
      () => accept(companyId, idempotency),
    );
    expect(accepted.replayed).toBe(false);
    const creating = transactions.find((writes) => writes.some((write) => JSON.stringify(write).includes(`"PK":"${importKeys(accepted.record.id).PK}"`)));
    expect(creating).toBeDefined();
    const keyPut = creating!.find((write) => JSON.stringify(write).includes(`"PK":"${importIdempotencyKeys(idempotency.caller, idempotency.idempotencyKey).PK}"`));
    expect(keyPut).toMatchObject({ Put: { ConditionExpression: 'attribute_not_exists(PK)' } });

    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: importIdempotencyKeys(idempotency.caller, idempotency.idempotencyKey), ConsistentRead: true }));
    expect(Item).toMatchObject({ entity: 'importIdempotencyKey', importId: accepted.record.id, companyId, fingerprint: 'f1' });
    expect(Item).not.toHaveProperty('expiresAt');
  });

  it('a refused acceptance writes no key; a key taken meanwhile (past the up-front look) answers its import or 422, and accepts nothing', async () => {
    const companyId = await newApiCompany();
    const idempotency = { caller: `test-${randomUUID()}`, idempotencyKey: randomUUID(), fingerprint: 'f1' };
    // The lane is held: 409 job_in_flight, and no key kept.
    const holder = randomUUID();
    expect(await jobRepository.holdLane(companyId, 'accounts', holder, randomUUID(), Date.now())).toBe(true);
    const refused = await accept(companyId, idempotency).then(() => undefined, (error: unknown) => error);
    expect((refused as ProblemError).problem).toMatchObject({ status: 409, reason: 'job_in_flight' });
    expect((await dynamo().send(new GetCommand({ TableName: tableName(), Key: importIdempotencyKeys(idempotency.caller, idempotency.idempotencyKey), ConsistentRead: true }))).Item).toBeUndefined();
    await freeLane(companyId);

    const first = await accept(companyId, idempotency);
    // The same key again, straight to the transaction (as a request that raced the first one past its look).
    await freeLane(companyId);
    const raced = await accept(companyId, idempotency);
    expect(raced).toMatchObject({ replayed: true, record: { id: first.record.id } });
    const reused = await accept(companyId, { ...idempotency, fingerprint: 'f2' }).then(() => undefined, (error: unknown) => error);
    expect(reused).toBeInstanceOf(ProblemError);
    expect((reused as ProblemError).problem).toMatchObject({ status: 422, error: 'idempotency_key_reused' });
    expect(await importsOf(companyId)).toHaveLength(1);
  });

  it('an import that could not be queued (500) frees its key: the retry with the key accepts it anew', async () => {
    const companyId = await newApiCompany();
    const company = (await companyRepository.get(companyId))!;
    const organization = testStack().organizations[0]!;
    const caller: Principal = { clientId: `test-${randomUUID()}`, mode: 'SYSTEM', organizationId: organization.id, organizationPath: organization.id, userId: null, organizationIds: [], scopes: [...systemClientScopes], plan: 'premium' };
    const requestKey = { key: randomUUID(), fingerprint: 'f1' };
    let failedId: string | undefined;
    const refused = await observingCalls(
      sqs(),
      (commandName, input) => {
        if (commandName !== 'SendMessageCommand') return;
        failedId = (JSON.parse(input.MessageBody as string) as { importId?: string }).importId;
        throw new Error('queue unavailable');
      },
      () => submitKeyedImport(caller, company, importKind('accounts'), accountsBody, requestKey).then(() => undefined, (error: unknown) => error),
    );
    expect((refused as Error).message).toBe('queue unavailable');
    expect((await importRepository.get(failedId!))?.status).toBe('failed');
    expect(await importRepository.idempotencyKeyEntry(caller.clientId, requestKey.key)).toBeUndefined();

    const retried = await submitKeyedImport(caller, company, importKind('accounts'), accountsBody, requestKey);
    expect(retried.replayed).toBe(false);
    expect(retried.record.id).not.toBe(failedId);
    expect(await importRepository.idempotencyKeyEntry(caller.clientId, requestKey.key)).toMatchObject({ importId: retried.record.id });
    await waitForImport(companyId, retried.record.id);
  });
});
