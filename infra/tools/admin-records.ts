import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { autoReconcile, describeReport } from '../../shared/bank/auto-reconciliation';
import { maxCamt053Bytes } from '../../shared/bank/camt053';
import { ingestBankStatement } from '../../shared/bank/ingestion';
import { setPeriodApproval } from '../../shared/bank/reconciliation';
import { companyRepository } from '../../shared/companies/repository';
import { createCompany } from '../../shared/companies/service';
import { CreateCompanySchema } from '../../shared/companies/schemas';
import {
  AdministrationError,
  checkedName,
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
import { eventsToSweep, sweepOptionsFromEnv, sweepPendingEvents } from '../../shared/webhooks/relay';
import { subscriptionRepository } from '../../shared/webhooks/repository';
import { ToolError } from './stack-env';
import { integerFlag, nonBlank, requireFlag, shortTime, StoppedPartWay, table, UsageError, useLocalStack, type Printer, type Values } from './admin-cli';

/**
 * The admin CLI's commands on the service's records (organizations, companies, API clients,
 * people, bank statements, the outbox), against the local stack or AWS. infra/tools/admin.ts loads
 * this module only for them: the dlq-* commands and --help start without the domain services.
 */

/** Cognito's resource server prefixes the custom scopes (infra/stacks). */
const awsScopePrefix = 'ledger-api/';
/** Recorded as the actor of what the CLI does (company creation, cascade deletion). */
const actor = 'admin-cli';

export interface Target {
  issuer: CredentialIssuer;
  directory: PersonDirectory;
  description: string;
  dynamodb: string;
}

/**
 * Points shared/ at the local stack (DynamoDB Local, local identity provider) or at AWS. On AWS,
 * `beforeAws` (given the table) runs once the flags are checked and before the environment changes:
 * it may refuse the command (a destructive one without --yes).
 */
export const selectTarget = (values: Values, command: { writesEvents: boolean; beforeAws?: (table: string) => void } = { writesEvents: false }): Target => {
  if (values['resource-prefix'] !== undefined) throw new UsageError('--resource-prefix only applies to the dlq-* commands');
  const aws = values.table !== undefined || values['user-pool-id'] !== undefined;
  if (aws) {
    if (!values.table || !values['user-pool-id']) throw new UsageError('AWS needs both --table and --user-pool-id');
    if (values.stack) throw new UsageError('--stack targets the local stack; do not combine it with --table / --user-pool-id');
    // Refused before anything is written: the events are written last (a cascade would stop half done).
    if (command.writesEvents && !values['outbox-table']) throw new UsageError('On AWS this command writes events: pass --outbox-table (the stack output OutboxTableName)');
    command.beforeAws?.(values.table);
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
  const info = useLocalStack(values, '--table and --user-pool-id');
  return {
    issuer: localCredentialIssuer,
    directory: localPersonDirectory,
    description: `local stack (${info.internal.tableName} at ${info.internal.dynamodbEndpoint})`,
    dynamodb: `DynamoDB Local at ${info.internal.dynamodbEndpoint}`,
  };
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

type Run = (values: Values, target: Target, print: Printer) => Promise<void>;

export const recordRun: Record<string, Run> = {
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
    // Read first, so that a failure from here on is one of a deletion that started.
    const organization = await organizationRepository.get(id);
    if (!organization) throw new AdministrationError(`Organization ${id} not found`);
    print.progress(`Deleting organization "${organization.name}" (${id}) and its sub-organizations on the ${target.description}...`);
    const result = await deleteOrganization(id, actor, target).catch((error: unknown) => {
      throw new StoppedPartWay(error);
    });
    print.json({ organizationId: id, deleted: true, ...result });
    const { companiesDeleted, organizationsDeleted, clientsRevoked, subscriptionsDeleted, policiesDeleted, membershipsEnded, usersDeleted } = result;
    const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
    print.lines(
      `Deleted organization ${id} (${count(organizationsDeleted, 'organization', 'organizations')} with descendants)`,
      `  ${count(companiesDeleted, 'company was', 'companies were')} cascade-deleted`,
      `  ${count(clientsRevoked, 'API client was', 'API clients were')} revoked`,
      `  ${count(subscriptionsDeleted, 'webhook subscription was', 'webhook subscriptions were')} deleted`,
      `  ${count(policiesDeleted, 'access policy was', 'access policies were')} deleted with their assignments`,
      `  ${count(membershipsEnded, 'membership', 'memberships')} of people who stay in other organizations ended`,
      `  ${count(usersDeleted, 'user was', 'users were')} deleted (no other organization; their login removed)`,
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
    if (!organizationId) {
      if (userId) throw new ToolError(`User ${userId} not found`);
      throw new UsageError('create-client needs --organization');
    }
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

  async 'remove-membership'(values, target, print) {
    const userId = requireFlag(values, 'user');
    const organizationId = requireFlag(values, 'organization');
    await removeMembership(userId, organizationId, target.issuer);
    print.json({ userId, organizationId, member: false });
    print.lines(`User ${userId} is no longer a member of organization ${organizationId}; their effective access was recomputed`);
  },

  async 'delete-user'(values, target, print) {
    const userId = requireFlag(values, 'user');
    // Read first, so that a failure from here on is one of a deletion that started.
    if (!(await personRepository.get(userId))) throw new AdministrationError(`User ${userId} not found`);
    print.progress(`Deleting user ${userId} on the ${target.description}...`);
    const result = await deleteUser(userId, target.directory, target.issuer).catch((error: unknown) => {
      throw new StoppedPartWay(error);
    });
    print.json({ userId, deleted: true, ...result });
    print.lines(
      result.resumed ? `User ${userId} was marked deleted already (an earlier run); the deletion is now complete` : `Deleted user ${userId}: their access ended at once`,
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
      // Refused before it is read: the file is read whole.
      const { size } = await stat(file);
      if (size > maxCamt053Bytes) throw new ToolError(`${file} is ${size} bytes; a camt.053 file may be at most ${maxCamt053Bytes} (16 MiB)`);
      xml = await readFile(file);
    } catch (error) {
      if (error instanceof ToolError) throw error;
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
    // On AWS refused before this (CommandSpec.localOnly in admin.ts), with the environment untouched.
    if (!target.description.startsWith('local stack')) throw new ToolError('outbox-sweep runs on the local stack');
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
    // Stored as approvedBy and served: a name as the API's schemas take one (at most 200 characters, the text rule).
    const by = values.by === undefined ? actor : checkedName(values.by, 'approver');
    const company = await existingCompany(requireFlag(values, 'company'));
    const glAccountCode = requireFlag(values, 'gl-account');
    if (!accountCodePattern.test(glAccountCode)) throw new ToolError(`--gl-account ${glAccountCode} is not an account code`);
    const year = integerFlag(values, 'year', 1900, 2999);
    const period = integerFlag(values, 'period', 1, 12);
    const status = requireFlag(values, 'status');
    if (status !== 'approved' && status !== 'not_approved') throw new ToolError(`--status must be approved or not_approved, not ${status}`);
    await setPeriodApproval(company.id, { glAccountCode, year, period, status, by });
    print.json({ companyId: company.id, glAccountCode, year, period, status, by });
    print.lines(`Period ${year}-${String(period).padStart(2, '0')} on GL account ${glAccountCode} of "${company.name}" is now ${status.replace('_', ' ')} (by ${by})`);
  },
};

/** The company, checked to exist (the admin acts for the firm, so reach is not a question here). */
const existingCompany = async (companyId: string) => {
  const company = await companyRepository.get(companyId);
  if (!company || company.deletion) throw new ToolError(`Company ${companyId} not found`);
  return company;
};

const accountCodePattern = /^[0-9A-Za-z._-]{1,20}$/;
