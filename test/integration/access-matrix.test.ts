import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes, type RouteDefinition } from '../../shared/routes';
import { api } from '../support/api';
import { newFirm, newPerson } from '../support/people';
import { signIn } from '../support/sign-in';
import { interactiveScopes } from '../../shared/identity/scopes';
import { testStack } from '../support/stack';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { controlTableName, dynamo } from '../../shared/platform/aws';
import { rateLimitKeys } from '../../shared/platform/keys';

/**
 * Reach for every principal kind on every company-scoped route: {principal} x {route} x {company
 * allowed, denied by a deny rule, never granted, of another organization}. A principal is one
 * factory below: adding INTERACTIVE is one more entry (its token from the interactive sign-in).
 */
type Column = 'allowed' | 'denied by a deny rule' | 'never granted' | 'other organization';
const columns: Column[] = ['allowed', 'denied by a deny rule', 'never granted', 'other organization'];

interface MatrixPrincipal {
  name: string;
  token: string;
  /** Whether the principal reaches the company of the column. */
  reaches: (column: Column) => boolean;
  /** System clients may call system-only routes (imports); others get 403 system_client_required. */
  systemClient: boolean;
}

const companyRoutes = routes.filter((route) => route.auth === 'token' && route.path.includes('{companyId}'));

const concrete = (route: RouteDefinition, companyId: string) =>
  route.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'companyId' ? companyId : name === 'accountNumber' ? '1920' : name === 'key' ? 'K1' : randomUUID()));

let principals: MatrixPrincipal[] = [];
let companyOf: Record<Column, string>;
let systemToken: string;

beforeAll(async () => {
  testStack();
  const firm = await newFirm('Matrix');
  const other = await newFirm('Matrix other');
  companyOf = {
    allowed: await firm.company(firm.root, 'Tillatt AS'),
    'denied by a deny rule': await firm.company(firm.child, 'Nektet AS'),
    'never granted': await firm.company(firm.root, 'Aldri AS'),
    'other organization': await other.company(other.root, 'Andre AS'),
  };
  systemToken = firm.systemToken;
  const person = await newPerson(firm.root.id);
  // Everything a policy can grant (imports are for system clients only: no policy grants them).
  const actions = ['companies:*', 'ledger:*', 'vat:*', 'bank:*', 'reconciliation:*', 'documents:*'];
  const policy = await api('POST', '/v1/access/policies', {
    token: firm.systemToken,
    body: {
      name: 'Matrix',
      rules: [
        { effect: 'allow', actions, resources: { companies: [companyOf.allowed], organizations: [firm.child.id] } },
        { effect: 'deny', actions, resources: { companies: [companyOf['denied by a deny rule']] } },
      ],
    },
  });
  expect(policy.status).toBe(201);
  expect((await api('POST', '/v1/access/assignments', { token: firm.systemToken, body: { policyId: policy.body.id, userId: person.person.userId } })).status).toBe(201);
  principals = [
    { name: 'SYSTEM', token: firm.systemToken, reaches: (column) => column !== 'other organization', systemClient: true },
    { name: 'USER', token: person.token, reaches: (column) => column === 'allowed', systemClient: false },
  ];
  // The same person signed in interactively (authorization code + PKCE through the login page).
  const interactive = await signIn({ email: person.person.email, password: person.password }, { scopes: [...interactiveScopes] });
  principals.push({ name: 'INTERACTIVE', token: interactive.access_token, reaches: (column) => column === 'allowed', systemClient: false });
});

/** The rate-limit key of a token's caller (shared/identity/principal.ts callerKey): the client, and the person for a sign-in. */
const callerKeyOf = (token: string): string => {
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { client_id: string; username?: string };
  return claims.username ? `${claims.client_id}/${claims.username}` : claims.client_id;
};

/** 4 calls per route for every principal exceed a standard plan's burst over the whole matrix: each route starts with a full bucket. */
const refillRateLimits = () =>
  Promise.all(principals.map((principal) => dynamo().send(new DeleteCommand({ TableName: controlTableName(), Key: rateLimitKeys(callerKeyOf(principal.token)) }))));

/** Mutations go without an Idempotency-Key: within reach they answer 400 and change nothing. */
const call = (route: RouteDefinition, companyId: string, token: string) => api(route.method, concrete(route, companyId), { token, idempotencyKey: null });

describe('reach matrix: principal x company-scoped route x company', () => {
  it('covers every company-scoped route', () => {
    expect(companyRoutes.length).toBeGreaterThanOrEqual(35);
  });

  it.each(companyRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))('%s', async (_, route) => {
    // What the route answers where reach is not the question: the system client on the allowed company.
    const oracle = await call(route, companyOf.allowed, systemToken);
    expect(oracle.status === 404 && /company/.test(oracle.body.detail), 'the system client reaches the allowed company').toBe(false);
    if (route.method === 'GET' && !/\{(?!companyId)\w+\}/.test(route.path)) expect(oracle.status, JSON.stringify(oracle.body)).toBe(200);

    const outcomes: string[] = [];
    const expected: string[] = [];
    await refillRateLimits();
    for (const principal of principals) {
      for (const column of columns) {
        const response = await call(route, companyOf[column], principal.token);
        outcomes.push(`${principal.name} / ${column}: ${response.status} ${response.status >= 400 ? response.body.error : ''}`);
        if (route.systemOnly && !principal.systemClient) expected.push(`${principal.name} / ${column}: 403 system_client_required`);
        else if (!principal.reaches(column)) expected.push(`${principal.name} / ${column}: 404 not_found`);
        else expected.push(`${principal.name} / ${column}: ${oracle.status} ${oracle.status >= 400 ? oracle.body.error : ''}`);
      }
    }
    expect(outcomes).toEqual(expected);
  });

  it('lists show exactly the companies each principal reaches', async () => {
    for (const principal of principals) {
      const listed = (await api('GET', '/v1/companies?page_size=200', { token: principal.token })).body.data.map((c: { id: string }) => c.id).sort();
      expect(listed, principal.name).toEqual(columns.filter((column) => principal.reaches(column)).map((column) => companyOf[column]).sort());
    }
  });
});
