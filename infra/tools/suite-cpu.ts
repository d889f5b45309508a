import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Where a test run's CPU goes, read from /proc (Linux): the process tree under the run, sampled,
 * each process put in a kind by its command line. `npm run bench:suite` uses it.
 */

/** The kinds of process a run of the suite starts (a report lists them by CPU, largest first). */
export const processKinds = [
  'vitest main process (and the local stack it hosts)',
  'vitest workers (the test files)',
  'DynamoDB Local (java)',
  'CLIs run as users run them (node <tool>.ts)',
  'npm',
  'esbuild',
  'Chromium',
  'other',
] as const;
export type ProcessKind = (typeof processKinds)[number];

/** The kind of a process, from its command line (NUL-separated arguments joined by spaces). */
export const processKind = (commandLine: string, isRunRoot: boolean): ProcessKind => {
  if (isRunRoot) return 'vitest main process (and the local stack it hosts)';
  if (commandLine.includes('DynamoDBLocal.jar')) return 'DynamoDB Local (java)';
  if (/[/ ]vitest[/ ]|node_modules\/vitest\b/.test(commandLine)) return 'vitest workers (the test files)';
  if (/typescript-imports\.mjs|\btsx\b/.test(commandLine)) return 'CLIs run as users run them (node <tool>.ts)';
  if (/(^|\/)npm(-cli\.js)?( |$)|\/npm\/bin\//.test(commandLine)) return 'npm';
  if (/(^|\/)esbuild( |$)/.test(commandLine)) return 'esbuild';
  if (/chrom(e|ium)/i.test(commandLine)) return 'Chromium';
  return 'other';
};

export interface ProcStat {
  /** The executable's name (changes when the process execs another program). */
  name: string;
  parentPid: number;
  /** user + system CPU of the process itself, in clock ticks. */
  cpuTicks: number;
  /** user + system CPU of its children that it has waited for, in clock ticks. */
  waitedChildrenTicks: number;
}

/** Reads the fields of a /proc/<pid>/stat line (the command name in parentheses may hold spaces). */
export const parseProcStat = (line: string): ProcStat => {
  const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
  const field = (index: number) => {
    const value = Number(fields[index]);
    if (!Number.isFinite(value)) throw new Error(`not a /proc stat line: ${line.slice(0, 80)}`);
    return value;
  };
  return { name: line.slice(line.indexOf('(') + 1, line.lastIndexOf(')')), parentPid: field(1), cpuTicks: field(11) + field(12), waitedChildrenTicks: field(13) + field(14) };
};

const readStat = (pid: number | 'self'): ProcStat | undefined => {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined; // gone between listing and reading
  }
};

const readCommandLine = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
};

/** Every process's stat as /proc lists them now, and whether a pid is in the tree under `rootPid`. */
const processSnapshot = (rootPid: number): { stats: Map<number, ProcStat>; inTree: (pid: number) => boolean } => {
  const stats = new Map<number, ProcStat>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) stats.set(Number(entry), stat);
  }
  const inTree = (pid: number): boolean => {
    for (let current: number | undefined = pid, hops = 0; current !== undefined && hops < 64; current = stats.get(current)?.parentPid, hops++) {
      if (current === rootPid) return true;
    }
    return false;
  };
  return { stats, inTree };
};

export interface SampledProcess {
  pid: number;
  kind: ProcessKind;
  commandLine: string;
  /** The last CPU time read, in clock ticks. */
  cpuTicks: number;
}

/**
 * Samples the process tree under `rootPid`: each call lists /proc once and keeps, for every
 * descendant, its command line and the last CPU time read. A process that ends between two
 * samples loses what it used after the last one (see `unattributed` in the report).
 */
