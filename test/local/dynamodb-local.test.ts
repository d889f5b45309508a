import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { controlTableDefinition, outboxTableDefinition, tableDefinition } from '../../shared/db/table-definition';
import { localAwsCredentials, localAwsRegion } from '../../infra/local/aws-env';
import { ensureTable, startDynamoDbLocal, type DynamoDbLocal } from '../../infra/local/dynamodb-local';
import { freePort } from '../../infra/local/ports';
import { typescriptNodeArgs } from '../../infra/tools/typescript-node';

const TABLE = 'local-test-table';
const { partitionKey: PK, sortKey: SK, timeToLiveAttribute: TTL } = tableDefinition;
const [gsi1] = tableDefinition.globalSecondaryIndexes;

/** True while the process exists and is not a zombie. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false; // gone between the two checks (or no /proc): not alive
  }
}

/** Polls `condition` every 100 ms until it holds; fails after `timeoutMs`. */
async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The temporary folder a java process was started with (-Djava.io.tmpdir), read while it runs. */
function javaTempDirOf(pid: number): string {
  const option = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').find((arg) => arg.startsWith('-Djava.io.tmpdir='));
  if (!option) throw new Error(`java ${pid} has no -Djava.io.tmpdir`);
  return option.slice('-Djava.io.tmpdir='.length);
}

function clients(endpoint: string) {
  const raw = new DynamoDBClient({ endpoint, region: localAwsRegion(), credentials: localAwsCredentials });
  return { raw, doc: DynamoDBDocumentClient.from(raw) };
}

