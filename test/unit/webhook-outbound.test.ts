import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LookupAddress } from 'node:dns';
import { checkedLookup, maxResponseBytes, postJson, refusedAddress, refusedUrl, type Resolver } from '../../shared/webhooks/outbound';

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
