import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { autoReconcile, describeReport } from '../../shared/bank/auto-reconciliation';
import { defaultBankGlAccount, ingestBankStatement } from '../../shared/bank/ingestion';
import { setPeriodApproval } from '../../shared/bank/reconciliation';
import { companyRepository } from '../../shared/companies/repository';
import { parseArgs } from 'node:util';
import { createCompany } from '../../shared/companies/service';
import { accountingSystems, CreateCompanySchema } from '../../shared/companies/schemas';
import {
  AdministrationError,
  createApiClient,
  createOrganization,
  deleteOrganization,
  listApiClients,
  rotateApiClient,
} from '../../shared/administration/service';
import type { ApiClient } from '../../shared/identity/api-client-repository';
import { cognitoPersonDirectory, localPersonDirectory, type PersonDirectory } from '../../shared/identity/person-directories';
import { personRepository } from '../../shared/identity/person-repository';
import { addMembership, createUser, deleteUser, removeMembership } from '../../shared/people/service';
import { cognitoCredentialIssuer, localCredentialIssuer, type CredentialIssuer } from '../../shared/identity/credential-issuers';
import { organizationRepository } from '../../shared/identity/organization-repository';
import { administratorOf, type RateLimit, type RatePlan } from '../../shared/identity/principal';
import { allScopes, isScope, type Scope } from '../../shared/identity/scopes';
import { resetConfig } from '../../shared/platform/config';
import { ProblemError } from '../../shared/platform/problem';
import { eventsToSweep, sweepOptionsFromEnv, sweepPendingEvents } from '../../shared/webhooks/relay';
import { subscriptionRepository } from '../../shared/webhooks/repository';
import { applyStackEnv, defaultStackFile, isConnectionRefused, readStackFile, ToolError } from './stack-env';
import { awsQueues, countsOf, localQueues, peek, purge, queueName, queueNames, readableBody, redrive, type QueueLocator, type QueueName } from './dead-letter-queues';

/**
 * `npm run admin -- <command> [flags]`: what an organization administrator does outside the
 * public API (organizations, companies, API clients), against the local stack or AWS.
 */
export interface ToolIo {
  out(line: string): void;
  err(line: string): void;
}

/** Cognito's resource server prefixes the custom scopes (infra/stacks). */
const awsScopePrefix = 'ledger-api/';
/** Recorded as the actor of what the CLI does (company creation, cascade deletion). */
const actor = 'admin-cli';

type Flag =
  | 'name'
  | 'parent'
  | 'id'
  | 'organization'
  | 'accounting-system'
  | 'organization-number'
  | 'scopes'
  | 'plan'
  | 'rate-limit'
  | 'client-id'
  | 'company'
  | 'file'
  | 'gl-account'
  | 'year'
  | 'period'
  | 'status'
  | 'by'
  | 'email'
  | 'password'
  | 'user'
  | 'queue'
  | 'max'
  | 'dry-run'
  | 'older-than'
  | 'yes';

interface CommandSpec {
  required: Flag[];
  optional: Flag[];
  args: string;
  description: string;
  /** Works on the service's queues (local stack or --resource-prefix), not on its table. */
  queues?: true;
}