export const processTreeSampler = (rootPid: number) => {
  const seen = new Map<number, SampledProcess>();
  /** Each process's executable name when its command line was read. */
  const names = new Map<number, string>();
  /** The most the tree had used at a sample (treeCpuTicks): also counts processes that ended unseen. */
  let treeTicks = 0;
  const sample = (): void => {
    const { stats, inTree } = processSnapshot(rootPid);
    treeTicks = Math.max(treeTicks, ticksOfTree(stats, inTree));
    for (const [pid, stat] of stats) {
      if (!inTree(pid)) continue;
      const known = seen.get(pid);
      if (known && names.get(pid) === stat.name) known.cpuTicks = stat.cpuTicks;
      else {
        // New, or seen between its fork and its exec (with its parent's command line): read it (again).
        const commandLine = readCommandLine(pid);
        names.set(pid, stat.name);
        seen.set(pid, { pid, kind: processKind(commandLine, pid === rootPid), commandLine, cpuTicks: stat.cpuTicks });
      }
    }
  };
  return { sample, processes: (): SampledProcess[] => [...seen.values()], treeTicks: (): number => treeTicks };
};

/**
 * The CPU (ticks) a process tree has used so far: each live process's own and that of the children
 * it has waited for, summed over the tree under `rootPid` (the root included). A process that ended
 * counts once its parent waited for it (the kernel adds it to the parent's), so two readings
 * bracket exactly what the tree used in between, short-lived processes included.
 */
export const treeCpuTicks = (rootPid: number): number => {
  const { stats, inTree } = processSnapshot(rootPid);
  return ticksOfTree(stats, inTree);
};

const ticksOfTree = (stats: Map<number, ProcStat>, inTree: (pid: number) => boolean): number => {
  let ticks = 0;
  for (const [pid, stat] of stats) if (inTree(pid)) ticks += stat.cpuTicks + stat.waitedChildrenTicks;
  return ticks;
};

/** One test file's share of a run whose files ran one at a time (`npm run bench:suite -- --per-file`, test/support/file-cpu-reporter.ts). */
export interface FileCpu {
  file: string;
  tests: number;
  /** The CPU of the whole run's process tree from the end of the file before (the first file: from its tests' start) to the end of this one. */
  cpuSeconds: number;
  wallSeconds: number;
}

/** CPU (ticks) of this process's children that it has waited for: after the run is waited for, the run's exact total. */
export const waitedChildrenTicks = (): number => readStat('self')?.waitedChildrenTicks ?? 0;

export interface KindRow {
  kind: ProcessKind | 'unattributed (processes that ended between samples)';
  processes: number;
  cpuSeconds: number;
  share: number;
}

/** The CPU by kind, largest first within the fixed order, and the part of the exact total no sample saw. */
export const cpuByKind = (processes: SampledProcess[], exactTotalSeconds: number, ticksPerSecond: number): KindRow[] => {
  const rows: KindRow[] = processKinds.map((kind) => {
    const ofKind = processes.filter((process) => process.kind === kind);
    const cpuSeconds = ofKind.reduce((sum, process) => sum + process.cpuTicks, 0) / ticksPerSecond;
    return { kind, processes: ofKind.length, cpuSeconds, share: exactTotalSeconds > 0 ? cpuSeconds / exactTotalSeconds : 0 };
  });
  const sampled = rows.reduce((sum, row) => sum + row.cpuSeconds, 0);
  const unattributed = Math.max(0, exactTotalSeconds - sampled);
  return [
    ...rows.filter((row) => row.processes > 0).sort((a, b) => b.cpuSeconds - a.cpuSeconds),
    { kind: 'unattributed (processes that ended between samples)', processes: 0, cpuSeconds: unattributed, share: exactTotalSeconds > 0 ? unattributed / exactTotalSeconds : 0 },
  ];
};

/** The largest processes of one kind by CPU, named by their program and first argument (what "other" holds). */
export const largestOfKind = (processes: SampledProcess[], kind: ProcessKind, count: number, ticksPerSecond: number): { command: string; cpuSeconds: number }[] => {
  const byCommand = new Map<string, number>();
  for (const process of processes.filter((candidate) => candidate.kind === kind)) {
    const [program = '?', first = ''] = process.commandLine.split(' ');
    const command = `${program.split('/').at(-1)} ${first.split('/').at(-1)}`.trim();
    byCommand.set(command, (byCommand.get(command) ?? 0) + process.cpuTicks / ticksPerSecond);
  }
  return [...byCommand].map(([command, cpuSeconds]) => ({ command, cpuSeconds })).sort((a, b) => b.cpuSeconds - a.cpuSeconds).slice(0, count);
};

/** Clock ticks per second of /proc's CPU times (asked once, on first use). */
let ticksPerSecond: number | undefined;
export const clockTicks = (): number => {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
};
