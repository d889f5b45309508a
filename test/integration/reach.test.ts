import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestClient } from '../support/clients';
import { readOnlyScopes } from '../../shared/identity/scopes';
import { pathParameterNames } from '../../shared/api/runner';
import { ownedParameters, type OwnedParameter } from '../../shared/composition/owners';
import { routes, type RouteDefinition } from '../../shared/routes';
import { api, expectProblem, tokenFor, type RequestOptions } from '../support/api';
import { importAndWait, newApiCompany } from '../support/ledger';
import { seededClient, seededCompanies, testStack } from '../support/stack';

/**
 * General rule 2 as one pipeline step: a resource outside the caller's reach answers 404 on every
 * route that names one, before scope (403), the Idempotency-Key, the body or the query are judged.
 */
/** The owned parameter that decides a route's reach: the first of its path the runner resolves (shared/composition/owners.ts). */
const ownerOf = (route: RouteDefinition): OwnedParameter | undefined =>
  pathParameterNames(route.path).find((name): name is OwnedParameter => (ownedParameters as string[]).includes(name));

const ownedRoutes = routes.filter((route) => route.auth === 'token' && ownerOf(route) !== undefined);

/**
 * The ids each owned parameter is tried with: another organization's resource where the file makes
 * one, and an id that names nothing. Typed by the owners, so a new owner does not compile without
 * its entry (and the test below fails when it names no route).
 */
const targetsOf: Record<OwnedParameter, () => string[]> = {
  companyId: () => [foreignCompany, randomUUID()],
  jobId: () => [foreignJob, randomUUID()],
  // A foreign document's paths are shown in documents.test.ts; here an id that names nothing.
  documentId: () => [randomUUID()],
  userId: () => [randomUUID()],
  policyId: () => [randomUUID()],
  assignmentId: () => [randomUUID()],
  subscriptionId: () => [randomUUID()],
  deliveryId: () => [randomUUID()],
};

const concrete = (route: RouteDefinition, owned: string) =>
  route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === ownerOf(route)) return owned;
    if (name === 'accountNumber') return '1920';
    if (name === 'key') return 'K1';
    return randomUUID();
  });

/** What is wrong with the request besides its target: nothing, no body, a malformed body, no key, a bad query. */
const mutationVariants: Record<string, { query?: string; options: RequestOptions }> = {
  'no body': { options: {} },
  'empty object': { options: { body: {} } },
  'malformed JSON': { options: { rawBody: '{"year": ', headers: { 'content-type': 'application/json' } } },
  'wrong media type': { options: { rawBody: 'year=2025', headers: { 'content-type': 'text/plain' } } },
  'no Idempotency-Key, unknown field and query parameter': { query: '?nonsense=1', options: { idempotencyKey: null, body: { unexpected: true } } },
};
const readVariants: Record<string, { query?: string; options: RequestOptions }> = {
  'plain': { options: {} },
  'unknown query parameter': { query: '?nonsense=1', options: {} },
  'out-of-range values': { query: '?page_size=0&year=abc&period=13', options: {} },
};

let systemToken: string;
let readOnlyToken: string;
let foreignCompany: string;
let foreignJob: string;

beforeAll(async () => {
  testStack();
  const organizationId = seededClient('a-system').organizationId;
  // Clients of this file alone (premium plan), so the matrix never meets another file's rate limit.
  const system = await createTestClient({ name: 'reach-system', organizationId, plan: 'premium' });
  const readOnly = await createTestClient({ name: 'reach-readonly', organizationId, plan: 'premium', scopes: [...readOnlyScopes] });
  systemToken = await tokenFor(system.client.clientId, system.clientSecret);
  readOnlyToken = await tokenFor(readOnly.client.clientId, readOnly.clientSecret);
  const otherOrganization = seededClient('b-system').organizationId;
  foreignCompany = seededCompanies(otherOrganization)[0]!.id;
  const foreignApiCompany = await newApiCompany('b-system');
  foreignJob = (await importAndWait(foreignApiCompany, 'accounts', { year: 2025, accounts: [{ accountCode: '1920', accountDescription: 'Bank', accountCategory: 'Balance' }] }, 'b-system')).body.jobId;
});

describe('reach before everything else (general rule 2)', () => {
  it('covers every route that names an owned resource, and every owner names a route', () => {
    expect(ownedRoutes.length).toBeGreaterThanOrEqual(35);
    expect(ownedRoutes.filter((route) => route.mutation).length).toBeGreaterThanOrEqual(15);
    expect(Object.keys(targetsOf).sort()).toEqual([...ownedParameters].sort());
    for (const name of ownedParameters) expect(ownedRoutes.some((route) => ownerOf(route) === name), name).toBe(true);
  });

  it.each(ownedRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: another organization\'s resource or a random id answers 404 for every caller and every request',
    async (_, route) => {
      const targets = targetsOf[ownerOf(route)!]();
      for (const target of targets) {
        for (const token of [systemToken, readOnlyToken]) {
          for (const [variant, { query, options }] of Object.entries(route.mutation ? mutationVariants : readVariants)) {
            const response = await api(route.method, concrete(route, target) + (query ?? ''), { ...options, token });
            expect({ variant, status: response.status, error: response.body?.error }).toEqual({ variant, status: 404, error: 'not_found' });
          }
        }
      }
    },
  );

  it('within reach, scope comes next (403) and then the request itself (400/415/422)', async () => {
    const company = seededCompanies(seededClient('a-system').organizationId)[0]!.id;
    expectProblem(await api('POST', `/v1/companies/${company}/bank/reconciliations`, { token: readOnlyToken, body: {} }), 403, 'insufficient_scope');
    expectProblem(await api('POST', `/v1/companies/${company}/bank/reconciliations`, { token: systemToken, body: {} }), 400, 'validation_failed');
    expectProblem(
      await api('POST', `/v1/companies/${company}/bank/reconciliations`, { token: systemToken, rawBody: '{', headers: { 'content-type': 'application/json' } }),
      400,
      'malformed_json',
    );
    expectProblem(await api('PATCH', `/v1/companies/${company}`, { token: systemToken, body: {}, idempotencyKey: null }), 400, 'validation_failed');
    expectProblem(await api('GET', `/v1/companies/${company}?nonsense=1`, { token: systemToken }), 400, 'validation_failed');
  });

  it('a path id that is not a UUID names nothing: 404 before scope', async () => {
    expectProblem(await api('PATCH', '/v1/companies/not-a-uuid', { token: readOnlyToken, body: {} }), 404, 'not_found');
    expectProblem(await api('GET', '/v1/jobs/not-a-uuid', { token: readOnlyToken }), 404, 'not_found');
  });
});
