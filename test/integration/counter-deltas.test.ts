import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { applyDeltasOnce, type CounterDelta } from '../../shared/ledger/deltas';
import { balanceKeys } from '../../shared/ledger/keys';
import { dynamo, tableName } from '../../shared/platform/aws';
import { Decimal } from '../../shared/platform/money';
import { testStack } from '../support/stack';

/**
 * The counters of an import on DynamoDB Local: conditional additions sent 100 to a transaction,
 * each applied exactly once per (import, chunk) however often a chunk is delivered.
 */
testStack();

const cell = (companyId: string, account: number) => balanceKeys(companyId, 2025, String(account), 1);

const deltasFor = (companyId: string, accounts: number[], amount: string): CounterDelta[] =>
  accounts.map((account) => ({ key: cell(companyId, account), add: { amount: new Decimal(amount), lineCount: 1 }, set: { entity: 'trialBalanceCell', accountCode: String(account), period: 1 } }));

const read = async (companyId: string, account: number) => {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: cell(companyId, account), ConsistentRead: true }));
  return Item && { amount: new Decimal(Item.amount.toString()).toString(), lineCount: Number(Item.lineCount.toString()), markerChunk: Number(Item.markerChunk.toString()) };
};

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe('counter deltas', () => {
  it('applies 250 counters (three transactions) once, and a redelivered chunk changes nothing', async () => {
    const companyId = randomUUID();
    const accounts = range(1000, 250);
    const marker = { importId: randomUUID(), chunk: 0 };
    await applyDeltasOnce(deltasFor(companyId, accounts, '10.25'), marker);
    await applyDeltasOnce(deltasFor(companyId, accounts, '10.25'), marker);
    for (const account of [1000, 1099, 1100, 1249]) expect(await read(companyId, account)).toEqual({ amount: '10.25', lineCount: 1, markerChunk: 0 });

    await applyDeltasOnce(deltasFor(companyId, accounts, '-0.25'), { ...marker, chunk: 1 });
    for (const account of [1000, 1249]) expect(await read(companyId, account)).toEqual({ amount: '10', lineCount: 2, markerChunk: 1 });
  });

  it('applies only the counters an earlier delivery did not reach, when a transaction holds both', async () => {
    const companyId = randomUUID();
    const marker = { importId: randomUUID(), chunk: 3 };
    // An earlier delivery applied 1000 and 1001 only.
    await applyDeltasOnce(deltasFor(companyId, [1000, 1001], '5'), marker);
    await applyDeltasOnce(deltasFor(companyId, [1000, 1001, 1002, 1003], '5'), marker);
    expect(await Promise.all([1000, 1001, 1002, 1003].map((account) => read(companyId, account)))).toEqual(
      Array.from({ length: 4 }, () => ({ amount: '5', lineCount: 1, markerChunk: 3 })),
    );
  });

  it('skips a counter a later chunk of the same import already moved on, and adds another import on top', async () => {
    const companyId = randomUUID();
    const importId = randomUUID();
    await applyDeltasOnce(deltasFor(companyId, [1000], '1'), { importId, chunk: 0 });
    await applyDeltasOnce(deltasFor(companyId, [1000], '2'), { importId, chunk: 1 });
    await applyDeltasOnce(deltasFor(companyId, [1000], '4'), { importId, chunk: 0 }); // a stale delivery of chunk 0
    expect(await read(companyId, 1000)).toEqual({ amount: '3', lineCount: 2, markerChunk: 1 });
    await applyDeltasOnce(deltasFor(companyId, [1000], '4'), { importId: randomUUID(), chunk: 0 });
    expect(await read(companyId, 1000)).toEqual({ amount: '7', lineCount: 3, markerChunk: 0 });
  });

  it('throws a transaction the database refuses, and nothing of it is written', async () => {
    const companyId = randomUUID();
    // A counter whose amount is text cannot be added to: DynamoDB refuses the whole transaction.
    await dynamo().send(new UpdateCommand({ TableName: tableName(), Key: cell(companyId, 1001), UpdateExpression: 'SET amount = :text', ExpressionAttributeValues: { ':text': 'not a number' } }));
    await expect(applyDeltasOnce(deltasFor(companyId, [1000, 1001], '1'), { importId: randomUUID(), chunk: 0 })).rejects.toThrow();
    expect(await read(companyId, 1000)).toBeUndefined(); // nothing of the transaction was written
  });
});
