import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runTool } from '../support/tools';

/** `npm start`'s own answers that need no stack: usage, bad options, a busy port. */
const start = (...args: string[]) => runTool('infra/local/start.ts', ...args);

describe('npm start', () => {
  it('--help prints the usage and exits 0', async () => {
    const run = await start('--help');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Usage: npm start [-- options]');
    for (const option of ['--port N', '--auth-port N', '--persist', '--fresh', '-h, --help']) expect(run.stdout).toContain(option);
  });

  it('an unknown option or a port that is not a number answers the usage and exits 2', async () => {
    const unknown = await start('--bogus');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--bogus'");
    expect(unknown.stderr).toContain('Usage: npm start');
    const notPort = await start('--port', 'abc');
    expect(notPort.code).toBe(2);
    expect(notPort.stderr).toContain('--port takes a port number from 0 to 65535, not "abc"');
  });

  it('--fresh without --persist is refused (exit 2) before anything starts: it would empty .local/data and then run in memory', async () => {
    // --port abc as well: were the refusal missing, the run ends at the port check, before the stack (and its rmSync) starts.
    const run = await start('--fresh', '--port', 'abc');
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe('--fresh only applies with --persist (it empties the kept data in .local/data)');
    expect(run.stdout).toBe('');
  });

  it('a busy port fails the start before anything else starts, naming the port and the way out', async () => {
    const busy = createServer();
    await new Promise<void>((ready) => busy.listen(0, '127.0.0.1', ready));
    const port = (busy.address() as { port: number }).port;
    try {
      const run = await start('--port', String(port), '--auth-port', '0');
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`API gateway: port ${port} is already in use (is another npm start running? try --port/--auth-port)`);
      // Nothing was started or seeded before the check.
      expect(run.stdout).not.toContain('starting DynamoDB Local');
      expect(run.stdout).not.toContain('seeding');
    } finally {
      await new Promise<void>((closed) => busy.close(() => closed()));
    }
  });
});
