import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer, globalAgent, type Server as HttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LookupAddress } from 'node:dns';
import { logger } from '../../shared/platform/logger';
import { handshake } from '../../shared/webhooks/handshake';
import {
  checkedLookup,
  maxReasonLength,
  maxResponseBytes,
  networkErrorText,
  postJson,
  refusedAddress,
  refusedLiteralText,
  refusedResolvedText,
  refusedUrl,
  type Resolver,
} from '../../shared/webhooks/outbound';

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

  it('checks the resolved address at connection time: a name resolving to loopback is refused before any byte is sent, naming no address', async () => {
    asOnAws();
    const logged = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    try {
      const outcome = await postJson('https://localhost/hook', '{}', {}, { subscriptionId: 'sub-1', deliveryId: 'del-1' });
      expect(outcome.statusCode).toBeNull();
      expect(outcome.error).toBe(refusedResolvedText);
      expect(outcome.error).not.toMatch(/127\.0\.0\.1|::1|:443/);
      // The address is in the server-side log only, with the ids.
      expect(logged).toHaveBeenCalledWith(expect.any(String), expect.objectContaining({ subscriptionId: 'sub-1', deliveryId: 'del-1', code: 'EADDRREFUSED', detail: expect.stringMatching(/127\.0\.0\.1|::1/) }));
    } finally {
      logged.mockRestore();
    }
  });

  it('a literal private address in the url is refused without echoing it', () => {
    asOnAws();
    expect(refusedUrl('https://10.11.12.13/hook')).toBe(refusedLiteralText);
    expect(refusedUrl('https://[fd00::1234]/hook')).toBe(refusedLiteralText);
  });
});

/**
 * IPv6 forms that carry an IPv4 address. Judged only: no test sends anything to such an address
 * (the resolver below is a stub, and the judge refuses before any connection).
 */
const embeddingForms = {
  'IPv4-compatible, dotted (::127.0.0.1)': '::127.0.0.1',
  'IPv4-compatible, hex (::7f00:1)': '::7f00:1',
  'IPv4-compatible of a public address (deprecated: refused)': '::93.184.216.34',
  'IPv4-translated loopback (::ffff:0:127.0.0.1)': '::ffff:0:127.0.0.1',
  'IPv4-translated metadata service (::ffff:0:a9fe:a9fe)': '::ffff:0:a9fe:a9fe',
  'IPv4-mapped metadata service, hex (::ffff:a9fe:a9fe)': '::ffff:a9fe:a9fe',
  '6to4 of loopback (2002:7f00:1::)': '2002:7f00:1::',
  '6to4 of the metadata service (2002:a9fe:a9fe::1)': '2002:a9fe:a9fe::1',
  '6to4 of a public address (the whole range is refused)': '2002:5db8:d822::1',
  'NAT64 well-known prefix, loopback (64:ff9b::127.0.0.1)': '64:ff9b::127.0.0.1',
  'NAT64 well-known prefix, private (64:ff9b::a00:1)': '64:ff9b::a00:1',
  'NAT64 local-use prefix, private (64:ff9b:1::a00:1)': '64:ff9b:1::a00:1',
  'NAT64 local-use prefix, public (its IPv4 sits where the operator chose: refused)': '64:ff9b:1:5db8:d822::',
  'Teredo (2001::1)': '2001::1',
  'Teredo with a server and a client address': '2001:0:4136:e378:8000:63bf:3fff:fdd2',
};

describe('IPv6 forms embedding an IPv4 address', () => {
  it.each(Object.entries(embeddingForms))('refuses %s on AWS', (_form, address) => {
    asOnAws();
    expect(refusedAddress(address)).toContain('private, loopback, link-local or reserved');
    expect(refusedUrl(`https://[${address}]/hook`)).toContain('private, loopback, link-local or reserved');
  });

  it.each(Object.entries(embeddingForms))('refuses %s on the local stack too (only plain and IPv4-mapped loopback may be called there)', (_form, address) => {
    asLocally();
    expect(refusedAddress(address)).toContain('private, loopback, link-local or reserved');
  });

  it('judges the embedded IPv4 address of the fixed forms: a public one may be called', () => {
    asOnAws();
    expect(refusedAddress('64:ff9b::5db8:d822')).toBeUndefined(); // DNS64 of 93.184.216.34
    expect(refusedAddress('::ffff:0:5db8:d822')).toBeUndefined(); // IPv4-translated 93.184.216.34
    expect(refusedAddress('::ffff:5db8:d822')).toBeUndefined();
    expect(refusedAddress('64:ff9b::a9fe:a9fe')).toContain('embeds 169.254.169.254: linkLocal');
  });

  it('refuses the other special IPv6 and IPv4 ranges by their ipaddr.js names', () => {
    asOnAws();
    for (const address of ['100::1', '2001:db8::1', 'fec0::1', '5f00::1', '192.0.2.1', '198.51.100.7', '255.255.255.255', '192.88.99.1']) {
      expect(refusedAddress(address), address).toContain('private, loopback, link-local or reserved');
    }
    expect(refusedAddress('fe80::1%eth0')).toContain('not a plain IP address');
  });

  it('the local stack may call plain and IPv4-mapped loopback only', () => {
    asLocally();
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1']) expect(refusedAddress(address), address).toBeUndefined();
    expect(refusedAddress('10.0.0.1')).toContain('private');
  });
});

