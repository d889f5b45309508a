import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { maxResponseBytes, postJson, refusedAddress, refusedUrl } from '../../shared/webhooks/outbound';

/** Outbound safety of webhook deliveries: as on AWS (no loopback receivers) and as locally (loopback http allowed). */
const asOnAws = () => {
  process.env.WEBHOOK_ALLOW_LOOPBACK = 'false';
};
const asLocally = () => {
  process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';
};
afterEach(() => {
  delete process.env.WEBHOOK_ALLOW_LOOPBACK;
});

describe('refused receiver addresses (AWS)', () => {
  it.each(['10.1.2.3', '172.16.0.1', '192.168.1.1', '127.0.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '224.0.0.1'])(
    'refuses %s',
    (address) => {
      asOnAws();
      expect(refusedAddress(address)).toContain('private, loopback, link-local or reserved');
    },
  );

  it.each(['93.184.216.34', '::ffff:93.184.216.34', '2606:4700::6810:85e5'])('allows the public address %s', (address) => {
    asOnAws();
    expect(refusedAddress(address)).toBeUndefined();
  });

  it('refuses plain http, credentials, relative and private-literal URLs; accepts a public https host', () => {
    asOnAws();
    expect(refusedUrl('http://receiver.example.com/hook')).toBe('url must use https');
    expect(refusedUrl('http://127.0.0.1:8080/hook')).toBe('url must use https');
    expect(refusedUrl('https://user:secret@receiver.example.com/hook')).toBe('url must not carry credentials');
    expect(refusedUrl('/hook')).toBe('url must be an absolute URL');
    expect(refusedUrl('https://10.0.0.5/hook')).toContain('private');
    expect(refusedUrl('https://[::1]/hook')).toContain('loopback');
    expect(refusedUrl('https://receiver.example.com/hook')).toBeUndefined();
  });

  it('checks the resolved address at connection time: a name resolving to loopback is refused before any byte is sent', async () => {
    asOnAws();
    const outcome = await postJson('https://localhost:9/hook', '{}', {});
    expect(outcome.statusCode).toBeNull();
    expect(outcome.error).toContain('is private, loopback, link-local or reserved');
  });
});

describe('deliveries to a loopback receiver (local stack)', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/redirect') {
        response.writeHead(302, { Location: '/elsewhere' }).end();
      } else {
        response.writeHead(500, { 'Retry-After': '7' }).end('x'.repeat(5 * maxResponseBytes));
      }
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it('allows plain http on loopback only where the deployment allows it', () => {
    asLocally();
    expect(refusedUrl(`${base}/hook`)).toBeUndefined();
    expect(refusedUrl('http://receiver.example.com/hook')).toContain('plain http only on a loopback address');
    expect(refusedUrl('https://10.0.0.5/hook')).toContain('private');
  });

  it('follows no redirect: a 3xx is the attempt\'s answer', async () => {
    asLocally();
    const outcome = await postJson(`${base}/redirect`, '{}', {});
    expect(outcome).toMatchObject({ statusCode: 302, error: null });
  });

  it('reads at most 1 KiB of the answer and honours Retry-After', async () => {
    asLocally();
    const outcome = await postJson(`${base}/hook`, '{}', {});
    expect(outcome.statusCode).toBe(500);
    expect(outcome.responseBody).toHaveLength(maxResponseBytes);
    expect(outcome.retryAfterSeconds).toBe(7);
  });
});
