import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromLastAnswer, lastAnswerFile, runInvoke } from '../../infra/tools/invoke';
import { createOrganization, deleteOrganization } from '../../shared/administration/service';
import { createTestClient } from '../support/clients';
import { localCredentialIssuer } from '../../shared/identity/credential-issuers';
import { lineIdOf } from '../../shared/ledger/general-ledger/repository';
import { localPersonDirectory } from '../../shared/identity/person-directories';
import { createUser } from '../../shared/people/service';
import { api, tokenFor } from '../support/api';
import { eventually, queueWaitMs } from '../support/poll';
import { seededClient, testStack } from '../support/stack';
import type { Json } from '../support/json';

/**
 * Every sample event under events/, invoked in-process through the invoke tool against the test
 * run's local stack. The company events run as a client of an organization of this file's own
 * (--as), on a company created by createCompany.json (--set companyId=...), so no seeded data changes.
 *
 * The ledger, import and job events run as the same client on a company of its own bound to Api
 * (the "books" company, made in the beforeAll of their describe, after companies/listCompanies.json
 * has seen the organization empty), in the order an integrator pushes books: accounts,
 * dimensions, sub-ledgers, opening balances, GL lines, open items (202, then the import is polled
 * until succeeded), the reads (200), then the deletions (202, polled). Their placeholders:
 * - {{companyId ?? companies.0.id}} (reads: ledger/*, imports/getImportReadiness, listImports,
 *   listFetchRuns, getImport): without --set companyId they read the first seeded company (Api);
 * - {{companyId}} (imports/import*, delete*): always --set companyId=<an Api company>, never a default;
 * - {{importId}} (imports/getImport) and {{jobId}} (jobs/getJob): from a 202 answer (id, jobId);
 * - {{accountNumber}} (imports/deleteAccount, year 2025 in the query): an account without lines or
 *   opening balances, here 7790;
 * - {{key}} (imports/deleteDimension, deleteSubLedger): an unused dimension (900) or sub-ledger (10002).
 * e.g. npm run invoke -- imports events/imports/deleteDimension.json --set companyId=<id> --set key=900
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
/** An access token of this file's client, for polling imports through the gateway. */
let clientToken = '';
/** A company of this file's organization bound to Api: the ledger, import and job events act on it. */
let booksCompanyId = '';

beforeAll(async () => {
  const stack = testStack();
  const organization = await createOrganization({ name: `Invoke CLI ${randomUUID().slice(0, 8)}` });
  const { client, clientSecret } = await createTestClient({ name: clientName, organizationId: organization.id, plan: 'premium' });
  organizationId = organization.id;
  clientId = client.clientId;
  dir = mkdtempSync(join(tmpdir(), 'invoke-cli-'));
  stackFile = join(dir, 'stack.json');
  const clients = [
    ...stack.clients,
    { name: clientName, clientId, clientSecret, mode: 'SYSTEM' as const, organizationId, scopes: client.scopes, plan: client.plan },
  ];
  writeFileSync(stackFile, JSON.stringify({ ...stack, clients }));
  clientToken = await tokenFor(clientId, clientSecret);
});

afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await webhookReceiver?.stop();
  if (organizationId) await deleteOrganization(organizationId, 'invoke-cli-test', { issuer: localCredentialIssuer, directory: localPersonDirectory });
});

interface Invocation {
  code: number;
  stdout: string[];
  stderr: string[];
  status?: number;
  headers: Record<string, string>;
  body?: Json;
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
    ...(bodyText && { body: /json/.test(headers['content-type'] ?? 'json') ? JSON.parse(bodyText) : bodyText }),
  };
};

const asClient = ['--as', clientName];
let companyId = '';
const company = () => ['--set', `companyId=${companyId}`];

