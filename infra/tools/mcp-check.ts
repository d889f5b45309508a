import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { defaultStackFile, readStackFile, failTool, parseToolArgs, ToolError } from './stack-env';

/**
 * `npm run mcp:check`: the official MCP conformance suite (@modelcontextprotocol/conformance,
 * its server scenarios that apply to a tools-only server) and the MCP Inspector's CLI
 * (@modelcontextprotocol/inspector-cli: lists the tools and calls one) against the local stack's
 * MCP endpoint, headless. Neither tool can send a bearer token, so they talk to a loopback proxy
 * that adds the token of a seeded client and passes everything else on unchanged (the Host too:
 * the DNS-rebinding scenario sends a foreign one).
 */
export const conformanceScenarios = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'] as const;

export interface CheckResult {
  name: string;
  passed: boolean;
  detail: string;
}

const require = createRequire(import.meta.url);
const binOf = (pkg: string, file: string) => join(dirname(require.resolve(`${pkg}/package.json`)), file);

/** A loopback proxy to the API that adds `Authorization: Bearer <token>`. */
export const startTokenProxy = async (apiBaseUrl: string, token: string): Promise<{ url: string; close: () => Promise<void> }> => {
  const target = new URL(apiBaseUrl);
  const server: Server = createServer((incoming, outgoing) => {
    const forwarded = httpRequest(
      { host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: { ...incoming.headers, authorization: `Bearer ${token}` } },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

const run = (args: string[], timeoutMs = 120_000): Promise<{ code: number; out: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, out });
    });
  });

/** One conformance scenario: passes when every check it records succeeded. */
const conformance = async (mcpUrl: string, scenario: string): Promise<CheckResult> => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  try {
    const { code, out } = await run([binOf('@modelcontextprotocol/conformance', 'dist/index.js'), 'server', '--url', mcpUrl, '--scenario', scenario, '-o', dir]);
    const checks = readdirSync(dir, { recursive: true })
      .map(String)
      .filter((file) => file.endsWith('checks.json'))
      .flatMap((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as { id: string; status: string; errorMessage?: string }[]);
    const failed = checks.filter((check) => check.status === 'FAILURE');
    const passed = code === 0 && checks.length > 0 && failed.length === 0;
    return {
      name: `conformance ${scenario}`,
      passed,
      detail: passed ? `${checks.length} checks passed` : failed.map((check) => `${check.id}: ${check.errorMessage ?? 'failed'}`).join('; ') || out.slice(-2000),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/** The Inspector's CLI: one method, answered as JSON on stdout. */
const inspector = async (mcpUrl: string, name: string, args: string[], expect: (answer: Record<string, unknown>) => string | undefined): Promise<CheckResult> => {
  const { code, out } = await run([binOf('@modelcontextprotocol/inspector-cli', 'build/index.js'), mcpUrl, '--transport', 'http', ...args]);
  let answer: Record<string, unknown> | undefined;
  try {
    answer = JSON.parse(out.slice(out.indexOf('{'))) as Record<string, unknown>;
  } catch {
    answer = undefined;
  }
  const problem = code !== 0 || !answer ? `exit ${code}: ${out.slice(-2000)}` : expect(answer);
  return { name: `inspector-cli ${name}`, passed: !problem, detail: problem ?? 'ok' };
};

/** Runs every check against the MCP endpoint of the API at apiBaseUrl, as the holder of token. */
export const runMcpChecks = async (apiBaseUrl: string, token: string, companyId: string): Promise<CheckResult[]> => {
  const proxy = await startTokenProxy(apiBaseUrl, token);
  const mcpUrl = `${proxy.url}/mcp`;
  try {
    // One after the other: each is a Node.js process of its own, and the machine may be small.
    const results: CheckResult[] = [];
    for (const scenario of conformanceScenarios) results.push(await conformance(mcpUrl, scenario));
    for (const check of [
      () => inspector(mcpUrl, 'tools/list', ['--method', 'tools/list'], (answer) => {
        const count = (answer.tools as unknown[] | undefined)?.length;
        return count === 19 ? undefined : `expected 19 tools, got ${count}`;
      }),
      () => inspector(mcpUrl, 'tools/call get_trial_balance', ['--method', 'tools/call', '--tool-name', 'get_trial_balance', '--tool-arg', `companyId=${companyId}`, 'year=2026'], (answer) =>
        answer.isError || !(answer.structuredContent as { totals?: unknown } | undefined)?.totals ? `unexpected answer ${JSON.stringify(answer).slice(0, 500)}` : undefined,
      ),
    ]) {
      results.push(await check());
    }
    return results;
  } finally {
    await proxy.close();
  }
};

const main = async () => {
  const usage = `Usage: npm run mcp:check [-- --client a-system] [--stack-file ${defaultStackFile}]\nRuns the MCP conformance scenarios (${conformanceScenarios.join(', ')}) and the Inspector CLI against the running local stack.`;
  const { values } = parseToolArgs({ options: { client: { type: 'string', default: 'a-system' }, 'stack-file': { type: 'string' }, help: { type: 'boolean', default: false } } }, usage);
  if (values.help) {
    console.log(usage);
    return;
  }
  const stack = readStackFile(values['stack-file']);
  const client = stack.clients.find((candidate) => candidate.name === values.client);
  if (!client) throw new ToolError(`No seeded client ${values.client}`);
  const tokenResponse = await fetch(stack.authUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
  });
  const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
  const results = await runMcpChecks(stack.baseUrl, token, stack.companies[0]!.id);
  for (const result of results) console.log(`${result.passed ? 'PASS' : 'FAIL'}  ${result.name}  ${result.detail}`);
  if (results.some((result) => !result.passed)) process.exitCode = 1;
};

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => failTool(error));
}
