import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one of the project's tools (a .ts entry) as `npm run` does, in its own Node process, and collects what it printed. */
export const runTool = (script: string, ...args: string[]): Promise<ToolRun> =>
  new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: resolve('.') });
    const output = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
    child.on('close', (code) => done({ code, ...output }));
  });