const commands: Record<string, CommandSpec> = {
  'create-organization': {
    required: ['name'],
    optional: ['parent'],
    args: '--name NAME [--parent ORG_ID]',
    description: 'Create an organization (a child of --parent when given)',
  },
  'delete-organization': {
    required: ['id'],
    optional: [],
    args: '--id ORG_ID',
    description: 'Delete an organization; its companies (and its sub-organizations\') are cascade-deleted',
  },
  'create-company': {
    required: ['organization', 'name'],
    optional: ['accounting-system', 'organization-number'],
    args: '--organization ORG_ID --name NAME [--accounting-system SYSTEM] [--organization-number NNNNNNNNN]',
    description: `Create a company in an organization; SYSTEM is one of ${accountingSystems.join('|')} (default Api)`,
  },
  'create-client': {
    required: ['name'],
    optional: ['organization', 'user', 'scopes', 'plan', 'rate-limit'],
    args: '--organization ORG_ID --name NAME [--user USER_ID] [--scopes a,b,c] [--plan standard|premium] [--rate-limit PER_MINUTE/BURST]',
    description:
      'Create an API client (default: every scope its mode may hold, plan standard); prints its secret once. --rate-limit sets a custom limit in place of the plan\'s (e.g. 3000/600). With --user: a per-user (USER) client acting for that person, never seeing more than the person may (--organization defaults to the person\'s first organization)',
  },
  'create-user': {
    required: ['organization', 'email', 'name'],
    optional: ['password'],
    args: '--organization ORG_ID --email EMAIL --name NAME [--password PASSWORD]',
    description: 'Create a person (a member of the organization) with a login; prints the password when it was generated. On AWS also the Cognito user (username = user id)',
  },
  'add-membership': {
    required: ['user', 'organization'],
    optional: [],
    args: '--user USER_ID --organization ORG_ID',
    description: 'Make a person a member of another organization (their access is recomputed at once)',
  },
  'remove-membership': {
    required: ['user', 'organization'],
    optional: [],
    args: '--user USER_ID --organization ORG_ID',
    description: 'End a membership (not the last one: use delete-user); their access is recomputed at once',
  },
  'delete-user': {
    required: ['user'],
    optional: [],
    args: '--user USER_ID',
    description: 'Delete a person: their access ends at once, assignments go, per-user clients are revoked, the login is removed',
  },
  'rotate-client': {
    required: ['client-id'],
    optional: [],
    args: '--client-id CLIENT_ID',
    description: 'Give a client a new secret (printed once); the old secret stops working at once',
  },
  'list-clients': {
    required: ['organization'],
    optional: [],
    args: '--organization ORG_ID',
    description: 'List the API clients of an organization (never their secrets)',
  },
  'import-bank-statement': {
    required: ['company', 'file'],
    optional: ['gl-account'],
    args: '--company COMPANY_ID --file STATEMENT.xml [--gl-account CODE]',
    description: `Ingest an ISO 20022 camt.053 bank statement; a new bank account maps to GL account --gl-account (default ${defaultBankGlAccount})`,
  },
  'auto-reconcile': {
    required: ['company', 'year'],
    optional: [],
    args: '--company COMPANY_ID --year YYYY',
    description: 'Run auto-reconciliation for a company and year now (it also runs after every GL import)',
  },
  'backfill-webhook-index': {
    required: [],
    optional: [],
    args: '',
    description: 'Upgrade step: index webhook subscriptions created before subscription lists showed the organization subtree, so every list shows them (idempotent)',
  },
  'set-period-approval': {
    required: ['company', 'gl-account', 'year', 'period', 'status'],
    optional: ['by'],
    args: '--company COMPANY_ID --gl-account CODE --year YYYY --period 1-12 --status approved|not_approved [--by NAME]',
    description: "Record the firm's approval of a period on a GL account (shown in the reconciliation summary)",
  },
  'outbox-sweep': {
    required: [],
    optional: ['older-than', 'dry-run'],
    args: '[--older-than SECONDS] [--dry-run]',
    description:
      'Relay outbox events still pending after SECONDS (default 600) now, as the scheduled sweeper does; --dry-run lists them. Local stack only: on AWS invoke the deployed sweeper (stack output OutboxSweeperFunctionName)',
  },
  'dlq-list': {
    required: [],
    optional: ['queue'],
    args: '[--queue NAME]',
    description: `Dead-letter queues with their approximate message counts (visible, in flight); NAME is one of ${queueNames.join('|')}`,
    queues: true,
  },
  'dlq-show': {
    required: ['queue'],
    optional: ['max'],
    args: '--queue NAME [--max N]',
    description:
      'Show up to N (default 10) messages of a DLQ: id, sent time, receive count, body. Leaves them in place: received with a short visibility timeout, then made visible again at once (ChangeMessageVisibility 0); each look adds one to the receive count',
    queues: true,
  },
  'dlq-redrive': {
    required: ['queue'],
    optional: ['max', 'dry-run'],
    args: '--queue NAME [--max N] [--dry-run]',
    description:
      'Move the messages of a DLQ (or N of them) back to its source queue, one at a time: sent to the source, then deleted from the DLQ. --dry-run lists what would move and changes nothing',
    queues: true,
  },
  'dlq-purge': {
    required: ['queue'],
    optional: ['dry-run', 'yes'],
    args: '--queue NAME (--yes | --dry-run)',
    description: 'Delete every message of a DLQ (refused without --yes; --dry-run says how many would go)',
    queues: true,
  },
};


const commandFlags = new Set<string>(Object.values(commands).flatMap((spec) => [...spec.required, ...spec.optional]));

