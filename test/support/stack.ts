import { inject } from 'vitest';
import { applyStackEnv } from '../../infra/tools/stack-env';
import type { StackInfo } from '../../infra/local/stack';

/**
 * The stack started by the global setup. Calling it also points this test process's shared/
 * modules (repositories, admin services) at the same stand-ins, as the tools do.
 */
export const testStack = (): StackInfo => {
  const info = inject('stack');
  applyStackEnv(info);
  return info;
};

export const seededClient = (name: string) => {
  const client = testStack().clients.find((c) => c.name === name);
  if (!client) throw new Error(`No seeded client ${name}`);
  return client;
};

export const seededCompanies = (organizationId: string) => testStack().companies.filter((c) => c.organizationId === organizationId);
