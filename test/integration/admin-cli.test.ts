import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runAdmin } from '../../infra/tools/admin';
import { api, fetchToken, tokenFor } from '../support/api';
import { testStack } from '../support/stack';
import { newFirm } from '../support/people';
import { startReceiver } from '../support/webhook-receiver';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../infra/local/dynamodb-local';
import { dynamo, tableName } from '../../shared/platform/aws';
import { apiClientRepository } from '../../shared/identity/api-client-repository';
import { localPersonDirectory } from '../../shared/identity/person-directories';
import { subscriptionKeys } from '../../shared/webhooks/keys';
import { periodApprovalKeys } from '../../shared/bank/keys';
import type { Json } from '../support/json';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { ensureQueue, localSqsClient } from '../../infra/local/sqs';
import { countsOf } from '../../infra/tools/dead-letter-queues';
import { eventually } from '../support/poll';

/** The admin CLI, run in-process against the test run's local stack through a stack file. */
let stackFile = '';
let dir = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'admin-cli-'));
  stackFile = join(dir, 'stack.json');
  writeFileSync(stackFile, JSON.stringify(testStack()));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number;
  out: string;
  err: string;
  stdout: string[];
  stderr: string[];
}

const admin = async (...argv: string[]): Promise<Run> => {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runAdmin(argv, { out: (line) => stdout.push(line), err: (line) => stderr.push(line) });
  return { code, out: stdout.join('\n'), err: stderr.join('\n'), stdout, stderr };
};

/** Runs against the test stack and expects success; returns the parsed --json output. */
const adminJson = async <T = Json>(...argv: string[]): Promise<T> => {
  const run = await admin(...argv, '--stack', stackFile, '--json');
  expect(run.err).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.out) as T;
};

/** A failure: exit 1 and exactly one line on stderr, no stack trace. */
const expectFailure = (run: Run, message: string | RegExp) => {
  expect(run.code).toBe(1);
  expect(run.stderr).toHaveLength(1);
  expect(run.err).toMatch(message);
  expect(run.err).not.toMatch(/\n\s+at /);
  expect(run.out).toBe('');
};

const secretLine = (out: string): string => /client secret\s+(\S+)/.exec(out)![1]!;

