import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInvoke } from '../../infra/tools/invoke';
import { createApiClient, createOrganization, deleteOrganization } from '../../shared/identity/administration';
import { localCredentialIssuer } from '../../shared/identity/credential-issuers';
import { seededClient, testStack } from '../support/stack';

/**
 * Every sample event under events/, invoked in-process through the invoke tool against the test
 * run's local stack. The company events run as a client of an organization of this file's own
 * (--as), on a company created by createCompany.json (--set companyId=...), so no seeded data changes.
 */
const eventsDir = resolve(import.meta.dirname, '../../events');
const listFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : [relative(eventsDir, join(dir, entry.name))],
  );

const clientName = 'invoke-cli';
let dir = '';
let stackFile = '';
let organizationId = '';
let clientId = '';

beforeAll(async () => {
  const stack = testStack();
  const organization = await createOrganization({ name: `Invoke CLI ${randomUUID().slice(0, 8)}` });
  const { client, clientSecret } = await createApiClient({ name: clientName, organizationId: organization.id, plan: 'premium' }, localCredentialIssuer);
  organizationId = organization.id;
  clientId = client.clientId;
  dir = mkdtempSync(join(tmpdir(), 'invoke-cli-'));
  stackFile = join(dir, 'stack.json');
  const clients = [
    ...stack.clients,
    { name: clientName, clientId, clientSecret, mode: 'SYSTEM' as const, organizationId, scopes: client.scopes, plan: client.plan },
  ];
  writeFileSync(stackFile, JSON.stringify({ ...stack, clients }));
});

afterAll(async () => {
  if (organizationId) await deleteOrganization(organizationId, 'invoke-cli-test', localCredentialIssuer);
});

interface Invocation {
  code: number;
  stdout: string[];
  stderr: string[];
  status?: number;
  headers: Record<string, string>;
  body?: any;
}

/** Runs the tool and parses its pretty output: "HTTP <status> <text>", headers, blank line, body. */
const invoke = async (fn: string, file: string, ...extra: string[]): Promise<Invocation> => {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const argv = [fn, file.includes('/') && !file.startsWith('/') ? join(eventsDir, file) : file, '--stack', stackFile, ...extra];
  const code = await runInvoke(argv, { out: (line) => stdout.push(line), err: (line) => stderr.push(line) });
  const statusLine = /^HTTP (\d{3})\b/.exec(stdout[0] ?? '');
  const blank = stdout.indexOf('');
  const headerLines = statusLine ? stdout.slice(1, blank === -1 ? undefined : blank) : [];
  const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  const bodyText = statusLine ? (blank === -1 ? '' : stdout.slice(blank + 1).join('\n')) : stdout.join('\n');
  return {
    code,
    stdout,
    stderr,
    ...(statusLine && { status: Number(statusLine[1]) }),
    headers,
    ...(bodyText && { body: JSON.parse(bodyText) }),
  };
};

const asClient = ['--as', clientName];
let companyId = '';
const company = () => ['--set', `companyId=${companyId}`];

/** What each sample event answers, in the order they run. */
const expected: [file: string, fn: string, status: number][] = [
  ['openapi/getOpenApiDocument.json', 'openapi', 200],
  ['identity/whoami.json', 'identity', 200],
  ['companies/listCompanies.json', 'companies', 200],
  ['companies/createCompany.json', 'companies', 201],
  ['companies/getCompany.json', 'companies', 200],
  ['companies/updateCompany.json', 'companies', 200],
  ['companies/disableCompany.json', 'companies', 200],
  ['companies/enableCompany.json', 'companies', 200],
  ['companies/deleteCompany.json', 'companies', 200],
  ['companies/restoreCompany.json', 'companies', 200],
  ['fallback/unknown-route.json', 'fallback', 404],
  ['authorizer/request.json', 'authorizer', 0],
];

