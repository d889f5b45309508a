import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

/** Reads a request body, refusing more than limitBytes. */
export const readBody = (request: IncomingMessage, limitBytes = 10 * 1024 * 1024): Promise<string> =>
  readRawBody(request, limitBytes).then((buffer) => buffer.toString('utf8'));

export const readRawBody = (request: IncomingMessage, limitBytes: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        reject(new Error('body too large'));
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

/**
 * Reads a request body of at most limitBytes. A longer one is read to its end and dropped (so the
 * client, still sending, gets an answer instead of a reset connection) and reported by its size.
 */
export const readBoundedBody = (request: IncomingMessage, limitBytes: number): Promise<{ body: Buffer } | { tooLarge: number }> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) chunks.push(chunk);
      else chunks.length = 0;
    });
    request.on('end', () => resolve(size > limitBytes ? { tooLarge: size } : { body: Buffer.concat(chunks) }));
    request.on('error', reject);
  });

/**
 * A request whose body was already read, given back readable with the same head: for a library
 * that reads the body itself (oidc-provider warns when handed a parsed body instead).
 */
export const replayRequest = (request: IncomingMessage, body: Buffer | string): IncomingMessage => {
  const bytes = Buffer.from(body);
  const { 'transfer-encoding': _chunked, ...headers } = request.headers;
  return Object.assign(Readable.from([bytes], { objectMode: false }), {
    headers: { ...headers, 'content-length': String(bytes.length) },
    rawHeaders: request.rawHeaders,
    method: request.method,
    url: request.url,
    httpVersion: request.httpVersion,
    httpVersionMajor: request.httpVersionMajor,
    httpVersionMinor: request.httpVersionMinor,
    socket: request.socket,
    connection: request.socket,
    complete: true,
    trailers: {},
    rawTrailers: [],
  }) as unknown as IncomingMessage;
};
