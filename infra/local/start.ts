import '../tools/node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const usage = `Usage: npm start [-- options]

Starts the whole service on 127.0.0.1: API gateway and handlers, identity provider, DynamoDB Local,
SQS and S3 stand-ins, seeded with demo organizations, clients, people and books. Writes what a
client needs (base URL, token URL, client ids and secrets) to .local/stack.json.

Options:
  --port N        API port (default 3000, or $PORT; 0 picks a free one)
  --auth-port N   identity provider port (default 3001, or $AUTH_PORT; 0 picks a free one)
  --persist       keep data under .local/data between runs (default: in memory)
  --fresh         with --persist: delete the kept data first
  -h, --help      print this help`;

/** `npm start [-- --persist] [-- --fresh] [-- --port N]`: the whole service on 127.0.0.1. */
const parsed = (() => {
  try {
    return parseArgs({
      options: {
        persist: { type: 'boolean', default: false },
        fresh: { type: 'boolean', default: false },
        port: { type: 'string', default: process.env.PORT ?? '3000' },
        'auth-port': { type: 'string', default: process.env.AUTH_PORT ?? '3001' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
})();
const { values } = parsed;
if (values.help) {
  console.log(usage);
  process.exit(0);
}
// --fresh alone would wipe the kept data and then run in memory: refused, as the usage says.
if (values.fresh && !values.persist) {
  console.error('--fresh only applies with --persist (it empties the kept data in .local/data)');
  process.exit(2);
}
const portOption = (name: 'port' | 'auth-port'): number => {
  const port = Number(values[name]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--${name} takes a port number from 0 to 65535, not "${values[name]}"\n\n${usage}`);
    process.exit(2);
  }
  return port;
};
const [port, authPort] = [portOption('port'), portOption('auth-port')];

// The stack's modules load once the options are known: usage and option errors answer at once.
const [{ accessLine, installReadableLogs }, { startLocalStack }] = await Promise.all([import('./log-format'), import('./stack')]);
// One readable line per request instead of the handlers' JSON records (JSON stays the format on Lambda).
installReadableLogs();

const started = Date.now();
const log = (message: string) => console.log(`[local] ${message}`);
const stack = await startLocalStack({
  port,
  authPort,
  persist: values.persist,
  fresh: values.fresh,
  outboxSweepEverySeconds: 300,
  idlePollCapMs: 2000, // idle pollers back off to a poll every 2 s (a change waits at most that long)
  onProgress: log,
  onRequest: (entry) => console.log(accessLine(entry)),
}).catch((error: unknown) => {
  console.error(`[local] failed to start: ${(error as Error).message}`);
  process.exit(1);
});

const stackFile = join(process.cwd(), '.local', 'stack.json');
mkdirSync(join(process.cwd(), '.local'), { recursive: true });
writeFileSync(stackFile, `${JSON.stringify(stack.info, null, 2)}\n`, { mode: 0o600 });

const client = stack.info.clients.find((c) => c.name === 'a-system')!;
console.log(`
Accounting Ledger Integration Service — local stack ready in ${((Date.now() - started) / 1000).toFixed(1)} s
  Base URL   ${stack.info.baseUrl}   (paths start with /v1; reference ${stack.info.baseUrl}/docs, OpenAPI ${stack.info.baseUrl}/v1/openapi.json)
  Token URL  ${stack.info.authUrl}
  Sign-in    ${stack.info.interactive.authorizationUrl}   (authorization code + PKCE; public client ${stack.info.interactive.clientId}, redirect ${stack.info.interactive.redirectUris.join(', ')} on any port)
  Data       ${values.persist ? 'persisted under .local/data' : 'in memory (use --persist to keep it)'}
  Contract   ${stackFile}

People (sign in with e-mail and password):
${stack.info.people.map((person) => `  ${person.name.padEnd(14)} ${person.email.padEnd(32)} ${person.password.padEnd(20)} ${person.access}`).join('\n')}
  Per-user API client of ${stack.info.people[0]?.name ?? 'the accountant'}: a-accountant (${stack.info.clients.find((c) => c.name === 'a-accountant')?.clientId ?? '-'}) in ${stackFile}

Try it:
  TOKEN=$(curl -s -X POST ${stack.info.authUrl} -d grant_type=client_credentials -d client_id=${client.clientId} -d client_secret=${client.clientSecret} | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')
  curl -s ${stack.info.baseUrl}/v1/companies -H "Authorization: Bearer $TOKEN"

Ctrl-C stops everything.`);

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping`);
  stack
    .stop()
    .then(() => process.exit(0))
    .catch(() => process.exit(1));
};
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
