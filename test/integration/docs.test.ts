/* eslint-disable @typescript-eslint/no-explicit-any -- reads the generated OpenAPI document, untyped JSON */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { writeOpenApiDocument } from '../../infra/tools/openapi';
import { buildOpenApiDocument } from '../../shared/openapi/document';
import { undescribed } from '../../shared/openapi/describe';
import { parameterDescriptions, propertyDescriptionsByName } from '../../shared/openapi/descriptions';
import { problemCatalogue } from '../../shared/openapi/problem-catalogue';
import { problems } from '../../shared/platform/problem';
import { routes } from '../../shared/routes';
import { api, expectProblem } from '../support/api';
import { testStack } from '../support/stack';

/**
 * The reference an integrator reads: descriptions on every operation, parameter and property
 * (checked over whatever routes exist), examples that match their schemas, the YAML twin of the
 * document, absolute URLs, and problem `type` URIs that resolve to a page.
 */
const httpMethods = ['get', 'put', 'post', 'delete', 'patch'];
const operationsOf = (document: any) =>
  Object.entries<any>(document.paths).flatMap(([path, item]) => httpMethods.filter((m) => item[m]).map((method) => ({ path, method, operation: item[method] })));

describe('descriptions', () => {
  it('every operation, parameter, component schema and property of the document has a description', () => {
    const document = buildOpenApiDocument();
    expect(operationsOf(document)).toHaveLength(routes.length);
    expect(undescribed(document)).toEqual([]);
  });

  it('each description has one home: every shared term of descriptions.ts fills a gap the schemas leave (none dead, none repeating a schema)', () => {
    const used = new Set<string>();
    buildOpenApiDocument({}, used);
    const entries = [
      ...Object.keys(propertyDescriptionsByName).map((name) => `name:${name}`),
      ...Object.keys(parameterDescriptions).map((name) => `parameter:${name}`),
    ];
    expect(entries.length).toBeGreaterThan(50);
    expect(entries.filter((entry) => !used.has(entry))).toEqual([]);
  });

  it('the check names what is missing (a property, a parameter, an operation)', () => {
    const document = structuredClone(buildOpenApiDocument()) as any;
    delete document.components.schemas.ImportRecord.properties.rowsFailed.description;
    const trialBalance = document.paths['/v1/companies/{companyId}/trial-balance'].get;
    delete trialBalance.description;
    for (const parameter of trialBalance.parameters) {
      delete parameter.description;
      delete parameter.schema.description;
    }
    expect(undescribed(document)).toEqual([
      'property ImportRecord.rowsFailed',
      'operation GET /v1/companies/{companyId}/trial-balance',
      'parameter companyId of GET /v1/companies/{companyId}/trial-balance',
      'parameter year of GET /v1/companies/{companyId}/trial-balance',
    ]);
  });

  it('public text has no internal remarks', () => {
    const text = JSON.stringify(buildOpenApiDocument());
    expect(text).not.toMatch(/leaves it open|the spec(ification)? (is silent|leaves)|TODO|FIXME/i);
  });
});