// One process's life in order: tables are made, used, the process stopped, and a second process on
// the same directory finds what the first wrote. (In memory, as the test run's stack and the
// parent processes below start it, it is the same server without the directory.)
describe('DynamoDB Local persisted to a directory', { timeout: 60_000, shuffle: false }, () => {
  let dir: string;
  let persistDir: string;
  let ddb: DynamoDbLocal;
  let raw: DynamoDBClient;
  let doc: DynamoDBDocumentClient;
  const item = { [PK]: 'ORG#1', [SK]: 'COMPANY#1', name: 'Acme', [gsi1.partitionKey]: 'NAME', [gsi1.sortKey]: 'Acme' };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ddb-persist-'));
    persistDir = join(dir, 'db'); // does not exist yet: startDynamoDbLocal creates it
    const t0 = performance.now();
    ddb = await startDynamoDbLocal({ port: await freePort(), persistDir });
    console.log(`[timing] DynamoDB Local start-to-ready (persisted, new db): ${Math.round(performance.now() - t0)} ms`);
    ({ raw, doc } = clients(ddb.endpoint));
  }, 60_000);

  afterAll(async () => {
    raw?.destroy();
    await ddb?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('listens on 127.0.0.1 and reports its pid', () => {
    expect(ddb.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(isAlive(ddb.pid)).toBe(true);
  });

  it('ensureTable creates the table from tableDefinition and is idempotent', async () => {
    await ensureTable(ddb.endpoint, TABLE);
    await ensureTable(ddb.endpoint, TABLE);
    const { Table } = await raw.send(new DescribeTableCommand({ TableName: TABLE }));
    expect(Table?.TableStatus).toBe('ACTIVE');
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(Table?.KeySchema).toEqual([
      { AttributeName: PK, KeyType: 'HASH' },
      { AttributeName: SK, KeyType: 'RANGE' },
    ]);
    const gsis = Table?.GlobalSecondaryIndexes ?? [];
    expect(gsis.map((g) => g.IndexName).sort()).toEqual(tableDefinition.globalSecondaryIndexes.map((g) => g.indexName).sort());
    for (const def of tableDefinition.globalSecondaryIndexes) {
      const gsi = gsis.find((g) => g.IndexName === def.indexName);
      expect(gsi?.KeySchema).toEqual([
        { AttributeName: def.partitionKey, KeyType: 'HASH' },
        { AttributeName: def.sortKey, KeyType: 'RANGE' },
      ]);
      expect(gsi?.Projection?.ProjectionType).toBe('ALL');
    }
    const ttl = await raw.send(new DescribeTimeToLiveCommand({ TableName: TABLE }));
    expect(ttl.TimeToLiveDescription).toMatchObject({ TimeToLiveStatus: 'ENABLED', AttributeName: TTL });
  });

  it('ensureTable creates the control table from controlTableDefinition: keys and TTL, no indexes', async () => {
    await ensureTable(ddb.endpoint, 'control-test-table', controlTableDefinition);
    await ensureTable(ddb.endpoint, 'control-test-table', controlTableDefinition);
    const { Table } = await raw.send(new DescribeTableCommand({ TableName: 'control-test-table' }));
    expect(Table?.TableStatus).toBe('ACTIVE');
    expect(Table?.KeySchema).toEqual([
      { AttributeName: controlTableDefinition.partitionKey, KeyType: 'HASH' },
      { AttributeName: controlTableDefinition.sortKey, KeyType: 'RANGE' },
    ]);
    expect(Table?.GlobalSecondaryIndexes ?? []).toEqual([]);
    const ttl = await raw.send(new DescribeTimeToLiveCommand({ TableName: 'control-test-table' }));
    expect(ttl.TimeToLiveDescription).toMatchObject({ TimeToLiveStatus: 'ENABLED', AttributeName: controlTableDefinition.timeToLiveAttribute });
  });

  it('ensureTable creates the outbox table from outboxTableDefinition: keys, GSIs and the stream, no TTL; the single table has no stream', async () => {
    await ensureTable(ddb.endpoint, 'outbox-test-table', outboxTableDefinition);
    await ensureTable(ddb.endpoint, 'outbox-test-table', outboxTableDefinition);
    const { Table } = await raw.send(new DescribeTableCommand({ TableName: 'outbox-test-table' }));
    expect(Table?.TableStatus).toBe('ACTIVE');
    expect((Table?.GlobalSecondaryIndexes ?? []).map((g) => g.IndexName).sort()).toEqual(outboxTableDefinition.globalSecondaryIndexes.map((g) => g.indexName).sort());
    expect(Table?.StreamSpecification).toMatchObject({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
    const ttl = await raw.send(new DescribeTimeToLiveCommand({ TableName: 'outbox-test-table' }));
    expect(ttl.TimeToLiveDescription?.TimeToLiveStatus).not.toBe('ENABLED');
    await ensureTable(ddb.endpoint, TABLE);
    const single = await raw.send(new DescribeTableCommand({ TableName: TABLE }));
    expect(single.Table?.StreamSpecification?.StreamEnabled ?? false).toBe(false);
  });

  it('ensureTable disables the stream of a table persisted with one its definition no longer has', async () => {
    await ensureTable(ddb.endpoint, 'streamed-before', outboxTableDefinition);
    await ensureTable(ddb.endpoint, 'streamed-before', tableDefinition);
    const { Table } = await raw.send(new DescribeTableCommand({ TableName: 'streamed-before' }));
    expect(Table?.StreamSpecification?.StreamEnabled ?? false).toBe(false);
  });

  it('puts, gets and queries an item through a GSI', async () => {
    await doc.send(new PutCommand({ TableName: TABLE, Item: item }));
    const got = await doc.send(new GetCommand({ TableName: TABLE, Key: { [PK]: 'ORG#1', [SK]: 'COMPANY#1' } }));
    expect(got.Item).toEqual(item);
    const queried = await doc.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: gsi1.indexName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': gsi1.partitionKey },
        ExpressionAttributeValues: { ':pk': 'NAME' },
      }),
    );
    expect(queried.Items).toEqual([item]);
  });

  it('runs TransactWriteItems, all or nothing', async () => {
    await doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: TABLE, Item: { [PK]: 'TX', [SK]: 'A', v: 1 }, ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': PK } } },
          { Put: { TableName: TABLE, Item: { [PK]: 'TX', [SK]: 'B', v: 2 } } },
        ],
      }),
    );
    const a = await doc.send(new GetCommand({ TableName: TABLE, Key: { [PK]: 'TX', [SK]: 'A' } }));
    const b = await doc.send(new GetCommand({ TableName: TABLE, Key: { [PK]: 'TX', [SK]: 'B' } }));
    expect(a.Item?.v).toBe(1);
    expect(b.Item?.v).toBe(2);

    // Second transaction: the condition on A fails, so the put of C must not happen either.
    const failed = doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: TABLE, Item: { [PK]: 'TX', [SK]: 'A', v: 9 }, ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': PK } } },
          { Put: { TableName: TABLE, Item: { [PK]: 'TX', [SK]: 'C', v: 3 } } },
        ],
      }),
    );
    await expect(failed).rejects.toBeInstanceOf(TransactionCanceledException);
    const c = await doc.send(new GetCommand({ TableName: TABLE, Key: { [PK]: 'TX', [SK]: 'C' } }));
    expect(c.Item).toBeUndefined();
  });

  it('ensureTable adds GSIs missing from an existing (older) table', async () => {
    const first = tableDefinition.globalSecondaryIndexes[0];
    await raw.send(
      new CreateTableCommand({
        TableName: 'older-table',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [PK, SK, first.partitionKey, first.sortKey].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: PK, KeyType: 'HASH' },
          { AttributeName: SK, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: first.indexName,
            KeySchema: [
              { AttributeName: first.partitionKey, KeyType: 'HASH' },
              { AttributeName: first.sortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      }),
    );
    await ensureTable(ddb.endpoint, 'older-table');
    const { Table } = await raw.send(new DescribeTableCommand({ TableName: 'older-table' }));
    expect((Table?.GlobalSecondaryIndexes ?? []).map((g) => g.IndexName).sort()).toEqual(
      tableDefinition.globalSecondaryIndexes.map((g) => g.indexName).sort(),
    );
  });

  it('stop() ends the java process and removes its temporary folder (the SQLite library java unpacked)', async () => {
    const pid = ddb.pid;
    const javaTempDir = javaTempDirOf(pid);
    expect(javaTempDir.startsWith(join(tmpdir(), 'dynamodb-local-'))).toBe(true);
    expect(readdirSync(javaTempDir).some((file) => file.endsWith('libsqlite4java.so'))).toBe(true);
    const t0 = performance.now();
    await ddb.stop();
    console.log(`[timing] DynamoDB Local stop: ${Math.round(performance.now() - t0)} ms`);
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(javaTempDir)).toBe(false);
    await ddb.stop(); // idempotent
  });

  it('keeps items across a restart with the same persistDir', async () => {
    raw.destroy();
    const t0 = performance.now();
    ddb = await startDynamoDbLocal({ port: await freePort(), persistDir });
    console.log(`[timing] DynamoDB Local start-to-ready (persisted, existing db): ${Math.round(performance.now() - t0)} ms`);
    ({ raw, doc } = clients(ddb.endpoint));
    await ensureTable(ddb.endpoint, TABLE); // idempotent on a persisted table
    const got = await doc.send(new GetCommand({ TableName: TABLE, Key: { [PK]: 'ORG#1', [SK]: 'COMPANY#1' } }));
    expect(got.Item).toEqual(item);
    const pid = ddb.pid;
    await ddb.stop();
    expect(isAlive(pid)).toBe(false);
  });
});

