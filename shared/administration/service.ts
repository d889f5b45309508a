import { randomUUID } from 'node:crypto';
import { deleteCompaniesOfOrganization } from '../companies/service';
import { apiClientRepository, type ApiClient } from '../identity/api-client-repository';
import type { CredentialIssuer } from '../identity/credential-issuers';
import { organizationRepository, type Organization } from '../identity/organization-repository';
import type { PrincipalMode, RatePlan } from '../identity/principal';
import { systemClientScopes, type Scope } from '../identity/scopes';

/**
 * What an organization administrator does in the application: organizations and API clients.
 * Used by the admin CLI and the demo seed; not exposed over the public API.
 */
export class AdministrationError extends Error {}

export const createOrganization = async (input: { name: string; parentId?: string }): Promise<Organization> => {
  const parent = input.parentId ? await organizationRepository.get(input.parentId) : undefined;
  if (input.parentId && (!parent || parent.status !== 'active')) throw new AdministrationError(`Parent organization ${input.parentId} not found`);
  const id = randomUUID();
  const organization: Organization = {
    id,
    name: input.name,
    parentId: parent?.id ?? null,
    path: parent ? `${parent.path}/${id}` : id,
    rootId: parent?.rootId ?? id,
    status: 'active',
    createdAt: new Date().toISOString(),
  };
  await organizationRepository.create(organization);
  return organization;
};

/**
 * Deletes an organization and its descendants: their API clients are revoked, their companies
 * soft-deleted as an organization cascade (such companies cannot be restored on their own).
 */
export const deleteOrganization = async (
  organizationId: string,
  deletedBy: string,
  issuer: CredentialIssuer,
): Promise<{ companiesDeleted: number; organizationsDeleted: number; clientsRevoked: number }> => {
  const organization = await organizationRepository.get(organizationId);
  if (!organization) throw new AdministrationError(`Organization ${organizationId} not found`);
  const deletedAt = new Date().toISOString();
  let organizationsDeleted = 0;
  let clientsRevoked = 0;
  for (const member of await organizationRepository.subtree(organization)) {
    for (const client of await apiClientRepository.listByOrganization(member.id)) {
      if (client.status === 'revoked') continue;
      await issuer.revoke(client.clientId);
      await apiClientRepository.revoke(client.clientId, deletedAt);
      clientsRevoked++;
    }
    if (member.status !== 'deleted') {
      await organizationRepository.markDeleted(member.id, deletedAt);
      organizationsDeleted++;
    }
  }
  const companiesDeleted = await deleteCompaniesOfOrganization(organization, deletedBy);
  return { companiesDeleted, organizationsDeleted, clientsRevoked };
};

export interface CreateClientInput {
  name: string;
  organizationId: string;
  mode?: PrincipalMode;
  scopes?: readonly Scope[];
  plan?: RatePlan;
}

/** Creates an API client; the secret is returned here once and never stored in clear. */
export const createApiClient = async (
  input: CreateClientInput,
  issuer: CredentialIssuer,
): Promise<{ client: ApiClient; clientSecret: string }> => {
  const organization = await organizationRepository.get(input.organizationId);
  if (!organization || organization.status !== 'active') throw new AdministrationError(`Organization ${input.organizationId} not found`);
  const mode = input.mode ?? 'SYSTEM';
  if (mode !== 'SYSTEM') throw new AdministrationError('Only SYSTEM clients can be created here; user and interactive principals come with the users feature');
  const scopes = [...(input.scopes ?? systemClientScopes)];
  const notAllowed = scopes.filter((scope) => !systemClientScopes.includes(scope));
  if (notAllowed.length) throw new AdministrationError(`A system client cannot hold: ${notAllowed.join(', ')}`);
  const credentials = await issuer.create(input.name, scopes);
  const client: ApiClient = {
    clientId: credentials.clientId,
    name: input.name,
    organizationId: organization.id,
    organizationPath: organization.path,
    mode,
    scopes,
    plan: input.plan ?? 'standard',
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

export const rotateApiClient = async (clientId: string, issuer: CredentialIssuer): Promise<{ clientSecret: string }> => {
  const client = await apiClientRepository.get(clientId);
  if (!client) throw new AdministrationError(`Client ${clientId} not found`);
  const { clientSecret, secretHash } = await issuer.rotate(clientId);
  await apiClientRepository.recordRotation(clientId, new Date().toISOString(), secretHash);
  return { clientSecret };
};

export const listApiClients = (organizationId: string): Promise<ApiClient[]> => apiClientRepository.listByOrganization(organizationId);
