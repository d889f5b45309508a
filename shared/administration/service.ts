import { randomUUID } from 'node:crypto';
import { deleteCompaniesOfOrganization } from '../companies/service';
import { apiClientRepository, type ApiClient } from '../identity/api-client-repository';
import type { CredentialIssuer } from '../identity/credential-issuers';
import type { PersonDirectory } from '../identity/person-directories';
import { deletePoliciesInSubtree } from '../access/service';
import { leaveDeletedOrganizations } from '../people/service';
import { deleteSubscriptionsOf } from '../webhooks/service';
import { organizationRepository, type Organization } from '../identity/organization-repository';
import type { PrincipalMode, RateLimit, RatePlan } from '../identity/principal';
import { customRateLimitBounds } from '../platform/rate-limit';
import { systemClientScopes, userClientScopes, type Scope } from '../identity/scopes';
import { personRepository } from '../identity/person-repository';
import { AdministrationError, checkedName } from '../identity/administration-error';
import { ConditionsFailed, unitOfWork } from '../db/unit-of-work';

/**
 * What an organization administrator does in the application: organizations and API clients.
 * Used by the admin CLI and the demo seed; not exposed over the public API.
 */
export { AdministrationError, checkedName } from '../identity/administration-error';

/** Cognito's rule for an app client's name (ClientName), held everywhere so a name that works locally works on AWS. */
const clientNameRule = { max: 128, pattern: /^[A-Za-z0-9_ +=,.@-]+$/ };

export const createOrganization = async (input: { name: string; parentId?: string }): Promise<Organization> => {
  const name = checkedName(input.name, 'organization');
  const parent = input.parentId ? await organizationRepository.get(input.parentId) : undefined;
  if (input.parentId && (!parent || parent.status !== 'active')) throw new AdministrationError(`Parent organization ${input.parentId} not found`);
  const id = randomUUID();
  const organization: Organization = {
    id,
    name,
    parentId: parent?.id ?? null,
    path: parent ? `${parent.path}/${id}` : id,
    rootId: parent?.rootId ?? id,
    status: 'active',
    createdAt: new Date().toISOString(),
  };
  const work = unitOfWork().add('organization', organizationRepository.createWrite(organization));
  if (parent) work.add('parent', organizationRepository.childAddedWrite(parent.id));
  await work.commit().catch((error: unknown) => {
    // Deleted after it was read: its deletion marks it before it reads the tree.
    if (error instanceof ConditionsFailed && error.names.includes('parent')) throw new AdministrationError(`Parent organization ${input.parentId} not found`);
    throw error;
  });
  return organization;
};

/**
 * Deletes an organization and its descendants, as offboarding: their API clients are revoked,
 * their webhook subscriptions deleted (nothing more is delivered to them), their access policies
 * deleted with their assignments, their members' memberships ended (a person left without an
 * active organization is deleted, login and all), and their companies soft-deleted as an
 * organization cascade (such companies cannot be restored on their own). Each step takes what is
 * done already as done, so a deletion that stopped half-way is finished by running it again.
 */
export const deleteOrganization = async (
  organizationId: string,
  deletedBy: string,
  accounts: { issuer: CredentialIssuer; directory: PersonDirectory },
): Promise<OrganizationDeletion> => {
  const organization = await organizationRepository.get(organizationId);
  if (!organization) throw new AdministrationError(`Organization ${organizationId} not found`);
  const deletedAt = new Date().toISOString();
  // Marked from the top down before anything else, each re-read of the tree after marking: no child
  // can be created under a marked organization, and every child created before is in the next read.
  let organizationsDeleted = 0;
  let subtree: Organization[] = [{ ...organization }];
  for (let marked = true; marked; ) {
    marked = false;
    // Statuses read strongly (the tree index may still show a member marked a moment ago as active).
    const placed = await organizationRepository.placements(subtree.map((member) => member.id));
    for (const member of [...subtree].sort((a, b) => a.path.length - b.path.length)) {
      if (placed.get(member.id)?.status !== 'active') continue;
      if (await organizationRepository.markDeleted(member.id, deletedAt)) organizationsDeleted++;
      marked = true;
    }
    subtree = await organizationRepository.settledSubtree(organization);
    if (subtree.some((member) => !placed.has(member.id))) marked = true; // a child the last read did not show
  }
  let clientsRevoked = 0;
  for (const member of subtree) {
    for (const client of await apiClientRepository.listByOrganization(member.id)) {
      if (client.status === 'revoked') continue;
      await accounts.issuer.revoke(client.clientId);
      await apiClientRepository.revoke(client.clientId, deletedAt);
      clientsRevoked++;
    }
  }
  const organizationIds = subtree.map((member) => member.id);
  const subscriptionsDeleted = await deleteSubscriptionsOf(organizationIds);
  const policiesDeleted = await deletePoliciesInSubtree({ rootOrganizationId: organization.rootId, organizationPath: organization.path });
  const { membershipsEnded, usersDeleted } = await leaveDeletedOrganizations(organizationIds, accounts.directory, accounts.issuer);
  const companiesDeleted = await deleteCompaniesOfOrganization(organization, deletedBy);
  return { companiesDeleted, organizationsDeleted, clientsRevoked, subscriptionsDeleted, policiesDeleted, membershipsEnded, usersDeleted };
};

