import { randomUUID } from 'node:crypto';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, type _Record } from '@aws-sdk/client-dynamodb-streams';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { localAwsCredentials, localAwsRegion } from './aws-env';
import { idleBackoff } from './idle-backoff';
import { lambdaContext } from './lambda-context';

/**
 * A local stand-in for Lambda's DynamoDB Streams event source mapping: polls every shard of the
 * table's stream (DynamoDB Local implements DynamoDB Streams), applies the mapping's filter, and
 * hands batches to the handler as a real DynamoDBStreamEvent, in order per shard. A failure
 * (a thrown error, or batchItemFailures naming a record) retries from that record after a second,
 * as Lambda retries the rest of the batch, so nothing after a failed record is skipped.
 */
export type StreamEventHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>;

export interface StreamPollerOptions {
  endpoint: string;
  tableName: string;
  handler: StreamEventHandler;
  /** The event source mapping's filter: records it rejects never reach the handler (and are not retried). */
  filter: (record: DynamoDBRecord) => boolean;
  functionName: string;
  batchSize?: number;
  /** Wait after a round of polls that found nothing new. Default 100 ms; it doubles per idle round up to idleCapMs. */
  idleMs?: number;
  /** The longest idle wait (backoff cap). Default idleMs (a constant wait). */
  idleCapMs?: number;
  onError?: (error: unknown) => void;
}

export interface StreamPoller {
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const startStreamPoller = async (options: StreamPollerOptions): Promise<StreamPoller> => {
  const { endpoint, tableName, handler, filter, functionName, batchSize = 100, idleMs = 100, idleCapMs = idleMs, onError = (error: unknown) => console.error(`[stream-poller ${functionName}]`, error) } = options;
  const clientConfig = { endpoint, region: localAwsRegion(), credentials: localAwsCredentials };
  const dynamodb = new DynamoDBClient(clientConfig);
  const streams = new DynamoDBStreamsClient(clientConfig);
  const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
  dynamodb.destroy();
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${tableName} has no stream`);

  let stopped = false;
  let wake: (() => void) | undefined;
  /** An idle wait that stop() cuts short. */
  const idleWait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  /** Per shard: the iterator to read next, or null once the shard is closed and read to its end. */
  const positions = new Map<string, string | null>();

  const toLambdaRecord = (record: _Record): DynamoDBRecord =>
    ({
      eventID: record.eventID ?? randomUUID(),
      eventName: record.eventName,
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: localAwsRegion(),
      eventSourceARN: streamArn,
      dynamodb: { ...record.dynamodb, ApproximateCreationDateTime: record.dynamodb?.ApproximateCreationDateTime ? record.dynamodb.ApproximateCreationDateTime.getTime() / 1000 : Date.now() / 1000 },
    }) as DynamoDBRecord;

  const pollShard = async (shardId: string, iterator: string): Promise<boolean> => {
    const result = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: batchSize }));
    const records = (result.Records ?? []).map(toLambdaRecord);
    const selected = records.filter(filter);
    if (selected.length > 0) {
      let failedAt: string | undefined;
      try {
        const response = await handler({ Records: selected }, lambdaContext(functionName, 60));
        failedAt = response?.batchItemFailures?.[0]?.itemIdentifier;
      } catch (error) {
        onError(error);
        failedAt = selected[0]!.dynamodb!.SequenceNumber;
      }
      if (failedAt) {
        // Retry from the failed record (and everything after it), as Lambda does.
        const retry = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'AT_SEQUENCE_NUMBER', SequenceNumber: failedAt }));
        positions.set(shardId, retry.ShardIterator ?? null);
        await sleep(1000);
        return true;
      }
    }
    positions.set(shardId, result.NextShardIterator ?? null);
    return records.length > 0;
  };

  const discoverShards = async () => {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      if (!shard.ShardId || positions.has(shard.ShardId)) continue;
      const { ShardIterator } = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }));
      positions.set(shard.ShardId, ShardIterator ?? null);
    }
  };

  const idle = idleBackoff({ minMs: idleMs, capMs: Math.max(idleMs, idleCapMs) });
  const loop = async () => {
    let lastDiscovery = 0;
    let wait = 0;
    while (!stopped) {
      try {
        // New shards are looked for every second, or after each wait when idle waits are longer.
        if (Date.now() - lastDiscovery > Math.max(1000, wait)) {
          await discoverShards();
          lastDiscovery = Date.now();
        }
        let busy = false;
        for (const [shardId, iterator] of positions) {
          if (stopped) break;
          if (iterator) busy = (await pollShard(shardId, iterator)) || busy;
        }
        if (busy) {
          idle.reset();
          wait = 0;
        } else {
          wait = idle.next();
          await idleWait(wait);
        }
      } catch (error) {
        if (stopped) break;
        onError(error);
        await sleep(1000);
      }
    }
  };
  const running = loop();
  return {
    stop: async () => {
      stopped = true;
      wake?.();
      await running;
      streams.destroy();
    },
  };
};
