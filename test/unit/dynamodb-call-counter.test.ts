import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { callsByOperation, largestCalls, readCallCounts, totalCalls } from '../../infra/tools/suite-dynamodb-calls';
// Plain JavaScript, loaded with --require into every process of a counted run.
import { describeCall } from '../../infra/tools/dynamodb-call-counter.cjs';

describe('the DynamoDB call counter of bench:suite', () => {
  it('names a call by operation, table (or index) and the prefix of its partition key', () => {
    expect(describeCall('GetItem', JSON.stringify({ TableName: 'ledger-local', Key: { PK: { S: 'COMPANY#42' }, SK: { S: 'COMPANY' } } }))).toBe('GetItem ledger-local COMPANY');
    expect(describeCall('PutItem', JSON.stringify({ TableName: 'ledger-local-control', Item: { PK: { S: 'IDEMPOTENCY#c#k' }, SK: { S: 'x' } } }))).toBe('PutItem ledger-local-control IDEMPOTENCY');
    expect(
      describeCall('Query', JSON.stringify({ TableName: 'ledger-local', IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :sk)', ExpressionAttributeValues: { ':pk': { S: 'GLPERIOD#c#2025#1' }, ':sk': { S: 'LINE#' } } })),
    ).toBe('Query ledger-local GSI1 GLPERIOD');
    const transaction = { TransactItems: [{ Put: { Item: { PK: { S: 'EVENT#1' } } } }, { Update: { Key: { PK: { S: 'COMPANY#1' } } } }, { ConditionCheck: { Key: { PK: { S: 'EVENT#2' } } } }] };
    expect(describeCall('TransactWriteItems', JSON.stringify(transaction))).toBe('TransactWriteItems 3 items COMPANY,EVENT');
    const batchWrite = { RequestItems: { 'ledger-local': [{ PutRequest: { Item: { PK: { S: 'GLLINE#1' } } } }, { DeleteRequest: { Key: { PK: { S: 'GLLINE#2' } } } }] } };
    expect(describeCall('BatchWriteItem', JSON.stringify(batchWrite))).toBe('BatchWriteItem ledger-local 2 items GLLINE');
    expect(describeCall('BatchGetItem', JSON.stringify({ RequestItems: { 'ledger-local': { Keys: [{ PK: { S: 'COMPANY#1' } }] } } }))).toBe('BatchGetItem ledger-local 1 items COMPANY');
    expect(describeCall('DescribeTable', JSON.stringify({ TableName: 'ledger-local' }))).toBe('DescribeTable ledger-local');
    expect(describeCall('GetItem', 'not json')).toBe('GetItem (unreadable body)');
  });

  it('counts the calls a real SDK client makes in a process it is loaded into, and adds up the processes', async () => {
    // A DynamoDB endpoint that answers every call with an empty JSON document.
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}'));
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dir = mkdtempSync(join(tmpdir(), 'dynamodb-calls-'));
    try {
      const script = join(dir, 'calls.mjs');
      writeFileSync(
        script,
        `import { DynamoDBClient, GetItemCommand, UpdateItemCommand } from '${resolve('node_modules/@aws-sdk/client-dynamodb/dist-cjs/index.js')}';
const client = new DynamoDBClient({ endpoint: '${endpoint}', region: 'eu-north-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
const key = (pk) => ({ PK: { S: pk }, SK: { S: 'x' } });
for (const id of [1, 2, 3]) await client.send(new GetItemCommand({ TableName: 'ledger-local', Key: key('COMPANY#' + id) }));
await client.send(new UpdateItemCommand({ TableName: 'ledger-local-control', Key: key('RATE#client'), UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': { N: '1' } } }));
`,
      );
      const env = { PATH: process.env.PATH, DYNAMODB_CALLS_DIR: join(dir, 'calls'), NODE_OPTIONS: `--require ${resolve('infra/tools/dynamodb-call-counter.cjs')}` };
      for (let run = 0; run < 2; run++) await promisify(execFile)(process.execPath, [script], { env });
      const counts = readCallCounts(join(dir, 'calls'));
      expect(Object.fromEntries(counts)).toEqual({ 'GetItem ledger-local COMPANY': 6, 'UpdateItem ledger-local-control RATE': 2 });
      expect(totalCalls(counts)).toBe(8);
      expect(callsByOperation(counts)).toEqual([
        { name: 'GetItem', calls: 6, share: 0.75 },
        { name: 'UpdateItem', calls: 2, share: 0.25 },
      ]);
      expect(largestCalls(counts, 1)).toEqual([{ name: 'GetItem ledger-local COMPANY', calls: 6, share: 0.75 }]);
      // A folder no process wrote to: no calls.
      expect(readCallCounts(join(dir, 'none')).size).toBe(0);
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
