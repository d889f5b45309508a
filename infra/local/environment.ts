import { groupPermissions, relayPermissions, sweeperPermissions, workerPermissions, authorizerEnvironment, deployedVariables, environmentOf } from '../stacks/permissions';
import { functionGroups, type FunctionGroup } from '../../shared/routes';
import { queues } from '../../shared/queues';
import { currentCaller, denials } from './iam';

/**
 * Each function's environment, enforced in the local stack as the API stack sets it on AWS: a
 * handler run as its function (infra/local/iam.ts runAs) that reads a variable the API stack
 * would not give that function (infra/stacks/permissions.ts environmentOf) fails with an error,
 * and the test run reports it (test/support/global-setup.ts). Variables the API stack never sets
 * (local endpoints, test overrides) are not checked; the local stand-ins of deployed ones count as
 * them (CURSOR_SECRET for CURSOR_SECRET_ARN, LOCAL_SECRETS_KEY for the KMS key's SECRETS_KEY_ID).
 */
const standIns: Record<string, string> = { CURSOR_SECRET: 'CURSOR_SECRET_ARN', LOCAL_SECRETS_KEY: 'SECRETS_KEY_ID' };
const deployed = new Set(deployedVariables);

/** The declared variables of each local caller name (infra/local/gateway.ts and stack.ts name them). */
export const declaredEnvironments = (): Map<string, ReadonlySet<string>> =>
  new Map<string, ReadonlySet<string>>([
    ...(Object.keys(functionGroups) as FunctionGroup[]).map((group): [string, Set<string>] => [group, new Set(environmentOf(groupPermissions[group], 'api'))]),
    ...queues.filter((queue) => queue.workerEntry).map((queue): [string, Set<string>] => [`${queue.name}-worker`, new Set(environmentOf(workerPermissions[queue.name], 'worker'))]),
    ['webhook-relay', new Set(environmentOf(relayPermissions, 'worker'))],
    ['outbox-sweeper', new Set(environmentOf(sweeperPermissions, 'worker'))],
    ['authorizer', new Set(authorizerEnvironment())],
  ]);

export class UndeclaredVariableError extends Error {
  override readonly name = 'UndeclaredVariableError';
}

let installed = false;

/** Wraps process.env so that reads made by a running function are checked against its declaration. */
export const enforceDeclaredEnvironments = (): void => {
  if (installed) return;
  installed = true;
  const declared = declaredEnvironments();
  const check = (name: string) => {
    const caller = currentCaller();
    if (!caller) return;
    const variable = standIns[name] ?? name;
    if (!deployed.has(variable)) return;
    const allowed = declared.get(caller.name);
    if (!allowed || allowed.has(variable)) return;
    const message = `local environment: function ${caller.name} reads ${variable}, which the API stack does not give it (infra/stacks/permissions.ts environmentOf)`;
    denials.push(message);
    console.error(message);
    throw new UndeclaredVariableError(message);
  };
  const real = process.env;
  process.env = new Proxy(real, {
    get(target, property) {
      if (typeof property === 'string') check(property);
      return target[property as string];
    },
    set(target, property, value) {
      target[property as string] = value as string;
      return true;
    },
    deleteProperty(target, property) {
      delete target[property as string];
      return true;
    },
  });
};