describe('DynamoDB Local start failure', { timeout: 60_000 }, () => {
  let blocker: Server;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    blocker = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => blocker.listen(port, '0.0.0.0', resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
  });

  it('rejects with the java output when the port is taken', async () => {
    await expect(startDynamoDbLocal({ port })).rejects.toThrow(/exited before it was ready[\s\S]*java output/);
  });

  it('rejects clearly when java cannot be run', async () => {
    await expect(startDynamoDbLocal({ port: await freePort(), javaPath: '/nonexistent/java' })).rejects.toThrow(/could not be started: .*ENOENT/);
  });
});

// The two parents (each with its own java) at once.
describe.concurrent('DynamoDB Local when the parent process dies', { timeout: 90_000 }, () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ddb-parent-'));
    const moduleUrl = (file: string) => pathToFileURL(resolve(import.meta.dirname, '../../infra/local', file)).href;
    writeFileSync(
      join(dir, 'parent.mts'),
      `import { startDynamoDbLocal, ensureTable } from ${JSON.stringify(moduleUrl('dynamodb-local.ts'))};
import { freePort } from ${JSON.stringify(moduleUrl('ports.ts'))};
const ddb = await startDynamoDbLocal({ port: await freePort() });
await ensureTable(ddb.endpoint, 'parent-test-table'); // java unpacks its SQLite library into its temporary folder
// Crashes when told (SIGUSR2), after the test has looked at java's temporary folder.
if (process.argv[2] === 'crash') process.once('SIGUSR2', () => { throw new Error('simulated crash'); });
setInterval(() => {}, 1000);
console.log('JAVA_PID ' + ddb.pid);
`,
    );
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the parent script, lets it end as `mode` says, and returns the java pid it had started and java's temporary folder. */
  async function runParent(mode: 'crash' | 'sigterm'): Promise<{ javaPid: number; javaTempDir: string }> {
    const parent = spawn(process.execPath, [...typescriptNodeArgs, join(dir, 'parent.mts'), mode], {
      cwd: resolve(import.meta.dirname, '../..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    parent.stdout.on('data', (d: Buffer) => (out += d.toString()));
    parent.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => parent.once('exit', (code, signal) => r({ code, signal })));
    let javaPid: number | undefined;
    await waitFor(() => {
      javaPid ??= Number(/JAVA_PID (\d+)/.exec(out)?.[1]) || undefined;
      return javaPid !== undefined || parent.exitCode !== null;
    }, 60_000, 'the parent to start DynamoDB Local');
    if (javaPid === undefined) throw new Error(`parent failed:\n${out}`);
    const javaTempDir = javaTempDirOf(javaPid);
    expect(readdirSync(javaTempDir).some((file) => file.endsWith('libsqlite4java.so'))).toBe(true);
    parent.kill(mode === 'sigterm' ? 'SIGTERM' : 'SIGUSR2');
    const end = await exited;
    if (mode === 'sigterm') expect(end.signal).toBe('SIGTERM');
    else expect({ code: end.code, crashed: out.includes('simulated crash') }).toEqual({ code: 1, crashed: true });
    return { javaPid, javaTempDir };
  }

  it('kills java when the parent dies of an uncaught exception, and removes its temporary folder', async () => {
    const { javaPid, javaTempDir } = await runParent('crash');
    await waitFor(() => !isAlive(javaPid), 10_000, `java ${javaPid} to end`);
    expect(existsSync(javaTempDir)).toBe(false);
  });

  it('kills java when the parent gets SIGTERM without a handler, and removes its temporary folder', async () => {
    const { javaPid, javaTempDir } = await runParent('sigterm');
    await waitFor(() => !isAlive(javaPid), 10_000, `java ${javaPid} to end`);
    expect(existsSync(javaTempDir)).toBe(false);
  });
});