/** What each sample event answers, in the order they run. */
const expected: [file: string, fn: string, status: number][] = [
  ['openapi/getOpenApiDocument.json', 'openapi', 200],
  ['openapi/getOpenApiYaml.json', 'openapi', 200],
  ['openapi/getApiReference.json', 'openapi', 200],
  ['openapi/getApiReferenceScript.json', 'openapi', 200],
  ['openapi/getProblemType.json', 'openapi', 200],
  ['openapi/getLandingPage.json', 'openapi', 200],
  ['openapi/listProblemTypes.json', 'openapi', 200],
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
  ['imports/importAccounts.json', 'imports', 202],
  ['imports/importDimensions.json', 'imports', 202],
  ['imports/importSubLedgers.json', 'imports', 202],
  ['imports/importOpeningBalances.json', 'imports', 202],
  ['imports/importGeneralLedgerLines.json', 'imports', 202],
  ['imports/importOpenItems.json', 'imports', 202],
  ['ledger/listAccounts.json', 'ledger', 200],
  ['ledger/getAccount.json', 'ledger', 200],
  ['ledger/listGeneralLedgerLines.json', 'ledger', 200],
  ['ledger/getTrialBalance.json', 'ledger', 200],
  ['ledger/listDimensions.json', 'ledger', 200],
  ['ledger/listSubLedgers.json', 'ledger', 200],
  ['ledger/listGeneralLedgerLineVersions.json', 'ledger', 200],
  ['ledger/listOpeningBalanceVersions.json', 'ledger', 200],
  ['imports/getImportReadiness.json', 'imports', 200],
  ['imports/listImports.json', 'imports', 200],
  ['imports/getImport.json', 'imports', 200],
  ['jobs/getJob.json', 'jobs', 200],
  ['jobs/listJobs.json', 'jobs', 200],
  ['imports/listFetchRuns.json', 'imports', 200],
  ['imports/createSaftImport.json', 'imports', 201],
  ['imports/listSaftImports.json', 'imports', 200],
  ['imports/getSaftImport.json', 'imports', 200],
  ['imports/startSaftImport.json', 'imports', 409],
  ['imports/deleteGeneralLedgerLines.json', 'imports', 202],
  ['imports/deleteOpeningBalances.json', 'imports', 202],
  ['imports/deleteAccount.json', 'imports', 202],
  ['imports/deleteDimension.json', 'imports', 202],
  ['imports/deleteSubLedger.json', 'imports', 202],
  ['vat/listVatTerms.json', 'vat', 200],
  ['bank/listBankAccounts.json', 'bank', 200],
  ['bank/listBankTransactions.json', 'bank', 200],
  ['bank/createReconciliation.json', 'bank', 200],
  ['bank/getReconciliation.json', 'bank', 200],
  ['bank/listReconciliations.json', 'bank', 200],
  ['bank/getReconciliationSummary.json', 'bank', 200],
  ['bank/deleteReconciliation.json', 'bank', 200],
  ['documents/declareDocumentUpload.json', 'documents', 200],
  ['documents/completeDocumentUpload.json', 'documents', 200],
  ['documents/listDocuments.json', 'documents', 200],
  ['documents/getDocument.json', 'documents', 200],
  ['documents/getDocumentDownload.json', 'documents', 200],
  ['documents/deleteDocument.json', 'documents', 200],
  ['documents/restoreDocument.json', 'documents', 200],
  ['access/createAccessPolicy.json', 'access', 201],
  ['access/listAccessPolicies.json', 'access', 200],
  ['access/getAccessPolicy.json', 'access', 200],
  ['access/replaceAccessPolicy.json', 'access', 200],
  ['access/createAccessAssignment.json', 'access', 201],
  ['access/listAccessAssignments.json', 'access', 200],
  ['users/listUsers.json', 'users', 200],
  ['users/getUser.json', 'users', 200],
  ['users/getUserAccess.json', 'users', 200],
  ['users/explainUserAccess.json', 'users', 200],
  ['access/deleteAccessAssignment.json', 'access', 200],
  ['access/deleteAccessPolicy.json', 'access', 200],
  ['mcp/callMcp.json', 'mcp', 200],
  ['mcp/getMcpResourceMetadata.json', 'mcp', 200],
  ['mcp/getResourceMetadata.json', 'mcp', 200],
  ['webhooks/createWebhookSubscription.json', 'webhooks', 201],
  ['webhooks/listWebhookSubscriptions.json', 'webhooks', 200],
  ['webhooks/getWebhookSubscription.json', 'webhooks', 200],
  ['webhooks/updateWebhookSubscription.json', 'webhooks', 200],
  ['webhooks/verifyWebhookSubscription.json', 'webhooks', 200],
  ['webhooks/rotateWebhookSecret.json', 'webhooks', 200],
  ['webhooks/testWebhookSubscription.json', 'webhooks', 202],
  ['webhooks/listWebhookDeliveries.json', 'webhooks', 200],
  ['webhooks/getWebhookDelivery.json', 'webhooks', 200],
  ['webhooks/redeliverWebhookDelivery.json', 'webhooks', 202],
  ['webhooks/listWebhookEventTypes.json', 'webhooks', 200],
  ['webhooks/listEvents.json', 'webhooks', 200],
  ['webhooks/deleteWebhookSubscription.json', 'webhooks', 200],
];

/**
 * The webhook events act on an active subscription of this organization whose receiver (on
 * loopback, verifying signatures) passes the handshake, and on a delivery of it; delete takes a
 * throwaway subscription each time.
 */
const webhooks = { subscriptionId: '', deliveryId: '', throwaway: [] as string[] };
/** Runs until the file ends: the second pass below verifies and tests the subscription again. */
let webhookReceiver: { stop: () => Promise<void> } | undefined;
const webhookArgs = (file: string): string[] => [
  ...asClient,
  '--set',
  `subscriptionId=${file === 'webhooks/deleteWebhookSubscription.json' ? webhooks.throwaway.shift() : webhooks.subscriptionId}`,
  '--set',
  `deliveryId=${webhooks.deliveryId}`,
];

/** The document events act on a company of this organization and the document declared by declareDocumentUpload.json. */
const documents = { companyId: '', documentId: '' };
const documentArgs = (file: string): string[] => [
  ...asClient,
  '--set',
  `companyId=${documents.companyId}`,
  ...(file === 'documents/declareDocumentUpload.json' || file === 'documents/listDocuments.json' ? [] : ['--set', `documentId=${documents.documentId}`]),
];

