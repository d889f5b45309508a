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