const options = {
  name: { type: 'string' },
  parent: { type: 'string' },
  id: { type: 'string' },
  organization: { type: 'string' },
  'accounting-system': { type: 'string' },
  'organization-number': { type: 'string' },
  scopes: { type: 'string' },
  plan: { type: 'string' },
  'rate-limit': { type: 'string' },
  'client-id': { type: 'string' },
  company: { type: 'string' },
  file: { type: 'string' },
  'gl-account': { type: 'string' },
  year: { type: 'string' },
  period: { type: 'string' },
  status: { type: 'string' },
  by: { type: 'string' },
  email: { type: 'string' },
  password: { type: 'string' },
  user: { type: 'string' },
  queue: { type: 'string' },
  max: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'older-than': { type: 'string' },
  yes: { type: 'boolean' },
  'resource-prefix': { type: 'string' },
  stack: { type: 'string' },
  table: { type: 'string' },
  'outbox-table': { type: 'string' },
  'user-pool-id': { type: 'string' },
  region: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const adminUsage = (): string => {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  return [
    'Usage: npm run admin -- <command> [flags]',
    '',
    'Commands:',
    ...Object.entries(commands).flatMap(([name, spec]) => [`  ${name.padEnd(width)}  ${spec.args}`, `  ${''.padEnd(width)}    ${spec.description}`]),
    '',
    'Target (default: the local stack described by .local/stack.json, started with npm start):',
    '  --stack FILE                  another local stack file',
    '  --table NAME --user-pool-id ID [--outbox-table NAME] [--region REGION]',
    '                                AWS: the service table and Cognito user pool; AWS credentials come from',
    '                                the environment; the region defaults to the user pool\'s. The outbox table',
    '                                (stack output OutboxTableName) is needed by the commands that write events:',
    '                                create-company, delete-organization, import-bank-statement, auto-reconcile',
    '  --resource-prefix PREFIX [--region REGION]',
    '                                AWS, for the dlq-* commands: the queues <PREFIX>-<NAME> and <PREFIX>-<NAME>-dlq',
    '                                (the stacks\' resource prefix); the region defaults to AWS_REGION',
    '',
    'Output:',
    '  --json                        machine-readable JSON on stdout',
    '  --help                        this text',
    '',
    'Exit codes: 0 done, 1 failed (one line on stderr), 2 usage error.',
  ].join('\n');
};

class UsageError extends Error {}

type Values = { [K in keyof typeof options]?: (typeof options)[K]['type'] extends 'boolean' ? boolean : string };

interface Target {
  issuer: CredentialIssuer;
  directory: PersonDirectory;
  description: string;
  dynamodb: string;
}

/** Points shared/ at the local stack (DynamoDB Local, local identity provider) or at AWS. */
const selectTarget = (values: Values): Target => {
  if (values['resource-prefix'] !== undefined) throw new UsageError('--resource-prefix only applies to the dlq-* commands');
  const aws = values.table !== undefined || values['user-pool-id'] !== undefined;
  if (aws) {
    if (!values.table || !values['user-pool-id']) throw new UsageError('AWS needs both --table and --user-pool-id');
    if (values.stack) throw new UsageError('--stack targets the local stack; do not combine it with --table / --user-pool-id');
    const userPoolId = values['user-pool-id'];
    const region = values.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? userPoolId.split('_')[0];
    if (!region) throw new UsageError('Cannot tell the AWS region: pass --region');
    process.env.AWS_REGION = region;
    process.env.TABLE_NAME = values.table;
    if (values['outbox-table']) process.env.OUTBOX_TABLE_NAME = values['outbox-table'];
    else delete process.env.OUTBOX_TABLE_NAME;
    delete process.env.DYNAMODB_ENDPOINT;
    process.env.JWT_ISSUER = `https://cognito-idp.${region}.amazonaws.com/${userPoolId}`;
    process.env.SCOPE_PREFIX = awsScopePrefix;
    resetConfig();
    return {
      issuer: cognitoCredentialIssuer(userPoolId, awsScopePrefix, region),
      directory: cognitoPersonDirectory(userPoolId, region),
      description: `AWS table ${values.table} (${region})`,
      dynamodb: `DynamoDB in ${region}`,
    };
  }
  if (values.region) throw new UsageError('--region only applies with --table and --user-pool-id');
  if (values['outbox-table']) throw new UsageError('--outbox-table only applies with --table and --user-pool-id');
  let info;
  try {
    info = readStackFile(values.stack ?? defaultStackFile);
  } catch (error) {
    if (error instanceof ToolError && !values.stack && /^No stack file/.test(error.message)) {
      throw new ToolError('Start the local stack with npm start first, or pass --table and --user-pool-id');
    }
    throw error;
  }
  applyStackEnv(info);
  return {
    issuer: localCredentialIssuer,
    directory: localPersonDirectory,
    description: `local stack (${info.internal.tableName} at ${info.internal.dynamodbEndpoint})`,
    dynamodb: `DynamoDB Local at ${info.internal.dynamodbEndpoint}`,
  };
};

interface QueueTarget {
  queues: QueueLocator;
  description: string;
  /** What a refused connection failed to reach. */
  sqs: string;
}

/** The local stack's queues (its stack file lists their URLs) or, with --resource-prefix, the deployed ones. */
const selectQueueTarget = (values: Values): QueueTarget => {
  if (values.table !== undefined || values['user-pool-id'] !== undefined || values['outbox-table'] !== undefined) {
    throw new UsageError('The dlq-* commands find the AWS queues by --resource-prefix, not --table / --user-pool-id');
  }
  const prefix = values['resource-prefix'];
  if (prefix !== undefined) {
    if (values.stack) throw new UsageError('--stack targets the local stack; do not combine it with --resource-prefix');
    if (!/^[A-Za-z0-9_-]{1,60}$/.test(prefix)) throw new ToolError(`--resource-prefix ${prefix} is not a queue name prefix (letters, digits, - and _)`);
    const region = values.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
    if (!region) throw new UsageError('Cannot tell the AWS region: pass --region');
    return { queues: awsQueues(prefix, region), description: `AWS queues ${prefix}-* (${region})`, sqs: `SQS in ${region}` };
  }
  if (values.region) throw new UsageError('--region only applies with --resource-prefix');
  let info;
  try {
    info = readStackFile(values.stack ?? defaultStackFile);
  } catch (error) {
    if (error instanceof ToolError && !values.stack && /^No stack file/.test(error.message)) {
      throw new ToolError('Start the local stack with npm start first, or pass --resource-prefix');
    }
    throw error;
  }
  applyStackEnv(info);
  return {
    queues: localQueues(info.internal.sqsEndpoint, info.internal.region, info.internal.queues),
    description: `local stack (SQS at ${info.internal.sqsEndpoint})`,
    sqs: `the SQS emulator at ${info.internal.sqsEndpoint}`,
  };
};

const requireFlag = (values: Values, flag: Flag): string => {
  const value = values[flag];
  if (typeof value !== 'string') throw new UsageError(`--${flag} is required`);
  return value;
};

const nonBlank = (value: string, flag: Flag): string => {
  const trimmed = value.trim();
  if (!trimmed) throw new ToolError(`--${flag} must not be blank`);
  return trimmed;
};

/** Field names of CreateCompanySchema as the flags that set them. */
const companyFieldFlags: Record<string, string> = {
  displayName: '--name',
  accountingSystem: '--accounting-system',
  organizationNumber: '--organization-number',
  organizationId: '--organization',
};

const parseScopes = (value: string): Scope[] => {
  const scopes = [...new Set(value.split(',').map((scope) => scope.trim()).filter(Boolean))];
  if (!scopes.length) throw new ToolError('--scopes must name at least one scope');
  const unknown = scopes.filter((scope) => !isScope(scope));
  if (unknown.length) throw new ToolError(`Unknown scope ${unknown.join(', ')}; known scopes: ${allScopes.join(', ')}`);
  return scopes as Scope[];
};

const parsePlan = (value: string): RatePlan => {
  if (value !== 'standard' && value !== 'premium') throw new ToolError(`--plan must be standard or premium, not ${value}`);
  return value;
};

const parseRateLimit = (value: string): RateLimit => {
  const match = /^(\d{1,7})\/(\d{1,6})$/.exec(value);
  if (!match) throw new ToolError(`--rate-limit is PER_MINUTE/BURST (e.g. 3000/600), not ${value}`);
  return { perMinute: Number(match[1]), burst: Number(match[2]) };
};

const withoutSecret = ({ secretHash: _secretHash, ...client }: ApiClient) => client;

const table = (header: string[], rows: string[][]): string[] => {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)];
};