/** The bank events act on a company of this organization with one bank account (see their describe). */
const bank = { companyId: '', bankAccountId: '', bankTransactionId: '', lineId: '', reconciliationId: '' };

/** The users and access events act on a person of this organization and the policy (and assignment) the events create. */
const access = { userId: '', policyId: '', version: 1, assignmentId: '' };

const accessArgs = (): string[] => [
  ...asClient,
  ...['--set', `companyId=${booksCompanyId}`, '--set', `userId=${access.userId}`],
  ...(access.policyId ? ['--set', `policyId=${access.policyId}`, '--set', `version=${access.version}`] : []),
  ...(access.assignmentId ? ['--set', `assignmentId=${access.assignmentId}`] : []),
];

/** What the users and access events answer feeds the next ones (the policy, its version, the assignment). */
const track = (file: string, body: Json) => {
  if (file === 'access/createAccessPolicy.json') Object.assign(access, { policyId: body.id, version: body.version });
  if (file === 'access/replaceAccessPolicy.json') access.version = body.version;
  if (file === 'access/createAccessAssignment.json') access.assignmentId = body.id;
  if (file === 'imports/createSaftImport.json') lastSaftImportId = body.id;
};

const bankArgs = (file: string): string[] => {
  const set = (name: keyof typeof bank) => ['--set', `${name}=${bank[name]}`];
  return [
    ...asClient,
    ...set('companyId'),
    ...set('bankAccountId'),
    ...(file === 'bank/createReconciliation.json' ? [...set('bankTransactionId'), ...set('lineId')] : []),
    ...(/Reconciliation\.json$/.test(file) && file !== 'bank/createReconciliation.json' ? set('reconciliationId') : []),
  ];
};

/** The unused account, dimension and sub-ledger of the sample books that the DELETE events remove. */
const unusedAccount = '7790';
const unusedDimension = '900';
const unusedSubLedger = '10002';
/** The sample GL line whose versions ledger/listGeneralLedgerLineVersions.json reads (--set lineId, the service's id of it). */
const versionedLine = 'gl-2025-000001';
/** The last import (and its job) the ledger events made: for getImport.json and getJob.json. */
let lastImport: { id: string; jobId: string } | undefined;
/** The last SAF-T import the events declared: for getSaftImport.json and startSaftImport.json (nothing is uploaded, so start answers 409 upload_missing). */
let lastSaftImportId: string | undefined;

/** The flags an event of the books company needs: the client, the company and the event's own placeholders. */
const booksArgs = (file: string): string[] => {
  const set = (name: string, value: string) => ['--set', `${name}=${value}`];
  return [
    ...asClient,
    ...set('companyId', booksCompanyId),
    ...(file === 'imports/getImport.json' ? set('importId', lastImport!.id) : []),
    ...(file === 'jobs/getJob.json' ? set('jobId', lastImport!.jobId) : []),
    ...(/^imports\/(get|start)SaftImport\.json$/.test(file) ? set('saftImportId', lastSaftImportId!) : []),
    ...(file === 'ledger/listGeneralLedgerLineVersions.json' ? set('lineId', lineIdOf(booksCompanyId, 2025, versionedLine)) : []),
    ...(file === 'imports/deleteAccount.json' ? set('accountNumber', unusedAccount) : []),
    ...(file === 'imports/deleteDimension.json' ? set('key', unusedDimension) : []),
    ...(file === 'imports/deleteSubLedger.json' ? set('key', unusedSubLedger) : []),
  ];
};

