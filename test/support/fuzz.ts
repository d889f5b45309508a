import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { expect } from 'vitest';
import { buildOpenApiDocument, contracts } from '../../shared/openapi/document';
import type { RouteDefinition } from '../../shared/routes';
import { toWellFormed } from '../../shared/platform/text';
import { validateProblem } from './openapi-validator';
import { testStack } from './stack';

/**
 * Adversarial inputs for the HTTP fuzz test (test/integration/fuzz.test.ts): text, path segments,
 * query strings and JSON bodies built from shapes that broke parsers before. Each shape is its
 * own arbitrary; add new ones to the lists below.
 */

const loneSurrogates = ['\ud800', '\udbff', '\udc00', '\udfff', 'a\ud800b', '\ud83d', 'x\ude00'];
const controls = ['\u0000', 'a\u0000b', '\u0001', '\u0007', '\b', '\t', '\n', '\r\n', '\u001b[31m', '\u007f', '\u0085', '\u009b'];
const bidiAndInvisible = ['\u202e', '\u202d', '\u2066', '\u2069', 'abc\u202edcba', '\u200b', '\u200d', '\ufeff', '\ufffe', '\uffff', '\u{10ffff}'];
export const prototypeNames = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'then'];
const numericTexts = ['9'.repeat(400), '-1e309', '1e-400', '1e999999', 'NaN', 'Infinity', '-0', '0x10', '1_000', '+5', ' 12', '.5', '5.', '١٢', '12345678901234567890.123456789'];
export const badPercentEncodings = ['%', '%%', '%F', '%FF', '%E0%A4%A', '%00', '%ED%A0%80', '%C0%AF', '%F4%90%80%80', '%C3', '%zz', '%2', '%%30'];
const traversal = ['..', '../..', '..%2F..', '%2e%2e', '%2F', '%5C', '\\', '/'];
const sizes = ['', ' ', 'x'.repeat(300), 'ø'.repeat(2_000), 'x'.repeat(70_000)];

/** A piece of hostile text: one of the shapes above, or random code points (lone surrogates included). */
const hostilePiece: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...loneSurrogates),
  fc.constantFrom(...controls),
  fc.constantFrom(...bidiAndInvisible),
  fc.constantFrom(...prototypeNames),
  fc.constantFrom(...numericTexts),
  fc.constantFrom(...badPercentEncodings),
  fc.constantFrom(...traversal),
  fc.constantFrom(...sizes),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)), maxLength: 3 }),
  fc.constantFrom('1920', '2025', 'validation_failed', 'A', 'ø'),
);

/** Hostile text: one to three pieces joined. */
export const hostileText: fc.Arbitrary<string> = fc.array(hostilePiece, { minLength: 1, maxLength: 3 }).map((pieces) => pieces.join(''));

/**
 * At most this many characters of a percent-encoded URL component: the request line stays within
 * API Gateway's 10,240 bytes for the request line and headers (beyond them it answers itself, as
 * Node's HTTP server does locally with 431, before any code of this service runs).
 */
const maxComponentLength = 1_200;

/** Text as a URL component: percent-encoded from its UTF-8 (lone surrogates as U+FFFD), or raw bad percent-encodings. */
export const urlComponent: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: hostileText.map((text) => encodeURIComponent(toWellFormed(text)).slice(0, maxComponentLength).replace(/%[0-9A-F]?$/, '')) },
  { weight: 1, arbitrary: fc.constantFrom(...badPercentEncodings) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('a', '1920', 'x'), fc.constantFrom(...badPercentEncodings)).map(([a, b]) => `${a}${b}`) },
);

