import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import { createRequire, Module } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
  on(event: 'event', listener: (event: S3EventNotification) => void): void;
  logger?: { close(): void };
}
type S3rverConstructor = new (options: {
  silent: boolean;
  directory: string;
  resetOnClose?: boolean;
  vhostBuckets?: boolean;
}) => S3rverInstance;

/** An S3 event notification as s3rver emits it (the shape S3 sends to SQS). */
export interface S3EventNotification {
  Records: { eventName: string; s3: { bucket: { name: string }; object: { key: string; size?: number } } }[];
}

export interface LocalS3 {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  /** Where the objects live (a temp dir, removed on stop, unless `directory` was given). */
  directory: string;
  stop(): Promise<void>;
}

/**
 * s3rver 4 builds the canonical query string of a SigV4 signature with encodeURIComponent, which
 * leaves ! ' ( ) * unencoded where SigV4 (the SDK, real S3) percent-encodes them, so a presigned
 * URL whose query holds them (a download's response-content-disposition with a file name like
 * "Faktura (kopi).pdf" or a `filename*=UTF-8''...`) fails its signature check. Load its
 * authentication middleware with the RFC 3986 encoder it already imports, before s3rver is loaded.
 */
const loadS3rver = (): S3rverConstructor => {
  const require = createRequire(import.meta.url);
  const authenticationPath = require.resolve('@20minutes/s3rver/lib/middleware/authentication.js');
  if (!require.cache[authenticationPath]) {
    const source = readFileSync(authenticationPath, 'utf8');
    const unreservedOnly = '[param, value].map(encodeURIComponent)';
    if (source.includes(unreservedOnly)) {
      type CompilableModule = InstanceType<typeof Module> & { _compile(source: string, filename: string): void };
      const patched = new Module(authenticationPath) as CompilableModule;
      patched.filename = authenticationPath;
      patched.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dirname(authenticationPath));
      patched._compile(source.replace(unreservedOnly, '[param, value].map(encodeURIComponentRFC3986)'), authenticationPath);
      patched.loaded = true;
      require.cache[authenticationPath] = patched;
    }
  }
  return require('@20minutes/s3rver') as S3rverConstructor;
};

export async function startS3(options: {
  port: number;
  directory?: string;
  /** Called for every object event (ObjectCreated:Put/Copy/Post, ObjectRemoved:Delete), like S3 event notifications. */
  onEvent?: (event: S3EventNotification) => void;
}): Promise<LocalS3> {
  const S3rver = loadS3rver();
  const ownsDirectory = options.directory === undefined;
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), 'local-s3-'));
  const s3rver = new S3rver({ silent: true, directory, vhostBuckets: false });
  if (options.onEvent) s3rver.on('event', options.onEvent);
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
  const address = server.address();
  if (address === null || typeof address !== 'object') throw new Error('S3 emulator: could not read the port it listens on');
  return { endpoint: `http://127.0.0.1:${address.port}`, directory, stop };
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