export interface OrganizationDeletion {
  companiesDeleted: number;
  organizationsDeleted: number;
  clientsRevoked: number;
  subscriptionsDeleted: number;
  policiesDeleted: number;
  membershipsEnded: number;
  usersDeleted: number;
}

export interface CreateClientInput {
  name: string;
  organizationId: string;
  mode?: PrincipalMode;
  /** USER clients: the person the client acts for (a member of the client's organization). */
  userId?: string;
  scopes?: readonly Scope[];
  plan?: RatePlan;
  /** A custom limit in place of the plan's. */
  rateLimit?: RateLimit;
}

const checkedRateLimit = (limit: RateLimit): RateLimit => {
  for (const field of ['perMinute', 'burst'] as const) {
    const { min, max } = customRateLimitBounds[field];
    const value = limit[field];
    if (!Number.isInteger(value) || value < min || value > max) throw new AdministrationError(`A custom rate limit's ${field} is a whole number from ${min} to ${max}`);
  }
  return { perMinute: limit.perMinute, burst: limit.burst };
};

/** Creates an API client; the secret is returned here once and never stored in clear. */
export const createApiClient = async (
  input: CreateClientInput,
  issuer: CredentialIssuer,
): Promise<{ client: ApiClient; clientSecret: string }> => {
  const name = checkedName(input.name, 'client', clientNameRule.max);
  if (!clientNameRule.pattern.test(name)) throw new AdministrationError('The client name may hold only letters A-Z, digits, spaces and _ + = , . @ - (as Cognito takes it)');
  const organization = await organizationRepository.get(input.organizationId);
  if (!organization || organization.status !== 'active') throw new AdministrationError(`Organization ${input.organizationId} not found`);
  const mode = input.mode ?? (input.userId ? 'USER' : 'SYSTEM');
  if (mode === 'INTERACTIVE') throw new AdministrationError('Interactive sessions sign in through the login; they are not API clients created here');
  if (mode === 'USER') {
    if (!input.userId) throw new AdministrationError('A per-user client needs the person it acts for (--user)');
    const person = await personRepository.get(input.userId);
    if (!person || person.status !== 'active') throw new AdministrationError(`User ${input.userId} not found`);
    const memberships = await personRepository.memberships(input.userId);
    if (!memberships.some((membership) => membership.organizationId === organization.id)) {
      throw new AdministrationError(`User ${input.userId} is not a member of organization ${organization.id}`);
    }
  } else if (input.userId) throw new AdministrationError('Only a per-user (USER) client names a user');
  const allowed = mode === 'USER' ? userClientScopes : systemClientScopes;
  const scopes = [...(input.scopes ?? allowed)];
  const notAllowed = scopes.filter((scope) => !allowed.includes(scope));
  if (notAllowed.length) throw new AdministrationError(`A ${mode === 'USER' ? 'per-user' : 'system'} client cannot hold: ${notAllowed.join(', ')}`);
  const credentials = await issuer.create(name, scopes);
  const client: ApiClient = {
    clientId: credentials.clientId,
    name,
    organizationId: organization.id,
    organizationPath: organization.path,
    mode,
    ...(mode === 'USER' && { userId: input.userId }),
    scopes,
    plan: input.plan ?? 'standard',
    ...(input.rateLimit && { rateLimit: checkedRateLimit(input.rateLimit) }),
    status: 'active',
    createdAt: new Date().toISOString(),
    ...(credentials.secretHash && { secretHash: credentials.secretHash }),
  };
  await apiClientRepository.create(client);
  // deleteOrganization revokes the clients it finds before it deletes their organization; one
  // created meanwhile is revoked here, so an active client always has an active organization.
  const after = await organizationRepository.get(organization.id);
  if (after?.status !== 'active') {
    await issuer.revoke(client.clientId);
    await apiClientRepository.revoke(client.clientId, new Date().toISOString());
    throw new AdministrationError(`Organization ${input.organizationId} was deleted while the client was created`);
  }
  return { client, clientSecret: credentials.clientSecret };
};