const shortTime = (iso: string | undefined): string => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '');

type Run = (values: Values, target: Target, print: Printer) => Promise<void>;

interface Printer {
  json(value: unknown): void;
  lines(...lines: string[]): void;
  /** A progress line on stderr (not with --json's stdout). */
  progress(line: string): void;
}

const run: Record<string, Run> = {
  async 'create-organization'(values, _target, print) {
    const name = nonBlank(requireFlag(values, 'name'), 'name');
    const organization = await createOrganization({ name, ...(values.parent && { parentId: values.parent }) });
    print.json(organization);
    print.lines(
      `Created organization "${organization.name}"`,
      `  id      ${organization.id}`,
      `  parent  ${organization.parentId ?? '(none: a root organization)'}`,
      `  path    ${organization.path}`,
    );
  },

  async 'delete-organization'(values, target, print) {
    const id = requireFlag(values, 'id');
    const result = await deleteOrganization(id, actor, target.issuer);
    print.json({ organizationId: id, deleted: true, ...result });
    const { companiesDeleted, organizationsDeleted, clientsRevoked } = result;
    print.lines(
      `Deleted organization ${id} (${organizationsDeleted} organization${organizationsDeleted === 1 ? '' : 's'} with descendants)`,
      `  ${companiesDeleted} ${companiesDeleted === 1 ? 'company was' : 'companies were'} cascade-deleted`,
      `  ${clientsRevoked} API client${clientsRevoked === 1 ? ' was' : 's were'} revoked`,
    );
  },

  async 'create-company'(values, _target, print) {
    const parsed = CreateCompanySchema.safeParse({
      displayName: requireFlag(values, 'name'),
      accountingSystem: values['accounting-system'] ?? 'Api',
      ...(values['organization-number'] !== undefined && { organizationNumber: values['organization-number'] }),
      organizationId: requireFlag(values, 'organization'),
    });
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => {
        const field = String(issue.path[0] ?? '');
        const message = issue.code === 'invalid_value' ? `must be one of ${issue.values.join(', ')}` : issue.message;
        return `${companyFieldFlags[field] ?? field}: ${message}`;
      });
      throw new ToolError(`Invalid company: ${problems.join('; ')}`);
    }
    const input = parsed.data;
    const organization = await organizationRepository.get(input.organizationId!);
    if (!organization || organization.status !== 'active') throw new AdministrationError(`Organization ${input.organizationId} not found`);
    const company = await createCompany(administratorOf(organization, actor, ['companies:write']), input);
    print.json(company);
    print.lines(
      `Created company "${company.name}" in organization ${company.organizationId}`,
      `  id                   ${company.id}`,
      `  accounting system    ${company.accountingSystem}`,
      `  organization number  ${company.organizationNumber ?? '(none)'}`,
      `  status               ${company.status}`,
    );
  },

  async 'create-client'(values, target, print) {
    const name = nonBlank(requireFlag(values, 'name'), 'name');
    const userId = values.user;
    const organizationId = values.organization ?? (userId ? (await personRepository.memberships(userId))[0]?.organizationId : undefined);
    if (!organizationId) throw new UsageError(userId ? `User ${userId} not found` : 'create-client needs --organization');
    const scopes = values.scopes !== undefined ? parseScopes(values.scopes) : undefined;
    const plan = values.plan !== undefined ? parsePlan(values.plan) : undefined;
    const rateLimit = values['rate-limit'] !== undefined ? parseRateLimit(values['rate-limit']) : undefined;
    const { client, clientSecret } = await createApiClient(
      { name, organizationId, ...(userId && { userId }), ...(scopes && { scopes }), ...(plan && { plan }), ...(rateLimit && { rateLimit }) },
      target.issuer,
    );
    print.json({ ...withoutSecret(client), clientSecret });
    print.lines(
      `Created API client "${client.name}" in organization ${client.organizationId}`,
      `  client id      ${client.clientId}`,
      `  client secret  ${clientSecret}`,
      `  mode           ${client.mode}${client.userId ? ` (acts for user ${client.userId})` : ''}`,
      `  plan           ${client.plan}${client.rateLimit ? ` (custom limit ${client.rateLimit.perMinute} per minute, burst ${client.rateLimit.burst})` : ''}`,
      `  scopes         ${client.scopes.join(' ')}`,
      'The client secret will not be shown again: store it now.',
    );
  },

  async 'create-user'(values, target, print) {
    const organizationId = requireFlag(values, 'organization');
    const email = nonBlank(requireFlag(values, 'email'), 'email');
    const name = nonBlank(requireFlag(values, 'name'), 'name');
    print.progress(`Creating user ${email} in organization ${organizationId} on the ${target.description}...`);
    const { person, password, generated } = await createUser({ organizationId, email, name, ...(values.password !== undefined && { password: values.password }) }, target.directory);
    print.json({ userId: person.userId, email: person.email, name: person.name, organizationId, ...(generated && { password }) });
    print.lines(
      `Created user "${person.name}" (${person.email}), a member of organization ${organizationId}`,
      `  user id   ${person.userId}`,
      ...(generated ? [`  password  ${password}`, 'The generated password will not be shown again: hand it over now.'] : ['  password  (as given)']),
      'Assign access policies (POST /v1/access/assignments) before the person can see any company.',
    );
  },

  async 'add-membership'(values, _target, print) {
    const userId = requireFlag(values, 'user');
    const organizationId = requireFlag(values, 'organization');
    await addMembership(userId, organizationId);
    print.json({ userId, organizationId, member: true });
    print.lines(`User ${userId} is now a member of organization ${organizationId}; their effective access was recomputed`);
  },

  async 'remove-membership'(values, _target, print) {
    const userId = requireFlag(values, 'user');
    const organizationId = requireFlag(values, 'organization');
    await removeMembership(userId, organizationId);
    print.json({ userId, organizationId, member: false });
    print.lines(`User ${userId} is no longer a member of organization ${organizationId}; their effective access was recomputed`);
  },

  async 'delete-user'(values, target, print) {
    const userId = requireFlag(values, 'user');
    print.progress(`Deleting user ${userId} on the ${target.description}...`);
    const result = await deleteUser(userId, target.directory, target.issuer);
    print.json({ userId, deleted: true, ...result });
    print.lines(
      `Deleted user ${userId}: their access ended at once`,
      `  ${result.assignmentsDeleted} assignment${result.assignmentsDeleted === 1 ? ' was' : 's were'} deleted`,
      `  ${result.clientsRevoked} per-user API client${result.clientsRevoked === 1 ? ' was' : 's were'} revoked`,
    );
  },

  async 'rotate-client'(values, target, print) {
    const clientId = requireFlag(values, 'client-id');
    const { clientSecret } = await rotateApiClient(clientId, target.issuer);
    print.json({ clientId, clientSecret });
    print.lines(
      `Rotated the secret of API client ${clientId}; the old secret no longer works`,
      `  client secret  ${clientSecret}`,
      'The client secret will not be shown again: store it now.',
    );
  },

  async 'list-clients'(values, _target, print) {
    const organizationId = requireFlag(values, 'organization');
    const clients = (await listApiClients(organizationId)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    print.json(clients.map(withoutSecret));
    if (!clients.length) return print.lines(`No API clients in organization ${organizationId}`);
    print.lines(
      ...table(
        ['NAME', 'CLIENT ID', 'MODE', 'PLAN', 'SCOPES', 'STATUS', 'CREATED'],
        clients.map((client) => [
          client.name,
          client.clientId,
          client.mode,
          client.plan,
          String(client.scopes.length),
          client.status,
          shortTime(client.createdAt),
        ]),
      ),
      `${clients.length} client${clients.length === 1 ? '' : 's'} in organization ${organizationId}`,
    );
  },

  async 'import-bank-statement'(values, _target, print) {
    const company = await existingCompany(requireFlag(values, 'company'));
    const file = requireFlag(values, 'file');
    const glAccountCode = values['gl-account'];
    if (glAccountCode !== undefined && !accountCodePattern.test(glAccountCode)) throw new ToolError(`--gl-account ${glAccountCode} is not an account code`);
    let xml: Buffer;
    try {
      xml = await readFile(file);
    } catch (error) {
      throw new ToolError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    const result = await ingestBankStatement(company.id, xml, { ...(glAccountCode && { glAccountCode }), source: basename(file) });
    print.json(result);
    print.lines(
      `Ingested ${basename(file)} into company "${company.name}"`,
      ...table(
        ['STATEMENT', 'ACCOUNT NUMBER', 'BANK ACCOUNT ID', 'GL', 'ENTRIES', 'NEW', 'AMENDED', 'UNCHANGED', 'NOT BOOKED'],
        result.statements.map((s) => [
          s.statementId,
          s.accountNumber + (s.accountCreated ? ' (new)' : ''),
          s.bankAccountId,
          s.glAccountCode,
          String(s.entries),
          String(s.inserted),
          String(s.amended),
          String(s.unchanged),
          String(s.skippedNotBooked),
        ]),
      ),
    );
  },

  async 'auto-reconcile'(values, _target, print) {
    const company = await existingCompany(requireFlag(values, 'company'));
    const year = integerFlag(values, 'year', 1900, 2999);
    const report = await autoReconcile(company.id, year);
    print.json(report);
    print.lines(`Auto-reconciliation of "${company.name}": ${describeReport(report)}`);
  },

  async 'backfill-webhook-index'(_values, target, print) {
    print.progress(`Indexing webhook subscriptions on the ${target.description}...`);
    const changed = await subscriptionRepository.addMissingTreeKeys();
    print.json({ subscriptionsIndexed: changed });
    print.lines(changed ? `Indexed ${changed} webhook subscription${changed === 1 ? '' : 's'}` : 'Every webhook subscription was indexed already');
  },

  async 'outbox-sweep'(values, target, print) {
    if (!target.description.startsWith('local stack')) {
      throw new UsageError('outbox-sweep runs on the local stack; on AWS invoke the deployed sweeper: aws lambda invoke --function-name <OutboxSweeperFunctionName> out.json');
    }
    const olderThanSeconds = values['older-than'] !== undefined ? integerFlag(values, 'older-than', 0, 30 * 86_400) : 600;
    const bounds = { ...sweepOptionsFromEnv(), olderThanSeconds };
    if (values['dry-run']) {
      const pending = await eventsToSweep(bounds);
      print.json({ dryRun: true, pending: pending.map((item) => ({ id: item.id, type: item.type, companyId: item.companyId, occurredAt: item.occurredAt })) });
      return print.lines(
        `${pending.length} outbox event${pending.length === 1 ? '' : 's'} pending for more than ${olderThanSeconds} s (dry run: nothing relayed)`,
        ...pending.map((item) => `  ${String(item.occurredAt)}  ${String(item.type)}  ${String(item.id)}  company ${String(item.companyId)}`),
      );
    }
    print.progress(`Relaying outbox events pending for more than ${olderThanSeconds} s on the ${target.description}...`);
    const result = await sweepPendingEvents(bounds);
    print.json(result);
    print.lines(`Found ${result.found} pending: relayed ${result.relayed}, already relayed ${result.alreadyRelayed}, failed ${result.failed}${result.limitReached ? ' (limit reached: run it again)' : ''}`);
  },

  async 'set-period-approval'(values, _target, print) {
    const company = await existingCompany(requireFlag(values, 'company'));
    const glAccountCode = requireFlag(values, 'gl-account');
    if (!accountCodePattern.test(glAccountCode)) throw new ToolError(`--gl-account ${glAccountCode} is not an account code`);
    const year = integerFlag(values, 'year', 1900, 2999);
    const period = integerFlag(values, 'period', 1, 12);
    const status = requireFlag(values, 'status');
    if (status !== 'approved' && status !== 'not_approved') throw new ToolError(`--status must be approved or not_approved, not ${status}`);
    const by = values.by?.trim() || actor;
    await setPeriodApproval(company.id, { glAccountCode, year, period, status, by });
    print.json({ companyId: company.id, glAccountCode, year, period, status, by });
    print.lines(`Period ${year}-${String(period).padStart(2, '0')} on GL account ${glAccountCode} of "${company.name}" is now ${status.replace('_', ' ')} (by ${by})`);
  },
};

type QueueRun = (values: Values, target: QueueTarget, print: Printer) => Promise<void>;

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** The queue of --queue with its DLQ, named as the user sees them. */
const queuePair = async (values: Values, target: QueueTarget) => {
  const name = queueName(requireFlag(values, 'queue'));
  const { url, dlqUrl } = await target.queues.urls(name);
  const source = target.queues.label(name);
  return { name, url, dlqUrl, source, dlq: `${source}-dlq` };
};

const queueRun: Record<string, QueueRun> = {
  async 'dlq-list'(values, target, print) {
    const names: readonly QueueName[] = values.queue !== undefined ? [queueName(values.queue)] : queueNames;
    const rows = await Promise.all(
      names.map(async (name) => {
        const { dlqUrl } = await target.queues.urls(name);
        return { queue: name, deadLetterQueue: `${target.queues.label(name)}-dlq`, url: dlqUrl, ...(await countsOf(target.queues.client, dlqUrl)) };
      }),
    );
    print.json(rows);
    const waiting = rows.reduce((sum, row) => sum + row.visible + row.inFlight, 0);
    print.lines(
      ...table(['QUEUE', 'DEAD-LETTER QUEUE', 'VISIBLE', 'IN FLIGHT'], rows.map((row) => [row.queue, row.deadLetterQueue, String(row.visible), String(row.inFlight)])),
      `${plural(waiting, 'message')} (approximately) in ${plural(rows.length, 'dead-letter queue')} of the ${target.description}`,
    );
  },

  async 'dlq-show'(values, target, print) {
    const max = values.max !== undefined ? integerFlag(values, 'max', 1, 1000) : 10;
    const { name, dlqUrl, dlq } = await queuePair(values, target);
    const messages = await peek(target.queues.client, dlqUrl, max);
    print.json({ queue: name, deadLetterQueue: dlq, messages });
    print.lines(
      `${plural(messages.length, 'message')} of ${dlq}${messages.length === max ? ` (the first ${max}; --max shows more)` : ''}, left in the queue`,
      ...messages.flatMap((message) => [
        '',
        `message   ${message.messageId}`,
        `sent      ${shortTime(message.sentAt) || '(unknown)'}`,
        `receives  ${message.receiveCount}`,
        ...readableBody(message.body).split('\n').map((line) => `  ${line}`),
      ]),
    );
  },

  async 'dlq-redrive'(values, target, print) {
    const max = values.max !== undefined ? integerFlag(values, 'max', 1, 100_000) : Infinity;
    const { name, url, dlqUrl, source, dlq } = await queuePair(values, target);
    if (values['dry-run']) {
      const messages = await peek(target.queues.client, dlqUrl, max);
      print.json({ queue: name, from: dlq, to: source, dryRun: true, messages: messages.map(({ body: _body, ...message }) => message) });
      return print.lines(
        `Would move ${plural(messages.length, 'message')} from ${dlq} to ${source} (dry run: nothing changed)`,
        ...messages.map((message) => `  ${message.messageId}  sent ${shortTime(message.sentAt) || '(unknown)'}  receives ${message.receiveCount}`),
      );
    }
    print.progress(`Moving messages from ${dlq} to ${source} on the ${target.description}...`);
    const moved = await redrive(target.queues.client, dlqUrl, url, max, ({ messageId, newMessageId }) => print.progress(`  moved ${messageId} -> ${newMessageId}`));
    print.json({ queue: name, from: dlq, to: source, moved: moved.length, messages: moved });
    print.lines(`Moved ${plural(moved.length, 'message')} from ${dlq} to ${source}`);
  },

  async 'dlq-purge'(values, target, print) {
    const { name, dlqUrl, dlq } = await queuePair(values, target);
    const { visible, inFlight } = await countsOf(target.queues.client, dlqUrl);
    const count = visible + inFlight;
    if (values['dry-run']) {
      print.json({ queue: name, deadLetterQueue: dlq, dryRun: true, wouldDelete: count });
      return print.lines(`Would delete ${plural(count, 'message')} (approximately) of ${dlq} (dry run: nothing changed)`);
    }
    if (!values.yes) throw new ToolError(`dlq-purge would delete ${plural(count, 'message')} (approximately) of ${dlq}: pass --yes to delete them`);
    await purge(target.queues.client, dlqUrl);
    print.json({ queue: name, deadLetterQueue: dlq, deleted: count });
    print.lines(`Purged ${dlq}: ${plural(count, 'message')} (approximately) deleted; SQS may take up to a minute to finish`);
  },
};

const integerFlag = (values: Values, flag: Flag, min: number, max: number): number => {
  const text = requireFlag(values, flag);
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) throw new ToolError(`--${flag} must be an integer from ${min} to ${max}, not ${text}`);
  return value;
};

