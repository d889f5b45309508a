import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isValidOrganizationNumber } from '../../shared/companies/organization-number';
import { CreateCompanySchema } from '../../shared/companies/schemas';
import { pathPattern } from '../../shared/api/http';
import { functionGroups, routeKey, routes } from '../../shared/routes';

/** The sample events under events/ (used by `npm run invoke`): one per route, API Gateway HTTP API payload 2.0. */
const eventsDir = resolve(import.meta.dirname, '../../events');

const listFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : [relative(eventsDir, join(dir, entry.name))],
  );

const files = listFiles(eventsDir).sort();

interface HttpEvent {
  version: string;
  routeKey: string;
  rawPath: string;
  rawQueryString: string;
  headers: Record<string, string>;
  queryStringParameters?: Record<string, string>;
  pathParameters?: Record<string, string>;
  requestContext: {
    requestId: string;
    routeKey: string;
    stage: string;
    time: string;
    timeEpoch: number;
    http: { method: string; path: string; protocol: string; sourceIp: string; userAgent: string };
    authorizer?: unknown;
  };
  body?: string;
  isBase64Encoded: boolean;
}

const parse = (file: string): unknown => JSON.parse(readFileSync(join(eventsDir, file), 'utf8'));
const httpEventFiles = files.filter((file) => !file.startsWith('authorizer/'));
const httpEvents = httpEventFiles.map((file) => ({ file, event: parse(file) as HttpEvent }));

describe('events/', () => {
  it('holds only JSON files, each valid JSON with an object at the top', () => {
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(file, 'only .json files').toMatch(/\.json$/);
      const event = parse(file);
      expect(typeof event === 'object' && event !== null && !Array.isArray(event), `${file} is a JSON object`).toBe(true);
    }
  });

  it('is laid out as events/<function>/<name>.json with a known function', () => {
    const functions = [...Object.keys(functionGroups), 'authorizer'];
    for (const file of files) {
      const [dir, name, ...rest] = file.split('/');
      expect(rest, file).toEqual([]);
      expect(functions, file).toContain(dir);
      expect(name, file).toMatch(/^[\w-]+\.json$/);
    }
  });

  describe.each(routes.map((route) => [routeKey(route), route] as const))('%s', (key, route) => {
    const matching = httpEvents.filter(({ event }) => event.routeKey === key);

    it('has exactly one event, at events/<group>/<operationId>.json', () => {
      expect(matching.map(({ file }) => file)).toEqual([`${route.group}/${route.operationId}.json`]);
    });

    it('is a payload 2.0 event of the route: method, route key and a path matching the template', () => {
      const { event } = matching[0]!;
      expect(event.version).toBe('2.0');
      expect(event.requestContext.routeKey).toBe(key);
      expect(event.requestContext.http.method).toBe(route.method);
      expect(event.rawPath).toMatch(pathPattern(route.path));
      expect(event.requestContext.http.path).toBe(event.rawPath);
      expect(event.requestContext.stage).toBe('$default');
      expect(event.requestContext.requestId).toBeTruthy();
      expect(typeof event.requestContext.timeEpoch).toBe('number');
      expect(typeof event.requestContext.time).toBe('string');
      expect(event.isBase64Encoded).toBe(false);
      expect(typeof event.rawQueryString).toBe('string');
      const parameters = Object.keys(pathPattern(route.path).exec(event.rawPath)?.groups ?? {});
      expect(Object.keys(event.pathParameters ?? {}).sort()).toEqual(parameters.sort());
      for (const name of parameters) expect(event.rawPath).toContain(event.pathParameters![name]!);
      expect(Object.fromEntries(new URLSearchParams(event.rawQueryString))).toEqual(event.queryStringParameters ?? {});
    });

    it('has lower-case headers; a bearer token placeholder where the route needs a token', () => {
      const { event } = matching[0]!;
      for (const name of Object.keys(event.headers)) expect(name).toBe(name.toLowerCase());
      if (route.auth === 'token') expect(event.headers.authorization).toMatch(/^Bearer \{\{\s*token:[\w-]+\s*\}\}$/);
      else expect(event.headers.authorization).toBeUndefined();
      expect(event.requestContext.authorizer, 'the invoke tool runs the authorizer').toBeUndefined();
    });

    it(route.mutation ? 'carries a fresh idempotency key and a JSON content type' : 'carries no idempotency key', () => {
      const { event } = matching[0]!;
      if (route.mutation) {
        expect(event.headers['idempotency-key']).toBe('{{uuid}}');
        expect(event.headers['content-type']).toBe('application/json');
      } else {
        expect(event.headers['idempotency-key']).toBeUndefined();
      }
      if (event.body !== undefined) expect(() => JSON.parse(event.body!)).not.toThrow();
    });
  });

  it('has no HTTP event for a route that does not exist, except the fallback samples', () => {
    const known = new Set(routes.map(routeKey));
    for (const { file, event } of httpEvents) {
      if (file.startsWith('fallback/')) continue;
      expect(known, file).toContain(event.routeKey);
    }
  });

  it('has fallback/unknown-route.json: the $default route on a path no route serves', () => {
    const event = parse('fallback/unknown-route.json') as HttpEvent;
    expect(event.version).toBe('2.0');
    expect(event.routeKey).toBe('$default');
    expect(event.requestContext.routeKey).toBe('$default');
    expect(routes.some((route) => pathPattern(route.path).test(event.rawPath))).toBe(false);
  });

  it('has authorizer/request.json: a REQUEST authorizer event (payload 2.0) with a bearer token', () => {
    const event = parse('authorizer/request.json') as HttpEvent & { type: string; routeArn: string; identitySource: unknown[] };
    expect(event.version).toBe('2.0');
    expect(event.type).toBe('REQUEST');
    expect(event.routeArn).toMatch(/^arn:aws:execute-api:/);
    expect(Array.isArray(event.identitySource)).toBe(true);
    expect(routes.map(routeKey)).toContain(event.routeKey);
    expect(event.headers.authorization).toMatch(/^Bearer \{\{\s*token:[\w-]+\s*\}\}$/);
  });

  it('creates a company with a valid Norwegian organization number', () => {
    const event = parse('companies/createCompany.json') as HttpEvent;
    const body = JSON.parse(event.body!) as { organizationNumber: string };
    expect(CreateCompanySchema.safeParse(body).success).toBe(true);
    expect(isValidOrganizationNumber(body.organizationNumber)).toBe(true);
  });
});
