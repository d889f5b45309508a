import { gunzipSync } from 'node:zlib';
import { type ProblemError, problems } from './problem';
import { clip } from './text';

/**
 * Request bodies as the function receives them from API Gateway (HTTP API, payload 2.0).
 *
 * The limit on a body as sent is 4 MiB. What carries a body to the function is a synchronous
 * Lambda invocation, whose event may hold at most 6 MB (6,291,456 bytes); API Gateway's own
 * 10 MB payload limit never applies first. The event holds the body base64-encoded when it is
 * binary (a gzip-compressed body), 4/3 of its size: 4 MiB becomes 5,592,408 bytes and leaves
 * about 700 KB for the headers and the rest of the event. A JSON body travels as a JSON string,
 * where each `"` is escaped: an import body (about a fifth of it quotes) stays below 5.1 MB.
 *
 * Bodies sent with `Content-Encoding: gzip` are decompressed here (API Gateway HTTP APIs pass
 * them through); the decompressed text may hold at most 32 MiB, so a small compressed body
 * cannot make the function inflate without bound (a zip bomb answers 413 too).
 *
 * Bytes are decoded as UTF-8 strictly: a body that is not UTF-8 answers 400 invalid_encoding
 * instead of being stored with U+FFFD in place of the bytes.
 */
export const maxRequestBodyBytes = 4 * 1024 * 1024;
export const maxDecodedBodyBytes = 32 * 1024 * 1024;

const sizeText = (bytes: number) => `${bytes} bytes (${bytes / (1024 * 1024)} MiB)`;

/** 413 payload_too_large for a body beyond maxRequestBodyBytes as sent (the local gateway answers it too). */
export const requestBodyTooLarge = (bytes: number): ProblemError =>
  problems.payloadTooLarge(
    `A request body may hold at most ${sizeText(maxRequestBodyBytes)} as sent; this one has ${bytes} bytes. ` +
      `Send larger imports compressed with Content-Encoding: gzip (at most ${sizeText(maxDecodedBodyBytes)} decompressed).`,
  );

const decodedBodyTooLarge = (): ProblemError =>
  problems.payloadTooLarge(`The gzip-compressed request body decompresses to more than ${sizeText(maxDecodedBodyBytes)}, the most a request body may hold decompressed.`);

/** The content codings of a Content-Encoding header, outermost last; identity and empty entries dropped. */
const codingsOf = (header: string | undefined): string[] =>
  (header ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');

let last: { body: string; isBase64Encoded: boolean; encoding: string | undefined; text: string } | undefined;

/**
 * The body text of a request: base64 undone, the limit as sent checked (413), a gzip coding
 * decompressed within its own limit (413); any other coding answers 415 and a body that is not
 * gzip data 400. Undefined when the request has no body.
 */
export const decodeRequestBody = (
  headers: Record<string, string | undefined>,
  body: string | undefined | null,
  isBase64Encoded: boolean,
): string | undefined => {
  if (body === undefined || body === null) return undefined;
  const encoding = headers['content-encoding'];
  // The pipeline reads the body twice (idempotency fingerprint, then parsing): decode it once.
  if (last && last.body === body && last.isBase64Encoded === isBase64Encoded && last.encoding === encoding) return last.text;

  const bytes = isBase64Encoded ? Buffer.from(body, 'base64') : undefined;
  const size = bytes ? bytes.length : Buffer.byteLength(body, 'utf8');
  if (size > maxRequestBodyBytes) throw requestBodyTooLarge(size);

  const codings = codingsOf(encoding);
  let text: string;
  if (codings.length === 0) {
    text = bytes ? utf8(bytes, '') : body;
  } else if (codings.length === 1 && (codings[0] === 'gzip' || codings[0] === 'x-gzip')) {
    text = utf8(gunzip(bytes ?? Buffer.from(body, 'utf8')), ' decompressed');
  } else {
    throw problems.unsupportedMediaType(`Content-Encoding ${JSON.stringify(clip(encoding ?? '', 100))} is not supported; send the body as is or with Content-Encoding: gzip.`);
  }
  last = { body, isBase64Encoded, encoding, text };
  return text;
};

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const utf8 = (bytes: Buffer, what: string): string => {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw problems.invalidEncoding(`The request body${what} is not valid UTF-8; send JSON encoded as UTF-8.`);
  }
};

const gunzip = (compressed: Buffer): Buffer => {
  try {
    return gunzipSync(compressed, { maxOutputLength: maxDecodedBodyBytes });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw decodedBodyTooLarge();
    throw problems.malformedJson(`The request body is not gzip data (Content-Encoding: gzip): ${(error as Error).message}`);
  }
};