describe('the address check at connection time (a stubbed resolver: DNS rebinding)', () => {
  /** Resolves every name to these addresses, recording what it was asked. */
  const resolving = (...addresses: string[]) => {
    const asked: { hostname: string; all: boolean }[] = [];
    const resolve: Resolver = (hostname, options, callback) => {
      asked.push({ hostname, all: options.all });
      callback(null, addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })));
    };
    return { resolve, asked };
  };
  const lookup = (resolve: Resolver, all: boolean) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>((done) =>
      checkedLookup(resolve)('receiver.example.com', { all }, ((error: NodeJS.ErrnoException | null, address: unknown, family?: number) => done({ error, address, family }))),
    );

  it.each(Object.entries(embeddingForms))('a name resolving to %s is refused before connecting', async (_form, address) => {
    asOnAws();
    const { resolve, asked } = resolving(address);
    const { error } = await lookup(resolve, false);
    expect(error?.code).toBe('EADDRREFUSED');
    expect(error?.message).toContain('private, loopback, link-local or reserved');
    expect(asked).toEqual([{ hostname: 'receiver.example.com', all: true }]); // every address is judged, not just the first
  });

  it('one refused address among public ones refuses the name', async () => {
    asOnAws();
    const { error } = await lookup(resolving('93.184.216.34', '2606:4700::6810:85e5', '2002:a9fe:a9fe::1').resolve, false);
    expect(error?.code).toBe('EADDRREFUSED');
    expect(error?.message).toContain('2002:a9fe:a9fe::1');
  });

  it('public addresses pass through: the first one, or all of them when asked for all', async () => {
    asOnAws();
    const { resolve } = resolving('93.184.216.34', '64:ff9b::5db8:d822');
    expect(await lookup(resolve, false)).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(await lookup(resolve, true)).toMatchObject({
      error: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '64:ff9b::5db8:d822', family: 6 },
      ],
    });
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

describe('the receiver port (https on 443 or 8443 only; loopback exception unchanged)', () => {
  it.each(['https://receiver.example.com/hook', 'https://receiver.example.com:443/hook', 'https://receiver.example.com:8443/hook', 'https://93.184.216.34:8443/hook'])('allows %s', (url) => {
    asOnAws();
    expect(refusedUrl(url)).toBeUndefined();
    asLocally();
    expect(refusedUrl(url)).toBeUndefined();
  });

  it.each(['https://victim.example:22/', 'https://receiver.example.com:80/hook', 'https://receiver.example.com:8080/hook', 'https://receiver.example.com:6379/', 'https://93.184.216.34:25/'])(
    'refuses %s, on AWS and on the local stack',
    (url) => {
      asOnAws();
      expect(refusedUrl(url)).toBe('url must use port 443 (the default) or 8443');
      asLocally();
      expect(refusedUrl(url)).toBe('url must use port 443 (the default) or 8443');
    },
  );

  it('a loopback receiver may use any port where loopback is allowed (http and https), and none on AWS', () => {
    asLocally();
    for (const url of ['http://127.0.0.1:22/hook', 'http://127.0.0.1:54321/hook', 'http://[::1]:8080/hook', 'http://localhost:3000/hook', 'https://127.0.0.1:9999/hook', 'https://localhost:9/hook']) {
      expect(refusedUrl(url), url).toBeUndefined();
    }
    asOnAws();
    expect(refusedUrl('http://127.0.0.1:54321/hook')).toBe('url must use https');
    expect(refusedUrl('https://127.0.0.1:9999/hook')).toBe(refusedLiteralText);
    expect(refusedUrl('https://localhost:9/hook')).toBe('url must use port 443 (the default) or 8443');
  });

  it('is checked again at each attempt: nothing is sent to another port', async () => {
    asOnAws();
    const outcome = await postJson('https://victim.example:22/', '{}', {});
    expect(outcome).toMatchObject({ statusCode: null, error: 'url must use port 443 (the default) or 8443', responseBody: null });
  });
});