describe('admin CLI: organizations, companies, clients', () => {
  it('creates an organization tree, a company and a client, rotates it, lists it and cascade-deletes', async () => {
    const suffix = randomUUID().slice(0, 8);

    // create-organization (human output), then a child with --parent
    const created = await admin('create-organization', '--name', `CLI Firm ${suffix}`, '--stack', stackFile);
    expect(created.code).toBe(0);
    expect(created.out).toContain(`Created organization "CLI Firm ${suffix}"`);
    const parentId = /id\s+([0-9a-f-]{36})/.exec(created.out)![1]!;
    const child = await adminJson('create-organization', '--name', `CLI Firm ${suffix} Bergen`, '--parent', parentId);
    expect(child).toMatchObject({ name: `CLI Firm ${suffix} Bergen`, parentId, path: `${parentId}/${child.id}`, status: 'active' });

    // create-company in the child, with the validations of CreateCompanySchema
    const company = await adminJson(
      'create-company', '--organization', child.id, '--name', 'Fjellheim Bygg AS',
      '--accounting-system', 'Tripletex', '--organization-number', '923609016',
    );
    expect(company).toMatchObject({
      name: 'Fjellheim Bygg AS', organizationId: child.id, accountingSystem: 'Tripletex', organizationNumber: '923609016', status: 'active',
    });
    const human = await admin('create-company', '--organization', parentId, '--name', 'Parent Holding AS', '--stack', stackFile);
    expect(human.code).toBe(0);
    expect(human.out).toMatch(/Created company "Parent Holding AS"/);
    expect(human.out).toMatch(/accounting system\s+Api/);

    // create-client: id and secret printed once, and the secret works at the token endpoint
    const createdClient = await admin(
      'create-client', '--organization', parentId, '--name', `cli-client-${suffix}`,
      '--scopes', 'companies:read,companies:write', '--plan', 'premium', '--stack', stackFile,
    );
    expect(createdClient.code).toBe(0);
    expect(createdClient.out).toContain('will not be shown again');
    const clientId = /client id\s+(\S+)/.exec(createdClient.out)![1]!;
    const firstSecret = secretLine(createdClient.out);
    const token = await tokenFor(clientId, firstSecret);
    expect(token).toBeTruthy();
    const tokenResponse = await fetchToken(clientId, firstSecret);
    expect(tokenResponse.status).toBe(200);
    expect(((await tokenResponse.json()) as { access_token?: string }).access_token).toBeTruthy();

    // the parent's client sees the child's company
    const before = await api('GET', `/v1/companies/${company.id}`, { token });
    expect(before.status).toBe(200);
    expect(before.body.id).toBe(company.id);

    // rotate-client: the old secret stops working at once, the new one works
    const rotated = await admin('rotate-client', '--client-id', clientId, '--stack', stackFile);
    expect(rotated.code).toBe(0);
    expect(rotated.out).toContain('will not be shown again');
    const secondSecret = secretLine(rotated.out);
    expect(secondSecret).not.toBe(firstSecret);
    const old = await fetchToken(clientId, firstSecret);
    expect(old.status).toBe(401);
    expect(await old.json()).toMatchObject({ error: 'invalid_client' });
    expect((await fetchToken(clientId, secondSecret)).status).toBe(200);

    // list-clients: a readable table, never a secret
    const listed = await admin('list-clients', '--organization', parentId, '--stack', stackFile);
    expect(listed.code).toBe(0);
    expect(listed.stdout[0]).toMatch(/^NAME\s+CLIENT ID\s+MODE\s+PLAN\s+SCOPES\s+STATUS\s+CREATED$/);
    const row = listed.stdout.find((line) => line.includes(clientId))!;
    expect(row).toMatch(new RegExp(`^cli-client-${suffix}\\s+${clientId}\\s+SYSTEM\\s+premium\\s+2\\s+active\\s+\\d{4}-\\d\\d-\\d\\d`));
    for (const secret of [firstSecret, secondSecret]) expect(listed.out).not.toContain(secret);
    const listedJson = await adminJson<Record<string, unknown>[]>('list-clients', '--organization', parentId);
    expect(listedJson).toEqual([expect.objectContaining({ clientId, name: `cli-client-${suffix}`, plan: 'premium', status: 'active' })]);
    const text = JSON.stringify(listedJson);
    expect(text).not.toContain(secondSecret);
    expect(text).not.toMatch(/secret/i);

    // delete-organization: the child's company is cascade-deleted, so the parent's client gets 404
    const deleted = await admin('delete-organization', '--id', child.id, '--stack', stackFile);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toEqual([
      `Deleted organization ${child.id} (1 organization with descendants)`,
      '  1 company was cascade-deleted',
      '  0 API clients were revoked',
      '  0 webhook subscriptions were deleted',
      '  0 access policies were deleted with their assignments',
      '  0 memberships of people who stay in other organizations ended',
      '  0 users were deleted (no other organization; their login removed)',
    ]);
    const newToken = await tokenFor(clientId, secondSecret);
    const after = await api('GET', `/v1/companies/${company.id}`, { token: newToken });
    expect(after.status).toBe(404);
    const restore = await api('POST', `/v1/companies/${company.id}/restore`, { token: newToken });
    expect(restore.status).toBe(409);
    expect(restore.body.reason).toBe('deleted_by_organization_cascade');

    // deleting the parent takes its own company (the child's is already deleted) and revokes its client
    expect(await adminJson('delete-organization', '--id', parentId)).toEqual({
      organizationId: parentId,
      deleted: true,
      companiesDeleted: 1,
      organizationsDeleted: 1,
      clientsRevoked: 1,
      subscriptionsDeleted: 0,
      policiesDeleted: 0,
      membershipsEnded: 0,
      usersDeleted: 0,
    });
    expect((await fetchToken(clientId, secondSecret)).status).toBe(401);

    // rotate-client refuses a revoked client: no secret is printed or stored
    expectFailure(await admin('rotate-client', '--client-id', clientId, '--stack', stackFile), new RegExp(`^error: Client ${clientId} is revoked$`));
    expect((await apiClientRepository.get(clientId))?.secretHash).toBeUndefined();
  });

  it('rejects a company with a bad organization number in one clear line (exit 1)', async () => {
    const organization = await adminJson('create-organization', '--name', `CLI Validation ${randomUUID().slice(0, 8)}`);
    const run = await admin('create-company', '--organization', organization.id, '--name', 'Feil AS', '--organization-number', '923609017', '--stack', stackFile);
    expectFailure(run, /^error: Invalid company: --organization-number: must be a valid Norwegian organization number/);
    expectFailure(
      await admin('create-company', '--organization', organization.id, '--name', 'Feil AS', '--accounting-system', 'Excel', '--stack', stackFile),
      /--accounting-system: .*Api, Tripletex/,
    );
    expectFailure(await admin('create-company', '--organization', 'not-a-uuid', '--name', 'Feil AS', '--stack', stackFile), /^error: --organization must be an organization id \(a UUID\), not "not-a-uuid"$/);
    expectFailure(await admin('create-company', '--organization', randomUUID(), '--name', 'Feil AS', '--stack', stackFile), /Organization .* not found/);
    expectFailure(await admin('create-company', '--organization', organization.id, '--name', '  ', '--stack', stackFile), /--name: must not be blank/);
    await adminJson('delete-organization', '--id', organization.id);
  });

  it('refuses organization and client names the API could not answer (length, control characters; client names as Cognito takes them)', async () => {
    expectFailure(await admin('create-organization', '--name', 'N'.repeat(201), '--stack', stackFile), /^error: The organization name must be at most 200 characters, not 201$/);
    expectFailure(await admin('create-organization', '--name', 'Evil\u001b[31m AS', '--stack', stackFile), /^error: The organization name must not contain control characters/);
    const organization = await adminJson('create-organization', '--name', `  CLI Names ${randomUUID().slice(0, 8)}  `);
    expect(organization.name).toBe(organization.name.trim());
    expectFailure(await admin('create-client', '--organization', organization.id, '--name', 'c'.repeat(129), '--stack', stackFile), /^error: The client name must be at most 128 characters, not 129$/);
    expectFailure(await admin('create-client', '--organization', organization.id, '--name', 'Integrasjon for Bø', '--stack', stackFile), /^error: The client name may hold only letters A-Z/);
    expect((await adminJson('list-clients', '--organization', organization.id))).toEqual([]);
    await adminJson('delete-organization', '--id', organization.id);
  });

  it('reports administration errors in one line (exit 1)', async () => {
    const organization = await adminJson('create-organization', '--name', `CLI Errors ${randomUUID().slice(0, 8)}`);
    expectFailure(await admin('create-organization', '--name', 'Orphan', '--parent', randomUUID(), '--stack', stackFile), /Parent organization .* not found/);
    expectFailure(await admin('rotate-client', '--client-id', 'no_such_client', '--stack', stackFile), /^error: Client no_such_client not found$/);
    expectFailure(await admin('delete-organization', '--id', randomUUID(), '--stack', stackFile), /^error: Organization .* not found$/);
    expectFailure(
      await admin('create-client', '--organization', organization.id, '--name', 'x', '--scopes', 'companies:read,bogus:scope', '--stack', stackFile),
      /Unknown scope bogus:scope/,
    );
    expectFailure(
      await admin('create-client', '--organization', organization.id, '--name', 'x', '--scopes', 'context:read', '--stack', stackFile),
      /A system client cannot hold: context:read/,
    );
    expectFailure(await admin('create-client', '--organization', organization.id, '--name', 'x', '--plan', 'gold', '--stack', stackFile), /--plan must be standard or premium/);
    expectFailure(await admin('create-client', '--organization', organization.id, '--name', 'x', '--rate-limit', '600', '--stack', stackFile), /--rate-limit is PER_MINUTE\/BURST/);
    expectFailure(await admin('create-client', '--organization', organization.id, '--name', 'x', '--rate-limit', '600/0', '--stack', stackFile), /burst is a whole number from 1 to 100000/);
    expectFailure(await admin('create-client', '--organization', randomUUID(), '--name', 'x', '--stack', stackFile), /Organization .* not found/);
    const missing = join(tmpdir(), `no-stack-${randomUUID()}.json`);
    expectFailure(await admin('list-clients', '--organization', organization.id, '--stack', missing), /Start the local stack with npm start first/);
    expect((await adminJson('list-clients', '--organization', organization.id))).toEqual([]);
    expect((await admin('list-clients', '--organization', organization.id, '--stack', stackFile)).out).toBe(`No API clients in organization ${organization.id}`);
    await adminJson('delete-organization', '--id', organization.id);
  });

  it('refuses a malformed id flag in one line before any lookup (an over-long one was a raw DynamoDB key error)', async () => {
    const long = 'x'.repeat(2000);
    const shownLong = `"${'x'.repeat(39)}…" \\(2000 characters\\)`;
    const uuid = randomUUID();
    const cases: [string[], string][] = [
      [['delete-organization', '--id', long], `--id must be an organization id \\(a UUID\\), not ${shownLong}`],
      [['create-organization', '--name', 'X', '--parent', long], `--parent must be an organization id \\(a UUID\\), not ${shownLong}`],
      [['list-clients', '--organization', long], `--organization must be an organization id \\(a UUID\\), not ${shownLong}`],
      [['create-client', '--organization', uuid, '--name', 'x', '--user', long], `--user must be a user id \\(a UUID\\), not ${shownLong}`],
      [['create-user', '--organization', `${uuid}x`, '--email', 'a@example.test', '--name', 'A'], `--organization must be an organization id \\(a UUID\\), not "${uuid}x"`],
      [['add-membership', '--user', long, '--organization', uuid], `--user must be a user id \\(a UUID\\), not ${shownLong}`],
      [['remove-membership', '--user', uuid, '--organization', long], `--organization must be an organization id \\(a UUID\\), not ${shownLong}`],
      [['delete-user', '--user', `${uuid}\u202E`], `--user must be a user id \\(a UUID\\), not "${uuid}\\\\u202e"`],
      [['rotate-client', '--client-id', 'c'.repeat(129)], `--client-id must be a client id \\(up to 128 letters, digits, _ and \\+\\), not "${'c'.repeat(39)}…" \\(129 characters\\)`],
      [['rotate-client', '--client-id', 'abc\u0085'], `--client-id must be a client id \\(up to 128 letters, digits, _ and \\+\\), not "abc\\\\u0085"`],
      [['import-bank-statement', '--company', long, '--file', 'statement.xml'], `--company must be a company id \\(a UUID\\), not ${shownLong}`],
      [['auto-reconcile', '--company', long, '--year', '2026'], `--company must be a company id \\(a UUID\\), not ${shownLong}`],
      [['set-period-approval', '--company', long, '--gl-account', '1920', '--year', '2026', '--period', '1', '--status', 'approved'], `--company must be a company id \\(a UUID\\), not ${shownLong}`],
    ];
    for (const [argv, message] of cases) expectFailure(await admin(...argv, '--stack', stackFile), new RegExp(`^error: ${message}$`));
  });

  it('set-period-approval --by takes a name as the API serves approvedBy (at most 200 characters, the text rule)', async () => {
    const organization = await adminJson('create-organization', '--name', `CLI Approval ${randomUUID().slice(0, 8)}`);
    const company = await adminJson('create-company', '--organization', organization.id, '--name', 'Godkjent AS');
    const approve = (by: string, period: string) =>
      admin('set-period-approval', '--company', company.id, '--gl-account', '1920', '--year', '2026', '--period', period, '--status', 'approved', '--by', by, '--stack', stackFile);
    const stored = async (period: number) =>
      (await dynamo().send(new GetCommand({ TableName: tableName(), Key: periodApprovalKeys(company.id, 2026, '1920', period), ConsistentRead: true }))).Item;
    expectFailure(await approve('N'.repeat(201), '1'), /^error: The approver name must be at most 200 characters, not 201$/);
    expectFailure(await approve('Kari\u0085Nordmann', '1'), /^error: The approver name must not contain control characters/);
    expectFailure(await approve('Kari \u202ENordmann', '1'), /^error: The approver name must not contain bidirectional override or isolate characters/);
    expectFailure(await approve('   ', '1'), /^error: The approver name must not be blank$/);
    expect(await stored(1)).toBeUndefined();
    expect((await approve(`  ${'N'.repeat(200)}  `, '2')).code).toBe(0);
    expect(await stored(2)).toMatchObject({ status: 'approved', approvedBy: 'N'.repeat(200) });
    await adminJson('delete-organization', '--id', organization.id);
  });

  it.each([
    ['no command', []],
    ['an unknown command', ['frobnicate']],
    ['an unknown flag', ['list-clients', '--organization', 'x', '--bogus']],
    ['a flag of another command', ['list-clients', '--organization', 'x', '--plan', 'premium']],
    ['a missing required flag', ['create-company', '--name', 'X AS']],
    ['a flag without its value', ['list-clients', '--organization']],
    ['a stray argument', ['list-clients', 'extra', '--organization', 'x']],
    ['--table without --user-pool-id', ['list-clients', '--organization', 'x', '--table', 'ledger']],
    ['--outbox-table without --table', ['list-clients', '--organization', 'x', '--outbox-table', 'ledger-outbox']],
    ...[
      ['delete-organization', '--id', 'x'],
      ['create-company', '--organization', 'x', '--name', 'X AS'],
      ['import-bank-statement', '--company', 'x', '--file', 'statement.xml'],
      ['auto-reconcile', '--company', 'x', '--year', '2025'],
    ].map((command): [string, string[]] => [`${command[0]} on AWS without --outbox-table (it writes events)`, [...command, '--table', 'ledger', '--user-pool-id', 'eu-north-1_x']]),
  ])('prints the usage and exits 2 for %s', async (_case, argv) => {
    const run = await admin(...argv);
    expect(run.code).toBe(2);
    expect(run.stderr[0]).toMatch(/^error: /);
    expect(run.err).toContain('Usage: npm run admin -- <command> [flags]');
    expect(run.out).toBe('');
    if (argv.includes('--user-pool-id') && argv.includes('--table')) expect(run.stderr[0]).toBe('error: On AWS this command writes events: pass --outbox-table (the stack output OutboxTableName)');
  });

  it('refuses delete-organization, delete-user, rotate-client and dlq-redrive on AWS without --yes in one line (exit 2), before touching the environment or AWS', async () => {
    const aws = ['--table', 'ledger', '--user-pool-id', 'eu-north-1_x'];
    const [organizationId, userId] = [randomUUID(), randomUUID()];
    const env = { table: process.env.TABLE_NAME, endpoint: process.env.DYNAMODB_ENDPOINT, issuer: process.env.JWT_ISSUER };
    const cases: [string[], string][] = [
      [
        ['delete-organization', '--id', organizationId, '--outbox-table', 'ledger-outbox', ...aws],
        `delete-organization would delete organization ${organizationId} with its sub-organizations, companies, people and clients on AWS table ledger: pass --yes`,
      ],
      [['delete-user', '--user', userId, ...aws], `delete-user would delete user ${userId} with their access, assignments, per-user clients and login on AWS table ledger: pass --yes`],
      [['rotate-client', '--client-id', 'abc123', ...aws], 'rotate-client would replace the secret of API client abc123 (the old secret stops working at once) on AWS table ledger: pass --yes'],
      [
        ['dlq-redrive', '--queue', 'imports', '--max', '5', '--resource-prefix', 'ledger-prod', '--region', 'eu-north-1'],
        'dlq-redrive would move up to 5 messages of ledger-prod-imports-dlq back to ledger-prod-imports on the AWS queues ledger-prod-* (eu-north-1): pass --yes (or --dry-run to list them)',
      ],
    ];
    for (const [argv, message] of cases) {
      const run = await admin(...argv);
      expect(run.code).toBe(2);
      expect(run.stderr).toEqual([`error: ${message}`]);
      expect(run.out).toBe('');
    }
    expect({ table: process.env.TABLE_NAME, endpoint: process.env.DYNAMODB_ENDPOINT, issuer: process.env.JWT_ISSUER }).toEqual(env);
  });

  it('answers a known bad value in one line (exit 1), not with the usage: create-client --user of no one, outbox-sweep on AWS', async () => {
    const env = { table: process.env.TABLE_NAME, endpoint: process.env.DYNAMODB_ENDPOINT };
    const userId = randomUUID();
    expectFailure(await admin('create-client', '--user', userId, '--name', 'x', '--stack', stackFile), `error: User ${userId} not found`);
    expectFailure(
      await admin('outbox-sweep', '--table', 'ledger', '--user-pool-id', 'eu-north-1_x'),
      'error: outbox-sweep runs on the local stack; on AWS invoke the deployed sweeper: aws lambda invoke --function-name <OutboxSweeperFunctionName> out.json',
    );
    expect({ table: process.env.TABLE_NAME, endpoint: process.env.DYNAMODB_ENDPOINT }).toEqual(env);
  });

  it("keeps Node's hint for a value that starts with a dash (--password=-XYZ)", async () => {
    const run = await admin('create-user', '--organization', randomUUID(), '--email', 'dash@example.test', '--name', 'Dash', '--password', '-Abc12345678!', '--stack', stackFile);
    expect(run.code).toBe(2);
    expect(run.stderr[0]).toMatch(/^error: Option '--password' argument is ambiguous\. .*use '--password=-XYZ'/);
    expect(run.out).toBe('');
  });

  it('create-client --rate-limit gives the client a custom limit its answers state', async () => {
    const organization = await adminJson('create-organization', '--name', `CLI Limits ${randomUUID().slice(0, 8)}`);
    const created = await admin('create-client', '--organization', organization.id, '--name', 'bulk-loader', '--rate-limit', '3000/600', '--stack', stackFile);
    expect(created.code).toBe(0);
    expect(created.out).toContain('plan           standard (custom limit 3000 per minute, burst 600)');
    const clientId = /client id\s+(\S+)/.exec(created.out)![1]!;
    const response = await api('GET', '/v1/whoami', { token: await tokenFor(clientId, secretLine(created.out)) });
    expect(response.headers.get('ratelimit-limit')).toBe('600');
    expect(response.headers.get('ratelimit-policy')).toBe('600;w=12, 3000;w=60');
    await adminJson('delete-organization', '--id', organization.id);
  });

  it('prints the usage on --help and exits 0, as every tool of the project does', async () => {
    const run = await admin('--help');
    expect(run.code).toBe(0);
    expect(run.out).toContain('Usage: npm run admin -- <command> [flags]');
    for (const command of ['create-organization', 'delete-organization', 'create-company', 'create-client', 'rotate-client', 'list-clients']) {
      expect(run.out).toContain(command);
    }
    expect(run.err).toBe('');
  });
});

