import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { denials, runAs } from '../../infra/local/iam';
import { enforceDeclaredEnvironments, UndeclaredVariableError } from '../../infra/local/environment';
import { config, resetConfig } from '../../shared/platform/config';

/**
 * The local stack gives each function the environment the API stack would: a handler running as
 * a function that reads a deployed variable not declared for it fails (infra/local/environment.ts).
 */
const saved = { ...process.env };
beforeAll(() => {
  Object.assign(process.env, {
    TABLE_NAME: 't',
    JWT_ISSUER: 'http://issuer',
    CURSOR_SECRET: 'c',
    LOCAL_SECRETS_KEY: Buffer.alloc(32).toString('base64'),
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:1',
    WEBHOOKS_QUEUE_URL: 'http://q',
  });
  enforceDeclaredEnvironments();
});
// One worker runs many unit files: leave the environment as it was (the checking proxy stays; it acts only inside runAs).
afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
  resetConfig();
});

const as = <T>(name: string, read: () => T) => runAs({ name, grants: [] }, async () => read());

describe('declared environments in the local stack', () => {
  it('lets a function read what it declares, and variables the API stack never sets', async () => {
    expect(await as('ledger', () => config().tableName)).toBe('t');
    expect(await as('ledger', () => config().cursorSecret)).toBe('c'); // the stand-in of CURSOR_SECRET_ARN
    expect(await as('authorizer', () => config().jwtIssuer)).toBe('http://issuer');
    expect(await as('webhooks-worker', () => process.env.WEBHOOKS_QUEUE_URL)).toBe('http://q');
    expect(await as('openapi', () => process.env.DYNAMODB_ENDPOINT)).toBe('http://127.0.0.1:1');
    expect(await as('openapi', () => process.env.POWERTOOLS_SERVICE_NAME)).toBe(saved.POWERTOOLS_SERVICE_NAME);
  });

  it('refuses a read of a deployed variable the function does not get, and records it for the run', async () => {
    const before = denials.length;
    await expect(as('openapi', () => config().tableName)).rejects.toBeInstanceOf(UndeclaredVariableError);
    await expect(as('ledger', () => config().jwtIssuer)).rejects.toThrow(/function ledger reads JWT_ISSUER/);
    await expect(as('vat', () => config().cursorSecret)).rejects.toThrow(/function vat reads CURSOR_SECRET_ARN/);
    await expect(as('companies', () => config().localSecretsKey)).rejects.toThrow(/reads SECRETS_KEY_ID/);
    await expect(as('webhooks-worker', () => process.env.IMPORTS_QUEUE_URL)).rejects.toThrow(/reads IMPORTS_QUEUE_URL/);
    expect(denials.length - before).toBe(5);
    denials.length = before;
  });

  it('checks nothing outside a function (seeding, tools, tests)', () => {
    expect(config().jwtIssuer).toBe('http://issuer');
    process.env.EXTRA_SETTING = 'x';
    expect(process.env.EXTRA_SETTING).toBe('x');
    delete process.env.EXTRA_SETTING;
    expect(process.env.EXTRA_SETTING).toBeUndefined();
  });
});
