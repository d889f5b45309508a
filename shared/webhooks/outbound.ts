import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { webhookSettings } from '../platform/config';

/** At most this much of a receiver's answer is read (and kept in the delivery log). */
export const maxResponseBytes = 1024;

/** One attempt's outcome, as the delivery log keeps it. */
export interface AttemptOutcome {
  at: string;
  statusCode: number | null;
  /** Network error, timeout or refused address; null when the receiver answered. */
  error: string | null;
  latencyMs: number;
  /** The first 1 KiB of the answer (UTF-8). */
  responseBody: string | null;
  /** Seconds from a Retry-After header, when given. */
  retryAfterSeconds: number | null;
}

/** IPv6 addresses whose last 32 bits are an IPv4 address the traffic goes to: IPv4-mapped, IPv4-translated, NAT64's well-known prefix. */
const wellKnownNat64 = ipaddr.IPv6.parse('64:ff9b::');
const embeddedIpv4 = (address: ipaddr.IPv6): ipaddr.IPv4 | undefined => {
  const range = address.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || (range === 'rfc6052' && address.match(wellKnownNat64, 96))) return new ipaddr.IPv4(address.toByteArray().slice(12));
  return undefined;
};
/** IPv4-compatible addresses (::a.b.c.d, deprecated); ipaddr.js has no name for them. */
const ipv4Compatible = ipaddr.IPv6.parse('::');

/**
 * Parses an address as Node connects to it. IPv6 goes through the WHATWG URL parser first, which
 * writes it in hex: ipaddr.js reads the dotted `::a.b.c.d` (IPv4-compatible) as `::ffff:a.b.c.d`.
 */
const parseAddress = (candidate: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined => {
  try {
    if (isIP(candidate) === 4) return ipaddr.IPv4.parse(candidate);
    if (isIP(candidate) === 6) return ipaddr.IPv6.parse(new URL(`http://[${candidate}]/`).hostname.slice(1, -1));
  } catch {
    // a zone id, or anything else that is not a plain address
  }
  return undefined;
};

/** The loopback addresses a local stack may call (127.0.0.0/8, ::1, and 127.x as IPv4-mapped). */
const isLoopback = (address: ipaddr.IPv4 | ipaddr.IPv6) =>
  (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address).range() === 'loopback';

/**
 * Why an address is not a public unicast one; undefined when it is. The ranges are ipaddr.js's
 * `range()` names: anything but `unicast` is refused (private, loopback, link-local (the metadata
 * service), carrier-grade NAT, multicast, reserved, unique-local, 6to4, Teredo, NAT64's local-use
 * prefix, ...). An IPv6 address carrying an IPv4 address in its last 32 bits is judged as that
 * IPv4 address; IPv4-compatible ones are refused.
 */
const notPublic = (address: ipaddr.IPv4 | ipaddr.IPv6): string | undefined => {
  if (address.kind() === 'ipv6') {
    const embedded = embeddedIpv4(address as ipaddr.IPv6);
    if (embedded) return embedded.range() === 'unicast' ? undefined : `embeds ${embedded.toString()}: ${embedded.range()}`;
    if (address.range() === 'unicast' && address.match(ipv4Compatible, 96)) return 'IPv4-compatible';
  }
  return address.range() === 'unicast' ? undefined : address.range();
};

/**
 * Why a resolved address may not be called; undefined when it may. The one judge of every receiver
 * address: the url's literal host when a subscription is created or changed, and every address its
 * name resolves to at each connection (so DNS rebinding is caught).
 */
export const refusedAddress = (candidate: string): string | undefined => {
  const address = parseAddress(candidate);
  if (!address) return `the receiver's address ${candidate} is not a plain IP address`;
  if (webhookSettings().allowLoopbackReceivers && isLoopback(address)) return undefined;
  const why = notPublic(address);
  return why ? `the receiver's address ${candidate} is private, loopback, link-local or reserved (${why})` : undefined;
};

/** Why a receiver URL is refused before any request; undefined when it is acceptable. */
export const refusedUrl = (value: string): string | undefined => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'url must be an absolute URL';
  }
  if (url.username || url.password) return 'url must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host) !== 0 ? parseAddress(host) : undefined;
  const isLoopbackHost = host === 'localhost' || (literal !== undefined && isLoopback(literal));
  if (url.protocol === 'https:') return isIP(host) !== 0 ? refusedAddress(host) : undefined;
  if (url.protocol === 'http:' && isLoopbackHost && webhookSettings().allowLoopbackReceivers) return undefined;
  return webhookSettings().allowLoopbackReceivers ? 'url must use https (plain http only on a loopback address here)' : 'url must use https';
};

/** A resolver of every address of a name (node:dns lookup with `all`). */
export type Resolver = (hostname: string, options: LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/**
 * The `lookup` of every delivery's connection: resolves, then judges every address before
 * connecting (so a name that resolves to a refused address is refused at connection time, whatever
 * it resolved to when the subscription was made).
 */
export const checkedLookup =
  (resolve: Resolver = dnsLookup): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, list) => {
      if (error) return callback(error, '', 4);
      if (list.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 4);
      const refused = list.map((entry) => refusedAddress(entry.address)).find(Boolean);
      if (refused) return callback(Object.assign(new Error(refused), { code: 'EADDRREFUSED' }), '', 4);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };

/**
 * POSTs a JSON body: no redirects followed (a 3xx is a failed attempt), the answer read up to
 * 1 KiB, the whole exchange bounded by the configured timeout.
 */
export const postJson = (url: string, body: string, headers: Record<string, string>): Promise<AttemptOutcome> => {
  const started = Date.now();
  const at = new Date(started).toISOString();
  const settings = webhookSettings();
  const finish = (outcome: Omit<AttemptOutcome, 'at' | 'latencyMs'>): AttemptOutcome => ({ at, latencyMs: Date.now() - started, ...outcome });
  const refused = refusedUrl(url);
  if (refused) return Promise.resolve(finish({ statusCode: null, error: refused, responseBody: null, retryAfterSeconds: null }));
  const target = new URL(url);
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) && refusedAddress(literal)) return Promise.resolve(finish({ statusCode: null, error: refusedAddress(literal)!, responseBody: null, retryAfterSeconds: null }));

  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: Omit<AttemptOutcome, 'at' | 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(finish(outcome));
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'ledger-webhooks/1' },
        lookup: checkedLookup(),
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () =>
          settle({
            statusCode: response.statusCode ?? null,
            error: null,
            responseBody: Buffer.concat(chunks).subarray(0, maxResponseBytes).toString('utf8'),
            retryAfterSeconds: retryAfter(response.headers['retry-after']),
          });
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= maxResponseBytes) done();
        });
        response.on('end', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(
      () => settle({ statusCode: null, error: `timeout after ${settings.timeoutMs} ms`, responseBody: null, retryAfterSeconds: null }),
      settings.timeoutMs,
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      settle({ statusCode: null, error: `${error.code ?? 'network error'}: ${error.message}`, responseBody: null, retryAfterSeconds: null }),
    );
    request.end(body);
  });
};

/** Retry-After as seconds (delta-seconds or an HTTP date); null when absent or unreadable. */
const retryAfter = (value: string | undefined): number | null => {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.round((date - Date.now()) / 1000));
};