/** A JSON value of hostile shapes: deep nesting, huge numbers, prototype keys, wrong types. Answered as JSON text. */
const leaf: fc.Arbitrary<string> = fc.oneof(
  hostileText.map((text) => JSON.stringify(text)), // lone surrogates become \ud800 escapes: valid JSON
  fc.constantFrom('0', '-0', '1e999999', '-1e999999', '1e-999999', '9'.repeat(500), `0.${'1'.repeat(500)}`, '12345678901234567890', '1E19', '25', '2025', '3'),
  fc.constantFrom('true', 'false', 'null', '[]', '{}', '""'),
  // Dates no calendar has, and years no book has.
  fc.constantFrom('"2026-02-30"', '"2025-02-29"', '"2026-13-01"', '"2026-00-10"', '"0000-01-01"', '"9999-12-31"', '"2026-1-5"', '"2026-01-05T25:00:00Z"'),
);

/**
 * Header values a client may send wrong: preconditions, idempotency keys, media types and codings.
 * Byte strings only (what fetch can send): hostile within what HTTP carries.
 */
const hostileHeaderValue: fc.Arbitrary<string> = fc.constantFrom(
  '', '*', '"', '""', 'W/"1"', '"x", *', 'x'.repeat(300), 'x'.repeat(2_000), 'ø', '\u00ff\u00fe', 'null', '-1', '0', '1e3', '%00', '../..', '__proto__',
  'application/json; charset=latin1', 'application/json;;', 'text/plain', 'multipart/form-data; boundary=x', 'application/json, application/xml',
  'gzip, gzip', 'br', 'identity', 'GZIP', 'deflate',
);
const fuzzedHeaderNames = ['if-match', 'if-none-match', 'idempotency-key', 'content-type', 'content-encoding', 'accept', 'accept-encoding'] as const;

/** One to three of those headers with hostile values (or none). */
export const hostileHeaders: fc.Arbitrary<Record<string, string>> = fc
  .array(fc.tuple(fc.constantFrom(...fuzzedHeaderNames), hostileHeaderValue), { maxLength: 3 })
  .map((pairs) => Object.fromEntries(pairs));

const jsonValue: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...prototypeNames), hostileText), tie('value')), { maxLength: 4 })
      .map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`),
  ),
})).value;

/** Nesting beyond any sensible depth: arrays or objects, closed or left open. */
const deepNesting: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(100, 5_000, 100_000), fc.constantFrom('array', 'object'), fc.boolean())
  .map(([depth, kind, closed]) => {
    const open = kind === 'array' ? '[' : '{"a":';
    const close = kind === 'array' ? ']' : '}';
    return `${open.repeat(depth)}1${closed ? close.repeat(depth) : ''}`;
  });

/** An object with the operation's own field names, each given a hostile value: reaches the schema and beyond. */
const shapedObject = (fields: string[]): fc.Arbitrary<string> =>
  fields.length === 0
    ? jsonValue
    : fc
        .array(fc.tuple(fc.constantFrom(...fields, ...prototypeNames), jsonValue), { minLength: 1, maxLength: fields.length + 2 })
        .map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`);

/** JSON text as bytes, sometimes with bytes spliced in that are not UTF-8. */
const withInvalidUtf8 = (text: fc.Arbitrary<string>): fc.Arbitrary<Buffer> =>
  fc.oneof(
    { weight: 4, arbitrary: text.map((json) => Buffer.from(json, 'utf8')) },
    {
      weight: 1,
      arbitrary: fc.tuple(text, fc.constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80])).map(([json, bytes]) => {
        const at = Math.max(json.indexOf('"') + 1, 0);
        const encoded = Buffer.from(json, 'utf8');
        return Buffer.concat([encoded.subarray(0, at), Buffer.from(bytes), encoded.subarray(at)]);
      }),
    },
  );

/** The request example of an operation in the OpenAPI document (every body has one), or undefined. */
let document: ReturnType<typeof buildOpenApiDocument> | undefined;
const requestExample = (route: RouteDefinition): unknown => {
  document ??= buildOpenApiDocument();
  const operation = (document.paths as Record<string, Record<string, { requestBody?: { content?: Record<string, { example?: unknown }> } }>>)[route.path]?.[route.method.toLowerCase()];
  return operation?.requestBody?.content?.['application/json']?.example;
};