/** A port nothing listens on (one that was free a moment ago). */
const closedPort = async () => {
  const server = createTcpServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
};

/** A TCP server on 127.0.0.1 doing `onConnection` with each connection; its port, and how to stop it. */
const tcpServer = async (onConnection: (socket: Socket) => void) => {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    onConnection(socket);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const stop = () =>
    new Promise<void>((done) => {
      server.close(() => done());
      for (const socket of sockets) socket.destroy();
    });
  return { port: (server.address() as AddressInfo).port, stop };
};

/** Addresses and ports must not reach the customer: no dotted quad, no host:port. */
const namesNoAddress = (text: string | null) => {
  expect(text).not.toMatch(/\d+\.\d+\.\d+\.\d+/);
  expect(text).not.toMatch(/:\d{2,5}\b/);
};

describe('coarse, bounded errors the customer reads (the detail is logged)', () => {
  it('connection refused: no address, no port; the detail in the log with the ids', async () => {
    asLocally();
    const port = await closedPort();
    const logged = vi.spyOn(logger, 'info').mockImplementation(() => undefined);
    try {
      const outcome = await postJson(`http://127.0.0.1:${port}/hook`, '{}', {}, { subscriptionId: 'sub-2', deliveryId: 'del-2' });
      expect(outcome).toMatchObject({ statusCode: null, error: 'connection refused' });
      namesNoAddress(outcome.error);
      expect(logged).toHaveBeenCalledWith(expect.any(String), expect.objectContaining({ subscriptionId: 'sub-2', deliveryId: 'del-2', code: 'ECONNREFUSED', detail: expect.stringContaining(`127.0.0.1:${port}`) }));
    } finally {
      logged.mockRestore();
    }
  });

  it('connection reset', async () => {
    asLocally();
    const server = await tcpServer((socket) => socket.destroy());
    try {
      const outcome = await postJson(`http://127.0.0.1:${server.port}/hook`, '{}', {});
      expect(outcome).toMatchObject({ statusCode: null, error: 'connection reset' });
    } finally {
      await server.stop();
    }
  });

  it('timed out', async () => {
    asLocally();
    process.env.WEBHOOK_TIMEOUT_SECONDS = '0.2';
    const server = await tcpServer(() => undefined); // accepts, never answers
    try {
      const outcome = await postJson(`http://127.0.0.1:${server.port}/hook`, '{}', {});
      expect(outcome.statusCode).toBeNull();
      expect(outcome.error).toMatch(/^timed out/);
      namesNoAddress(outcome.error);
    } finally {
      delete process.env.WEBHOOK_TIMEOUT_SECONDS;
      await server.stop();
    }
  });

  it('a TLS handshake with a receiver that does not speak TLS: its code only', async () => {
    asLocally();
    const server = await tcpServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    try {
      const outcome = await postJson(`https://127.0.0.1:${server.port}/hook`, '{}', {});
      expect(outcome.statusCode).toBeNull();
      expect(outcome.error).toMatch(/^(TLS handshake failed \([A-Z0-9_]+\)|connection reset)$/);
    } finally {
      await server.stop();
    }
  });

  it.each([
    ['ENOTFOUND', 'getaddrinfo ENOTFOUND receiver.example.com', 'host not found'],
    ['EAI_AGAIN', 'getaddrinfo EAI_AGAIN receiver.example.com', 'host not found (temporary DNS failure)'],
    ['ECONNREFUSED', 'connect ECONNREFUSED 10.1.2.3:5432', 'connection refused'],
    ['ETIMEDOUT', 'connect ETIMEDOUT 10.1.2.3:22', 'timed out while connecting'],
    ['ECONNRESET', 'read ECONNRESET', 'connection reset'],
    ['EHOSTUNREACH', 'connect EHOSTUNREACH 10.1.2.3:443', 'host unreachable'],
    ['EADDRREFUSED', "the receiver's address 10.1.2.3 is private, loopback, link-local or reserved (private)", refusedResolvedText],
    ['CERT_HAS_EXPIRED', 'certificate has expired', 'TLS handshake failed (CERT_HAS_EXPIRED)'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate', 'TLS handshake failed (DEPTH_ZERO_SELF_SIGNED_CERT)'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', `Hostname/IP does not match certificate's altnames: Host: receiver.example.com. is not in the cert's altnames: ${Array.from({ length: 5000 }, (_, i) => `DNS:internal-${i}.corp.example`).join(', ')}`, 'TLS handshake failed (ERR_TLS_CERT_ALTNAME_INVALID)'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'C0A7:error:0A00010B:SSL routines:ssl3_get_record:wrong version number', 'TLS handshake failed (ERR_SSL_WRONG_VERSION_NUMBER)'],
    ['EPROTO', 'write EPROTO 10.1.2.3:443', 'TLS handshake failed (EPROTO)'],
    ['ENETDOWN', 'connect ENETDOWN 10.1.2.3:443', 'host unreachable'],
    ['EWHATEVER', 'something about 10.1.2.3:8080', 'network error (EWHATEVER)'],
    [undefined, 'socket hang up 10.1.2.3:8080', 'network error'],
    ['not a code: 10.1.2.3:8080', 'whatever', 'network error'],
  ])('%s: %#', (code, message, expected) => {
    const text = networkErrorText(Object.assign(new Error(message), code === undefined ? {} : { code }));
    expect(text).toBe(expected);
    expect(text.length).toBeLessThanOrEqual(maxReasonLength);
  });
});