const argsFor = (file: string): string[] => {
  if (file.startsWith('companies/')) return [...asClient, ...company()];
  if (/^(ledger|imports|jobs)\//.test(file)) return booksArgs(file);
  if (file.startsWith('bank/')) return bankArgs(file);
  if (file.startsWith('documents/')) return documentArgs(file);
  if (/^(users|access)\//.test(file)) return accessArgs();
  if (file.startsWith('webhooks/')) return webhookArgs(file);
  return [];
};

/** Polls an import of the books company through the gateway until it is no longer queued (bounded: queueWaitMs). */
const waitForImport = async (importId: string): Promise<Json> => {
  const deadline = Date.now() + queueWaitMs;
  for (;;) {
    const response = await api('GET', `/v1/companies/${booksCompanyId}/imports/${importId}`, { token: clientToken });
    expect(response.status).toBe(200);
    if (response.body.status !== 'queued' || Date.now() > deadline) return response.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

/** Invokes an import event of the books company: expects 202 queued with a Location, then waits until the import succeeded. */
const importAndWait = async (file: string): Promise<Json> => {
  const accepted = await invoke('imports', file, ...booksArgs(file));
  expect(accepted.code, accepted.stderr.join('\n')).toBe(0);
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  expect(accepted.body.status).toBe('queued');
  expect(accepted.headers.location).toBe(`/v1/companies/${booksCompanyId}/imports/${accepted.body.id}`);
  const done = await waitForImport(accepted.body.id);
  expect(done.status, JSON.stringify(done)).toBe('succeeded');
  lastImport = { id: done.id, jobId: done.jobId };
  return done;
};

/** Invokes a read event of the books company; expects 200. */
const read = async (fn: string, file: string): Promise<Invocation> => {
  const result = await invoke(fn, file, ...booksArgs(file));
  expect(result.code, result.stderr.join('\n')).toBe(0);
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  return result;
};

// A walk through the sample events in order: later events act on what earlier ones created.
describe('npm run invoke: every sample event', { shuffle: false }, () => {
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

  describe('ledger, import and job events, on an Api company of this organization', () => {
    beforeAll(async () => {
      const books = await api('POST', '/v1/companies', { token: clientToken, body: { displayName: 'Solsiden Bakeri AS', accountingSystem: 'Api' } });
      expect(books.status, JSON.stringify(books.body)).toBe(201);
      booksCompanyId = books.body.id;
    });

    it('imports/import*.json need --set companyId: they never fall back to a seeded company', async () => {
      const result = await invoke('imports', 'imports/importAccounts.json');
      expect(result.code).toBe(1);
      expect(result.stderr).toEqual(['error: Unresolved placeholder {{companyId}}: pass --set companyId=VALUE']);
    });

    it('imports/importAccounts.json answers 202 on an Api company; the import succeeds with the chart of 2025', async () => {
      const done = await importAndWait('imports/importAccounts.json');
      expect(done).toMatchObject({ kind: 'accounts', year: 2025, lineCount: 10, rowsInserted: 10, rowsFailed: 0, sampleErrors: [] });
    });

    it('imports/importDimensions.json and importSubLedgers.json answer 202; the imports succeed', async () => {
      expect(await importAndWait('imports/importDimensions.json')).toMatchObject({ kind: 'dimensions', rowsInserted: 4, rowsFailed: 0 });
      expect(await importAndWait('imports/importSubLedgers.json')).toMatchObject({ kind: 'sub_ledgers', rowsInserted: 3, rowsFailed: 0 });
    });

    it('imports/importOpeningBalances.json and importGeneralLedgerLines.json answer 202; the imports succeed and record fetch runs', async () => {
      const openingBalances = await importAndWait('imports/importOpeningBalances.json');
      expect(openingBalances).toMatchObject({ kind: 'opening_balances', year: 2025, rowsInserted: 4, rowsFailed: 0 });
      const lines = await importAndWait('imports/importGeneralLedgerLines.json');
      expect(lines).toMatchObject({ kind: 'general_ledger_lines', year: 2025, lineCount: 10, rowsInserted: 10, rowsFailed: 0 });
      expect(lines.fetchCompletion).toMatchObject({ status: 'completed' });
    });

    it('imports/importOpenItems.json answers 202; the import succeeds', async () => {
      const done = await importAndWait('imports/importOpenItems.json');
      expect(done).toMatchObject({ kind: 'open_items', mode: 'incremental', rowsInserted: 2, rowsFailed: 0 });
    });

    it('ledger/listAccounts.json and getAccount.json answer 200 with the chart of 2025', async () => {
      const accounts = await read('ledger', 'ledger/listAccounts.json');
      expect(accounts.body.data.map((account: { accountNumber: string }) => account.accountNumber)).toEqual(
        ['1500', '1920', '2050', '2400', '2700', '2710', '3000', '4300', '6300', '7790'],
      );
      const account = await read('ledger', 'ledger/getAccount.json');
      expect(account.body).toMatchObject({ accountNumber: '1920', year: 2025, description: 'Bankinnskudd', category: 'Balance', currencyCode: 'NOK', hidden: false });
    });

    it('ledger/listGeneralLedgerLines.json and getTrialBalance.json answer 200 with the lines and balances of 2025', async () => {
      const lines = await read('ledger', 'ledger/listGeneralLedgerLines.json');
      expect(lines.body.data).toHaveLength(10);
      expect(lines.body.pagination.has_more).toBe(false);
      expect(lines.body.data.find((line: { sourceLineId: string }) => line.sourceLineId === 'gl-2025-000002')).toMatchObject({
        accountCode: '3000',
        amount: -10000,
        period: 1,
        transactionDate: '2025-01-15',
        taxCode: '3',
        taxAmount: -2500,
        dimensionKeys: ['100'],
      });
      const trialBalance = await read('ledger', 'ledger/getTrialBalance.json');
      expect(trialBalance.body.year).toBe(2025);
      expect(trialBalance.body.totals).toMatchObject({ openingBalance: 0, closingBalance: 0 });
      expect(trialBalance.body.accounts.find((account: { accountCode: string }) => account.accountCode === '1920')).toMatchObject({
        openingBalance: 250000,
        closingBalance: 252500,
      });
      // Printed as answered: amounts keep their two decimals (a JS number would print 252500).
      expect(trialBalance.stdout.join('\n')).toMatch(/"closingBalance": 252500\.00\b/);
      // And kept so for --set NAME=@last.PATH: an amount's text, not a JS number's (0, -10000).
      expect(fromLastAnswer(lastAnswerFile(stackFile), '@last.totals.closingBalance')).toBe('0.00');
      expect(fromLastAnswer(lastAnswerFile(stackFile), '@last.year')).toBe('2025');
    });

    it('ledger/listDimensions.json and listSubLedgers.json answer 200', async () => {
      const dimensions = await read('ledger', 'ledger/listDimensions.json');
      expect(dimensions.body.data.map((dimension: { key: string }) => dimension.key)).toEqual(['100', '200', '900', 'P-2025-01']);
      const subLedgers = await read('ledger', 'ledger/listSubLedgers.json');
      expect(subLedgers.body.data.map((subLedger: { key: string; type: string }) => `${subLedger.key}:${subLedger.type}`)).toEqual([
        '10001:customer',
        '10002:customer',
        '20001:supplier',
      ]);
    });

    it('ledger/listGeneralLedgerLineVersions.json (--set lineId) and listOpeningBalanceVersions.json answer 200 with the versions', async () => {
      const lineVersions = await read('ledger', 'ledger/listGeneralLedgerLineVersions.json');
      expect(lineVersions.body.data).toEqual([expect.objectContaining({ sourceLineId: versionedLine, year: 2025, version: 1, change: 'created', supersededAt: null })]);
      const unset = await invoke('ledger', 'ledger/listGeneralLedgerLineVersions.json', ...asClient, '--set', `companyId=${booksCompanyId}`);
      expect(unset.code).toBe(1);
      expect(unset.stderr).toEqual(['error: Unresolved placeholder {{lineId}}: pass --set lineId=VALUE']);
      const openingBalanceVersions = await read('ledger', 'ledger/listOpeningBalanceVersions.json');
      expect(openingBalanceVersions.body.data).toEqual([expect.objectContaining({ openingBalanceId: 'ob-2025-1920', year: 2025, version: 1, change: 'created', amount: 250000 })]);
    });

    it('the read events answer 200 for the first seeded company without --set', async () => {
      for (const [fn, file] of [
        ['ledger', 'ledger/listAccounts.json'],
        ['ledger', 'ledger/listGeneralLedgerLines.json'],
        ['ledger', 'ledger/getTrialBalance.json'],
        ['ledger', 'ledger/listDimensions.json'],
        ['ledger', 'ledger/listSubLedgers.json'],
        ['imports', 'imports/getImportReadiness.json'],
        ['imports', 'imports/listImports.json'],
        ['imports', 'imports/listFetchRuns.json'],
      ] as const) {
        const result = await invoke(fn, file);
        expect({ file, code: result.code, status: result.status }).toEqual({ file, code: 0, status: 200 });
      }
    });

    it('imports/getImportReadiness.json, listImports.json and getImport.json answer 200', async () => {
      const readiness = await read('imports', 'imports/getImportReadiness.json');
      expect(readiness.body).toMatchObject({ apiManaged: true, accountingSystem: 'Api', currentYear: 2025, dimensions: 4, subLedgers: 3, blockers: [] });
      expect(readiness.body.years).toEqual([
        expect.objectContaining({ year: 2025, current: true, accounts: 10, openingBalances: 4, generalLedgerLines: 10 }),
      ]);
      const imports = await read('imports', 'imports/listImports.json');
      expect(imports.body.data.map((record: { kind: string; status: string }) => `${record.kind}:${record.status}`)).toEqual([
        'open_items:succeeded',
        'general_ledger_lines:succeeded',
        'opening_balances:succeeded',
        'sub_ledgers:succeeded',
        'dimensions:succeeded',
        'accounts:succeeded',
      ]);
      const one = await read('imports', 'imports/getImport.json');
      expect(one.body).toMatchObject({ id: lastImport!.id, kind: 'open_items', status: 'succeeded' });
    });

    it('jobs/getJob.json answers 200 with the job of the last import', async () => {
      const job = await read('jobs', 'jobs/getJob.json');
      expect(job.body).toMatchObject({
        id: lastImport!.jobId,
        status: 'succeeded',
        type: 'import:open_items',
        scope: { companyId: booksCompanyId, lane: 'open_items' },
        resultUrl: `/v1/companies/${booksCompanyId}/imports/${lastImport!.id}`,
      });
    });

    it('jobs/listJobs.json answers 200 with the jobs of the organization of --as, newest first', async () => {
      const jobs = await read('jobs', 'jobs/listJobs.json');
      expect(jobs.body.data[0]).toMatchObject({ id: lastImport!.jobId, type: 'import:open_items', status: 'succeeded' });
      expect(jobs.body.data.map((job: { type: string }) => job.type)).toEqual([
        'import:open_items',
        'import:general_ledger_lines',
        'import:opening_balances',
        'import:sub_ledgers',
        'import:dimensions',
        'import:accounts',
      ]);
      expect(jobs.body.data.every((job: { scope: { companyId: string } }) => job.scope.companyId === booksCompanyId)).toBe(true);
    });

    it('imports/listFetchRuns.json answers 200 with the runs of the GL-line and opening-balance imports', async () => {
      const runs = await read('imports', 'imports/listFetchRuns.json');
      expect(runs.body.data.map((run: { kind: string; year: number }) => `${run.kind}:${run.year}`)).toEqual(['general_ledger_lines:2025', 'opening_balances:2025']);
    });

    it('imports/*SaftImport.json: declare answers 201 with a signed PUT; list and read show it awaiting the upload; start without it answers 409 upload_missing', async () => {
      const created = await invoke('imports', 'imports/createSaftImport.json', ...booksArgs('imports/createSaftImport.json'));
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toMatchObject({ status: 'awaiting_upload', upload: { method: 'PUT' } });
      track('imports/createSaftImport.json', created.body);
      const listed = await invoke('imports', 'imports/listSaftImports.json', ...booksArgs('imports/listSaftImports.json'));
      expect(listed.body.data.map((s: { id: string }) => s.id)).toContain(created.body.id);
      const one = await invoke('imports', 'imports/getSaftImport.json', ...booksArgs('imports/getSaftImport.json'));
      expect(one.body).toMatchObject({ id: created.body.id, status: 'awaiting_upload', report: null });
      const started = await invoke('imports', 'imports/startSaftImport.json', ...booksArgs('imports/startSaftImport.json'));
      expect({ status: started.status, error: started.body.error }).toEqual({ status: 409, error: 'upload_missing' });
    });

    it('imports/deleteGeneralLedgerLines.json and deleteOpeningBalances.json answer 202; the deletions succeed', async () => {
      expect(await importAndWait('imports/deleteGeneralLedgerLines.json')).toMatchObject({
        kind: 'general_ledger_line_deletions',
        rowsDeleted: 2,
        result: { unknown: [] },
      });
      const lines = await read('ledger', 'ledger/listGeneralLedgerLines.json');
      expect(lines.body.data).toHaveLength(8);
      expect(await importAndWait('imports/deleteOpeningBalances.json')).toMatchObject({ kind: 'opening_balance_deletions', rowsDeleted: 4, result: { unknown: [] } });
      const versions = await read('ledger', 'ledger/listOpeningBalanceVersions.json');
      expect(versions.body.data.map((version: { change: string }) => version.change)).toEqual(['created', 'deleted']);
    });

    it('imports/deleteAccount.json answers 202 for an unused account (the deletion succeeds) and 409 for one with lines', async () => {
      expect(await importAndWait('imports/deleteAccount.json')).toMatchObject({ kind: 'account_deletion', year: 2025, rowsDeleted: 1 });
      const accounts = await read('ledger', 'ledger/listAccounts.json');
      expect(accounts.body.data.map((account: { accountNumber: string }) => account.accountNumber)).not.toContain(unusedAccount);
      const inUse = await invoke('imports', 'imports/deleteAccount.json', ...asClient, '--set', `companyId=${booksCompanyId}`, '--set', 'accountNumber=1920');
      expect(inUse.status).toBe(409);
      expect(inUse.body.reason).toBe('account_in_use');
    });

    it('imports/deleteDimension.json and deleteSubLedger.json answer 202 for unused keys; the deletions succeed', async () => {
      expect(await importAndWait('imports/deleteDimension.json')).toMatchObject({ kind: 'dimension_deletion', rowsDeleted: 1 });
      expect(await importAndWait('imports/deleteSubLedger.json')).toMatchObject({ kind: 'sub_ledger_deletion', rowsDeleted: 1 });
      const dimensions = await read('ledger', 'ledger/listDimensions.json');
      expect(dimensions.body.data.map((dimension: { key: string }) => dimension.key)).not.toContain(unusedDimension);
      const subLedgers = await read('ledger', 'ledger/listSubLedgers.json');
      expect(subLedgers.body.data.map((subLedger: { key: string }) => subLedger.key)).not.toContain(unusedSubLedger);
    });

  });

  describe('VAT and bank events', () => {
    it('vat/listVatTerms.json and the bank read events answer 200 for the seeded demo company without --set', async () => {
      const terms = await invoke('vat', 'vat/listVatTerms.json');
      expect(terms.status, JSON.stringify(terms.body)).toBe(200);
      expect(terms.body.data).toHaveLength(6);
      for (const file of ['bank/listBankAccounts.json', 'bank/listBankTransactions.json', 'bank/getReconciliationSummary.json', 'bank/listReconciliations.json', 'bank/getReconciliation.json']) {
        const result = await invoke('bank', file);
        expect({ file, code: result.code, status: result.status }).toEqual({ file, code: 0, status: 200 });
      }
      const summary = await invoke('bank', 'bank/getReconciliationSummary.json');
      expect(summary.body.periods[0]).toMatchObject({ period: 1, approval: { status: 'approved' } });
    });

    it('bank/*.json act on a company of this organization given with --set', async () => {
      const created = await api('POST', '/v1/companies', { token: clientToken, body: { displayName: 'Havbris Kafé AS', accountingSystem: 'Api' } });
      bank.companyId = created.body.id;
      const pushAndWait = async (kind: string, body: unknown) => {
        const accepted = await api('POST', `/v1/companies/${bank.companyId}/imports/${kind}`, { token: clientToken, body });
        expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
        const done = await eventually(async () => {
          const read = await api('GET', `/v1/companies/${bank.companyId}/imports/${accepted.body.id}`, { token: clientToken });
          return read.body.status !== 'queued' && read;
        }, queueWaitMs, `import ${accepted.body.id} to finish`);
        expect(done.body.status).toBe('succeeded');
      };
      await pushAndWait('accounts', { year: 2026, accounts: [{ accountCode: '1920', accountDescription: 'Bankinnskudd', accountCategory: 'Balance' }] });
      await pushAndWait('general-ledger-lines', { year: 2026, lines: [{ id: 'inv-10001', accountCode: '1920', amount: '12500.00', period: 3 }] });
      const { ingestBankStatement } = await import('../../shared/bank/ingestion');
      const { statementXml, validAccountNumber } = await import('../support/bank');
      const ingested = await ingestBankStatement(bank.companyId, statementXml(validAccountNumber('1503101010'), 'ST-INVOKE', [{ reference: 'INV1', bookingDate: '2026-03-14', amount: '12500.00', description: 'Innbetaling faktura 10001' }]));
      bank.bankAccountId = ingested.statements[0]!.bankAccountId;
      const transactions = await api('GET', `/v1/companies/${bank.companyId}/bank/accounts/${bank.bankAccountId}/transactions`, { token: clientToken });
      bank.bankTransactionId = transactions.body.data[0].id;
      const glLines = await api('GET', `/v1/companies/${bank.companyId}/general-ledger/lines?year=2026`, { token: clientToken });
      bank.lineId = glLines.body.data[0].lineId;

      const group = await invoke('bank', 'bank/createReconciliation.json', ...bankArgs('bank/createReconciliation.json'));
      expect(group.status, JSON.stringify(group.body)).toBe(200);
      expect(group.body).toMatchObject({ bankAccountId: bank.bankAccountId, year: 2026, period: 3, total: 12500, source: 'manual', note: 'Sample event: customer payment of invoice 10001' });
      bank.reconciliationId = group.body.id;
      const again = await invoke('bank', 'bank/createReconciliation.json', ...bankArgs('bank/createReconciliation.json'));
      expect(again.status).toBe(409);
      expect(again.body.error).toBe('already_reconciled');

      const accounts = await invoke('bank', 'bank/listBankAccounts.json', ...bankArgs('bank/listBankAccounts.json'));
      expect(accounts.body.data.map((a: { id: string }) => a.id)).toEqual([bank.bankAccountId]);
      const open = await invoke('bank', 'bank/listBankTransactions.json', ...bankArgs('bank/listBankTransactions.json'));
      expect(open.body.data).toEqual([]); // the event lists unreconciled transactions only
      const one = await invoke('bank', 'bank/getReconciliation.json', ...bankArgs('bank/getReconciliation.json'));
      expect(one.body.entries).toHaveLength(2);
      const list = await invoke('bank', 'bank/listReconciliations.json', ...bankArgs('bank/listReconciliations.json'), '--set', 'period=3');
      expect(list.status).toBe(200);
      const summary = await invoke('bank', 'bank/getReconciliationSummary.json', ...bankArgs('bank/getReconciliationSummary.json'));
      expect(summary.body.periods[2]).toMatchObject({ groupCount: 1, entryCount: 2 });
      const dissolved = await invoke('bank', 'bank/deleteReconciliation.json', ...bankArgs('bank/deleteReconciliation.json'));
      expect(dissolved.body).toMatchObject({ id: bank.reconciliationId, deleted: true });
    });
  });

  describe('webhooks', () => {
    it('webhooks/*.json: every webhook event on an active subscription of a verifying receiver', async () => {
      const { startReceiver, eventually } = await import('../support/webhook-receiver');
      const receiver = await startReceiver();
      webhookReceiver = receiver;
      {
        const created = await api('POST', '/v1/webhooks/subscriptions', { token: clientToken, body: { url: receiver.url, eventTypes: ['webhook.test'] } });
        receiver.state.secrets = [created.body.secret];
        webhooks.subscriptionId = created.body.id;
        await eventually(async () => (await api('GET', `/v1/webhooks/subscriptions/${created.body.id}`, { token: clientToken })).body.status === 'active', queueWaitMs, 'the handshake');
        for (let i = 0; i < 3; i++) {
          webhooks.throwaway.push((await api('POST', '/v1/webhooks/subscriptions', { token: clientToken, body: { url: receiver.url, eventTypes: ['*'] } })).body.id);
        }
        const test = await api('POST', `/v1/webhooks/subscriptions/${created.body.id}/test`, { token: clientToken });
        webhooks.deliveryId = test.body.id;
        for (const [file, fn, status] of expected.filter(([file]) => file.startsWith('webhooks/'))) {
          const result = await invoke(fn, file, ...webhookArgs(file));
          expect(result.code, file).toBe(0);
          expect(result.status, `${file}: ${JSON.stringify(result.body)}`).toBe(status);
          if (file === 'webhooks/rotateWebhookSecret.json') receiver.state.secrets = [result.body.secret, ...receiver.state.secrets];
        }
      }
    });
  });

  describe('documents', () => {
    it('documents/*.json: declare, PUT the sample file to the signed URL, complete, list, read, download, delete, restore', async () => {
      const created = await api('POST', '/v1/companies', { token: clientToken, body: { displayName: 'Kvittering Kafé AS', accountingSystem: 'Api' } });
      documents.companyId = created.body.id;
      const declared = await invoke('documents', 'documents/declareDocumentUpload.json', ...documentArgs('documents/declareDocumentUpload.json'));
      expect(declared.status, JSON.stringify(declared.body)).toBe(200);
      expect(declared.body.status).toBe('pending_upload');
      documents.documentId = declared.body.documentId;
      const bytes = readFileSync(resolve(import.meta.dirname, '../fixtures/documents/kvittering-2026-03-14.txt'));
      const stored = await fetch(declared.body.upload.url, { method: 'PUT', headers: declared.body.upload.headers, body: bytes });
      expect(stored.status).toBe(200);

      const completed = await invoke('documents', 'documents/completeDocumentUpload.json', ...documentArgs('documents/completeDocumentUpload.json'));
      expect(completed.status, JSON.stringify(completed.body)).toBe(200);
      expect(completed.body).toMatchObject({ id: documents.documentId, companyId: documents.companyId, fileName: 'kvittering-2026-03-14.txt', contentType: 'text/plain', sizeBytes: bytes.length, status: 'available' });
      const list = await invoke('documents', 'documents/listDocuments.json', ...documentArgs('documents/listDocuments.json'));
      expect(list.body.data.map((d: { id: string }) => d.id)).toEqual([documents.documentId]);
      const read = await invoke('documents', 'documents/getDocument.json', ...documentArgs('documents/getDocument.json'));
      expect(read.body).toEqual(completed.body);
      const download = await invoke('documents', 'documents/getDocumentDownload.json', ...documentArgs('documents/getDocumentDownload.json'));
      expect(Buffer.from(await (await fetch(download.body.url)).arrayBuffer()).equals(bytes)).toBe(true);
      const deleted = await invoke('documents', 'documents/deleteDocument.json', ...documentArgs('documents/deleteDocument.json'));
      expect(deleted.body).toMatchObject({ id: documents.documentId, deleted: true });
      const restored = await invoke('documents', 'documents/restoreDocument.json', ...documentArgs('documents/restoreDocument.json'));
      expect(restored.body).toEqual(completed.body);
    });
  });

  describe('users and access', () => {
    it('access/*.json and users/*.json: create a policy, replace it (If-Match), assign it, read the person\'s access, revoke, delete', async () => {
      access.userId = (await createUser({ organizationId, email: `invoke-${randomUUID().slice(0, 8)}@example.test`, name: 'Invoke Person' }, localPersonDirectory)).person.userId;
      for (const [file, fn, status] of expected.filter(([file]) => /^(users|access)\//.test(file))) {
        const result = await invoke(fn, file, ...accessArgs());
        expect(result.code, result.stderr.join('\n')).toBe(0);
        expect(result.status, `${file}: ${JSON.stringify(result.body)}`).toBe(status);
        track(file, result.body);
        if (file === 'users/getUserAccess.json') expect(result.body.data).toEqual([{ companyId: booksCompanyId, actions: ['companies:read', 'ledger:read', 'bank:read'] }]);
        if (file === 'users/explainUserAccess.json') expect(result.body).toMatchObject({ decision: 'allow', reason: 'allow_rule', policy: { id: access.policyId } });
      }
    });
  });

  it.each(expected)('once more in a row: %s (%s) exits 0 with status %i', async (file, fn, status) => {
    const result = await invoke(fn, file, ...argsFor(file));
    expect(result.code).toBe(0);
    if (fn === 'authorizer') expect(result.body.isAuthorized).toBe(true);
    else expect(result.status, JSON.stringify(result.body)).toBe(status);
    if (file === 'bank/createReconciliation.json') bank.reconciliationId = result.body.id; // the next events read and dissolve it
    track(file, result.body);
    // The next import of the same kind would meet this one in flight (409 job_in_flight): let it finish.
    if (status === 202 && fn === 'imports') {
      const done = await waitForImport(result.body.id);
      expect(done.status, JSON.stringify(done)).toBe('succeeded');
      lastImport = { id: done.id, jobId: done.jobId };
    }
  });
});

describe('npm run invoke: behaviour', () => {
  it('--set NAME=@last.PATH takes a value of the previous answer (create a company, then read it without copying its id)', async () => {
    // As a seeded client: this file's organization must stay empty until companies/listCompanies.json has seen it.
    const created = await invoke('companies', 'companies/createCompany.json', '--as', 'a-system');
    expect(created.status).toBe(201);
    const read = await invoke('companies', 'companies/getCompany.json', '--as', 'a-system', '--set', 'companyId=@last.id');
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(created.body.id);
    const missing = await invoke('companies', 'companies/getCompany.json', '--as', 'a-system', '--set', 'companyId=@last.nothing.here');
    expect(missing.code).toBe(1);
    expect(missing.stderr.join('\n')).toContain('the previous answer has no value at nothing.here');
  });

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

  it('prints the usage on --help and exits 0, as every tool of the project does', async () => {
    const stdout: string[] = [];
    const code = await runInvoke(['--help'], { out: (line) => stdout.push(line), err: () => undefined });
    expect(code).toBe(0);
    expect(stdout.join('\n')).toContain('--set NAME=VALUE');
  });
});
