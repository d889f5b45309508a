import { describe, expect, it } from 'vitest';
import { api, expectProblem } from '../support/api';
import { seededClient, testStack } from '../support/stack';

describe('GET /v1/whoami', () => {
  it('answers the system client, its organization and its scopes', async () => {
    const client = seededClient('a-system');
    const response = await api('GET', '/v1/whoami', { as: 'a-system' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      clientId: client.clientId,
      mode: 'SYSTEM',
      organizationId: client.organizationId,
      userId: null,
      scopes: client.scopes,
    });
  });

  it('needs no particular scope: a read-only client gets its identity too', async () => {
    const response = await api('GET', '/v1/whoami', { as: 'a-readonly' });
    expect(response.status).toBe(200);
    expect(response.body.scopes.every((scope: string) => scope.endsWith(':read'))).toBe(true);
  });

  it.each([
    ['no Authorization header', undefined],
    ['a malformed header', 'Token abc'],
    ['a token that is not a JWT', 'Bearer not-a-jwt'],
  ])('answers 401 problem+json with WWW-Authenticate for %s', async (_case, authorization) => {
    const response = await api('GET', '/v1/whoami', { headers: authorization ? { authorization } : {} });
    expectProblem(response, 401, 'invalid_token');
    expect(response.headers.get('www-authenticate')).toContain('Bearer');
  });

  it('is reachable for every seeded organization', () => {
    const names = testStack().organizations.map((o) => o.name);
    expect(names).toHaveLength(3);
  });
});

describe('the authorizer reads one item: the client carries its organization', () => {
  it('a client made before organizationPath was kept still resolves through its organization', async () => {
    const { createApiClient, createOrganization } = await import('../../shared/administration/service');
    const { localCredentialIssuer } = await import('../../shared/identity/credential-issuers');
    const { dynamo, tableName } = await import('../../shared/platform/aws');
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { apiClientKeys } = await import('../../shared/identity/keys');
    const { tokenFor } = await import('../support/api');
    testStack();
    const organization = await createOrganization({ name: 'Legacy client firm' });
    const { client, clientSecret } = await createApiClient({ name: 'legacy', organizationId: organization.id }, localCredentialIssuer);
    expect(client.organizationPath).toBe(organization.path);
    await dynamo().send(new UpdateCommand({ TableName: tableName(), Key: apiClientKeys(client.clientId), UpdateExpression: 'REMOVE organizationPath' }));
    const response = await api('GET', '/v1/whoami', { token: await tokenFor(client.clientId, clientSecret) });
    expect(response.status).toBe(200);
    expect(response.body.organizationId).toBe(organization.id);
  });

  it('a client created while its organization is deleted is revoked at once', async () => {
    const { createApiClient, createOrganization, AdministrationError } = await import('../../shared/administration/service');
    const { localCredentialIssuer } = await import('../../shared/identity/credential-issuers');
    const { organizationRepository } = await import('../../shared/identity/organization-repository');
    const { apiClientRepository } = await import('../../shared/identity/api-client-repository');
    testStack();
    const organization = await createOrganization({ name: 'Vanishing firm' });
    let created = '';
    // the organization is deleted between the client's checks and its write
    const racingIssuer = {
      ...localCredentialIssuer,
      create: async (name: string, scopes: readonly string[]) => {
        const credentials = await localCredentialIssuer.create(name, scopes as never);
        created = credentials.clientId;
        await organizationRepository.markDeleted(organization.id, new Date().toISOString());
        return credentials;
      },
    };
    await expect(createApiClient({ name: 'late', organizationId: organization.id }, racingIssuer)).rejects.toBeInstanceOf(AdministrationError);
    expect(await apiClientRepository.get(created)).toMatchObject({ status: 'revoked' });
  });
});
