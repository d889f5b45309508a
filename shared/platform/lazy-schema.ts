import { zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as z from './zod';

/** How many lazily declared schemas have been built so far (test/unit/lazy-schema.test.ts reads it). */
export const lazySchemaStats = { built: 0 };

/**
 * A schema built on first use: `export const XSchema = lazySchema(() => z.object({ ... }))`, marked pure (below).
 * Declaring every module-level schema this way lets a function build, on its first event, only the
 * schemas of the operation it serves instead of every schema of its bundle at load (the cold start;
 * docs/performance.md). The answer stands in for the schema everywhere (same type, same
 * behaviour): the first read of any of its properties builds the schema, once, and every read goes
 * to it. Where the stand-in itself is a key (the OpenAPI metadata of zod-to-openapi and zod's
 * registry, held per schema object) it gets the schema's entries when built, so the OpenAPI
 * document reads it as the schema.
 *
 * Declaring a schema has no effect until it is used: each declaration is marked so with a
 * `@__PURE__` comment before the call (esbuild reads it only there, not from this function), and
 * esbuild leaves out the schemas a function never uses.
 */
export const lazySchema = <T extends z.ZodType>(build: () => T): T => {
  let schema: T | undefined;
  const built = (): T => {
    if (schema) return schema;
    schema = build();
    lazySchemaStats.built++;
    for (const registry of [zodToOpenAPIRegistry, z.globalRegistry] as { _map: WeakMap<object, unknown> }[]) {
      const metadata = registry._map.get(schema);
      if (metadata !== undefined) registry._map.set(standIn, metadata);
    }
    return schema;
  };
  const standIn: T = new Proxy({} as T, {
    get: (_target, key) => Reflect.get(built(), key),
    set: (_target, key, value) => Reflect.set(built(), key, value),
    has: (_target, key) => Reflect.has(built(), key),
    ownKeys: () => Reflect.ownKeys(built()),
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(built(), key);
      // The stand-in's own target has none of them: a proxy may only report them as configurable.
      return descriptor && { ...descriptor, configurable: true };
    },
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(built(), key, descriptor),
    deleteProperty: (_target, key) => Reflect.deleteProperty(built(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(built()),
  });
  return standIn;
};