/** Every place in a JSON value: the paths of its values (objects and arrays included). */
const placesOf = (value: unknown, path: (string | number)[] = []): (string | number)[][] => {
  const inner = Array.isArray(value)
    ? value.flatMap((item, i) => placesOf(item, [...path, i]))
    : value && typeof value === 'object'
      ? Object.entries(value).flatMap(([key, item]) => placesOf(item, [...path, key]))
      : [];
  return [path, ...inner];
};

const marker = '\u0000fuzz-marker';

/** The value with the place at `path` replaced by raw JSON text (which may be no JSON a JS value can hold: 1e999999). */
const replaceAt = (value: unknown, path: (string | number)[], json: string): string => {
  if (path.length === 0) return json;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent = copy;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  parent[path.at(-1)!] = marker;
  return JSON.stringify(copy).replace(JSON.stringify(marker), () => json);
};

/** The operation's own example body with one value (or the whole) replaced by a hostile one, or a hostile key added: gets past the schema's first checks. */
const mutatedExample = (example: unknown): fc.Arbitrary<string> => {
  const places = placesOf(example);
  return fc.oneof(
    fc.tuple(fc.constantFrom(...places), jsonValue).map(([path, json]) => replaceAt(example, path, json)),
    fc.tuple(fc.constantFrom(...places), hostileText).map(([path, text]) => replaceAt(example, path, JSON.stringify(text))),
    fc.tuple(fc.constantFrom(...places), deepNesting.filter((json) => json.endsWith(']') || json.endsWith('}'))).map(([path, json]) => replaceAt(example, path, json)),
    example && typeof example === 'object' && !Array.isArray(example)
      ? fc.tuple(fc.constantFrom(...prototypeNames), jsonValue).map(([key, json]) => JSON.stringify(example).replace(/^\{/, () => `{${JSON.stringify(key)}:${json},`))
      : jsonValue,
  );
};

/** Field names of a zod object schema (empty for any other schema). */
const fieldsOf = (schema: unknown): string[] => {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape && typeof shape === 'object' ? Object.keys(shape) : [];
};

export interface FuzzTarget {
  /** Values of path parameters that name real things of the test's own organization. */
  known: Record<string, string>;
}

export interface FuzzRequest {
  method: string;
  /** The path and query as sent (already percent-encoded, or deliberately not). */
  path: string;
  body?: Buffer;
  /** Send the body with Content-Encoding: gzip. */
  gzip?: boolean;
  /** The MCP endpoint: protocol errors are JSON-RPC errors, as MCP defines (README, MCP endpoint). */
  jsonRpc?: boolean;
  /** Headers sent in place of the plausible ones (hostile values). */
  headers?: Record<string, string>;
}

/** Which part of a request is hostile: one part (the rest plausible, so the input gets deep), or all of them. */
export type HostilePart = 'path' | 'query' | 'body' | 'all';

/** One adversarial request to a route: its path parameters, query and (for routes with a body) JSON body. */
export const requestTo = (route: RouteDefinition, target: FuzzTarget): fc.Arbitrary<FuzzRequest> => {
  const contract = contracts[route.operationId];
  const parameters = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const hasBody = Boolean(contract?.body || route.mutation);
  const plausibleParameter = (name: string): fc.Arbitrary<string> => (target.known[name] ? fc.constant(target.known[name]) : fc.uuid({ version: 4 }));
  const hostileParameter = (name: string): fc.Arbitrary<string> =>
    fc.oneof({ weight: target.known[name] ? 2 : 0, arbitrary: plausibleParameter(name) }, { weight: 1, arbitrary: fc.uuid({ version: 4 }) }, { weight: 3, arbitrary: urlComponent });
  const queryNames = [...fieldsOf(contract?.query), 'page_size', 'cursor', 'year'];
  const hostileQuery = fc.array(fc.tuple(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...queryNames) }, { weight: 1, arbitrary: urlComponent }), urlComponent), {
    minLength: 1,
    maxLength: 4,
  });
  const example = requestExample(route);
  const plausibleBody = example === undefined ? fc.constant(null) : fc.constant(Buffer.from(JSON.stringify(example)));
  const hostileBody = withInvalidUtf8(
    fc.oneof(
      { weight: example === undefined ? 0 : 4, arbitrary: example === undefined ? jsonValue : mutatedExample(example) },
      { weight: 2, arbitrary: shapedObject(fieldsOf(contract?.body)) },
      { weight: 1, arbitrary: jsonValue },
      { weight: 1, arbitrary: deepNesting },
    ),
  );
  const parts: HostilePart[] = ['path', 'query', 'all', ...(hasBody ? (['body', 'body'] as const) : [])];
  return fc
    .constantFrom(...parts)
    .chain((part) =>
      fc.record({
        values: fc.tuple(...parameters.map((name) => (part === 'path' || part === 'all' ? hostileParameter(name) : plausibleParameter(name)))),
        pairs: part === 'query' || part === 'all' ? hostileQuery : fc.constant([] as [string, string][]),
        body: !hasBody ? fc.constant(null) : part === 'body' || part === 'all' ? hostileBody : plausibleBody,
        gzip: fc.boolean(),
        headers: part === 'all' || part === 'body' ? hostileHeaders : fc.constant({}),
      }),
    )
    .map(({ values, pairs, body, gzip, headers }) => {
      let path = route.path;
      parameters.forEach((name, i) => (path = path.replace(`{${name}}`, values[i]!)));
      const search = pairs.map(([name, value]) => `${name}=${value}`).join('&');
      return {
        method: route.method,
        path: search ? `${path}?${search}` : path,
        ...(body !== null && { body, gzip }),
        ...(route.operationId === 'callMcp' && { jsonRpc: true }),
        ...(Object.keys(headers).length > 0 && { headers }),
      };
    });
};

