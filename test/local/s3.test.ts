import { existsSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { GetObjectCommand, ListBucketsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { applyLocalAwsEnv, localAwsCredentials, localAwsRegion } from '../../infra/local/aws-env';
import { freePort } from '../../infra/local/ports';
import { ensureBucket, localS3Client, startS3, type LocalS3 } from '../../infra/local/s3';

const BUCKET = 'local-test-bucket';

// One server's life in order: the bucket is made, used, then the server stopped.
describe('S3 (s3rver)', { timeout: 30_000, shuffle: false }, () => {
  let s3: LocalS3;
  let client: S3Client;

  beforeAll(async () => {
    const port = await freePort();
    const t0 = performance.now();
    s3 = await startS3({ port });
    console.log(`[timing] s3rver start: ${Math.round(performance.now() - t0)} ms`);
    // Configured by hand (not localS3Client) to show what any client of the local S3 needs.
    client = new S3Client({
      endpoint: s3.endpoint,
      region: localAwsRegion(),
      credentials: localAwsCredentials,
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
  });

  afterAll(async () => {
    client?.destroy();
    await s3?.stop();
  });

  it('ensureBucket creates the bucket and is idempotent', async () => {
    expect(s3.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await ensureBucket(s3.endpoint, BUCKET);
    await ensureBucket(s3.endpoint, BUCKET);
    const { Buckets } = await client.send(new ListBucketsCommand({}));
    expect(Buckets?.map((b) => b.Name)).toEqual([BUCKET]);
  });

  it('puts and gets an object', async () => {
    await client.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'imports/a.json', Body: '{"a":1}', ContentType: 'application/json', Metadata: { source: 'test' } }),
    );
    const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'imports/a.json' }));
    expect(await got.Body?.transformToString()).toBe('{"a":1}');
    expect(got.ContentType).toBe('application/json');
    expect(got.Metadata).toEqual({ source: 'test' });
  });

  it('accepts an upload to a presigned PUT URL and serves a presigned GET URL', async () => {
    const key = 'uploads/presigned.csv';
    const body = 'date,amount\n2026-01-01,10.00\n';
    const putUrl = await getSignedUrl(client, new PutObjectCommand({ Bucket: BUCKET, Key: key, ContentType: 'text/csv' }), { expiresIn: 300 });
    expect(putUrl.startsWith(`${s3.endpoint}/${BUCKET}/`)).toBe(true);
    const put = await fetch(putUrl, { method: 'PUT', body, headers: { 'Content-Type': 'text/csv' } });
    expect(put.status).toBe(200);

    const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(await got.Body?.transformToString()).toBe(body);
    expect(got.ContentType).toBe('text/csv');

    const getUrl = await getSignedUrl(client, new GetObjectCommand({ Bucket: BUCKET, Key: key }), { expiresIn: 300 });
    const fetched = await fetch(getUrl);
    expect(fetched.status).toBe(200);
    expect(await fetched.text()).toBe(body);
  });

  it('localS3Client works against the same server', async () => {
    const local = localS3Client(s3.endpoint);
    try {
      await local.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'b.txt', Body: 'bee' }));
      const got = await local.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'b.txt' }));
      expect(await got.Body?.transformToString()).toBe('bee');
    } finally {
      local.destroy();
    }
  });

  it('a client configured only by applyLocalAwsEnv (plus endpoint, path style) stores a streamed upload intact', async () => {
    const keys = ['AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_EC2_METADATA_DISABLED', 'AWS_REQUEST_CHECKSUM_CALCULATION', 'AWS_RESPONSE_CHECKSUM_VALIDATION'];
    const saved = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
    applyLocalAwsEnv();
    const plain = new S3Client({ endpoint: s3.endpoint, forcePathStyle: true });
    try {
      const parts = [Buffer.from('hello '), Buffer.from('stream')];
      await plain.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'stream.txt', Body: Readable.from(parts), ContentLength: 12 }));
      const got = await plain.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'stream.txt' }));
      expect(await got.Body?.transformToString()).toBe('hello stream');
    } finally {
      plain.destroy();
      for (const k of keys) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  });

  it('stop() removes its temporary directory', async () => {
    const dir = s3.directory;
    expect(existsSync(dir)).toBe(true);
    await s3.stop();
    expect(existsSync(dir)).toBe(false);
    await s3.stop(); // idempotent
  });
});
