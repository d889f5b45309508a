import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { api, type ApiResponse, type RequestOptions } from './api';
import type { Json } from './json';
import { eventually, queueWaitMs } from './poll';

export interface Received {
  id: string;
  headers: IncomingHttpHeaders;
  body: string;
  event: { id: string; type: string; companyId: string | null; organizationId: string; occurredAt: string; data: Json };
  /** Verified by the standardwebhooks library and by the independent node:crypto check, per secret. */
  verifiedBy: { library: boolean[]; crypto: boolean[] };
}

/** The standardwebhooks library's verdict on a request with this secret. */
export const libraryVerifies = (secret: string, headers: IncomingHttpHeaders, body: string): boolean => {
  try {
    new Webhook(secret).verify(body, Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(headers[name] ?? '')])));
    return true;
  } catch {
    return false;
  }
};

/** An independent check of the Standard Webhooks scheme with node:crypto: one of the space-separated v1 signatures is HMAC-SHA256(id.timestamp.body). */
export const cryptoVerifies = (secret: string, headers: IncomingHttpHeaders, body: string): boolean => {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`).digest();
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .some((part) => {
      const given = Buffer.from(part.slice(3), 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
};

/**
 * A real receiver on 127.0.0.1 that verifies every request with the standardwebhooks library:
 * unverifiable requests get 401, the handshake's challenge is echoed, events are recorded. `mode`
 * makes it answer 503 (down), 410 (gone), hang past the timeout (slow), answer late but within it
 * (busy) or never (hold).
 */
export const startReceiver = async () => {
  const state = { secrets: [] as string[], mode: 'ok' as 'ok' | 'down' | 'gone' | 'slow' | 'busy' | 'hold', received: [] as Received[], refused: 0, verifications: 0, inFlight: 0, maxInFlight: 0 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const library = state.secrets.map((secret) => libraryVerifies(secret, request.headers, body));
      if (!library.some(Boolean)) {
        state.refused++;
        response.writeHead(401).end('bad signature');
        return;
      }
      const event = JSON.parse(body);
      if (event.type === 'webhook.verification') {
        state.verifications++;
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: event.data.challenge }));
        return;
      }
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      response.on('close', () => state.inFlight--);
      state.received.push({ id: String(request.headers['webhook-id']), headers: request.headers, body, event, verifiedBy: { library, crypto: state.secrets.map((secret) => cryptoVerifies(secret, request.headers, body)) } });
      if (state.mode === 'down') response.writeHead(503).end('down for maintenance');
      else if (state.mode === 'gone') response.writeHead(410).end('gone');
      else if (state.mode === 'slow') setTimeout(() => response.writeHead(200).end('late'), 4000);
      else if (state.mode === 'busy') setTimeout(() => response.writeHead(200).end('ok'), 700);
      else if (state.mode === 'hold') return; // never answers (its sender is killed meanwhile)
      else response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, state, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

export { eventually } from './poll';

/**
 * POST .../verify as its description tells a client to: a handshake queued by a create or a url
 * change may run at the same moment and change the subscription, and the verify then answers 409
 * subscription_changed without storing its outcome; it is sent again until none overlapped.
 */
export const verifySubscription = async (subscriptionId: string, options: RequestOptions): Promise<ApiResponse> =>
  eventually(async () => {
    const answer = await api('POST', `/v1/webhooks/subscriptions/${subscriptionId}/verify`, options);
    return !(answer.status === 409 && answer.body?.reason === 'subscription_changed') && answer;
  }, queueWaitMs, `a verify of ${subscriptionId} that no queued handshake overlapped`);
