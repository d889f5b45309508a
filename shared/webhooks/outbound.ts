import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
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

/** Addresses no receiver may have on AWS: private, loopback, link-local (the metadata service), multicast, reserved. */
const forbidden = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24],
  ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) forbidden.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96]] as const) {
  forbidden.addSubnet(network, prefix, 'ipv6');
}
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

const familyOf = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

/**
 * Why a resolved address may not be called; undefined when it may. An IPv4-mapped IPv6 address
 * (::ffff:a.b.c.d) is judged as its IPv4 address (a ::ffff:0:0/96 rule would match every IPv4 address).
 */
export const refusedAddress = (candidate: string): string | undefined => {
  const address = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(candidate)?.[1] ?? candidate;
  if (webhookSettings().allowLoopbackReceivers && loopback.check(address, familyOf(address))) return undefined;
  return forbidden.check(address, familyOf(address)) ? `the receiver's address ${candidate} is private, loopback, link-local or reserved` : undefined;
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
  const isLoopbackHost = host === 'localhost' || (isIP(host) !== 0 && loopback.check(host, familyOf(host)));
  if (url.protocol === 'https:') return isIP(host) !== 0 ? refusedAddress(host) : undefined;
  if (url.protocol === 'http:' && isLoopbackHost && webhookSettings().allowLoopbackReceivers) return undefined;
  return webhookSettings().allowLoopbackReceivers ? 'url must use https (plain http only on a loopback address here)' : 'url must use https';
};

/**
 * Resolves, then checks every address before connecting (so a name that resolves to a private
 * address is refused at connection time, whatever it resolved to when the subscription was made).
 */
const checkedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 4);
    const list = addresses as LookupAddress[];
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
        lookup: checkedLookup,
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