describe('npm run invoke: every sample event', () => {
  it('covers every file under events/', () => {
    expect(expected.map(([file]) => file).sort()).toEqual(listFiles(eventsDir).sort());
  });

  it('openapi/getOpenApiDocument.json answers 200 with the document', async () => {
    const result = await invoke('openapi', 'openapi/getOpenApiDocument.json');
    expect(result.code).toBe(0);
    expect(result.status).toBe(200);
    expect(result.headers['content-type']).toBe('application/json');
    expect(result.body.openapi).toBe('3.0.3');
  });

  it('identity/whoami.json answers 200 for the seeded a-system client, and for another client with --as', async () => {
    const seeded = await invoke('identity', 'identity/whoami.json');
    expect(seeded.code).toBe(0);
    expect(seeded.status).toBe(200);
    expect(seeded.body).toMatchObject({ clientId: seededClient('a-system').clientId, mode: 'SYSTEM' });
    expect(seeded.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);

    const other = await invoke('identity', 'identity/whoami.json', ...asClient);
    expect(other.status).toBe(200);
    expect(other.body).toMatchObject({ clientId, organizationId });
  });

  it('companies/listCompanies.json answers 200 with a page', async () => {
    const result = await invoke('companies', 'companies/listCompanies.json', ...asClient);
    expect(result.code).toBe(0);
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ data: [], pagination: { next_cursor: null, has_more: false } });
  });

  it('companies/createCompany.json answers 201, with a fresh idempotency key at every run', async () => {
    const first = await invoke('companies', 'companies/createCompany.json', ...asClient);
    expect(first.code).toBe(0);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ name: 'Fjellheim Bygg AS', organizationNumber: '923609016', organizationId, status: 'active' });
    expect(first.headers.location).toBe(`/v1/companies/${first.body.id}`);
    companyId = first.body.id;

    const second = await invoke('companies', 'companies/createCompany.json', ...asClient);
    expect(second.status).toBe(201);
    expect(second.headers['idempotency-replayed']).toBeUndefined();
    expect(second.body.id).not.toBe(companyId);
  });

  it('companies/getCompany.json answers 200 for --set companyId, and for the first seeded company by default', async () => {
    const result = await invoke('companies', 'companies/getCompany.json', ...asClient, ...company());
    expect(result.code).toBe(0);
    expect(result.status).toBe(200);
    expect(result.body.id).toBe(companyId);

    const seeded = await invoke('companies', 'companies/getCompany.json');
    expect(seeded.status).toBe(200);
    expect(seeded.body.id).toBe(testStack().companies[0]!.id);
  });

  it('companies/updateCompany.json answers 200 with the patch applied', async () => {
    const result = await invoke('companies', 'companies/updateCompany.json', ...asClient, ...company());
    expect(result.code).toBe(0);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ id: companyId, name: 'Fjellheim Bygg og Anlegg AS', accountingSystem: 'Tripletex' });
  });

  it('companies/disableCompany.json and enableCompany.json answer 200', async () => {
    const disabled = await invoke('companies', 'companies/disableCompany.json', ...asClient, ...company());
    expect(disabled.code).toBe(0);
    expect(disabled.status).toBe(200);
    expect(disabled.body.status).toBe('disabled');
    const enabled = await invoke('companies', 'companies/enableCompany.json', ...asClient, ...company());
    expect(enabled.status).toBe(200);
    expect(enabled.body.status).toBe('active');
  });

  it('companies/deleteCompany.json and restoreCompany.json answer 200', async () => {
    const deleted = await invoke('companies', 'companies/deleteCompany.json', ...asClient, ...company());
    expect(deleted.code).toBe(0);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: companyId, deleted: true, cause: 'direct', reason: 'Sample event: the customer left the firm' });
    const gone = await invoke('companies', 'companies/getCompany.json', ...asClient, ...company());
    expect(gone.status).toBe(404);
    const restored = await invoke('companies', 'companies/restoreCompany.json', ...asClient, ...company());
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id: companyId, status: 'active' });
  });

  it('fallback/unknown-route.json answers 404 route_not_found', async () => {
    const result = await invoke('fallback', 'fallback/unknown-route.json');
    expect(result.code).toBe(0);
    expect(result.status).toBe(404);
    expect(result.headers['content-type']).toBe('application/problem+json');
    expect(result.body.error).toBe('route_not_found');
  });

  it('authorizer/request.json: the authorizer allows and says who the caller is', async () => {
    const result = await invoke('authorizer', 'authorizer/request.json');
    expect(result.code).toBe(0);
    expect(result.body).toMatchObject({
      isAuthorized: true,
      context: { authenticated: true, clientId: seededClient('a-system').clientId, mode: 'SYSTEM' },
    });
  });

  it.each(expected)('once more in a row: %s (%s) exits 0 with status %i', async (file, fn, status) => {
    const result = await invoke(fn, file, ...(file.startsWith('companies/') ? [...asClient, ...company()] : []));
    expect(result.code).toBe(0);
    if (fn === 'authorizer') expect(result.body.isAuthorized).toBe(true);
    else expect(result.status).toBe(status);
  });
});

