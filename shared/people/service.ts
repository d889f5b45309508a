import { randomBytes, randomUUID } from 'node:crypto';
import { commitWithRetry } from '../db/retry';
import { ConditionsFailed, unitOfWork } from '../db/unit-of-work';
import { accessWrites } from '../identity/access-repository';
import { accessRepository } from '../identity/access-repository';
import { computeEffectiveAccess, effectiveAccessWrite, personWithinReach } from '../access/service';
import type { User } from '../identity/access-schemas';
import type { Page } from '../db/query-page';
import type { TransactionWrite } from '../db/unit-of-work';
import type { Principal } from '../identity/principal';
import { AdministrationError, checkedName } from '../identity/administration-error';
import { apiClientRepository } from '../identity/api-client-repository';
import type { CredentialIssuer } from '../identity/credential-issuers';
import { organizationRepository } from '../identity/organization-repository';
import { passwordProblems } from '../identity/password-policy';
import type { PersonDirectory } from '../identity/person-directories';
import { normalizeEmail, personRepository, personWrites, type Membership, type Person } from '../identity/person-repository';
import { limits, textRuleProblem } from '../platform/schemas';
import { compareCodeUnits } from '../platform/text';

/**
 * People of the firm, as an administrator manages them (admin CLI, demo seed): a person, their
 * memberships and their login. Every change of memberships recomputes the person's effective
 * access in the same transaction.
 */

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * A generated login password: 25 characters, with every class the login password policy asks for.
 * It starts with a letter: one starting with - reads as a flag where a person pastes it after
 * `--password` (Node's parseArgs refuses it).
 */
export const generatePassword = (): string => `P${randomBytes(15).toString('base64url')}aA1!`;

const activeOrganization = async (organizationId: string) => {
  const organization = await organizationRepository.get(organizationId);
  if (!organization || organization.status !== 'active') throw new AdministrationError(`Organization ${organizationId} not found`);
  return organization;
};

const activePerson = async (userId: string): Promise<Person> => {
  const person = await personRepository.get(userId);
  if (!person || person.status !== 'active') throw new AdministrationError(`User ${userId} not found`);
  return person;
};

export const createUser = async (
  input: { organizationId: string; email: string; name: string; password?: string },
  directory: PersonDirectory,
): Promise<{ person: Person; password: string; generated: boolean }> => {
  const organization = await activeOrganization(input.organizationId);
  const email = normalizeEmail(input.email);
  if (!emailPattern.test(email) || email.length > limits.email || textRuleProblem(email)) throw new AdministrationError(`${JSON.stringify(input.email)} is not an e-mail address`);
  const name = checkedName(input.name, 'user');
  const weak = input.password === undefined ? [] : passwordProblems(input.password);
  if (weak.length) throw new AdministrationError(`The password does not meet the login password policy: it needs ${weak.join(', ')}`);
  if (await personRepository.findByEmail(email)) throw new AdministrationError(`A user with e-mail ${email} exists already`);
  const password = input.password ?? generatePassword();
  const userId = randomUUID();
  const access = await computeEffectiveAccess(userId, { memberships: [organization.id] });
  const login = await directory.create({ userId, email, name }, password);
  // From here on a failure removes the login again: a re-run would find its e-mail address taken.
  try {
    const person: Person = { userId, email, name, status: 'active', createdAt: new Date().toISOString(), ...login };
    const writes = personWrites.create(person, organization.id);
    await unitOfWork()
      .add('access', accessWrites.putEffectiveAccess(access))
      .add('person', writes.person)
      .add('email', writes.email)
      .add('membership', writes.membership)
      .commit();
    return { person, password, generated: input.password === undefined };
  } catch (error) {
    await directory.remove(userId);
    if (error instanceof ConditionsFailed) throw new AdministrationError(`A user with e-mail ${email} exists already`);
    throw error;
  }
};

export const addMembership = async (userId: string, organizationId: string): Promise<void> => {
  await activePerson(userId);
  const organization = await activeOrganization(organizationId);
  await commitWithRetry(
    async () => {
      const memberships = (await personRepository.memberships(userId)).map((membership) => membership.organizationId);
      if (memberships.includes(organization.id)) throw new AdministrationError(`User ${userId} is a member of organization ${organization.id} already`);
      return unitOfWork()
        .add('membership', personWrites.addMembership({ userId, organizationId: organization.id, createdAt: new Date().toISOString() }))
        .add('access', storedAccess(userId, await effectiveAccessWrite(userId, { memberships: [...memberships, organization.id] })));
    },
    () => undefined,
  );
};

/** The write of a person's recomputed access; none stored means delete-user got there first. */
const storedAccess = (userId: string, write: TransactionWrite | undefined): TransactionWrite => {
  if (!write) throw new AdministrationError(`User ${userId} not found`);
  return write;
};

/**
 * Revokes the person's active per-user API clients of these organizations (credential first, then
 * the registry entry; a revoked client stays revoked). Answers how many were revoked.
 */
const revokePersonalClients = async (userId: string, organizationIds: readonly string[], issuer: CredentialIssuer | undefined): Promise<number> => {
  let revoked = 0;
  const now = new Date().toISOString();
  for (const organizationId of new Set(organizationIds)) {
    for (const client of await apiClientRepository.listByOrganization(organizationId)) {
      if (client.userId !== userId || client.status !== 'active') continue;
      await issuer?.revoke(client.clientId);
      await apiClientRepository.revoke(client.clientId, now);
      revoked++;
    }
  }
  return revoked;
};

/**
 * A person keeps at least one membership (delete-user removes a person altogether). Their per-user
 * API clients of that organization are revoked first (`issuer` revokes their credentials: on AWS,
 * the Cognito app clients), so that a failure leaves the membership, and the command run again
 * finishes; adding the membership again does not bring them back.
 */
export const removeMembership = async (userId: string, organizationId: string, issuer: CredentialIssuer): Promise<void> => {
  await activePerson(userId);
  const memberships = (await personRepository.memberships(userId)).map((membership) => membership.organizationId);
  if (!memberships.includes(organizationId)) throw new AdministrationError(`User ${userId} is not a member of organization ${organizationId}`);
  if (memberships.length === 1) throw new AdministrationError(`Organization ${organizationId} is the last membership of user ${userId}; use delete-user instead`);
  await revokePersonalClients(userId, [organizationId], issuer);
  await commitWithRetry(
    async () => {
      const memberships = (await personRepository.memberships(userId)).map((membership) => membership.organizationId);
      if (!memberships.includes(organizationId)) throw new AdministrationError(`User ${userId} is not a member of organization ${organizationId}`);
      if (memberships.length === 1) throw new AdministrationError(`Organization ${organizationId} is the last membership of user ${userId}; use delete-user instead`);
      return unitOfWork()
        .add('membership', personWrites.removeMembership(userId, organizationId))
        .add('access', storedAccess(userId, await effectiveAccessWrite(userId, { memberships: memberships.filter((id) => id !== organizationId) })));
    },
    () => undefined,
  );
};

/**
 * An organization cascade: the memberships in these (deleted) organizations end, and a person left
 * without a membership in an active organization is deleted (login and per-user clients included),
 * so nobody keeps a working sign-in to an organization that is gone. Run again, it finishes.
 */
export const leaveDeletedOrganizations = async (
  organizationIds: readonly string[],
  directory: PersonDirectory,
  issuer: CredentialIssuer,
): Promise<{ membershipsEnded: number; usersDeleted: number }> => {
  const leaving = new Set(organizationIds);
  const userIds = new Set((await Promise.all(organizationIds.map((id) => personRepository.membersOf(id)))).flat().map((membership) => membership.userId));
  let membershipsEnded = 0;
  let usersDeleted = 0;
  for (const userId of userIds) {
    const person = await personRepository.get(userId);
    if (!person) continue;
    const held = (await personRepository.memberships(userId)).map((membership) => membership.organizationId);
    const others = held.filter((id) => !leaving.has(id));
    const active = [...(await organizationRepository.placements(others)).values()].filter((organization) => organization.status === 'active');
    if (person.status === 'deleted' || active.length === 0) {
      await deleteUser(userId, directory, issuer);
      usersDeleted++;
      continue;
    }
    for (const organizationId of held.filter((id) => leaving.has(id))) {
      await removeMembership(userId, organizationId, issuer);
      membershipsEnded++;
    }
  }
  return { membershipsEnded, usersDeleted };
};

/**
 * Deletes a person: their access goes first (effective access, assignments), then their per-user
 * API clients are revoked, their login removed, memberships and e-mail claim deleted. Each step
 * takes "done already" as done, so a deletion that stopped half-way is finished by running it
 * again (`resumed`: the person was marked deleted already); only a person never created is not found.
 */
export const deleteUser = async (
  userId: string,
  directory: PersonDirectory,
  issuer: CredentialIssuer,
): Promise<{ resumed: boolean; assignmentsDeleted: number; clientsRevoked: number }> => {
  const person = await personRepository.get(userId);
  if (!person) throw new AdministrationError(`User ${userId} not found`);
  const memberships = await personRepository.memberships(userId);
  const access = await accessRepository.effectiveAccess(userId);
  // Access ends at once: one transaction drops the effective access and marks the person deleted
  // (a re-run does it again, harmlessly).
  await unitOfWork()
    .add('access', accessWrites.deleteEffectiveAccess(userId))
    .add('person', personWrites.markDeleted(userId))
    .commit();
  // The effective access lists the assignments; on a re-run it is gone, the person's assignment index (GSI2) has them.
  const assignmentIds = new Set([...(access?.assignments ?? []).map(({ id }) => id), ...(await accessRepository.assignmentsOfUser(userId)).map(({ id }) => id)]);
  let assignmentsDeleted = 0;
  for (const id of assignmentIds) {
    const assignment = await accessRepository.assignment(id);
    if (!assignment) continue;
    const policy = await accessRepository.policy(assignment.policyId);
    const work = unitOfWork().add('assignment', accessWrites.deleteAssignment(assignment));
    if (policy) work.add('policy', accessWrites.countAssignment(policy, -1));
    await work.commit();
    assignmentsDeleted++;
  }
  // The clients of the person's current organizations: those of an organization they left were revoked with that membership.
  const clientsRevoked = await revokePersonalClients(userId, memberships.map(({ organizationId }) => organizationId), issuer);
  await directory.remove(userId);
  const work = unitOfWork();
  // The claim is released only while it is this person's: once released, another person may hold it.
  const claimed = (await personRepository.findByEmail(person.email))?.userId === userId;
  if (claimed) work.add('email', personWrites.releaseEmail(person.email, userId));
  memberships.forEach((membership, index) => work.add(`membership ${index}`, personWrites.removeMembership(userId, membership.organizationId, false)));
  if (claimed || memberships.length) await work.commit();
  return { resumed: person.status === 'deleted', assignmentsDeleted, clientsRevoked };
};

/** A person as a system client sees them: with the memberships within its reach. */
export interface ReachablePerson {
  person: Person;
  memberships: Membership[];
}

export const toUser = ({ person, memberships }: ReachablePerson): User => ({
  id: person.userId,
  email: person.email,
  name: person.name,
  status: 'active',
  createdAt: person.createdAt,
  memberships: memberships.map(({ organizationId, createdAt }) => ({ organizationId, createdAt })).sort((a, b) => compareCodeUnits(a.createdAt, b.createdAt)),
});

/**
 * GET /v1/users: the members of the caller's organization subtree (one Query per organization of
 * the subtree, one BatchGet of the people), in one page: the spec counts users among the small lists.
 */
export const listUsers = async (principal: Principal, query: { organization_id?: string; email?: string }): Promise<Page<User>> => {
  const page = (users: User[]): Page<User> => ({ data: users.sort((a, b) => a.email.localeCompare(b.email)), pagination: { next_cursor: null, has_more: false } });
  if (query.email) {
    const person = await personRepository.findByEmail(query.email);
    const reachable = person && (await personWithinReach(principal, person.userId));
    const shown = reachable && (!query.organization_id || reachable.memberships.some((m) => m.organizationId === query.organization_id));
    return page(shown ? [toUser(reachable)] : []);
  }
  const own = principal.organizationId ? await organizationRepository.get(principal.organizationId) : undefined;
  if (!own) return page([]);
  // A deleted organization is not part of the subtree. The filter chooses people; each keeps all memberships within reach.
  const organizations = (await organizationRepository.subtree(own)).filter((organization) => organization.status === 'active');
  const memberships = (await Promise.all(organizations.map((organization) => personRepository.membersOf(organization.id)))).flat();
  const byUser = new Map<string, Membership[]>();
  for (const membership of memberships) byUser.set(membership.userId, [...(byUser.get(membership.userId) ?? []), membership]);
  const chosen = [...byUser.entries()].filter(([, held]) => !query.organization_id || held.some((membership) => membership.organizationId === query.organization_id));
  const people = await personRepository.many(chosen.map(([userId]) => userId));
  return page(people.filter((person) => person.status === 'active').map((person) => toUser({ person, memberships: byUser.get(person.userId)! })));
};