describe('admin CLI: upgrade steps', () => {
  it('backfill-webhook-index lists a subscription written before the subtree index again, once', async () => {
    const firm = await newFirm('CLI Webhooks');
    const receiver = await startReceiver();
    // The command scans its whole table, and the run's table holds every other test's data: it
    // runs here on a table of its own in the same DynamoDB Local (a stack file naming it) that holds
    // this subscription as it was before the index; the keys it writes are then set on the run's table.
    const ownTable = `backfill-${randomUUID().slice(0, 8)}`;
    const ownStackFile = join(dirname(stackFile), `${ownTable}.json`);
    writeFileSync(ownStackFile, JSON.stringify({ ...testStack(), internal: { ...testStack().internal, tableName: ownTable } }));
    await ensureTable(testStack().internal.dynamodbEndpoint, ownTable);
    try {
      const created = await api('POST', '/v1/webhooks/subscriptions', { token: firm.systemToken, body: { url: receiver.url, eventTypes: ['webhook.test'] } });
      expect(created.status).toBe(201);
      const key = subscriptionKeys(created.body.id);
      const listed = async () => (await api('GET', '/v1/webhooks/subscriptions', { token: firm.systemToken })).body.data.map((s: { id: string }) => s.id);
      expect(await listed()).toEqual([created.body.id]);
      // as an item written before the index existed
      await dynamo().send(new UpdateCommand({ TableName: tableName(), Key: key, UpdateExpression: 'REMOVE GSI2PK, GSI2SK' }));
      expect(await listed()).toEqual([]);
      const { Item: before } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
      expect(before).not.toHaveProperty('GSI2PK');
      await dynamo().send(new PutCommand({ TableName: ownTable, Item: before }));

      const run = await admin('backfill-webhook-index', '--stack', ownStackFile, '--json');
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
      expect(JSON.parse(run.out)).toEqual({ subscriptionsIndexed: 1 });
      const { Item: after } = await dynamo().send(new GetCommand({ TableName: ownTable, Key: key, ConsistentRead: true }));
      expect(after).toEqual({ ...before, GSI2PK: expect.any(String), GSI2SK: expect.any(String) });
      testStack(); // the run's table again
      await dynamo().send(new UpdateCommand({ TableName: tableName(), Key: key, UpdateExpression: 'SET GSI2PK = :pk, GSI2SK = :sk', ExpressionAttributeValues: { ':pk': after!.GSI2PK, ':sk': after!.GSI2SK } }));
      expect(await listed()).toEqual([created.body.id]);

      const again = await admin('backfill-webhook-index', '--stack', ownStackFile);
      expect(again.code).toBe(0);
      expect(again.out).toBe('Every webhook subscription was indexed already');
    } finally {
      testStack();
      await receiver.stop();
      await dynamo().send(new DeleteTableCommand({ TableName: ownTable }));
    }
  });
});

