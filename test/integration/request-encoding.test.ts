import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectProblem } from '../support/api';
import { newFirm } from '../support/people';
import { testStack } from '../support/stack';

/**
 * Bytes and percent-encodings that do not decode to UTF-8, over HTTP through the local gateway:
 * refused with 400 invalid_encoding problems (with X-Request-Id), never repaired with U+FFFD,
 * never a 500.
 */
let token: string;
let companyId: string;

beforeAll(async () => {
  const firm = await newFirm('encoding');
  token = firm.systemToken;
  companyId = await firm.company();
});

const companyBody = (name: Buffer) => Buffer.concat([Buffer.from('{"displayName":"'), name, Buffer.from('","accountingSystem":"Api"}')]);
/** "Bad <byte> name AS" with a byte that is not UTF-8. */
const invalidNames = [
  Buffer.from([0x42, 0x61, 0x64, 0x20, 0xff, 0x20, 0x41, 0x53]), // 0xFF never occurs in UTF-8
  Buffer.from([0x42, 0x61, 0x64, 0x20, 0xc3, 0x41, 0x53]), // a lead byte without its continuation
  Buffer.from([0x42, 0x61, 0x64, 0x20, 0xed, 0xa0, 0x80, 0x41, 0x53]), // a UTF-16 surrogate encoded as UTF-8 (CESU-8)
  Buffer.from([0x42, 0x61, 0x64, 0x20, 0xc0, 0xaf, 0x41, 0x53]), // an overlong encoding of '/'
];

const companyNames = async () => {
  const list = await api('GET', '/v1/companies?page_size=200', { token });
  expect(list.status).toBe(200);
  return (list.body.data as { name: string }[]).map((company) => company.name);
};

describe('request bodies must be UTF-8', () => {
  it('a JSON body with bytes that are not UTF-8 answers 400 invalid_encoding and nothing is created', async () => {
    const before = await companyNames();
    for (const name of invalidNames) {
      const response = await api('POST', '/v1/companies', { token, rawBody: companyBody(name), headers: { 'content-type': 'application/json' } });
      expectProblem(response, 400, 'invalid_encoding');
      expect(response.body.detail).toContain('not valid UTF-8');
    }
    const after = await companyNames();
    expect(after).toEqual(before);
    expect(after.some((name) => name.includes('\uFFFD'))).toBe(false);
  });

  it('the same with Content-Encoding: gzip (the decompressed bytes are checked), and on an import body', async () => {
    const gzipped = await api('POST', '/v1/companies', {
      token,
      rawBody: gzipSync(companyBody(invalidNames[0]!)),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expectProblem(gzipped, 400, 'invalid_encoding');
    expect(gzipped.body.detail).toContain('decompressed');

    const chart = Buffer.concat([Buffer.from('{"year":2025,"accounts":[{"accountCode":"1920","accountDescription":"Bank '), Buffer.from([0xe6, 0xf8]), Buffer.from('","accountCategory":"Balance"}]}')]);
    for (const headers of [{}, { 'content-encoding': 'gzip' }] as Record<string, string>[]) {
      const imported = await api('POST', `/v1/companies/${companyId}/imports/accounts`, {
        token,
        rawBody: 'content-encoding' in headers ? gzipSync(chart) : chart,
        headers: { 'content-type': 'application/json', ...headers },
      });
      expectProblem(imported, 400, 'invalid_encoding');
    }
    const imports = await api('GET', `/v1/companies/${companyId}/imports`, { token });
    expect(imports.body.data).toEqual([]);
  });

  it('UTF-8 text, multi-byte characters and escapes included, is taken as sent', async () => {
    const name = 'Blåbær & Søn AS 😀';
    const created = await api('POST', '/v1/companies', { token, rawBody: Buffer.from(JSON.stringify({ displayName: name, accountingSystem: 'Api' }), 'utf8'), headers: { 'content-type': 'application/json' } });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe(name);
    const gzipped = await api('POST', '/v1/companies', {
      token,
      rawBody: gzipSync(Buffer.from(JSON.stringify({ displayName: `${name} 2`, accountingSystem: 'Api' }), 'utf8')),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(gzipped.status).toBe(201);
    expect(gzipped.body.name).toBe(`${name} 2`);
  });
});

describe('paths must percent-decode to UTF-8', () => {
  const invalidPaths = () => [
    '/v1/companies/%FF',
    '/v1/companies/%E0%A4%A',
    `/v1/companies/${companyId}/accounts/%C0%AF`,
    `/v1/companies/${companyId}/general-ledger/lines/%ED%A0%80/versions?year=2025`,
    '/v1/documents/%/download',
    '/problems/%FF',
    '/no/such/route/%FF',
  ];

  it('an invalid percent-encoding answers 400 invalid_encoding problem+json with X-Request-Id, with or without a token', async () => {
    for (const path of invalidPaths()) {
      for (const options of [{ token }, {}]) {
        const response = await api('GET', path, options);
        expectProblem(response, 400, 'invalid_encoding');
        expect(response.body.detail).toContain('percent-encoding');
        expect(response.body.type).toBe(`${testStack().baseUrl}/problems/invalid_encoding`);
      }
    }
    const post = await api('POST', '/v1/companies/%FF/actions/disable', { token });
    expectProblem(post, 400, 'invalid_encoding');
  });

  it('valid percent-encodings still route: an encoded UTF-8 id is an unknown id (404), not a bad request', async () => {
    expectProblem(await api('GET', `/v1/companies/${encodeURIComponent('ø')}`, { token }), 404, 'not_found');
    expectProblem(await api('GET', '/v1/companies/%41', { token }), 404, 'not_found');
    expect((await api('GET', `/v1/companies/${companyId}`, { token })).status).toBe(200);
  });

  it('a request target that is no URL answers 400 problem+json too', async () => {
    const { port } = new URL(testStack().baseUrl);
    const answer = await new Promise<{ status: number; type: string; requestId: string | undefined; body: string }>((resolve, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port, method: 'GET', path: 'http://[/v1/companies' }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, type: String(response.headers['content-type']), requestId: response.headers['x-request-id'] as string | undefined, body }),
        );
      });
      request.on('error', reject);
      request.end();
    });
    expect(answer).toMatchObject({ status: 400, type: 'application/problem+json' });
    expect(answer.requestId).toBeTruthy();
    expect(JSON.parse(answer.body)).toMatchObject({ status: 400, error: 'invalid_encoding', requestId: answer.requestId });
  });
});
