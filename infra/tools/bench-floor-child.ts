/**
 * The floors measured from a quiet process: bundled and run by infra/tools/bench-floors.ts in a
 * fresh Node process that loads only the DynamoDB document client (configured as the service's,
 * shared/platform/aws.ts), so no gateway, handler or poller shares its event loop. Reads a job
 * file (argv[2]): GetItem of one item N times after warm-ups, then BatchWriteItem runs of the
 * given items (25 a call, 8 in flight) after one untimed run, each under a fresh company id.
 * Prints one JSON line.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, NumberValue } from '@aws-sdk/lib-dynamodb';

interface Job {
  endpoint: string;
  region: string;
  table: string;
  getKey: Record<string, string>;
  getSamples: number;
  warmups: number;
  /** Items as JSON, numbers as {"$n": "text"}; `company` is replaced by a fresh id per run. */
  items: string;
  company: string;
  runs: number;
}

const job = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Job;
const client = new DynamoDBClient({ region: job.region, endpoint: job.endpoint });
client.middlewareStack.remove('loggerMiddleware');
const floor = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true }, unmarshallOptions: { wrapNumbers: true } });
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const getItem = async () => {
  const started = performance.now();
  const { Item } = await floor.send(new GetCommand({ TableName: job.table, Key: job.getKey }));
  const ms = performance.now() - started;
  if (!Item) throw new Error('quiet floor: GetItem found nothing');
  return ms;
};

const writeRun = async () => {
  const company = crypto.randomUUID();
  const items = JSON.parse(job.items.replaceAll(job.company, company), (_key, value: unknown) =>
    value && typeof value === 'object' && '$n' in value ? NumberValue.from(String((value as { $n: string }).$n)) : value,
  ) as Record<string, unknown>[];
  const batches: (typeof items)[] = [];
  for (let start = 0; start < items.length; start += 25) batches.push(items.slice(start, start + 25));
  let next = 0;
  const writer = async () => {
    while (next < batches.length) {
      let pending = batches[next++]!.map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt >= 8) throw new Error('quiet floor: items unprocessed after 8 attempts');
        if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
        const result = await floor.send(new BatchWriteCommand({ RequestItems: { [job.table]: pending } }));
        pending = (result.UnprocessedItems?.[job.table] ?? []) as typeof pending;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: 8 }, writer));
  const ms = performance.now() - started;
  return { items: items.length, ms: Math.round(ms), itemsPerSecond: Math.round(items.length / (ms / 1000)) };
};

// Warm-ups as the in-process floors had them (JIT, connections): GetItems, and one write run when writes are measured.
for (let i = 0; i < job.warmups && job.getSamples > 0; i++) await getItem();
const getItemMs: number[] = [];
for (let i = 0; i < job.getSamples; i++) getItemMs.push(await getItem());
if (job.runs > 0) await writeRun();
const writes: Awaited<ReturnType<typeof writeRun>>[] = [];
for (let i = 0; i < job.runs; i++) writes.push(await writeRun());
console.log(JSON.stringify({ getItemMs, writes }));
