import { readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cliUsage, parseCli } from '../../infra/tools/cli-args';
import { runTool } from '../support/tools';

const options = {
  modules: { type: 'boolean', description: 'module by module' },
  runs: { type: 'string', default: '5', description: 'fresh processes' },
  only: { type: 'string', description: 'these only' },
} as const;
const spec = { command: 'bench:example', summary: 'Measures an example.', options };

describe('the command line of the bench tools, npm run cost and npm run client', () => {
  it('reads the options, with the defaults of those not given', () => {
    expect(parseCli(spec, [])).toEqual({ values: { runs: '5', modules: false } });
    expect(parseCli(spec, ['--runs', '7', '--only', 'ledger,mcp', '--modules'])).toEqual({ values: { runs: '7', only: 'ledger,mcp', modules: true } });
  });

  it('answers the usage on --help: the command, what it does, every option with its default', () => {
    const parsed = parseCli(spec, ['--runs', '7', '--help']);
    expect(parsed).toEqual({ help: cliUsage(spec) });
    const usage = cliUsage(spec);
    expect(usage.split('\n')[0]).toBe('Usage: npm run bench:example -- [options]');
    expect(usage).toContain('Measures an example.');
    expect(usage).toMatch(/^ {2}--runs <value> +fresh processes \(default 5\)$/m);
    expect(usage).toMatch(/^ {2}--only <value> +these only$/m);
    expect(usage).toMatch(/^ {2}--modules +module by module$/m);
    expect(usage).toMatch(/^ {2}--help +prints this text$/m);
  });

  it('names what is wrong, then the usage: an unknown option, a value missing, a flag given a value, a stray argument', () => {
    for (const [argv, message] of [
      [['--nope'], /Unknown option '--nope'/],
      [['--runs'], /--runs <value>' argument missing/],
      [['--modules=yes'], /--modules' does not take an argument/],
      [['ledger'], /Unexpected argument 'ledger'/],
    ] as const) {
      const parsed = parseCli(spec, [...argv]);
      expect('error' in parsed && parsed.error, argv.join(' ')).toMatch(message);
      expect('error' in parsed && parsed.error.endsWith(cliUsage(spec))).toBe(true);
    }
  });

  it('is how every bench tool, npm run cost and npm run client read their options (so each answers --help)', () => {
    const tools = readdirSync('infra/tools').filter((name) => /^bench.*\.ts$|^cost-model\.ts$|^client\.ts$/.test(name));
    expect(tools).toContain('client.ts');
    for (const name of tools) {
      const source = readFileSync(`infra/tools/${name}`, 'utf8');
      expect(source, name).not.toMatch(/\bparseArgs\(/);
    }
  });

  it('npm run client answers --help and refuses an unknown option, writing nothing', async () => {
    const written = statSync('client/schema.ts').mtimeMs;
    const help = await runTool('infra/tools/client.ts', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run client -- \[options\]$/m);
    expect(help.stdout).toMatch(/^ {2}--check +fail \(exit 1\)/m);
    const wrong = await runTool('infra/tools/client.ts', '--chek');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("Unknown option '--chek'");
    expect(statSync('client/schema.ts').mtimeMs).toBe(written);
  }, 60_000);

  it('every tool refuses an unknown option with its message and its usage, exit 2, no stack trace', async () => {
    for (const tool of ['client', 'env', 'mcp-check', 'sign-in', 'smoke', 'webhooks-listen']) {
      const run = await runTool(`infra/tools/${tool}.ts`, '--no-such-option');
      expect(run.code, tool).toBe(2);
      expect(run.stderr, tool).toMatch(/^(\[listen\] )?Unknown option '--no-such-option'/);
      expect(run.stderr, tool).toMatch(/^Usage: /m);
      expect(run.stderr, tool).not.toMatch(/\n {4}at /);
    }
  }, 120_000);
});
