import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { bucketName, s3 } from '../platform/aws';
import { toWellFormed } from '../platform/text';
import { sniffLength } from './content-type';

/**
 * The documents bucket, as documents use it: presigned PUT and GET URLs, and reading an upload
 * back to check it. The client (shared/platform/aws.ts) computes checksums only when required:
 * with the SDK default, a presigned URL would also bind a CRC32 of an empty body, and real S3
 * would refuse every browser and curl upload to it.
 */

export const hexToBase64 = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');

/**
 * A presigned PUT that binds the content type, the exact length and the SHA-256 checksum.
 * S3 ignores an x-amz-checksum-sha256 hoisted into the query string, so it stays a signed header
 * (unhoistableHeaders) that the uploader must send, and real S3 then refuses other bytes with
 * BadDigest. Content-Type is signed too (the presigner leaves it unsigned by default).
 */
export const presignUpload = async (
  key: string,
  declaration: { contentType: string; sizeBytes: number; sha256: string },
  expiresInSeconds: number,
): Promise<{ url: string; headers: Record<string, string> }> => {
  const checksum = hexToBase64(declaration.sha256);
  const url = await getSignedUrl(
    s3(),
    new PutObjectCommand({
      Bucket: bucketName(),
      Key: key,
      ContentType: declaration.contentType,
      ContentLength: declaration.sizeBytes,
      ChecksumSHA256: checksum,
    }),
    {
      expiresIn: expiresInSeconds,
      signableHeaders: new Set(['content-type', 'content-length']),
      unhoistableHeaders: new Set(['x-amz-checksum-sha256']),
    },
  );
  return { url, headers: { 'Content-Type': declaration.contentType, 'x-amz-checksum-sha256': checksum } };
};

export interface StoredUpload {
  size: number;
  /** Hex SHA-256 of the bytes read, or undefined when the size already differs (not read). */
  sha256?: string;
  firstBytes: Uint8Array;
  etag?: string;
}

/** Reads an uploaded object back (streaming, so 50 MiB need no 50 MiB of memory); undefined when there is none. */
export const readUpload = async (key: string, expectedSize: number): Promise<StoredUpload | undefined> => {
  let response;
  try {
    response = await s3().send(new GetObjectCommand({ Bucket: bucketName(), Key: key }));
  } catch (error) {
    if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey' || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) {
      return undefined;
    }
    throw error;
  }
  const body = response.Body as Readable;
  const size = response.ContentLength ?? 0;
  if (size !== expectedSize) {
    body.destroy();
    return { size, firstBytes: new Uint8Array(), etag: response.ETag };
  }
  const hash = createHash('sha256');
  const first: Buffer[] = [];
  let firstLength = 0;
  let read = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    hash.update(buffer);
    read += buffer.length;
    if (firstLength < sniffLength) {
      first.push(buffer.subarray(0, sniffLength - firstLength));
      firstLength += Math.min(buffer.length, sniffLength - firstLength);
    }
  }
  return { size: read, sha256: hash.digest('hex'), firstBytes: new Uint8Array(Buffer.concat(first)), etag: response.ETag };
};

/** Copies the checked upload to its permanent key (only if it is still the object that was checked). */
export const copyObject = async (from: string, to: string, etag: string | undefined): Promise<void> => {
  await s3().send(
    new CopyObjectCommand({
      Bucket: bucketName(),
      Key: to,
      CopySource: `${bucketName()}/${from}`,
      ...(etag && { CopySourceIfMatch: etag }),
      MetadataDirective: 'COPY',
    }),
  );
};

export const deleteObject = async (key: string): Promise<void> => {
  await s3().send(new DeleteObjectCommand({ Bucket: bucketName(), Key: key }));
};

/**
 * `attachment` with the file name: an ASCII fallback (`_` for each other character, quote,
 * backslash and %) and the exact name (RFC 6266, RFC 8187).
 * Any stored name gives a header: a lone surrogate (no UTF-8 encoding; a name stored before
 * declarations refused it) becomes U+FFFD, so encodeURIComponent cannot throw.
 */
export const contentDisposition = (fileName: string): string => {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\%]/gu, '_');
  const encoded = encodeURIComponent(toWellFormed(fileName)).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
};

export const presignDownload = async (key: string, fileName: string, contentType: string, expiresInSeconds: number): Promise<string> =>
  getSignedUrl(
    s3(),
    new GetObjectCommand({ Bucket: bucketName(), Key: key, ResponseContentDisposition: contentDisposition(fileName), ResponseContentType: contentType }),
    { expiresIn: expiresInSeconds },
  );