describe('examples', () => {
  const document = buildOpenApiDocument() as any;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addFormat('decimal', true);
  ajv.addSchema(document, 'openapi.json');
  const pointer = (...parts: string[]) => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

  it('every operation has a curl request example, every request body and success response an example that matches its schema', () => {
    const failures: string[] = [];
    for (const { path, method, operation } of operationsOf(document)) {
      if (!operation['x-codeSamples']?.[0]?.source?.startsWith('curl ')) failures.push(`${method} ${path}: no curl sample`);
      const bodies = Object.entries<any>(operation.requestBody?.content ?? {}).map(([media, content]) => ({ where: 'requestBody', media, content, at: ['requestBody'] }));
      const successes = Object.entries<any>(operation.responses)
        .filter(([status]) => status.startsWith('2'))
        .flatMap(([status, response]) => Object.entries<any>(response.content ?? {}).map(([media, content]) => ({ where: status, media, content, at: ['responses', status] })));
      for (const { where, media, content, at } of [...bodies, ...successes]) {
        if (content.example === undefined) {
          failures.push(`${method} ${path} ${where}: no example`);
          continue;
        }
        const validate = ajv.getSchema(`openapi.json#/${pointer('paths', path, method, ...at, 'content', media, 'schema')}`)!;
        if (!validate(content.example)) failures.push(`${method} ${path} ${where}: example does not match: ${ajv.errorsText(validate.errors)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('the document as YAML and on disk', () => {
  it('GET /v1/openapi.yaml is the JSON document in YAML, public', async () => {
    const [json, yaml] = await Promise.all([api('GET', '/v1/openapi.json'), api('GET', '/v1/openapi.yaml')]);
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(parseYaml(yaml.text)).toEqual(json.body);
  });

  it('names absolute server and token URLs, served and written by npm run openapi', async () => {
    const served = (await api('GET', '/v1/openapi.json')).body;
    expect(served.servers[0].url).toBe(testStack().baseUrl);
    expect(served.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth2\/token$/);
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    try {
      const summary = writeOpenApiDocument(join(dir, 'openapi.yaml'), { serverUrl: 'https://api.example.com', tokenUrl: 'https://auth.example.com/oauth2/token' });
      const written = parseYaml(readFileSync(summary.file, 'utf8'));
      expect(written.servers).toEqual([{ url: 'https://api.example.com', description: 'This API', 'x-internal': false }]);
      expect(written.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe('https://auth.example.com/oauth2/token');
      // People sign in at the authorization endpoint next to it (Cognito managed login, the local provider).
      expect(written.components.securitySchemes.oauth2.flows.authorizationCode).toMatchObject({
        authorizationUrl: 'https://auth.example.com/oauth2/authorize',
        tokenUrl: 'https://auth.example.com/oauth2/token',
      });
      expect(Object.keys(written.components.securitySchemes.oauth2.flows.authorizationCode.scopes)).toContain('context:read');
      expect(Object.keys(written.components.securitySchemes.oauth2.flows.authorizationCode.scopes)).not.toContain('users:read');
      expect(() => writeOpenApiDocument(join(dir, 'x.json'), { tokenUrl: '/oauth2/token' })).toThrow(/absolute/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('problem types resolve', () => {
  it('the type of a real problem is a page of this API explaining the code', async () => {
    const problem = await api('GET', '/v1/companies?page_size=0', { as: 'a-system' });
    expectProblem(problem, 400, 'validation_failed');
    expect(problem.body.type).toBe(`${testStack().baseUrl}/problems/validation_failed`);
    const page = await fetch(problem.body.type);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('<code>validation_failed</code>');
    expect(html).toContain('What to do');
  });

  it('every code of the catalogue has its page; an unknown code answers 404 not_found', async () => {
    for (const code of Object.keys(problemCatalogue)) {
      const page = await api('GET', `/problems/${code}`);
      expect(page.status, code).toBe(200);
    }
    expectProblem(await api('GET', '/problems/no_such_code'), 404, 'not_found');
  });

  it('names of Object.prototype are unknown codes too: 404 not_found, not a 500', async () => {
    // __proto__, constructor and prototype pass the code's pattern and reach the catalogue lookup.
    for (const code of ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf']) {
      expectProblem(await api('GET', `/problems/${code}`), 404, 'not_found');
    }
  });

  it('the catalogue covers every code the platform raises', () => {
    const raised = [
      problems.validation('x'),
      problems.malformedJson('x'),
      problems.invalidEncoding('x'),
      problems.unsupportedMediaType('x'),
      problems.invalidCursor('x'),
      problems.unauthorized('x'),
      problems.insufficientScope('x'),
      problems.notFound(),
      problems.routeNotFound('/x'),
      problems.methodNotAllowed('GET', '/x', ['POST']),
      problems.conflict('x'),
      problems.idempotencyInFlight(),
      problems.idempotencyKeyReused(),
      problems.rateLimited(1),
      problems.payloadTooLarge('x'),
      problems.internal(),
    ].map((error) => error.problem.error);
    // Every code the services answer with a problem of their own (error: '<code>' in shared/).
    const domain = ['system_client_required', ...new Set(readdirSync('shared', { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) => [...readFileSync(join('shared', file), 'utf8').matchAll(/\berror: '([a-z_]+)'/g)].map((match) => match[1]!)))];
    expect(domain).toEqual(expect.arrayContaining(['upload_missing', 'members_changed']));
    expect([...raised, ...domain].filter((code) => !problemCatalogue[code])).toEqual([]);
    for (const [code, entry] of Object.entries(problemCatalogue)) expect(entry.condition.length, code).toBeGreaterThan(20);
  });
});