/** The company, checked to exist (the admin acts for the firm, so reach is not a question here). */
const existingCompany = async (companyId: string) => {
  const company = await companyRepository.get(companyId);
  if (!company || company.deletion) throw new ToolError(`Company ${companyId} not found`);
  return company;
};

const accountCodePattern = /^[0-9A-Za-z._-]{1,20}$/;


const oneLine = (error: unknown, reach: string): string => {
  if (error instanceof ProblemError) return error.problem.detail;
  if (isConnectionRefused(error)) {
    return `Cannot reach ${reach}: is the local stack still running? Start it with npm start.`;
  }
  const err = error as { name?: string; message?: string };
  const message = (err?.message ?? String(error)).split('\n')[0]!;
  return err?.name && err.name !== 'Error' && !(error instanceof ToolError) && !(error instanceof AdministrationError)
    ? `${err.name}: ${message}`
    : message;
};

export const runAdmin = async (argv: string[], io: ToolIo): Promise<number> => {
  const usageError = (message: string) => {
    io.err(`error: ${message}`);
    io.err('');
    for (const line of adminUsage().split('\n')) io.err(line);
    return 2;
  };

  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    return usageError((error as Error).message.split('\n')[0]!);
  }
  const values = parsed.values as Values;
  if (values.help) {
    for (const line of adminUsage().split('\n')) io.out(line);
    return 2;
  }
  const [command, ...extra] = parsed.positionals;
  if (!command) return usageError('no command given');
  const spec = commands[command];
  if (!spec) return usageError(`unknown command ${command}`);
  if (extra.length) return usageError(`unexpected argument ${extra[0]}`);
  const allowed = new Set<string>([...spec.required, ...spec.optional]);
  const misplaced = Object.keys(values).find((flag) => commandFlags.has(flag) && !allowed.has(flag));
  if (misplaced) return usageError(`${command} does not take --${misplaced}`);
  const missing = spec.required.find((flag) => values[flag] === undefined);
  if (missing) return usageError(`${command} needs --${missing}`);

  const print: Printer = values.json
    ? { json: (value) => io.out(JSON.stringify(value, null, 2)), lines: () => undefined, progress: () => undefined }
    : { json: () => undefined, lines: (...lines) => lines.forEach((line) => io.out(line)), progress: (line) => io.err(line) };

  let reach: string | undefined;
  try {
    if (spec.queues) {
      const target = selectQueueTarget(values);
      reach = target.sqs;
      await queueRun[command]!(values, target, print);
    } else {
      const target = selectTarget(values);
      reach = target.dynamodb;
      await run[command]!(values, target, print);
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return usageError(error.message);
    io.err(`error: ${oneLine(error, reach ?? (spec.queues ? 'SQS' : 'DynamoDB'))}`);
    return 1;
  }
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true'; // the services it runs count nothing to CloudWatch from here
  const code = await runAdmin(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
  process.exitCode = code;
}