describe('npm run invoke: behaviour', () => {
  it('keeps an authorizer context given in the event file instead of running the authorizer', async () => {
    const event = JSON.parse(readFileSync(join(eventsDir, 'identity/whoami.json'), 'utf8'));
    event.requestContext.authorizer = { lambda: { authenticated: false, failure: 'supplied by the event file' } };
    const file = join(dir, 'whoami-unauthenticated.json');
    writeFileSync(file, JSON.stringify(event));
    const result = await invoke('identity', file);
    expect(result.code).toBe(0);
    expect(result.status).toBe(401);
    expect(result.body.detail).toContain('supplied by the event file');
  });

  it('prints the raw handler result with --json', async () => {
    const result = await invoke('identity', 'identity/whoami.json', '--json');
    expect(result.code).toBe(0);
    expect(result.body.statusCode).toBe(200);
    expect(JSON.parse(result.body.body).clientId).toBe(seededClient('a-system').clientId);
  });

  it('replaces a --set variable anywhere, over stack file paths', async () => {
    const result = await invoke('companies', 'companies/getCompany.json', '--set', `companies.0.id=${randomUUID()}`);
    expect(result.code).toBe(0);
    expect(result.status).toBe(404);
  });

  it('fails in one line (exit 1) when a placeholder has no value', async () => {
    const result = await invoke('companies', 'companies/disableCompany.json');
    expect(result.code).toBe(1);
    expect(result.stderr).toEqual(['error: Unresolved placeholder {{companyId}}: pass --set companyId=VALUE']);
    expect(result.stdout).toEqual([]);
  });

  it('fails (exit 1) for an unknown client, a missing event file and an event that is not JSON', async () => {
    const unknownClient = await invoke('identity', 'identity/whoami.json', '--as', 'nobody');
    expect(unknownClient.code).toBe(1);
    expect(unknownClient.stderr[0]).toMatch(/no client nobody in the stack file; known: a-system/);
    const missing = await invoke('identity', join(dir, 'missing.json'));
    expect(missing.code).toBe(1);
    expect(missing.stderr[0]).toMatch(/^error: No event file at /);
    const notJson = join(dir, 'not-json.json');
    writeFileSync(notJson, '{ nope');
    const broken = await invoke('identity', notJson);
    expect(broken.code).toBe(1);
    expect(broken.stderr[0]).toMatch(/is not valid JSON/);
  });

  it('reports an invocation error (the handler throws) with exit 1', async () => {
    const file = join(dir, 'empty.json');
    writeFileSync(file, '{}');
    const result = await invoke('identity', file);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Invocation failed:');
    expect(result.stderr.join('\n')).toMatch(/TypeError/);
  });

  it('warns when the event belongs to another function, and still invokes it as Lambda would', async () => {
    const result = await invoke('companies', 'identity/whoami.json');
    expect(result.code).toBe(0);
    expect(result.stderr.join('\n')).toContain('served by the identity function, not companies');
    expect(result.status).toBe(404);
  });

  it.each([
    ['no arguments', []],
    ['no event file', ['identity']],
    ['an unknown function', ['payments', 'events/identity/whoami.json']],
    ['an unknown flag', ['identity', 'events/identity/whoami.json', '--bogus']],
    ['a malformed --set', ['identity', 'events/identity/whoami.json', '--set', 'novalue']],
    ['a stray argument', ['identity', 'events/identity/whoami.json', 'extra']],
  ])('prints the usage and exits 2 for %s', async (_case, argv) => {
    const stderr: string[] = [];
    const code = await runInvoke(argv, { out: () => undefined, err: (line) => stderr.push(line) });
    expect(code).toBe(2);
    expect(stderr[0]).toMatch(/^error: /);
    expect(stderr.join('\n')).toContain('Usage: npm run invoke -- <function> <event file> [flags]');
  });

  it('prints the usage on --help (exit 2)', async () => {
    const stdout: string[] = [];
    const code = await runInvoke(['--help'], { out: (line) => stdout.push(line), err: () => undefined });
    expect(code).toBe(2);
    expect(stdout.join('\n')).toContain('--set NAME=VALUE');
  });
});
