import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { authenticate, fetchJwks, maxJwksBytes } from '../../shared/identity/authorizer';
import { resetConfig } from '../../shared/platform/config';
import { logger } from '../../shared/platform/logger';

/**
 * The JWKS fetch is bounded: a time limit and a body size limit. A key set it cannot fetch within
 * them makes the authorizer answer "unavailable" (a 500 to retry), never a 401.
 */
describe('the JWKS fetch', () => {
  let server: Server;
  let base: string;
  let jwks: string;
  const hanging = new Set<ServerResponse>();

  beforeAll(async () => {
    const { publicKey } = await generateKeyPair('RS256');
    jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'pool-key', alg: 'RS256', use: 'sig' }] });
    server = createServer((request, response) => {
      if (request.url === '/jwks.json') return void response.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
      // Announced too big: refused before reading.
      if (request.url === '/announced.json') return void response.writeHead(200, { 'content-length': String(maxJwksBytes + 1) }).end(Buffer.alloc(maxJwksBytes + 1, 32));
      // Chunked (no length): refused once more than the limit has arrived.
      if (request.url === '/chunked.json') {
        response.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 32);
        for (let sent = 0; sent <= maxJwksBytes; sent += chunk.length) response.write(chunk);
        return void response.end('{}');
      }
      // Headers at once, then nothing: the time limit covers the body too.
      if (request.url === '/stalls.json') {
        hanging.add(response);
        return void response.writeHead(200, { 'content-type': 'application/json' }).write('{"keys": [');
      }
      // Nothing at all.
      if (request.url === '/silent.json') return void hanging.add(response);
      response.writeHead(404).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const response of hanging) response.destroy();
    await new Promise((done) => server.close(done));
  });

  it('reads a key set within the limits', async () => {
    expect(Buffer.from(await fetchJwks(`${base}/jwks.json`)).toString('utf8')).toBe(jwks);
  });

  it('refuses a key set larger than the limit, announced or not', async () => {
    await expect(fetchJwks(`${base}/announced.json`)).rejects.toThrow(/larger than 1048576 bytes/);
    await expect(fetchJwks(`${base}/chunked.json`)).rejects.toThrow(/larger than 1048576 bytes/);
  });

  it('gives up after the time limit, before the headers or in the middle of the body', async () => {
    const started = Date.now();
    await expect(fetchJwks(`${base}/silent.json`, { timeoutMs: 200 })).rejects.toThrow(/abort|timeout/i);
    await expect(fetchJwks(`${base}/stalls.json`, { timeoutMs: 200 })).rejects.toThrow(/abort|timeout/i);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a refused fetch is the existing failure path: unavailable (500 to retry), not a 401', async () => {
    const variables = ['JWT_ISSUER', 'JWKS_URI'];
    const saved = Object.fromEntries(variables.map((name) => [name, process.env[name]]));
    const { privateKey } = await generateKeyPair('RS256');
    const issuer = `${base}/pool-with-a-huge-key-set`;
    Object.assign(process.env, { JWT_ISSUER: issuer, JWKS_URI: `${base}/chunked.json` });
    resetConfig();
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    try {
      const now = Math.floor(Date.now() / 1000);
      const token = await new SignJWT({ token_use: 'access', client_id: 'some-client' })
        .setProtectedHeader({ alg: 'RS256', kid: 'pool-key' })
        .setIssuer(issuer)
        .setIssuedAt(now)
        .setExpirationTime(now + 3600)
        .sign(privateKey);
      expect(await authenticate(`Bearer ${token}`, '/v1/companies')).toMatchObject({ authenticated: false, unavailable: true });
      expect(logged).toHaveBeenCalledWith('The authorizer could not check the token', expect.objectContaining({ message: expect.stringMatching(/larger than/) }));
    } finally {
      logged.mockRestore();
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      resetConfig();
    }
  });
});
