import { afterEach, describe, expect, it } from 'vitest';
import { withRequestBaseUrl } from '../../shared/platform/config';
import { buildDocumentTemplate, buildOpenApiDocument } from '../../shared/openapi/document';
import { currentDocumentSettings, documentPlaceholders, fillDocument } from '../../shared/openapi/prebuilt';

/**
 * The Lambda bundles of openapi and mcp serve the document generated at build time, with
 * placeholders for the URLs known only when it is served; filled, it must be the document the
 * generator writes in that environment, whatever the settings.
 */
const saved = { TOKEN_URL: process.env.TOKEN_URL, PROBLEM_TYPE_BASE: process.env.PROBLEM_TYPE_BASE, API_BASE_URL: process.env.API_BASE_URL };
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const settings: { name: string; env: Record<string, string | undefined>; requestBaseUrl?: string }[] = [
  { name: 'the defaults (no settings)', env: { TOKEN_URL: undefined, PROBLEM_TYPE_BASE: undefined, API_BASE_URL: undefined } },
  {
    name: 'a deployed API (its own base URL, Cognito token URL)',
    env: { TOKEN_URL: 'https://ledger-auth.auth.eu-north-1.amazoncognito.com/oauth2/token', PROBLEM_TYPE_BASE: undefined, API_BASE_URL: undefined },
    requestBaseUrl: 'https://abc123.execute-api.eu-north-1.amazonaws.com',
  },
  {
    name: 'a custom problem type base and a token URL without /oauth2/token',
    env: { TOKEN_URL: 'https://login.example.com/token?x="y"', PROBLEM_TYPE_BASE: 'https://errors.example.com/p/', API_BASE_URL: 'https://api.example.com/' },
  },
];

describe('the OpenAPI document generated at build time', () => {
  const template = buildDocumentTemplate();

  it('holds the placeholders of the server and token URLs, not the URLs of the environment it was built in', () => {
    expect(template.includes(documentPlaceholders.serverUrl)).toBe(true);
    expect(template.includes(documentPlaceholders.tokenUrl)).toBe(true);
    expect(template.includes('http://127.0.0.1:3001/oauth2/token')).toBe(false);
  });

  for (const { name, env, requestBaseUrl } of settings) {
    it(`filled, is the generated document: ${name}`, () => {
      for (const [key, value] of Object.entries(env)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      const inRequest = <T>(fn: () => T): T => (requestBaseUrl ? withRequestBaseUrl(requestBaseUrl, fn) : fn());
      const filled = inRequest(() => fillDocument(template, currentDocumentSettings()));
      expect(filled).toEqual(inRequest(() => buildOpenApiDocument()));
      expect(JSON.stringify(filled)).not.toContain('.invalid');
    });
  }
});
