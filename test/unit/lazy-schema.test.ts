import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { OpenAPIRegistry, OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { lazySchema } from '../../shared/platform/lazy-schema';
import * as z from '../../shared/platform/zod';
import { lambdaEntries } from '../../infra/stacks/bundled-assets';
import { typescriptNodeArgs } from '../../infra/tools/typescript-node';

const repoRoot = resolve(import.meta.dirname, '../..');

/** A schema declared lazily, and how many times it was built. */
const counted = <T extends z.ZodType>(build: () => T) => {
  const counter = { builds: 0 };
  const schema = lazySchema(() => {
    counter.builds++;
    return build();
  });
  return { schema, counter };
};

describe('lazySchema: a schema built on first use', () => {
  it('builds nothing when declared, then builds once, on first use, whatever is used after', () => {
    const { schema, counter } = counted(() => z.object({ name: z.string().max(5) }));
    expect(counter.builds).toBe(0);
    expect(schema.parse({ name: 'abc' })).toEqual({ name: 'abc' });
    expect(counter.builds).toBe(1);
    expect(schema.safeParse({ name: 'abcdef' }).success).toBe(false);
    expect(Object.keys(schema.shape)).toEqual(['name']);
    expect(schema.optional().parse(undefined)).toBeUndefined();
    expect(counter.builds).toBe(1);
  });

  it('validates as the schema it stands for: the same answers and the same issues', () => {
    const build = () => z.strictObject({ year: z.number().int().min(1900).max(2999), note: z.string().max(3).optional() });
    const eager = build();
    const { schema } = counted(build);
    for (const input of [{ year: 2024 }, { year: 1800 }, { year: 2024, note: 'long' }, { year: 2024, extra: 1 }, 'text', null]) {
      const [lazyAnswer, eagerAnswer] = [schema.safeParse(input), eager.safeParse(input)];
      expect(lazyAnswer.success).toBe(eagerAnswer.success);
      expect(lazyAnswer.error?.issues).toEqual(eagerAnswer.error?.issues);
      expect(lazyAnswer.data).toEqual(eagerAnswer.data);
    }
  });

  it('builds a schema used inside another lazy schema only when that one is used', () => {
    const child = counted(() => z.object({ id: z.string() }));
    const parent = counted(() => z.object({ child: child.schema, items: z.array(child.schema) }));
    expect([parent.counter.builds, child.counter.builds]).toEqual([0, 0]);
    expect(parent.schema.safeParse({ child: { id: 'a' }, items: [{ id: 1 }] }).success).toBe(false);
    expect([parent.counter.builds, child.counter.builds]).toEqual([1, 1]);
  });

  it('keeps its OpenAPI metadata: a named lazy schema is a component wherever it is used, as the schema itself would be', () => {
    const document = (child: z.ZodType) => {
      const registry = new OpenAPIRegistry();
      registry.register('LazyParent', z.object({ child, maybe: child.optional(), list: z.array(child) }).openapi('LazyParent'));
      return new OpenApiGeneratorV3(registry.definitions).generateDocument({ openapi: '3.0.3', info: { title: 't', version: '1' } });
    };
    const build = () => z.object({ id: z.string().max(10).openapi({ description: 'The id' }) }).openapi('LazyChild', { description: 'A child' });
    const lazy = document(lazySchema(build));
    expect(lazy).toEqual(document(build()));
    expect(lazy.components?.schemas?.LazyChild).toBeDefined();
  });

  it('no Lambda builds a schema when it loads (each builds those of the operation it serves, on its first event)', async () => {
    const script = [
      "import { lazySchemaStats } from './shared/platform/lazy-schema.ts';",
      ...lambdaEntries.map(({ entry }) => `await import('./${entry}');`),
      'console.log(JSON.stringify(lazySchemaStats));',
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, [...typescriptNodeArgs, '--input-type=module', '-e', script], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, NODE_NO_WARNINGS: '1' },
    });
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({ built: 0 });
  });

  it('every schema built at module level is declared lazily: no call of zod or of a schema at load outside lazySchema', () => {
    // What builds a schema: a call whose callee starts at z, at a name ending in Schema, or at a
    // schema-building helper of shared/platform/schemas.ts or shared/imports/fields.ts.
    const helpers = new Set(['text', 'textOut', 'identifier', 'withTextRule', 'pageOf', 'yearQueryParam', 'importDecimal', 'optionalImportDecimal', 'integerSchema']);
    const rootOf = (node: ts.Expression): ts.Expression => {
      if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) return rootOf(node.expression);
      if (ts.isCallExpression(node)) return rootOf(node.expression);
      if (ts.isParenthesizedExpression(node) || ts.isNonNullExpression(node)) return rootOf(node.expression);
      return node;
    };
    const builds = (call: ts.CallExpression) => {
      const root = rootOf(call.expression);
      return ts.isIdentifier(root) && root.text !== 'lazySchema' && (root.text === 'z' || /Schema$/.test(root.text) || helpers.has(root.text));
    };
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []));
    const eager: string[] = [];
    for (const file of [...files(join(repoRoot, 'shared')), ...files(join(repoRoot, 'functions'))]) {
      // The module that configures zod (z.config) and lazySchema itself build none.
      if (file.endsWith('platform/zod.ts') || file.endsWith('platform/lazy-schema.ts')) continue;
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        // Code in functions runs when called; lazySchema's argument when the schema is first used.
        if (ts.isFunctionLike(node) || ts.isClassLike(node) || ts.isTypeNode(node)) return;
        if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'lazySchema') return;
        if (ts.isCallExpression(node) && builds(node)) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          eager.push(`${relative(repoRoot, file)}:${line + 1}`);
          return;
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(eager).toEqual([]);
  });
});