describe('admin CLI: people and per-user clients', () => {
  it('create-user (generated password), memberships, create-client --user (a USER principal), delete-user ends it all', async () => {
    const organization = await adminJson('create-organization', '--name', `CLI People ${randomUUID().slice(0, 8)}`);
    const other = await adminJson('create-organization', '--name', 'CLI People Bergen', '--parent', organization.id);
    const email = `kari-${randomUUID().slice(0, 8)}@example.test`;

    const human = await admin('create-user', '--organization', organization.id, '--email', email, '--name', 'Kari Nordmann', '--stack', stackFile);
    expect(human.code).toBe(0);
    expect(human.err).toContain(`Creating user ${email}`);
    expect(human.out).toContain(`Created user "Kari Nordmann" (${email})`);
    const userId = /user id\s+([0-9a-f-]{36})/.exec(human.out)![1]!;
    expect(/password\s+(\S{20,})/.exec(human.out)).not.toBeNull();
    expectFailure(await admin('create-user', '--organization', organization.id, '--email', email.toUpperCase(), '--name', 'Again', '--stack', stackFile, '--json'), /exists already/);
    expectFailure(
      await admin('create-user', '--organization', organization.id, '--email', `weak-${email}`, '--name', 'Ola', '--password', 'correct-horse-1', '--stack', stackFile, '--json'),
      /^error: The password does not meet the login password policy: it needs at least 16 characters \(it has 15\), an uppercase letter/,
    );
    expect(await adminJson('create-user', '--organization', organization.id, '--email', `given-${email}`, '--name', 'Ola', '--password', 'Correct-Horse-Battery-1')).not.toHaveProperty('password');

    expect(await adminJson('add-membership', '--user', userId, '--organization', other.id)).toEqual({ userId, organizationId: other.id, member: true });
    expect(await adminJson('remove-membership', '--user', userId, '--organization', other.id)).toEqual({ userId, organizationId: other.id, member: false });
    expectFailure(await admin('remove-membership', '--user', userId, '--organization', organization.id, '--stack', stackFile), /last membership/);

    const client = await adminJson('create-client', '--user', userId, '--name', 'Kari CLI');
    expect(client).toMatchObject({ mode: 'USER', userId, organizationId: organization.id });
    expect(client.scopes).not.toContain('imports:write');
    expectFailure(await admin('create-client', '--user', userId, '--name', 'x', '--scopes', 'access:manage', '--stack', stackFile), /per-user client cannot hold: access:manage/);
    const token = await tokenFor(client.clientId, client.clientSecret);
    expect((await api('GET', '/v1/whoami', { token })).body).toMatchObject({ mode: 'USER', userId, organizationId: organization.id });

    expect(await adminJson('delete-user', '--user', userId)).toEqual({ userId, deleted: true, resumed: false, assignmentsDeleted: 0, clientsRevoked: 1 });
    await new Promise((done) => setTimeout(done, testStack().authorizerCacheTtlSeconds * 1000 + 50)); // the authorizer's decision TTL
    expect((await api('GET', '/v1/whoami', { token })).status).toBe(401);
    // Running it again finishes a deletion that stopped half-way; here there is nothing left to do.
    const again = await admin('delete-user', '--user', userId, '--stack', stackFile);
    expect(again.code).toBe(0);
    expect(again.out).toContain(`User ${userId} was marked deleted already (an earlier run); the deletion is now complete`);
    expect(again.out).toContain('0 per-user API clients were revoked');
    expectFailure(await admin('delete-user', '--user', randomUUID(), '--stack', stackFile, '--json'), /not found/);
  });

  it('a deletion that fails part-way says to run the same command again, and running it again finishes it', async () => {
    const organization = await adminJson('create-organization', '--name', `CLI Part-way ${randomUUID().slice(0, 8)}`);
    await adminJson('create-company', '--organization', organization.id, '--name', 'Halvveis AS');
    const user = await adminJson('create-user', '--organization', organization.id, '--email', `partway-${randomUUID().slice(0, 8)}@example.test`, '--name', 'Per Halvveis');
    const partWay = /; the deletion stopped part-way: run the same command again to finish$/;

    // delete-user: the login removal fails (as when Cognito throttles) after the person was marked deleted
    const remove = vi.spyOn(localPersonDirectory, 'remove').mockRejectedValueOnce(new Error('Rate exceeded'));
    try {
      const failed = await admin('delete-user', '--user', user.userId, '--stack', stackFile, '--json');
      expectFailure(failed, /^error: Rate exceeded; /);
      expect(failed.err).toMatch(partWay);
    } finally {
      remove.mockRestore();
    }
    expect(await adminJson('delete-user', '--user', user.userId)).toMatchObject({ userId: user.userId, deleted: true, resumed: true });

    // delete-organization: listing the clients fails after the organization was marked deleted
    const list = vi.spyOn(apiClientRepository, 'listByOrganization').mockRejectedValueOnce(new Error('Throughput exceeded'));
    try {
      const failed = await admin('delete-organization', '--id', organization.id, '--stack', stackFile, '--json');
      expectFailure(failed, /^error: Throughput exceeded; /);
      expect(failed.err).toMatch(partWay);
    } finally {
      list.mockRestore();
    }
    const again = await admin('delete-organization', '--id', organization.id, '--stack', stackFile);
    expect(again.code).toBe(0);
    expect(again.stderr).toHaveLength(1);
    expect(again.stderr[0]!.startsWith(`Deleting organization "${organization.name}" (${organization.id}) and its sub-organizations on the local stack (`)).toBe(true);
    expect(again.out).toContain('1 company was cascade-deleted');
  });

  it('--help lists the people commands', async () => {
    const help = await admin('--help');
    for (const command of ['create-user', 'add-membership', 'remove-membership', 'delete-user', '--user USER_ID']) expect(help.out).toContain(command);
  });
});

