import { describe, expect, it } from 'vitest';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { routes } from '../../shared/routes';
import { readOnlyScopes, systemClientScopes } from '../../shared/identity/scopes';
import { api, expectProblem } from '../support/api';
import { testStack } from '../support/stack';

describe('problem+json for everything the service answers', () => {
  it('an unknown route is 404 route_not_found', async () => {
    const response = await api('GET', '/v1/does-not-exist', { as: 'a-system' });
    expectProblem(response, 404, 'route_not_found');
    expect(response.body.type).toMatch(/^https?:\/\/.+\/problems\/route_not_found$/);
  });

  it('a known path with another method is 405 with Allow', async () => {
    const company = testStack().companies[0]!.id;
    const response = await api('PUT', `/v1/companies/${company}`, { as: 'a-system', body: {} });
    expectProblem(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toBe('GET, PATCH, DELETE');
  });

  it('an unknown field of any length is named, cut to 200 characters, and the detail stays within its bound', async () => {
    const key = `x${'y'.repeat(5000)}`;
    const response = await api('POST', '/v1/companies', { as: 'a-system', body: { displayName: 'Lang AS', accountingSystem: 'Api', [key]: 1 } });
    expectProblem(response, 400, 'validation_failed');
    const [error] = response.body.errors;
    expect(error).toEqual({ field: `x${'y'.repeat(198)}…`, message: 'Unknown field' });
    expect(response.body.detail.length).toBeLessThanOrEqual(2000);
  });

  it('no stack traces or internal messages leak from errors', async () => {
    const response = await api('POST', '/v1/companies', { as: 'a-system', rawBody: '{', headers: { 'content-type': 'application/json' } });
    expect(response.text).not.toMatch(/at .+\.ts:\d+|node_modules|Error:/);
  });
});

describe('OpenAPI document', () => {
  it('is served at /v1/openapi.json without authentication, covering every route of the route table', async () => {
    const response = await api('GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.0.3');
    for (const route of routes) {
      const operation = response.body.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation.operationId).toBe(route.operationId);
    }
  });

  it('passes the Redocly recommended lint rules with no errors', async () => {
    const response = await api('GET', '/v1/openapi.json');
    const config = await createConfig({ extends: ['recommended'], rules: { 'info-license': 'off', 'info-license-url': 'off' } });
    const problems = await lintFromString({ source: response.text, absoluteRef: 'openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  });

  it('declares nullable fields as type + nullable: true (OpenAPI 3.0.3)', async () => {
    const { body } = await api('GET', '/v1/openapi.json');
    expect(body.components.schemas.Company.properties.organizationNumber).toMatchObject({ type: 'string', nullable: true });
    expect(body.components.schemas.Company.properties.organizationNumber).not.toHaveProperty('oneOf');
  });
});

describe('.local/stack.json contract of the local stack', () => {
  it('has organizations A, B and A1 (child of A), companies and the four named clients', () => {
    const stack = testStack();
    expect(stack.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(stack.authUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth2\/token$/);
    const [a, a1, b] = stack.organizations;
    expect(a!.parentId).toBeNull();
    expect(a1!.parentId).toBe(a!.id);
    expect(b!.parentId).toBeNull();
    const of = (id: string) => stack.companies.filter((c) => c.organizationId === id);
    expect(of(a!.id).map((c) => c.accountingSystem)).toEqual(expect.arrayContaining(['Api', expect.not.stringMatching(/^Api$/)]));
    expect(of(a1!.id).map((c) => c.accountingSystem)).toContain('Api');
    expect(of(b!.id).map((c) => c.accountingSystem)).toContain('Api');
    const client = (name: string) => stack.clients.find((c) => c.name === name)!;
    expect(client('a-system')).toMatchObject({ mode: 'SYSTEM', organizationId: a!.id, scopes: [...systemClientScopes] });
    expect(client('a-readonly')).toMatchObject({ mode: 'SYSTEM', organizationId: a!.id, scopes: [...readOnlyScopes] });
    expect(client('a1-system')).toMatchObject({ mode: 'SYSTEM', organizationId: a1!.id, scopes: [...systemClientScopes] });
    expect(client('b-system')).toMatchObject({ mode: 'SYSTEM', organizationId: b!.id, scopes: [...systemClientScopes] });
    for (const c of stack.clients) expect(['standard', 'premium']).toContain(c.plan);
    expect(systemClientScopes).not.toContain('context:read');
  });
});