/**
 * Sends one request and checks the property: never a 5xx; every answer carries X-Request-Id; every
 * error is a problem document (application/problem+json, the Problem schema, its own status), or
 * on the MCP endpoint a JSON-RPC error.
 */
export const sendAndCheck = async (request: FuzzRequest, token: string): Promise<void> => {
  const response = await fetch(`${testStack().baseUrl}${request.path}`, {
    method: request.method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(request.body && { 'content-type': 'application/json' }),
      ...(request.body && request.gzip && { 'content-encoding': 'gzip' }),
      ...(request.jsonRpc && { accept: 'application/json, text/event-stream' }),
      ...(request.method !== 'GET' && { 'idempotency-key': randomUUID() }),
      ...request.headers,
    },
    ...(request.body && { body: request.gzip ? gzipSync(request.body) : request.body }),
  });
  const text = await response.text();
  const what = `${request.method} ${request.path.slice(0, 300)}${request.headers ? ` headers ${JSON.stringify(request.headers).slice(0, 300)}` : ''}${request.body ? ` body ${JSON.stringify(request.body.subarray(0, 300).toString('latin1'))}${request.gzip ? ' (gzip)' : ''}` : ''} -> ${response.status} ${text.slice(0, 300)}`;
  expect(response.status, what).toBeLessThan(500);
  expect(response.headers.get('x-request-id'), what).toBeTruthy();
  if (response.status >= 400 && request.jsonRpc && response.headers.get('content-type') === 'application/json') {
    expect(JSON.parse(text), what).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number), message: expect.any(String) } });
  } else if (response.status >= 400) {
    expect(response.headers.get('content-type'), what).toBe('application/problem+json');
    const problem = JSON.parse(text) as { status: number };
    validateProblem(problem);
    expect(problem.status, what).toBe(response.status);
  }
};
