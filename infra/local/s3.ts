import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { localAwsCredentials, localAwsRegion } from './aws-env';

/**
 * S3 for the local stack: s3rver (the maintained fork @20minutes/s3rver 4.x), in-process, on
 * 127.0.0.1. It verifies SigV4 signatures, header or presigned, including every signed header
 * (so a presigned PUT refuses another Content-Length or Content-Type) and X-Amz-Expires; it does
 * not verify x-amz-checksum-sha256 against the bytes (real S3 does: BadDigest).
 *
 * Clients must use `forcePathStyle: true` (http://127.0.0.1:<port>/<bucket>/<key>; bucket
 * sub-domains of 127.0.0.1 do not exist) and the credentials S3RVER / S3RVER (the only key s3rver
 * knows; see aws-env.ts). They also need `requestChecksumCalculation: 'WHEN_REQUIRED'` (or the env
 * AWS_REQUEST_CHECKSUM_CALCULATION=WHEN_REQUIRED that applyLocalAwsEnv sets): s3rver predates the
 * SDK's default checksums, and a streamed upload would be stored with its aws-chunked framing.
 * `localS3Client(endpoint)` does all this.
 */

/** The part of s3rver's (untyped, CommonJS) API we use. */
interface S3rverInstance {
  callback(): RequestListener;
  logger?: { close(): void };
}
type S3rverConstructor = new (options: {
  silent: boolean;
  directory: string;
  resetOnClose?: boolean;
  vhostBuckets?: boolean;
}) => S3rverInstance;

export interface LocalS3 {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  /** Where the objects live (a temp dir, removed on stop, unless `directory` was given). */
  directory: string;
  stop(): Promise<void>;
}

export async function startS3(options: { port: number; directory?: string }): Promise<LocalS3> {
  const S3rver = createRequire(import.meta.url)('@20minutes/s3rver') as S3rverConstructor;
  const ownsDirectory = options.directory === undefined;
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), 'local-s3-'));
  const s3rver = new S3rver({ silent: true, directory, vhostBuckets: false });
  // Our own http server around s3rver's request listener (what s3rver.run() does), so a listen
  // error rejects instead of crashing the process, and stop() can close keep-alive sockets.
  const server = createServer(s3rver.callback());
  const cleanup = () => {
    s3rver.logger?.close();
    if (ownsDirectory) rmSync(directory, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    cleanup();
    throw err;
  }
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= new Promise<void>((resolve, reject) => {
      server.close((err) => {
        cleanup();
        if (err) reject(err);
        else resolve();
      });
      server.closeAllConnections();
    }));
  return { endpoint: `http://127.0.0.1:${options.port}`, directory, stop };
}

/** An S3Client for the local endpoint: path style, S3RVER credentials, checksums only when required. */
export function localS3Client(endpoint: string): S3Client {
  const client = new S3Client({
    endpoint,
    region: localAwsRegion(),
    credentials: localAwsCredentials,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  // Bucket-level requests go to `/<bucket>/`, which the SDK signs with the trailing slash while
  // s3rver 4 checks the signature of `/<bucket>`: send them without it (object requests are unaffected).
  client.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { path?: string };
      if (typeof request.path === 'string' && /^\/[^/]+\/$/.test(request.path)) request.path = request.path.slice(0, -1);
      return next(args);
    },
    { step: 'build', name: 'localS3BucketPath' },
  );
  return client;
}

/** Creates the bucket if it does not exist. Idempotent. */
export async function ensureBucket(endpoint: string, bucketName: string): Promise<void> {
  const client = localS3Client(endpoint);
  try {
    try {
      await client.send(new HeadBucketCommand({ Bucket: bucketName }));
      return;
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status !== 404) throw err;
    }
    try {
      await client.send(new CreateBucketCommand({ Bucket: bucketName }));
    } catch (err) {
      const name = (err as { name?: string }).name;
      if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw err;
    }
  } finally {
    client.destroy();
  }
}
