import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { typescriptNodeArgs } from '../../infra/tools/typescript-node';

export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface StartedTool {
  child: ChildProcessWithoutNullStreams;
  /** What it has printed so far. */
  output: { stdout: string; stderr: string };
  /** Its exit code and all it printed, once it has ended. */
  ended: Promise<ToolRun>;
}

/** Starts one of the project's tools (a .ts entry) as `npm run` does, in its own Node process (`detached`: a process group of its own). */
export const startTool = (script: string, args: string[], options: { detached?: boolean } = {}): StartedTool => {
  const child = spawn(process.execPath, [...typescriptNodeArgs, script, ...args], { cwd: resolve('.'), detached: options.detached ?? false });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  const ended = new Promise<ToolRun>((done) => child.on('close', (code) => done({ code, ...output })));
  return { child, output, ended };
};

/** Runs one of the project's tools to its end and collects what it printed. */
export const runTool = (script: string, ...args: string[]): Promise<ToolRun> => startTool(script, args).ended;
