import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
import { fetchAccessToken } from '../../client';
import { apiRequest, problemText } from './api-request';
import { defaultStackFile, readStackFile, failTool, isConnectionRefused, parseToolArgs, ToolError, ToolUsageError, withValuesJoined } from './stack-env';

/**
 * `npm run smoke`: checks a deployment end to end over HTTP, as an integrator would use it: the
 * public document, a token, whoami, a company, an import of a chart and of GL lines through the
 * queue and the worker, the trial balance they make, the job, the event feed; then removes what it
 * made. One line per step; exit 1 at the first failure.
 */
export const smokeUsage = (): string =>
  [
    'Usage: npm run -s smoke -- [flags]',
    '',
    'Runs a short end-to-end check against a deployment: token, whoami, a company of its own, an',
    'import of a chart and of GL lines (through the queue and the import worker), the trial balance,',
    'the job, the event feed; then deletes the company. Prints one line per step with its time;',
    'exits 1 at the first step that fails (the company is deleted all the same) or when the company',
    'cannot be deleted (its id is printed), 2 for a command line it cannot read.',
    '',
    'Against the local stack (default: the stack file and its seeded system client a-system):',
    '  --stack-file F        the local stack file (default $LEDGER_STACK_FILE, else .local/stack.json)',
    '  --client NAME         another client of the stack file',
    'Against a deployment (stack outputs ApiUrl and TokenUrl, and a system client of yours):',
    '  --base-url URL --token-url URL --client-id ID --client-secret SECRET',
    '  (or the secret in the environment variable LEDGER_CLIENT_SECRET instead of --client-secret,',
    '  out of shell history and the process list)',
    '  (the client needs companies:write, imports:write, ledger:read and webhooks:manage)',
    '',
    '  --timeout S           how long to wait for the import worker (default 120)',
    '  --help, -h            this text',
  ].join('\n');

interface Target {
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Read from a stack file: a refused connection most likely means the local stack has stopped. */
  local: boolean;
}

/** The environment variable that may hold the client secret of a deployment (kept out of shell history and ps). */
const clientSecretVariable = 'LEDGER_CLIENT_SECRET';

const targetOf = (values: Record<string, string | boolean | undefined>): Target => {
  const flags = ['base-url', 'token-url', 'client-id', 'client-secret'].filter((name) => values[name] !== undefined);
  if (flags.length > 0) {
    const clientSecret = values['client-secret'] ?? process.env[clientSecretVariable];
    if (values['base-url'] === undefined || values['token-url'] === undefined || values['client-id'] === undefined || !clientSecret) {
      throw new ToolUsageError(`--base-url, --token-url, --client-id and --client-secret go together (the secret may come from ${clientSecretVariable} instead)\n\n${smokeUsage()}`);
    }
    return { baseUrl: String(values['base-url']).replace(/\/+$/, ''), tokenUrl: String(values['token-url']), clientId: String(values['client-id']), clientSecret: String(clientSecret), local: false };
  }
  const file = typeof values['stack-file'] === 'string' ? values['stack-file'] : process.env.LEDGER_STACK_FILE || defaultStackFile;
  const info = readStackFile(file);
  const client = info.clients.find((candidate) => candidate.name === (values.client ?? 'a-system'));
  if (!client) throw new ToolError(`No client ${String(values.client ?? 'a-system')} in ${file}`);
  return { baseUrl: info.baseUrl, tokenUrl: info.authUrl, clientId: client.clientId, clientSecret: client.clientSecret, local: true };
};

class StepFailed extends Error {}

