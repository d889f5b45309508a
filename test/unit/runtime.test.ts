import { describe, expect, it } from 'vitest';
import { lambdaRuntime } from '../../infra/stacks/api-stack';
import { readyStack } from '../support/stack';

/**
 * Local runs on the runtime Lambda runs: package.json pins the Node.js binary of that major
 * version (optionalDependencies, one package per platform), and npm puts it first on the PATH of
 * every script, so `npm test`, `npm start` and the tools run on it whatever Node ran npm itself.
 */
const major = (version: string): number => Number(/^v?(\d+)\./.exec(version)?.[1]);
const lambdaMajor = Number(/^nodejs(\d+)\.x$/.exec(lambdaRuntime.name)?.[1]);

describe('the Node.js the tests run on', () => {
  it('is Node.js 22 or later (AWS SDK releases after early January 2027 need it)', () => {
    expect(major(process.version), `this test worker runs ${process.execPath} (${process.version})`).toBeGreaterThanOrEqual(22);
  });

  it('is the major version of the Lambda runtime, in this worker and in the process that runs the local stack', () => {
    expect(lambdaMajor, `Lambda runtime ${lambdaRuntime.name}`).toBeGreaterThanOrEqual(22);
    expect(major(process.version)).toBe(lambdaMajor);
    expect(readyStack()?.stackNodeVersion).toBe(process.version);
  });
});