describe('admin CLI: dead-letter queues', () => {
  /**
   * A queue pair of its own in the test stack's SQS emulator, listed as the reconciliation queue in
   * a stack file of this test: no worker polls it and no other test reads it, so counts are exact.
   */
  const prefix = `admin-dlq-${randomUUID().slice(0, 8)}`;
  let dlqStackFile = '';
  let pair: { url: string; dlqUrl: string };
  const sqs = () => localSqsClient(testStack().internal.sqsEndpoint);

  beforeAll(async () => {
    const stack = testStack();
    const client = sqs();
    pair = await ensureQueue(client, { name: `${prefix}-reconciliation`, visibilityTimeoutSeconds: 120, maxReceiveCount: 5 });
    client.destroy();
    dlqStackFile = join(dirname(stackFile), 'dlq-stack.json');
    writeFileSync(dlqStackFile, JSON.stringify({ ...stack, internal: { ...stack.internal, queues: { ...stack.internal.queues, reconciliation: pair } } }));
  });

  const dlq = (...argv: string[]) => admin(...argv, '--stack', dlqStackFile);
  const dlqJson = async <T = Json>(...argv: string[]): Promise<T> => {
    const run = await dlq(...argv, '--json');
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    return JSON.parse(run.out) as T;
  };
  const counts = async (url: string) => {
    const client = sqs();
    try {
      return await countsOf(client, url);
    } finally {
      client.destroy();
    }
  };

  it('lists counts, shows without consuming, redrives exactly N (dry run first), purges only with --yes', async () => {
    const client = sqs();
    const bodies = [
      JSON.stringify({ companyId: 'c-1', year: 2026, run: 'first' }),
      JSON.stringify({ companyId: 'c-2', year: 2026, run: 'second' }),
      'x'.repeat(3_000),
    ];
    for (const [index, body] of bodies.entries()) {
      await client.send(
        new SendMessageCommand({ QueueUrl: pair.dlqUrl, MessageBody: body, MessageAttributes: { attempt: { DataType: 'String', StringValue: String(index) } } }),
      );
    }
    await eventually(async () => (await counts(pair.dlqUrl)).visible === 3, 30_000, 'three messages in the DLQ');

    // dlq-list: one queue as JSON, every queue as a table
    expect(await dlqJson('dlq-list', '--queue', 'reconciliation')).toEqual([
      { queue: 'reconciliation', deadLetterQueue: `${prefix}-reconciliation-dlq`, url: pair.dlqUrl, visible: 3, inFlight: 0 },
    ]);
    const listed = await dlq('dlq-list');
    expect(listed.code).toBe(0);
    expect(listed.stdout[0]).toMatch(/^QUEUE\s+DEAD-LETTER QUEUE\s+VISIBLE\s+IN FLIGHT$/);
    expect(listed.stdout).toHaveLength(2 + 5 + 1);
    expect(listed.out).toMatch(new RegExp(`reconciliation\\s+${prefix}-reconciliation-dlq\\s+3\\s+0`));

    // dlq-show: every message, bodies readable, and all still there and visible afterwards
    const shown = await dlqJson<{ messages: { messageId: string; body: string; receiveCount: number; sentAt: string }[] }>('dlq-show', '--queue', 'reconciliation');
    expect(shown.messages.map((message) => message.body).sort()).toEqual([...bodies].sort());
    for (const message of shown.messages) {
      expect(message.receiveCount).toBe(1);
      expect(Date.parse(message.sentAt)).not.toBeNaN();
    }
    expect(await counts(pair.dlqUrl)).toEqual({ visible: 3, inFlight: 0 });
    const human = await dlq('dlq-show', '--queue', 'reconciliation', '--max', '2');
    expect(human.code).toBe(0);
    expect(human.stdout[0]).toBe(`2 messages of ${prefix}-reconciliation-dlq (the first 2; --max shows more), left in the queue`);
    expect(human.out).toMatch(/^receives {2}2$/m);
    const everything = await dlq('dlq-show', '--queue', 'reconciliation');
    expect(everything.out).toMatch(/^ {4}"companyId": "c-1",$/m);
    expect(everything.out).toContain(`  ${'x'.repeat(2_000)}\n  … (1000 more characters)`);
    expect(await counts(pair.dlqUrl)).toEqual({ visible: 3, inFlight: 0 });

    // dlq-redrive --dry-run: says what would move, changes nothing
    const dry = await dlqJson<{ dryRun: boolean; from: string; to: string; messages: { messageId: string }[] }>('dlq-redrive', '--queue', 'reconciliation', '--dry-run');
    expect(dry).toMatchObject({ dryRun: true, from: `${prefix}-reconciliation-dlq`, to: `${prefix}-reconciliation` });
    expect(dry.messages.map((message) => message.messageId).sort()).toEqual(shown.messages.map((message) => message.messageId).sort());
    expect(await counts(pair.dlqUrl)).toEqual({ visible: 3, inFlight: 0 });
    expect(await counts(pair.url)).toEqual({ visible: 0, inFlight: 0 });

    // dlq-redrive --max 2: exactly two move, with progress lines, bodies and attributes intact
    const moved = await dlq('dlq-redrive', '--queue', 'reconciliation', '--max', '2');
    expect(moved.code).toBe(0);
    expect(moved.out).toBe(`Moved 2 messages from ${prefix}-reconciliation-dlq to ${prefix}-reconciliation`);
    expect(moved.stderr.filter((line) => /^ {2}moved \S+ -> \S+$/.test(line))).toHaveLength(2);
    expect(await counts(pair.dlqUrl)).toEqual({ visible: 1, inFlight: 0 });
    expect(await counts(pair.url)).toEqual({ visible: 2, inFlight: 0 });
    const { Messages: arrived = [] } = await client.send(
      new ReceiveMessageCommand({ QueueUrl: pair.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageAttributeNames: ['All'] }),
    );
    expect(arrived).toHaveLength(2);
    const left = (await dlqJson<{ messages: { body: string }[] }>('dlq-show', '--queue', 'reconciliation')).messages;
    expect([...arrived.map((message) => message.Body), left[0]!.body].sort()).toEqual([...bodies].sort());
    for (const message of arrived) expect(bodies[Number(message.MessageAttributes?.attempt?.StringValue)]).toBe(message.Body);

    // dlq-purge: refused without --yes (saying how many), a dry run changes nothing, --yes empties the DLQ
    expectFailure(await dlq('dlq-purge', '--queue', 'reconciliation'), `error: dlq-purge would delete 1 message (approximately) of ${prefix}-reconciliation-dlq: pass --yes to delete them`);
    expect(await dlqJson('dlq-purge', '--queue', 'reconciliation', '--dry-run')).toEqual({
      queue: 'reconciliation', deadLetterQueue: `${prefix}-reconciliation-dlq`, dryRun: true, wouldDelete: 1,
    });
    expect(await counts(pair.dlqUrl)).toEqual({ visible: 1, inFlight: 0 });
    expect(await dlqJson('dlq-purge', '--queue', 'reconciliation', '--yes')).toEqual({ queue: 'reconciliation', deadLetterQueue: `${prefix}-reconciliation-dlq`, deleted: 1 });
    await eventually(async () => {
      const now = await counts(pair.dlqUrl);
      return now.visible === 0 && now.inFlight === 0;
    }, 30_000, 'an empty DLQ');
    expect(await dlqJson('dlq-redrive', '--queue', 'reconciliation')).toEqual({
      queue: 'reconciliation', from: `${prefix}-reconciliation-dlq`, to: `${prefix}-reconciliation`, moved: 0, messages: [],
    });
    client.destroy();
  });

  it('finds the queues by name with --resource-prefix (as on AWS)', async () => {
    const client = sqs();
    await client.send(new SendMessageCommand({ QueueUrl: pair.dlqUrl, MessageBody: '{"by":"name"}' }));
    client.destroy();
    // An SDK client without an endpoint reaches the emulator through this variable, as AWS through its own.
    const saved = process.env.AWS_ENDPOINT_URL_SQS;
    process.env.AWS_ENDPOINT_URL_SQS = testStack().internal.sqsEndpoint;
    try {
      const region = testStack().internal.region;
      const run = await admin('dlq-show', '--queue', 'reconciliation', '--resource-prefix', prefix, '--region', region, '--json');
      expect(run.err).toBe('');
      expect(JSON.parse(run.out)).toMatchObject({ deadLetterQueue: `${prefix}-reconciliation-dlq`, messages: [{ body: '{"by":"name"}' }] });
      const purged = await admin('dlq-purge', '--queue', 'reconciliation', '--resource-prefix', prefix, '--region', region, '--yes', '--json');
      expect(JSON.parse(purged.out)).toMatchObject({ deleted: 1 });
      expectFailure(
        await admin('dlq-list', '--queue', 'imports', '--resource-prefix', `${prefix}-missing`, '--region', region),
        `error: No queue ${prefix}-missing-imports in ${region}: check --resource-prefix and --region`,
      );
    } finally {
      if (saved === undefined) delete process.env.AWS_ENDPOINT_URL_SQS;
      else process.env.AWS_ENDPOINT_URL_SQS = saved;
    }
  });

  it('answers an unknown queue in one line listing the queues, and usage errors with exit 2', async () => {
    for (const command of ['dlq-list', 'dlq-show', 'dlq-redrive']) {
      expectFailure(await dlq(command, '--queue', 'bogus'), 'error: Unknown queue bogus; queues: imports, reconciliation, uploads, webhook-fanout, webhooks');
    }
    expect((await dlq('dlq-purge')).code).toBe(2);
    expect((await dlq('dlq-show', '--queue', 'imports', '--table', 'x')).code).toBe(2);
    expect((await admin('create-organization', '--name', 'x', '--resource-prefix', 'p', '--stack', stackFile)).code).toBe(2);
    expectFailure(await dlq('dlq-show', '--queue', 'imports', '--max', '0'), 'error: --max must be an integer from 1 to 1000, not 0');
    const help = await admin('--help');
    for (const text of ['dlq-list', 'dlq-show', 'dlq-redrive', 'dlq-purge', 'ChangeMessageVisibility 0', '--resource-prefix PREFIX']) expect(help.out).toContain(text);
  });
});
