import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { applyStackEnv } from '../../infra/tools/stack-env';
import type { StackInfo } from '../../infra/local/stack';
import type { ReadyStack } from './global-setup';

let ready: ReadyStack | undefined;

/**
 * Waits for the stack the global setup is starting (test/support/stack-ready.ts, before each file
 * of the stack project), then gives this worker the variables the stack set in its own process.
 */
export const awaitStack = async (readyFile: string, timeoutMs = 300_000): Promise<ReadyStack> => {
  if (ready) return ready;
  for (const deadline = Date.now() + timeoutMs; !existsSync(readyFile); await sleep(50)) {
    if (Date.now() > deadline) throw new Error(`The local stack was not up after ${timeoutMs / 1000} s`);
  }
  const written = JSON.parse(readFileSync(readyFile, 'utf8')) as ReadyStack | { error: string };
  if ('error' in written) throw new Error(`The local stack failed to start: ${written.error}`);
  Object.assign(process.env, written.env);
  return (ready = written);
};

/** The started stack, its Node.js version and its OpenAPI document: undefined outside the stack project. */
export const readyStack = (): ReadyStack | undefined => ready;

/**
 * The stack started by the global setup. Calling it also points this test process's shared/
 * modules (repositories, admin services) at the same stand-ins, as the tools do.
 */
export const testStack = (): StackInfo => {
  if (!ready) throw new Error('No local stack: this file runs in the stack project (vitest.config.ts)');
  applyStackEnv(ready.stack);
  return ready.stack;
};

export const seededClient = (name: string) => {
  const client = testStack().clients.find((c) => c.name === name);
  if (!client) throw new Error(`No seeded client ${name}`);
  return client;
};

export const seededCompanies = (organizationId: string) => testStack().companies.filter((c) => c.organizationId === organizationId);
