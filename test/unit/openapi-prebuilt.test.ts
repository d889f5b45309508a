import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { withRequestBaseUrl } from '../../shared/platform/config';
import { buildDocumentTemplate, buildOpenApiDocument } from '../../shared/openapi/document';
import { currentDocumentSettings, documentPlaceholders, fillDocument, fillPlaceholders, placeholderTexts } from '../../shared/openapi/prebuilt';
import { documentYaml } from '../../shared/openapi/yaml';

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
  {
    name: 'every setting with characters that JSON and YAML escape (quote, backslash, hash, colon and space)',
    env: { TOKEN_URL: 'https://login.example.com/a\\b/oauth2/token', PROBLEM_TYPE_BASE: 'https://errors.example.com/"p" #x: y/', API_BASE_URL: 'https://api.example.com/\\"v"' },
  },
];

describe('the OpenAPI document generated at build time', () => {
  const template = buildDocumentTemplate();
  const yamlTemplate = documentYaml(JSON.parse(template));

  it('holds the placeholders of the server and token URLs, not the URLs of the environment it was built in', () => {
    expect(template.includes(documentPlaceholders.serverUrl)).toBe(true);
    expect(template.includes(documentPlaceholders.tokenUrl)).toBe(true);
    expect(template.includes('http://127.0.0.1:3001/oauth2/token')).toBe(false);
  });

  for (const { name, env, requestBaseUrl } of settings) {
    /** Runs fn with these settings: the environment set, inside a request with its base URL if it has one. */
    const inRequest = <T>(fn: () => T): T => {
      for (const [key, value] of Object.entries(env)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      return requestBaseUrl ? withRequestBaseUrl(requestBaseUrl, fn) : fn();
    };

    it(`filled, is the generated document: ${name}`, () => {
      const filled = inRequest(() => fillDocument(template, currentDocumentSettings()));
      expect(filled).toEqual(inRequest(() => buildOpenApiDocument()));
      expect(JSON.stringify(filled)).not.toContain('.invalid');
    });

    it(`as YAML, filled, is the generated document: ${name}`, () => {
      const filled = inRequest(() => fillPlaceholders(yamlTemplate, currentDocumentSettings()));
      expect(filled).not.toContain('.invalid');
      expect(parse(filled)).toEqual(inRequest(() => buildOpenApiDocument()));
    });
  }

  it('as YAML, writes every string that holds a placeholder double-quoted (filled with JSON escapes), and the others as the served YAML does', () => {
    const placeholderLines = yamlTemplate.split('\n').filter((line) => placeholderTexts.some((placeholder) => line.includes(placeholder)));
    expect(placeholderLines.length).toBeGreaterThan(3);
    expect(yamlTemplate).toContain(`url: "${documentPlaceholders.serverUrl}"`);
    expect(yamlTemplate).toContain(`tokenUrl: "${documentPlaceholders.tokenUrl}"`);
    // A document without placeholders is written as it always was: no string needs the double quotes.
    const withoutPlaceholders = { openapi: '3.0.3', info: { title: 'A: title', description: 'line one\nline two', version: '1' } };
    expect(documentYaml(withoutPlaceholders)).toBe('openapi: 3.0.3\ninfo:\n  title: "A: title"\n  description: |-\n    line one\n    line two\n  version: "1"\n');
  });
});
