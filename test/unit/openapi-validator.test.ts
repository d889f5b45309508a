import { describe, expect, it } from 'vitest';
import { validateProblem, validateResponse } from '../support/openapi-validator';

// The tests' response check (test/support/api.ts) must be able to fail: a body off the document is refused.
describe('the OpenAPI response check of the tests', () => {
  const company = { id: '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f', name: 'Acme AS' };

  it('refuses a body that breaks a component schema the response names, and an undeclared status or media type', () => {
    expect(() => validateResponse('GET', `/v1/companies/${company.id}`, 200, 'application/json', { ...company, id: 42 })).toThrow(/body does not match/);
    expect(() => validateResponse('GET', `/v1/companies/${company.id}`, 200, 'application/json', [])).toThrow(/body does not match/);
    expect(() => validateResponse('GET', `/v1/companies/${company.id}`, 299, 'application/json', {})).toThrow(/does not declare status 299/);
    expect(() => validateResponse('GET', `/v1/companies/${company.id}`, 200, 'text/html', {})).toThrow(/does not declare text\/html/);
  });

  it('refuses a problem document without its members and accepts one with them', () => {
    expect(() => validateProblem({ title: 'x' })).toThrow(/Not a Problem/);
    expect(() =>
      validateProblem({ type: 'https://example.com/problems/not_found', title: 'Not found', status: 404, detail: 'No company 1.', error: 'not_found', requestId: 'r1' }),
    ).not.toThrow();
  });
});
