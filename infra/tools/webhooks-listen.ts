import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { fetchAccessToken } from '../../client';
import { apiRequest, problemText } from './api-request';
import { readStackFile, failTool, isConnectionRefused, parseToolArgs, ToolError, ToolUsageError, defaultStackFile, withValuesJoined } from './stack-env';

/**
 * `npm run webhooks:listen`: a webhook receiver on this machine, like `stripe listen`. It answers
 * the handshake, verifies every delivery with the Standard Webhooks scheme, prints one line per
 * event, subscribes itself (or reuses its subscription) and removes the subscription on Ctrl-C.
 */
export const listenUsage = (): string =>
  [
    'Usage: npm run webhooks:listen -- [flags]',
    '',
    'Starts a receiver on 127.0.0.1, subscribes it to the events you name and prints one line per',
    'verified delivery: time, type, event id, company and the link that fetches what changed.',
    'The subscription is removed on Ctrl-C (--keep leaves it; exit 1, with the call to make, when it',
    'cannot be). It works against the local stack (npm start): the API and token URLs come from the',
    'stack file. --public-url names another URL for the API to call (a tunnel to --port).',
    '',
    'Flags:',
    '  --events a,b          event types to receive (default *: every type)',
    '  --companies a,b       only events of these companies (default: every company within reach)',
    '  --port N              the receiver port (default 0: a free one)',
    '  --public-url URL      the URL the API calls (default http://127.0.0.1:<port>/webhooks)',
    '  --client NAME         a client of the stack file to act as (default a-system)',
    '  --client-id ID        or a client id and --client-secret of another system client',
    '  --client-secret S',
    `  --stack-file F        the local stack's contract file (default ${defaultStackFile})`,
    '  --json                print each event as one JSON line instead',
    '  --keep                keep the subscription when stopping',
    '  --help, -h            this text',
  ].join('\n');

interface Subscription {
  id: string;
  url: string;
  status: string;
  secret?: string;
  statusReason?: string | null;
}

