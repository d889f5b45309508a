import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { Browser, codeOf, createPerson, loopbackRedirect, startAuthorization, submit } from '../support/sign-in';
import { testStack } from '../support/stack';
import { eventually } from '../support/webhook-receiver';

/** The login and consent pages of the local identity provider, as a browser and an attacker see them. */
let person: Awaited<ReturnType<typeof createPerson>>;

beforeAll(async () => {
  person = await createPerson(testStack().organizations[0]!.id, 'Page Person');
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  html: string;
}

/**
 * A form post to the identity provider from a loopback address of the test's choosing (127.0.0.0/8
 * all reaches the provider on 127.0.0.1), with the browser's cookies, as a browser there would.
 */
const post = (browser: Browser, action: string, form: Record<string, string>, options: { from?: string; origin?: string | null } = {}) =>
  new Promise<Answer>((resolve, reject) => {
    const url = new URL(action);
    const body = new URLSearchParams(form).toString();
    const origin = options.origin === undefined ? url.origin : options.origin;
    const cookie = browser.cookieHeader(url);
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        ...(options.from && { localAddress: options.from }),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie && { cookie }), ...(origin !== null && { origin }) },
      },
      (response) => {
        let html = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (html += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, html }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });

const loginPage = async (browser = new Browser(), request: { clientId?: string; redirectUri?: string } = {}) => {
  const started = await startAuthorization(browser, { scopes: ['companies:read'], ...request });
  expect(started.landing.kind === 'page' && started.landing.html).toContain('name="password"');
  return { browser, started, action: (started.landing as { action: string }).action };
};

describe('the login and consent pages', () => {
  it('may not be framed: CSP frame-ancestors none and X-Frame-Options DENY on both', async () => {
    const browser = new Browser();
    // Each page as the browser has it, fetched again with its cookies.
    const headersOf = async (landing: Awaited<ReturnType<typeof startAuthorization>>['landing']) => {
      const response = await fetch(landing.url, { headers: { cookie: browser.cookieHeader(landing.url) ?? '' } });
      const html = await response.text();
      return { status: response.status, html, csp: response.headers.get('content-security-policy'), frameOptions: response.headers.get('x-frame-options') };
    };
    const started = await startAuthorization(browser, { scopes: ['companies:read'] });
    const login = await headersOf(started.landing);
    expect(login.html).toContain('name="password"');
    const consent = await submit(browser, started.landing, { email: person.email, password: person.password }, started.redirectUri);
    const consentPage = await headersOf(consent);
    expect(consentPage.html).toContain('name="decision"');
    for (const answer of [login, consentPage]) {
      expect(answer.status).toBe(200);
      expect(answer.csp).toMatch(/frame-ancestors 'none'/);
      expect(answer.frameOptions).toBe('DENY');
    }
  });

  it('refuse a form posted from another site (Origin) with 403, login and consent alike; the own origin passes', async () => {
    const { browser, started, action } = await loginPage();
    const login = { email: person.email, password: person.password };
    for (const origin of ['https://evil.example', 'null']) {
      const refused = await post(browser, action, login, { origin });
      expect(refused.status, origin).toBe(403);
      expect(refused.headers['x-frame-options']).toBe('DENY');
    }
    const consent = await submit(browser, started.landing, login, started.redirectUri);
    expect(consent.kind === 'page' && consent.html).toContain('name="decision"');
    const consentAction = (consent as { action: string }).action;
    expect((await post(browser, consentAction, { decision: 'allow' }, { origin: 'https://evil.example' })).status).toBe(403);
    // Refused without effect: the person's own post from the page still decides.
    codeOf(await submit(browser, consent, { decision: 'allow' }, started.redirectUri), started.state);
  });

  it('show a self-registered client as not verified, with the host its answer goes to; the configured client without', async () => {
    const redirectUri = loopbackRedirect();
    const registration = await fetch(testStack().interactive.registrationUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Accounting Ledger', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'] }),
    });
    expect(registration.status).toBe(201);
    const { client_id: clientId } = (await registration.json()) as { client_id: string };

    const { browser, started } = await loginPage(new Browser(), { clientId, redirectUri });
    const host = new URL(redirectUri).host;
    expect(started.landing.kind === 'page' && started.landing.html).toContain('not verified');
    const consent = await submit(browser, started.landing, { email: person.email, password: person.password }, started.redirectUri);
    expect(consent.kind === 'page' && consent.html).toMatch(/not verified/);
    expect(consent.kind === 'page' && consent.html).toContain(`<strong>${host}</strong>`);

    const own = await loginPage();
    const ownConsent = await submit(own.browser, own.started.landing, { email: person.email, password: person.password }, own.started.redirectUri);
    expect(ownConsent.kind === 'page' && ownConsent.html).toContain('name="decision"');
    expect(ownConsent.kind === 'page' && ownConsent.html).not.toContain('not verified');
  });
});