const main = async (): Promise<number> => {
  const { values } = parseToolArgs({
    // A client secret may start with a dash.
    args: withValuesJoined(process.argv.slice(2), ['--stack-file', '--client', '--base-url', '--token-url', '--client-id', '--client-secret', '--timeout']),
    options: {
      'stack-file': { type: 'string' },
      client: { type: 'string' },
      'base-url': { type: 'string' },
      'token-url': { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      timeout: { type: 'string', default: '120' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }, smokeUsage());
  if (values.help) {
    console.log(smokeUsage());
    return 0;
  }
  const timeoutMs = Number(values.timeout) * 1000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > 900_000) throw new ToolUsageError(`--timeout takes seconds from 1 to 900\n\n${smokeUsage()}`);
  const target = targetOf(values);
  console.log(`Smoke test of ${target.baseUrl}`);

  let token = '';
  let companyId: string | undefined;
  let cleanupFailed = false;
  const started = Date.now();
  // A refused connection is a bare "fetch failed": say what it most likely means.
  const reason = (error: unknown): string =>
    isConnectionRefused(error)
      ? `cannot reach ${target.baseUrl} or ${target.tokenUrl}: ${target.local ? 'is the local stack still running? Start it with npm start.' : 'the connection was refused.'}`
      : (error as Error).message;
  /** Runs one step and prints its line; `name` may be a function, to name what the step made. */
  const step = async <T>(name: string | (() => string), run: () => Promise<T>): Promise<T> => {
    const at = Date.now();
    const nameOf = () => (typeof name === 'string' ? name : name());
    try {
      const result = await run();
      console.log(`  ok    ${nameOf()} (${Date.now() - at} ms)`);
      return result;
    } catch (error) {
      console.log(`  FAIL  ${nameOf()}: ${reason(error)}`);
      throw new StepFailed(nameOf());
    }
  };
  const call = async (method: string, path: string, expected: number, body?: unknown): Promise<Record<string, unknown>> => {
    const answer = await apiRequest(target.baseUrl, token || undefined, method, path, body);
    if (answer.status !== expected) throw new Error(`${method} ${path} answered ${answer.status}, expected ${expected}: ${problemText(answer)}`);
    return (answer.body as Record<string, unknown> | undefined) ?? {};
  };
  const importAndWait = async (kind: string, body: unknown) => {
    const accepted = await call('POST', `/v1/companies/${companyId}/imports/${kind}`, 202, body);
    for (const deadline = Date.now() + timeoutMs; ; ) {
      const record = await call('GET', `/v1/companies/${companyId}/imports/${String(accepted.id)}`, 200);
      if (record.status === 'succeeded') {
        if (record.rowsFailed !== 0) throw new Error(`import ${String(record.id)} succeeded with ${String(record.rowsFailed)} failed rows`);
        return record;
      }
      if (record.status === 'failed') throw new Error(`import ${String(record.id)} failed: ${JSON.stringify(record.failure ?? record)}`);
      if (Date.now() > deadline) throw new Error(`import ${String(record.id)} still ${String(record.status)} after ${timeoutMs / 1000} s (is the import worker running?)`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  };

  try {
    await step('the OpenAPI document is served', async () => {
      const document = await call('GET', '/v1/openapi.json', 200);
      if (typeof document.openapi !== 'string') throw new Error('no openapi version in the document');
    });
    await step('a token (client credentials)', async () => {
      token = await fetchAccessToken(target.tokenUrl, target.clientId, target.clientSecret);
    });
    await step('whoami: a system client', async () => {
      const me = await call('GET', '/v1/whoami', 200);
      if (me.mode !== 'SYSTEM') throw new Error(`the client is ${String(me.mode)}, not a system client`);
    });
    await step(() => `a company of its own${companyId ? ` (${companyId})` : ''}`, async () => {
      const company = await call('POST', '/v1/companies', 201, { displayName: `Smoke test ${new Date().toISOString().slice(0, 19)}`, accountingSystem: 'Api' });
      companyId = String(company.id);
    });
    const chart = await step('an import of a chart (queue and import worker)', () =>
      importAndWait('accounts', {
        year: 2026,
        accounts: [
          { accountCode: '1920', accountDescription: 'Bank', accountCategory: 'Balance' },
          { accountCode: '3000', accountDescription: 'Sales', accountCategory: 'Result' },
        ],
      }),
    );
    await step('an import of GL lines', () =>
      importAndWait('general-ledger-lines', {
        year: 2026,
        lines: [
          { id: 'SMOKE-1', accountCode: '1920', amount: '125.50', period: 1, transactionId: 'S-1', transactionDate: '2026-01-15', description: 'Smoke test' },
          { id: 'SMOKE-2', accountCode: '3000', amount: '-125.50', period: 1, transactionId: 'S-1', transactionDate: '2026-01-15', description: 'Smoke test' },
        ],
      }),
    );
    await step('the trial balance holds the lines and sums to zero', async () => {
      const balance = (await call('GET', `/v1/companies/${companyId}/trial-balance?year=2026`, 200)) as { accounts?: { accountCode: string }[]; totals?: { closingBalance?: unknown } };
      const codes = (balance.accounts ?? []).map((account) => account.accountCode);
      if (codes.join(',') !== '1920,3000') throw new Error(`the trial balance lists ${codes.join(', ') || 'no accounts'}, not 1920 and 3000`);
      // Amounts are exact decimals; the total of a balanced import is zero whatever its notation.
      if (!/^-?0(\.0+)?$/.test(String(balance.totals?.closingBalance))) throw new Error(`the trial balance totals ${String(balance.totals?.closingBalance)}, not 0`);
    });
    await step('the job of the import succeeded', async () => {
      const job = await call('GET', `/v1/jobs/${String(chart.jobId)}`, 200);
      if (job.status !== 'succeeded') throw new Error(`job ${String(job.id)} is ${String(job.status)}`);
    });
    await step('the event feed has the company’s events (outbox, relay)', async () => {
      // The feed is the organization's, in order: page on with next_cursor, then poll from the
      // last sequence seen (after) until the company's job.succeeded shows up.
      const types: string[] = [];
      let after = 0;
      let cursor: string | null = null;
      for (const deadline = Date.now() + timeoutMs; ; ) {
        const feed = await call('GET', `/v1/events?company_id=${companyId}&page_size=20&${cursor ? `cursor=${encodeURIComponent(cursor)}` : `after=${after}`}`, 200);
        const events = (feed.data as { type: string; sequence: number }[] | undefined) ?? [];
        types.push(...events.map((event) => event.type));
        if (types.includes('job.succeeded')) return;
        after = events.at(-1)?.sequence ?? after;
        cursor = (feed.pagination as { next_cursor: string | null } | undefined)?.next_cursor ?? null;
        if (cursor) continue;
        if (Date.now() > deadline) throw new Error(`no job.succeeded in the feed after ${timeoutMs / 1000} s (seen: ${types.join(', ') || 'none'}; is the relay running?)`);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    });
  } catch (error) {
    if (!(error instanceof StepFailed)) throw error;
    return 1;
  } finally {
    if (companyId) {
      const left = `company ${companyId} is left behind: delete it with DELETE /v1/companies/${companyId}`;
      // A company it cannot delete fails the run, whatever the steps before it did.
      await step('the company is deleted again', () =>
        call('DELETE', `/v1/companies/${companyId}`, 200, { reason: 'smoke test' }).catch((error: unknown) => {
          throw new Error(`${reason(error)} (${left})`);
        }),
      ).catch(() => {
        cleanupFailed = true;
      });
    }
  }
  if (cleanupFailed) return 1;
  console.log(`All steps passed in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  return 0;
};

main().then(
  (code) => process.exit(code),
  (error: unknown) => failTool(error),
);