const main = async () => {
  const { values } = parseToolArgs({
    // A client secret may start with a dash.
    args: withValuesJoined(process.argv.slice(2), ['--events', '--companies', '--port', '--public-url', '--client', '--client-id', '--client-secret', '--stack-file']),
    options: {
      events: { type: 'string', default: '*' },
      companies: { type: 'string' },
      port: { type: 'string', default: '0' },
      'public-url': { type: 'string' },
      client: { type: 'string', default: 'a-system' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      'stack-file': { type: 'string' },
      json: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }, listenUsage());
  if (values.help) return console.log(listenUsage());
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ToolUsageError(`--port takes a port number from 0 to 65535\n\n${listenUsage()}`);
  const eventTypes = list(values.events) ?? ['*'];
  const companyIds = list(values.companies);

  const info = readStackFile(values['stack-file']);
  const seeded = info.clients.find((client) => client.name === values.client);
  const clientId = values['client-id'] ?? seeded?.clientId;
  const clientSecret = values['client-secret'] ?? seeded?.clientSecret;
  if (!clientId || !clientSecret) throw new ToolError(`No client "${values.client}" in the stack file; give --client-id and --client-secret`);
  const api = apiOf(info.baseUrl, info.authUrl, clientId, clientSecret);

  const log = (message: string) => console.error(`[listen] ${message}`);
  const state: { secret?: string; subscriptionId?: string } = {};

  const server = createServer((request, response) => {
    void receive(request, response, state.secret, values.json, log);
  });

  // Ctrl-C at any time: the subscription being made (if any) is awaited, then deleted (or kept).
  let stopping = false;
  let subscribing: Promise<unknown> = Promise.resolve();
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    await subscribing.catch(() => undefined);
    const id = state.subscriptionId;
    let code = 0;
    if (!id) log(`${signal}: stopped before a subscription was made`);
    else if (values.keep) log(`${signal}: kept subscription ${id}`);
    else {
      await api.send('DELETE', `/v1/webhooks/subscriptions/${id}`).then(
        () => log(`${signal}: deleted subscription ${id}`),
        (error: unknown) => {
          code = 1;
          log(`${signal}: could not delete subscription ${id}: ${(error as Error).message}`);
          log(`it is left behind: delete it with DELETE /v1/webhooks/subscriptions/${id}`);
        },
      );
    }
    server.close();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  await new Promise<void>((ready, fail) => {
    server.once('error', (error: NodeJS.ErrnoException) => fail(new ToolError(error.code === 'EADDRINUSE' ? `port ${port} is already in use` : error.message)));
    server.listen(port, '127.0.0.1', () => ready());
  });
  const url = values['public-url'] ?? `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  log(`receiving at ${url}`);

  const subscribe = async (): Promise<Subscription> => {
    const existing = (await api.all<Subscription>('/v1/webhooks/subscriptions')).find((subscription) => subscription.url === url);
    let subscription: Subscription;
    if (existing) {
      state.subscriptionId = existing.id;
      // Reused: the secret is shown only at creation, so a new one is made (the old one keeps signing for a while).
      await api.send('PATCH', `/v1/webhooks/subscriptions/${existing.id}`, { eventTypes, companyIds: companyIds ?? null });
      const rotated = await api.send<{ secret: string }>('POST', `/v1/webhooks/subscriptions/${existing.id}/rotate-secret`, {});
      state.secret = rotated.secret;
      subscription = existing;
      log(`reusing subscription ${existing.id}`);
      if (existing.status !== 'active') await api.send('POST', `/v1/webhooks/subscriptions/${existing.id}/verify`, {});
    } else {
      // The secret is set before the handshake can arrive: the API runs it after answering.
      subscription = await api.send<Subscription>('POST', '/v1/webhooks/subscriptions', {
        url,
        eventTypes,
        ...(companyIds && { companyIds }),
        description: 'npm run webhooks:listen',
      });
      state.subscriptionId = subscription.id;
      state.secret = subscription.secret;
      log(`created subscription ${subscription.id} for ${eventTypes.join(', ')}`);
    }
    return subscription;
  };
  const made = subscribe();
  subscribing = made;
  const subscription = await made;

  // Says when the handshake has passed (or why not), within a minute.
  for (let waited = 0; waited < 60_000 && !stopping; waited += 500) {
    const current = await api.send<Subscription>('GET', `/v1/webhooks/subscriptions/${subscription.id}`);
    if (current.status === 'active') return log('subscription active: waiting for events (Ctrl-C stops)');
    if (current.status === 'disabled') return log(`subscription disabled: ${current.statusReason ?? 'the handshake failed'}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  log('the handshake has not passed yet: is the API able to reach this receiver?');
};

const list = (value: string | undefined): string[] | undefined => {
  const items = value?.split(',').map((item) => item.trim()).filter(Boolean);
  return items?.length ? items : undefined;
};

/** Verifies one request; echoes the handshake's challenge; prints an event. Unverifiable requests get 401. */
const receive = async (request: IncomingMessage, response: ServerResponse, secret: string | undefined, json: boolean, log: (message: string) => void) => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 1024 * 1024) return void response.writeHead(413).end();
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks).toString('utf8');
  const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(request.headers[name] ?? '')]));
  let event: { id: string; type: string; occurredAt: string; companyId: string | null; data: { link?: string; challenge?: string } };
  try {
    if (!secret) throw new Error('no secret yet');
    event = new Webhook(secret).verify(body, headers) as typeof event;
  } catch {
    // The handshake's forged request lands here on purpose: a receiver must refuse what it cannot verify.
    response.writeHead(401, { 'content-type': 'text/plain' }).end('signature did not verify');
    return;
  }
  if (event.type === 'webhook.verification') {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: event.data.challenge }));
    log('handshake answered');
    return;
  }
  response.writeHead(204).end();
  if (json) console.log(body);
  else console.log([event.occurredAt, event.type.padEnd(24), event.id, `company ${event.companyId ?? '-'}`, event.data.link ?? ''].join('  '));
};

/** The API over HTTP with a client-credentials token (a new one before the hour a token lasts is up). */
const apiOf = (baseUrl: string, tokenUrl: string, clientId: string, clientSecret: string) => {
  let token: { value: string; fetchedAt: number } | undefined;
  // A refused connection is a bare "fetch failed": say what it most likely means.
  const failure = (error: unknown): unknown =>
    isConnectionRefused(error) ? new ToolError(`Cannot reach ${baseUrl} or ${tokenUrl}: is the local stack still running? Start it with npm start.`) : error;
  const bearer = async () => {
    if (!token || Date.now() - token.fetchedAt > 50 * 60_000) {
      const value = await fetchAccessToken(tokenUrl, clientId, clientSecret).catch((error: unknown) => {
        throw isConnectionRefused(error) ? failure(error) : new ToolError((error as Error).message);
      });
      token = { value, fetchedAt: Date.now() };
    }
    return token.value;
  };
  const send = async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
    const answer = await apiRequest(baseUrl, await bearer(), method, path, body).catch((error: unknown) => {
      throw failure(error);
    });
    if (answer.status >= 300) throw new ToolError(`${method} ${path} answered ${answer.status}: ${problemText(answer)}`);
    return answer.body as T;
  };
  const all = async <T>(path: string): Promise<T[]> => {
    const items: T[] = [];
    for (let cursor: string | null = null, pages = 0; pages < 100; pages++) {
      const page: { data: T[]; pagination: { next_cursor: string | null } } = await send('GET', `${path}?page_size=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      items.push(...page.data);
      cursor = page.pagination.next_cursor;
      if (!cursor) break;
    }
    return items;
  };
  return { send, all };
};

main().catch((error: unknown) => failTool(error, '[listen] '));
