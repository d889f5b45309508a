import { randomUUID } from 'node:crypto';
import { createOrganization } from '../../shared/administration/service';
import { createTestClient } from './clients';
import { createCompany } from '../../shared/companies/service';
import { localCredentialIssuer } from '../../shared/identity/credential-issuers';
import { administratorOf } from '../../shared/identity/principal';
import { userClientScopes, type Scope } from '../../shared/identity/scopes';
import { localPersonDirectory } from '../../shared/identity/person-directories';
import { createUser } from '../../shared/people/service';
import { tokenFor } from './api';

/** A fresh organization tree of one test file: root R with child R1, a premium system client, and helpers. */
export const newFirm = async (label: string) => {
  const root = await createOrganization({ name: `${label} ${randomUUID().slice(0, 8)}` });
  const child = await createOrganization({ name: `${label} child`, parentId: root.id });
  const system = await createTestClient({ name: `${label}-system`, organizationId: root.id, plan: 'premium' });
  const systemToken = await tokenFor(system.client.clientId, system.clientSecret);
  const company = async (organization: { id: string; path: string } = root, name = 'Test Selskap AS') =>
    (await createCompany(administratorOf(organization, 'test', ['companies:write']), { displayName: name, accountingSystem: 'Api' })).id;
  return { root, child, system, systemToken, company };
};

/** A person of an organization (created as the admin CLI does), with a per-user API client and its token. */
export const newPerson = async (organizationId: string, options: { scopes?: readonly Scope[] } = {}) => {
  const { person, password } = await createUser({ organizationId, email: `person-${randomUUID().slice(0, 8)}@example.test`, name: 'Test Person' }, localPersonDirectory);
  const { client, clientSecret } = await createTestClient(
    { name: `user-${person.userId.slice(0, 8)}`, organizationId, userId: person.userId, plan: 'premium', scopes: options.scopes ?? userClientScopes },
    localCredentialIssuer,
  );
  return { person, password, client, clientSecret, token: await tokenFor(client.clientId, clientSecret) };
};