describe('failed sign-ins', () => {
  const wrong = 'not-the-password';
  /** A sign-in that passed: the login step is finished and the provider redirects on (303). */
  const passed = (answer: Answer) => answer.status === 303;

  it('per account: after the allowed failures (from different addresses) even the right password answers 429 with Retry-After, until the window has passed', async () => {
    const { maxFailures, windowSeconds } = testStack().interactive.signInThrottle;
    const victim = await createPerson(testStack().organizations[0]!.id, 'Throttled Account');
    const { browser, action } = await loginPage();
    for (let attempt = 0; attempt < maxFailures; attempt += 1) {
      expect((await post(browser, action, { email: victim.email, password: wrong }, { from: `127.0.0.${11 + attempt}` })).status).toBe(401);
    }
    const locked = await post(browser, action, { email: victim.email, password: victim.password }, { from: '127.0.0.30' });
    expect(locked.status).toBe(429);
    const retryAfter = Number(locked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
    expect(locked.html).toContain('Too many failed sign-ins');
    expect(locked.headers['x-frame-options']).toBe('DENY');

    // Another account from the same address is not held back.
    const other = await loginPage();
    expect(passed(await post(other.browser, other.action, { email: person.email, password: person.password }, { from: '127.0.0.30' }))).toBe(true);

    // Once the window has passed, the right password signs in (refused attempts meanwhile do not count).
    const through = await eventually(async () => {
      const answer = await post(browser, action, { email: victim.email, password: victim.password }, { from: '127.0.0.30' });
      expect([429, 303]).toContain(answer.status);
      return passed(answer) && answer;
    }, windowSeconds * 1000 * 5, 'the account to be let through again');
    expect(through.status).toBe(303);
  });

  it('counts wrong passwords sent at once, each: past the allowed failures none is checked, and then even the right password answers 429', async () => {
    const { maxFailures } = testStack().interactive.signInThrottle;
    const victim = await createPerson(testStack().organizations[0]!.id, 'Raced Account');
    const { browser, action } = await loginPage();
    const attempts = 20;
    expect(attempts).toBeGreaterThan(maxFailures);
    // From as many addresses: only the account's count can hold them back.
    const answers = await Promise.all(
      Array.from({ length: attempts }, (_, i) => post(browser, action, { email: victim.email, password: wrong }, { from: `127.0.2.${10 + i}` })),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(maxFailures);
    expect(statuses.filter((status) => status === 429)).toHaveLength(attempts - maxFailures);
    expect((await post(browser, action, { email: victim.email, password: victim.password }, { from: '127.0.2.60' })).status).toBe(429);
  });

  it('per address: failures for any accounts from one address hold back every sign-in from it, not from another address', async () => {
    const { maxFailures } = testStack().interactive.signInThrottle;
    const { browser, action } = await loginPage();
    for (let attempt = 0; attempt < maxFailures; attempt += 1) {
      const email = `nobody-${randomUUID()}@people.example.test`;
      expect((await post(browser, action, { email, password: wrong }, { from: '127.0.0.21' })).status).toBe(401);
    }
    const locked = await post(browser, action, { email: person.email, password: person.password }, { from: '127.0.0.21' });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(passed(await post(browser, action, { email: person.email, password: person.password }, { from: '127.0.0.22' }))).toBe(true);
  });
});
