import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { webhookSettings } from '../platform/config';
import { logger } from '../platform/logger';
import { clip } from '../platform/text';

/** At most this much of a receiver's answer is read (and kept in the delivery log). */
export const maxResponseBytes = 1024;

/**
 * At most this many characters of any error or reason text the outbound path produces (an
 * attempt's error, a handshake's failure). Each attempt appends its error to the delivery item, so
 * an unbounded one (Node's certificate-name error lists every name on the certificate) could push
 * the item past DynamoDB's 400 KB; the API's fields hold at most limits.message characters.
 */
export const maxReasonLength = 500;

/** A reason text cut to maxReasonLength characters. */
export const clipReason = (text: string): string => clip(text, maxReasonLength);

/** The ports an https receiver may use: the default (443, written or not) and 8443. */
export const allowedHttpsPorts: readonly string[] = ['', '443', '8443'];

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

/** What the customer reads when the receiver's address is refused: the category, never the address. */
export const refusedLiteralText = 'url must not name a private, loopback, link-local or reserved address';
export const refusedResolvedText = "refused: the receiver's host resolves to a private, loopback, link-local or reserved address";

/**
 * Why a receiver URL is refused before any request; undefined when it is acceptable. Checked when a
 * subscription is created or changed and before every attempt. https only, on port 443 or 8443
 * (any other port would let a subscription aim connections at any service of any host); where
 * loopback receivers are allowed (the local stack), a loopback host may use http and any port.
 */
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
  const loopbackAllowed = isLoopbackHost && webhookSettings().allowLoopbackReceivers;
  if (url.protocol === 'https:') {
    if (isIP(host) !== 0 && refusedAddress(host)) return refusedLiteralText;
    if (!loopbackAllowed && !allowedHttpsPorts.includes(url.port)) return 'url must use port 443 (the default) or 8443';
    return undefined;
  }
  if (url.protocol === 'http:' && loopbackAllowed) return undefined;
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

/** A code as Node and OpenSSL write them (ECONNREFUSED, CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID): shown; anything else is not. */
const shortCode = (code: unknown): string | undefined => (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,63}$/.test(code) ? code : undefined);

/** The codes of a failed TLS handshake: OpenSSL's certificate verdicts and Node's TLS and SSL errors. */
const tlsCode = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|INVALID_CA$|INVALID_PURPOSE$|PATH_LENGTH_EXCEEDED$|HOSTNAME_MISMATCH$|EPROTO$)/;

/**
 * What the customer reads of a failed connection: a coarse category, never an address, a port or
 * the error's own message (which names them, and the names on a certificate). The detail is logged.
 */
export const networkErrorText = (error: NodeJS.ErrnoException): string => {
  const code = shortCode(error.code);
  switch (code) {
    case 'EADDRREFUSED':
      return refusedResolvedText;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'ENODATA':
      return 'host not found';
    case 'EAI_AGAIN':
      return 'host not found (temporary DNS failure)';
    case 'ETIMEDOUT':
    case 'ESOCKETTIMEDOUT':
      return 'timed out while connecting';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
    case 'ENETDOWN':
      return 'host unreachable';
    case undefined:
      return 'network error';
    default:
      return tlsCode.test(code) ? `TLS handshake failed (${code})` : `network error (${code})`;
  }
};

/** Who an attempt is for, for the server-side log only (subscriptionId, deliveryId, purpose). */
export type AttemptContext = Record<string, string>;

/** The receiver's origin for the log: scheme, host and port, never the path or query (they may carry a customer's token). */
const originOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return '(not a URL)';
  }
};

/**
 * POSTs a JSON body: no redirects followed (a 3xx is a failed attempt), the answer read up to
 * 1 KiB, the whole exchange bounded by the configured timeout. A failure's `error` is a coarse,
 * bounded text for the customer (networkErrorText); its detail goes to the log with `context`.
 */
export const postJson = (url: string, body: string, headers: Record<string, string>, context: AttemptContext = {}): Promise<AttemptOutcome> => {
  const started = Date.now();
  const at = new Date(started).toISOString();
  const settings = webhookSettings();
  const finish = (outcome: Omit<AttemptOutcome, 'at' | 'latencyMs'>): AttemptOutcome => ({
    at,
    latencyMs: Date.now() - started,
    ...outcome,
    error: outcome.error === null ? null : clipReason(outcome.error),
  });
  const refused = refusedUrl(url);
  if (refused) {
    logger.warn('Webhook receiver url refused', { ...context, receiver: originOf(url), reason: refused });
    return Promise.resolve(finish({ statusCode: null, error: refused, responseBody: null, retryAfterSeconds: null }));
  }
  const target = new URL(url);
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  const literalRefused = isIP(literal) ? refusedAddress(literal) : undefined;
  if (literalRefused) {
    logger.warn('Webhook receiver address refused', { ...context, receiver: target.origin, reason: literalRefused });
    return Promise.resolve(finish({ statusCode: null, error: refusedLiteralText, responseBody: null, retryAfterSeconds: null }));
  }

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
      () => settle({ statusCode: null, error: `timed out (no answer within the ${settings.timeoutMs} ms timeout)`, responseBody: null, retryAfterSeconds: null }),
      settings.timeoutMs,
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return; // the error of the request destroyed after its outcome
      const text = networkErrorText(error);
      // The detail (addresses, ports, certificate names) for the operator only.
      const detail = { ...context, receiver: target.origin, code: error.code ?? null, detail: clip(error.message, 2000) };
      if (error.code === 'EADDRREFUSED') logger.warn('Webhook receiver refused: its host resolves to a refused address', detail);
      else logger.info('Webhook attempt failed to connect', detail);
      settle({ statusCode: null, error: text, responseBody: null, retryAfterSeconds: null });
    });
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
