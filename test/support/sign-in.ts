import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import {
  Browser,
  exchangeCode as exchange,
  loopbackRedirect,
  signInWithPassword,
  startAuthorization as start,
  type Landing,
  type Tokens,
} from '../../infra/tools/interactive-sign-in';
import { hashSecret } from '../../shared/identity/client-secrets';
import { unitOfWork } from '../../shared/db/unit-of-work';
import { personWrites } from '../../shared/identity/person-repository';
import { testStack } from './stack';

export { Browser, loopbackRedirect, submit, type Tokens } from '../../infra/tools/interactive-sign-in';

/** Interactive sign-in against the test stack: scope names without the resource-server prefix, the API as default resource. */
export interface TestAuthorizationRequest {
  clientId?: string;
  redirectUri?: string;
  scopes: string[];
  resource?: string;
  codeChallengeMethod?: string;
}

const oidcScopes = new Set(['openid', 'offline_access', 'email', 'profile']);
export const prefixed = (scopes: string[]) => scopes.map((scope) => (oidcScopes.has(scope) ? scope : `${testStack().internal.scopePrefix}${scope}`));

const server = () => testStack().interactive;

const asSent = (request: TestAuthorizationRequest) => ({
  ...request,
  redirectUri: request.redirectUri ?? loopbackRedirect(testStack().interactive.redirectUris[0]),
  scopes: prefixed(request.scopes),
  resource: request.resource ?? testStack().baseUrl,
});

export const startAuthorization = (browser: Browser, request: TestAuthorizationRequest) => start(browser, server(), asSent(request));

/** The code the callback carries (with the request's state); fails on an error redirect. */
export const codeOf = (landing: Landing, state: string): string => {
  if (landing.kind !== 'callback') throw new Error(`expected the callback, got the page ${landing.html}`);
  expect(landing.url.searchParams.get('error')).toBeNull();
  expect(landing.url.searchParams.get('state')).toBe(state);
  return landing.url.searchParams.get('code')!;
};

export const tokenRequest = (form: Record<string, string>) =>
  fetch(server().tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });

export const exchangeCode = (code: string, verifier: string, redirectUri: string, clientId = server().clientId) =>
  exchange(server().tokenUrl, { code, verifier, redirectUri, clientId });

export const signIn = (person: { email: string; password: string }, request: TestAuthorizationRequest, browser = new Browser()): Promise<Tokens> =>
  signInWithPassword(server(), person, asSent(request), browser);

/** A person with a login password, member of the given organization. */
export const createPerson = async (organizationId: string, name = 'Test Person', password = randomBytes(12).toString('base64url')) => {
  const userId = randomUUID();
  const email = `${userId}@people.example.test`;
  const writes = personWrites.create({ userId, email, name, status: 'active', createdAt: new Date().toISOString(), passwordHash: await hashSecret(password) }, organizationId);
  await unitOfWork().add('person', writes.person).add('email', writes.email).add('membership', writes.membership).commit();
  return { userId, email, password };
};
