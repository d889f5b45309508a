import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { functionGroups } from '../../shared/routes';
import { bundleAsLambda, runBench, writeBenchResults } from './bench-support';
import { readCli } from './cli-args';

/**
 * `npm run bench:mcp`: the MCP endpoint's warm per-call latency against its own in-memory local
 * stack (the SDK's client over streamable HTTP; a warm-up first, then N calls of each of three
 * tools and of tools/list, one at a time; median and p95), and the size of the mcp function's
 * bundle as CDK builds it (esbuild: ESM, minified, the AWS SDK included; infra/stacks/api-stack.ts).
 * Writes .local/bench/mcp.json.
 */
const calls = Number(process.env.BENCH_MCP_CALLS ?? 50);
// One JSON log line per request would bury the results.
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

const bundleSize = async (dir: string) => (await bundleAsLambda(functionGroups.mcp.entry, join(dir, 'mcp', 'index.mjs'))).bytes;

const main = async () => {
  readCli({
    command: 'bench:mcp',
    summary: "The MCP endpoint's warm per-call latency on its own in-memory local stack, and the size of the mcp function's bundle as CDK builds it; writes .local/bench/mcp.json.",
    options: {},
  });
  const dataDir = mkdtempSync(join(os.tmpdir(), 'ledger-bench-mcp-'));
  const { startLocalStack } = await import('../local/stack');
  const stack = await startLocalStack({ port: 0, authPort: 0, dataDir });
  try {
    const info = stack.info;
    const client = info.clients.find((candidate) => candidate.name === 'a-system')!;
    const tokenResponse = await fetch(info.authUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
    });
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
    const mcp = new Client({ name: 'bench', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${info.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const companyId = info.companies[0]!.id;
    const operations: Record<string, () => Promise<unknown>> = {
      'tools/list': () => mcp.listTools(),
      get_caller_identity: () => mcp.callTool({ name: 'get_caller_identity', arguments: {} }),
      get_company: () => mcp.callTool({ name: 'get_company', arguments: { companyId } }),
      get_trial_balance: () => mcp.callTool({ name: 'get_trial_balance', arguments: { companyId, year: 2026 } }),
    };
    const results: Record<string, { medianMs: number; p95Ms: number; calls: number }> = {};
    for (const [name, operation] of Object.entries(operations)) {
      for (let i = 0; i < 5; i++) await operation(); // warm: modules loaded, JWKS cached, tool schemas built
      const times: number[] = [];
      for (let i = 0; i < calls; i++) {
        const started = performance.now();
        await operation();
        times.push(performance.now() - started);
      }
      results[name] = { medianMs: Number(percentile(times, 50).toFixed(1)), p95Ms: Number(percentile(times, 95).toFixed(1)), calls };
    }
    await mcp.close();
    const bytes = await bundleSize(dataDir);
    const summary = { at: new Date().toISOString(), machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? ''}`.trim(), latency: results, bundle: { bytes, mib: Number((bytes / 1024 / 1024).toFixed(2)) } };
    console.log('MCP warm per-call latency (HTTP round trip through the local gateway, authorizer included):');
    for (const [name, result] of Object.entries(results)) console.log(`  ${name.padEnd(22)} median ${result.medianMs} ms   p95 ${result.p95Ms} ms   (${result.calls} calls)`);
    console.log(`mcp function bundle (esbuild, minified ESM, AWS SDK included): ${summary.bundle.mib} MiB (${bytes} bytes)`);
    writeBenchResults('mcp', summary);
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

runBench(main);
