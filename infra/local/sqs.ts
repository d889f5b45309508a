import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { buildApp } from 'fauxqs';
import { queues, type QueueDefinition } from '../../shared/queues';
import { localAwsCredentials, localAwsRegion } from './aws-env';

/**
 * SQS for the local stack: fauxqs (an in-process SQS emulator) bound to 127.0.0.1.
 *
 * Queue URLs: by default fauxqs names queues `http://sqs.<region>.localhost:<port>/000000000000/<name>`,
 * and `*.localhost` does not resolve here, so an SDK client that routes by queue URL (any SQSClient
 * without an explicit `endpoint`, including one configured via AWS_ENDPOINT_URL_SQS) fails with
 * ENOTFOUND. We therefore run fauxqs with URLs built from the request's Host header, so every
 * URL is `http://127.0.0.1:<port>/000000000000/<name>`: usable with an explicit `endpoint`
 * (recommended: `localSqsClient(endpoint)`) and routable on its own.
 */

export type QueueName = QueueDefinition['name'];

export interface LocalQueue {
  url: string;
  arn: string;
  dlqUrl: string;
  dlqArn: string;
}

export interface LocalSqs {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  stop(): Promise<void>;
}

interface FauxqsStores {
  sqsStore: { host: string; region?: string };
  snsStore: { region?: string };
  s3Store: object;
}

/** fauxqs's store classes are not exported; load them from its dist so we can set the URL host. */
async function createFauxqsStores(region: string): Promise<FauxqsStores> {
  const require = createRequire(import.meta.url);
  const packageDir = (require.resolve.paths('fauxqs') ?? [])
    .map((p) => join(p, 'fauxqs'))
    .find((p) => existsSync(join(p, 'package.json')));
  if (!packageDir) throw new Error('fauxqs is not installed (npm install)');
  const load = async (relative: string, exportName: string): Promise<new () => object> => {
    const file = join(packageDir, 'dist', relative);
    const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    const ctor = mod[exportName];
    if (typeof ctor !== 'function') throw new Error(`fauxqs layout changed: ${exportName} not found in ${file}`);
    return ctor as new () => object;
  };
  const [SqsStore, SnsStore, S3Store] = await Promise.all([
    load('sqs/sqsStore.js', 'SqsStore'),
    load('sns/snsStore.js', 'SnsStore'),
    load('s3/s3Store.js', 'S3Store'),
  ]);
  const sqsStore = new SqsStore() as FauxqsStores['sqsStore'];
  if (typeof sqsStore.host !== 'string') throw new Error('fauxqs layout changed: SqsStore.host missing');
  sqsStore.host = ''; // falsy host => queue URL host = the request's Host header (127.0.0.1:<port>)
  sqsStore.region = region;
  const snsStore = new SnsStore() as FauxqsStores['snsStore'];
  snsStore.region = region;
  return { sqsStore, snsStore, s3Store: new S3Store() };
}

/** Starts fauxqs in-process on 127.0.0.1:<port> (0: a free port, the endpoint names it; no request logging). */
export async function startSqs(options: { port: number }): Promise<LocalSqs> {
  const region = localAwsRegion();
  const stores = await createFauxqsStores(region);
  const app = buildApp({
    logger: false,
    defaultRegion: region,
    stores: stores as unknown as NonNullable<Parameters<typeof buildApp>[0]>['stores'],
  });
  await app.listen({ port: options.port, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address !== 'object') throw new Error('fauxqs: could not read the port it listens on');
  let stopping: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    // Closes open connections too and ends pending long polls.
    stop: () => (stopping ??= app.close().then(() => undefined)),
  };
}

/** An SQSClient for the local endpoint (explicit endpoint, local region and credentials). */
export function localSqsClient(endpoint: string): SQSClient {
  return new SQSClient({ endpoint, region: localAwsRegion(), credentials: localAwsCredentials });
}

export interface EnsureQueueOptions {
  /** Full queue name; its DLQ is `<name>-dlq`. */
  name: string;
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
}

/** Creates (idempotently) a queue and its DLQ with a RedrivePolicy; returns URLs and ARNs. */
export async function ensureQueue(client: SQSClient, options: EnsureQueueOptions): Promise<LocalQueue> {
  const arnOf = async (url: string): Promise<string> => {
    const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
    const arn = Attributes?.QueueArn;
    if (!arn) throw new Error(`No QueueArn for ${url}`);
    return arn;
  };
  const created = await client.send(new CreateQueueCommand({ QueueName: `${options.name}-dlq` }));
  const dlqUrl = created.QueueUrl;
  if (!dlqUrl) throw new Error(`CreateQueue ${options.name}-dlq returned no QueueUrl`);
  const dlqArn = await arnOf(dlqUrl);
  const { QueueUrl: url } = await client.send(
    new CreateQueueCommand({
      QueueName: options.name,
      Attributes: {
        VisibilityTimeout: String(options.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: options.maxReceiveCount }),
      },
    }),
  );
  if (!url) throw new Error(`CreateQueue ${options.name} returned no QueueUrl`);
  return { url, arn: await arnOf(url), dlqUrl, dlqArn };
}

/**
 * Creates every queue of `shared/queues.ts` as `<prefix>-<name>` with its DLQ `<prefix>-<name>-dlq`,
 * VisibilityTimeout and RedrivePolicy (maxReceiveCount) from the table. Idempotent.
 */
export async function ensureQueues(options: { endpoint: string; prefix: string }): Promise<Record<QueueName, LocalQueue>> {
  const client = localSqsClient(options.endpoint);
  try {
    const entries = await Promise.all(
      queues.map(async (def) => {
        const queue = await ensureQueue(client, {
          name: `${options.prefix}-${def.name}`,
          visibilityTimeoutSeconds: def.visibilityTimeoutSeconds,
          maxReceiveCount: def.maxReceiveCount,
        });
        return [def.name, queue] as const;
      }),
    );
    return Object.fromEntries(entries) as Record<QueueName, LocalQueue>;
  } finally {
    client.destroy();
  }
}