/** How long the local rotation's one update may take and still date the rotation it was given (else it is dated again, later). */
const localRotationWriteMarginMs = 1000;

/** How long a rotation holds its client: a rotation that crashed blocks the next one this long at most. */
const rotationClaimMilliseconds = 5 * 60_000;

/**
 * A new secret for an active client. Rotations of one client run one at a time (a claim on the
 * client): an overlapping one is refused before it changes anything ("in progress"), so nobody is
 * given a secret another rotation replaced (Cognito adds the new secret, then deletes the others).
 * The rotation is recorded only if the client is still active: a revoked client gets no secret.
 */
export const rotateApiClient = async (clientId: string, issuer: CredentialIssuer): Promise<{ clientSecret: string }> => {
  const client = await apiClientRepository.get(clientId);
  if (!client) throw new AdministrationError(`Client ${clientId} not found`);
  if (client.status !== 'active') throw new AdministrationError(`Client ${clientId} is revoked`);
  const claim = randomUUID();
  const now = Date.now();
  if (!(await apiClientRepository.claimRotation(clientId, claim, now, now + rotationClaimMilliseconds))) throw await refusal(clientId, 'Another rotation of client CLIENT is in progress; try again when it has ended');
  // The claim is held until the secret is handed out: no other rotation replaces it meanwhile.
  try {
    const { clientSecret, secretHash, oldSecretsEndedBy, issuerClockOffsetMs = 0 } = await issuer.rotate(clientId);
    // The local issuer: the old secret ends when the new hash is stored, which is written with the
    // rotation's date in one update. The token endpoint dates a token from before it reads the
    // hash, so a token of the old secret is dated before the write: the date is the second after
    // the write is due to have ended, and a later one should the write end after that.
    const writeDue = Date.now() + localRotationWriteMarginMs;
    let rotatedAt = rotationSecond(secretHash ? writeDue : Date.parse(oldSecretsEndedBy!));
    if (!(await apiClientRepository.recordRotation(clientId, { rotatedAt, previousRotatedAt: client.rotatedAt, claim, ...(secretHash && { secretHash }) }))) {
      throw await refusal(clientId, 'Client CLIENT was rotated meanwhile; rotate again');
    }
    if (secretHash && Date.now() >= writeDue) {
      const later = rotationSecond(Date.now());
      if (await apiClientRepository.redateRotation(clientId, rotatedAt, later)) rotatedAt = later;
    }
    // The new secret is handed out once its tokens pass: from rotatedAt on by the issuer's clock (iat >= rotatedAt).
    const wait = Date.parse(rotatedAt) - (Date.now() + issuerClockOffsetMs);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return { clientSecret };
  } finally {
    await apiClientRepository.releaseRotation(clientId, claim);
  }
};

/**
 * The date of a rotation whose old secret could last get a token at `oldSecretEndedBy` (ms): the
 * next whole second. Token `iat` is in whole seconds and the authorizer accepts only `iat >=`
 * rotatedAt, so every token of the old secret (iat at most the second of oldSecretEndedBy) is
 * refused, and the new secret's tokens pass from rotatedAt on (rotateApiClient waits until then
 * before it hands the secret out: at most a second).
 */
export const rotationSecond = (oldSecretEndedBy: number): string => new Date((Math.floor(oldSecretEndedBy / 1000) + 1) * 1000).toISOString();

/** Why a rotation was refused: the client is gone or revoked, else `otherwise` (CLIENT names it). */
const refusal = async (clientId: string, otherwise: string): Promise<AdministrationError> => {
  const now = await apiClientRepository.get(clientId);
  if (!now) return new AdministrationError(`Client ${clientId} not found`);
  if (now.status !== 'active') return new AdministrationError(`Client ${clientId} is revoked`);
  return new AdministrationError(otherwise.replace('CLIENT', clientId));
};

export const listApiClients = (organizationId: string): Promise<ApiClient[]> => apiClientRepository.listByOrganization(organizationId);
