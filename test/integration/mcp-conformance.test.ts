import { describe, expect, it } from 'vitest';
import { runMcpChecks } from '../../infra/tools/mcp-check';
import { tokenOf } from '../support/api';
import { testStack } from '../support/stack';

describe('MCP conformance suite and Inspector CLI (npm run mcp:check)', () => {
  it('pass the server scenarios of a tools-only server, list the 19 tools and call one, headless', { timeout: 240_000 }, async () => {
    const results = await runMcpChecks(testStack().baseUrl, await tokenOf('a-system'), testStack().companies[0]!.id);
    expect(results.filter((result) => !result.passed)).toEqual([]);
    expect(results.map((result) => result.name)).toEqual([
      'conformance server-initialize',
      'conformance ping',
      'conformance tools-list',
      'conformance dns-rebinding-protection',
      'inspector-cli tools/list',
      'inspector-cli tools/call get_trial_balance',
    ]);
  });
});