/**
 * A real TLS receiver on 127.0.0.1 whose certificate names thousands of (private) addresses, none of
 * them 127.0.0.1: Node's name-mismatch error lists every one of them (tens of KB). Trusted through
 * the global agent's `ca` for the name check's sake, restored afterwards.
 */
const openssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!openssl)("a receiver whose certificate names thousands of addresses (Node's error lists them all)", () => {
  let dir: string;
  let server: HttpsServer;
  let base: string;
  let cert: string;
  const names = Array.from({ length: 3000 }, (_, i) => `10.${Math.floor(i / 250)}.${i % 250}.${(i * 7) % 250}`);
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'webhook-tls-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=receiver.example',
      '-addext', `subjectAltName=${names.map((name) => `IP:${name}`).join(',')}`,
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    server = createTlsServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (_request, response) => response.end('{}'));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((done) => server.close(() => done()));
    rmSync(dir, { recursive: true, force: true });
  });
  const trusted = async <T>(run: () => Promise<T>): Promise<T> => {
    const before = globalAgent.options.ca;
    globalAgent.options.ca = cert;
    try {
      return await run();
    } finally {
      globalAgent.options.ca = before;
      if (before === undefined) delete globalAgent.options.ca;
    }
  };

  it("an attempt's error is the category and code only, within maxReasonLength; the whole message only in the log", async () => {
    asLocally();
    const logged = vi.spyOn(logger, 'info').mockImplementation(() => undefined);
    try {
      const outcome = await trusted(() => postJson(`${base}/hook`, '{}', {}, { deliveryId: 'del-3' }));
      expect(outcome).toMatchObject({ statusCode: null, error: 'TLS handshake failed (ERR_TLS_CERT_ALTNAME_INVALID)' });
      expect(outcome.error!.length).toBeLessThanOrEqual(maxReasonLength);
      expect(outcome.error).not.toContain(names[0]);
      expect(logged).toHaveBeenCalledWith(expect.any(String), expect.objectContaining({ deliveryId: 'del-3', code: 'ERR_TLS_CERT_ALTNAME_INVALID', detail: expect.stringContaining(names[0]!) }));
    } finally {
      logged.mockRestore();
    }
  });

  it('untrusted: the certificate verdict code only', async () => {
    asLocally();
    const outcome = await postJson(`${base}/hook`, '{}', {});
    expect(outcome).toMatchObject({ statusCode: null, error: 'TLS handshake failed (DEPTH_ZERO_SELF_SIGNED_CERT)' });
  });

  it("a handshake's reason (statusReason) is bounded and names no address", async () => {
    asLocally();
    const reason = await trusted(() => handshake(`${base}/hook`, 'org-1', ['whsec_' + Buffer.alloc(24, 1).toString('base64')], { subscriptionId: 'sub-4' }));
    expect(reason).toBeDefined();
    expect(reason!.length).toBeLessThanOrEqual(maxReasonLength);
    expect(reason).toContain('TLS handshake failed (ERR_TLS_CERT_ALTNAME_INVALID)');
    expect(reason).not.toContain(names[0]);
  });
});
