import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInvoke, sampleEvent, writeSampleEvent } from '../../infra/tools/invoke';
import { contracts } from '../../shared/openapi/document';
import { routes } from '../../shared/routes';

/**
 * A new route's sample event is derived from the route table (`npm run invoke -- --write-sample
 * <operationId>`), not written by hand: the derived event has the shape of the hand-tuned samples
 * under events/ (which test/unit/events.test.ts checks, one per route).
 */
const eventsDir = resolve(import.meta.dirname, '../../events');

describe('derived sample events', () => {
  it.each(routes.map((route) => [route.operationId, route] as const))('%s: the derived event has the shape of its sample', (_, route) => {
    const sample = JSON.parse(readFileSync(join(eventsDir, route.group, `${route.operationId}.json`), 'utf8'));
    const derived = sampleEvent(route, contracts[route.operationId]);
    expect(derived.routeKey).toBe(sample.routeKey);
    expect(derived.requestContext.routeKey).toBe(sample.requestContext.routeKey);
    expect(derived.requestContext.http.method).toBe(sample.requestContext.http.method);
    // Headers of a protocol of its own (MCP's mcp-protocol-version) and If-Match are the sample's to add.
    const own = ['if-match', 'mcp-protocol-version'];
    expect(Object.keys(derived.headers).sort()).toEqual(Object.keys(sample.headers).filter((name) => !own.includes(name)).sort());
    expect(Object.keys(derived.pathParameters ?? {}).sort()).toEqual(Object.keys(sample.pathParameters ?? {}).sort());
    expect(Object.keys(derived.requestContext).sort()).toEqual(Object.keys(sample.requestContext).sort());
    if (derived.body !== undefined) expect(() => JSON.parse(derived.body!)).not.toThrow();
  });

  it('writes a derived sample once, and never over an existing one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'events-'));
    try {
      const file = await writeSampleEvent('createCompany', dir);
      const written = JSON.parse(readFileSync(file, 'utf8'));
      expect(file).toBe(join(dir, 'companies', 'createCompany.json'));
      expect(written.headers['idempotency-key']).toBe('{{uuid}}');
      expect(JSON.parse(written.body)).toMatchObject({ accountingSystem: 'Api' });
      await expect(writeSampleEvent('createCompany', dir)).rejects.toThrow(/exists/);
      await expect(writeSampleEvent('noSuchOperation', dir)).rejects.toThrow(/no route/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('npm run invoke -- --write-sample refuses an existing sample and an unknown id (exit 1), a stray argument (exit 2)', async () => {
    const errors: string[] = [];
    const io = { out: () => undefined, err: (line: string) => errors.push(line) };
    expect(await runInvoke(['--write-sample', 'getCompany'], io)).toBe(1);
    expect(errors.join('\n')).toMatch(/getCompany\.json exists/);
    expect(await runInvoke(['--write-sample', 'noSuchOperation'], io)).toBe(1);
    expect(errors.join('\n')).toMatch(/no route has the operationId noSuchOperation/);
    expect(await runInvoke(['--write-sample', 'getCompany', 'extra'], io)).toBe(2);
  });
});
