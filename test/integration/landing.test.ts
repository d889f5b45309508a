import { describe, expect, it } from 'vitest';
import { problemCatalogue } from '../../shared/openapi/problem-catalogue';
import { testStack } from '../support/stack';

/** The pages a person finds by opening the API's address in a browser: the landing page, the problem index, /docs/. */
const get = (path: string) => fetch(`${testStack().baseUrl}${path}`, { redirect: 'manual' });
const linksOf = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((match) => match[1]!);

describe('landing page and problem index', () => {
  it('GET / answers an HTML page whose links all answer 200, and names the token endpoint', async () => {
    const response = await get('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('<h1>Accounting Ledger Integration Service</h1>');
    expect(html).toContain(`<code>${testStack().authUrl}</code>`);
    const links = linksOf(html);
    expect(links).toEqual(['docs', 'v1/openapi.json', 'v1/openapi.yaml', 'problems']);
    for (const link of links) expect((await fetch(new URL(link, `${testStack().baseUrl}/`))).status, link).toBe(200);
  });

  it('GET /problems lists every problem code with its status, each linking to its page', async () => {
    const response = await get('/problems');
    expect(response.status).toBe(200);
    const html = await response.text();
    const codes = Object.keys(problemCatalogue);
    expect(codes.length).toBeGreaterThan(10);
    for (const code of codes) expect(html).toContain(`<a href="problems/${code}"><code>${code}</code></a></td><td>${problemCatalogue[code]!.status}</td>`);
    const pageLinks = linksOf(html).filter((link) => link.startsWith('problems/'));
    expect(pageLinks).toHaveLength(codes.length);
    for (const link of pageLinks.slice(0, 3)) expect((await fetch(new URL(link, `${testStack().baseUrl}/problems`))).status, link).toBe(200);
    expect(linksOf(html)).toContain('docs');
  });

  it('a GET of a route with a trailing slash answers 308 to the route, keeping the query', async () => {
    const docs = await get('/docs/');
    expect(docs.status).toBe(308);
    expect(docs.headers.get('location')).toBe(`${testStack().baseUrl}/docs`);
    const withQuery = await get('/problems/?lang=en');
    expect(withQuery.status).toBe(308);
    expect(withQuery.headers.get('location')).toBe(`${testStack().baseUrl}/problems?lang=en`);
    expect((await fetch(`${testStack().baseUrl}/docs/`)).status).toBe(200);
  });

  it('only a GET of a route redirects: other methods and unknown paths keep their problem answers', async () => {
    const post = await fetch(`${testStack().baseUrl}/docs/`, { method: 'POST', redirect: 'manual' });
    expect(post.status).toBe(404);
    expect(post.headers.get('content-type')).toContain('application/problem+json');
    const unknown = await get('/nowhere/');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: string }).error).toBe('route_not_found');
  });
});
