import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { clockTicks, treeCpuTicks, type FileCpu } from '../../infra/tools/suite-cpu';

/**
 * Writes, as each test file ends, one JSON line to $SUITE_FILE_CPU_FILE: the CPU the run's whole
 * process tree (this process with the stack it hosts, the workers, DynamoDB Local, the CLIs the
 * tests run) used since the previous file ended, or for the first file since its tests started
 * (before them the workers start and the stack comes up: no file's cost). Exact per file only when
 * files run one at a time (--no-file-parallelism).
 */
export default class FileCpuReporter implements Reporter {
  private readonly out = process.env.SUITE_FILE_CPU_FILE;
  private lastTicks = 0;
  private lastAt = 0;

  private started = false;

  onTestModuleStart(): void {
    if (this.started) return;
    this.started = true;
    this.lastTicks = treeCpuTicks(process.pid);
    this.lastAt = performance.now();
  }

  onTestModuleEnd(testModule: TestModule): void {
    if (!this.out) return;
    const ticks = treeCpuTicks(process.pid);
    const at = performance.now();
    const entry: FileCpu = {
      file: relative(process.cwd(), testModule.moduleId),
      tests: [...testModule.children.allTests()].length,
      cpuSeconds: (ticks - this.lastTicks) / clockTicks(),
      wallSeconds: (at - this.lastAt) / 1000,
    };
    appendFileSync(this.out, `${JSON.stringify(entry)}\n`);
    this.lastTicks = ticks;
    this.lastAt = at;
  }
}
