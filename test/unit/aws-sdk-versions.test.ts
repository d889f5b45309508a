import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The AWS SDK v3 packages are released together: every @aws-sdk client and library the project
 * names is pinned at one version, so that one @aws-sdk/core and one @smithy tree are installed and
 * bundled. @aws-sdk/util-dynamodb has had a version line of its own (3.996.x) since 2025; it is the
 * one exception, and the lockfile must still hold a single copy of it.
 */
const root = resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
const lockfile = JSON.parse(readFileSync(resolve(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
const ownVersionLine = new Set(['@aws-sdk/util-dynamodb']);

const named = ['dependencies', 'devDependencies', 'optionalDependencies'].flatMap((field) =>
  Object.entries(manifest[field] ?? {}).filter(([name]) => name.startsWith('@aws-sdk/')),
);

describe('AWS SDK versions', () => {
  it('pins every @aws-sdk package of package.json at one exact version', () => {
    expect(named.length).toBeGreaterThan(1);
    const aligned = named.filter(([name]) => !ownVersionLine.has(name));
    const versions = new Set(aligned.map(([, version]) => version));
    expect(Object.fromEntries(aligned), 'every @aws-sdk package at the same version').toEqual(Object.fromEntries(aligned.map(([name]) => [name, [...versions][0]])));
    for (const [name, version] of named) expect(version, `${name} pinned exactly`).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('installs one version of each @aws-sdk and @smithy package (one tree in the bundles)', () => {
    const versions = new Map<string, Set<string>>();
    for (const [path, entry] of Object.entries(lockfile.packages)) {
      const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
      if (!path.includes('node_modules/') || !/^@(aws-sdk|smithy)\//.test(name) || !entry.version) continue;
      versions.set(name, (versions.get(name) ?? new Set()).add(entry.version));
    }
    expect(versions.size).toBeGreaterThan(named.length);
    const duplicated = [...versions].filter(([, found]) => found.size > 1).map(([name, found]) => `${name}: ${[...found].join(', ')}`);
    expect(duplicated).toEqual([]);
    for (const [name, version] of named) expect([...(versions.get(name) ?? [])], `${name} installed as pinned`).toEqual([version]);
  });

  it('pins every @aws-lambda-powertools package at one version (one commons package)', () => {
    const powertools = ['dependencies', 'devDependencies'].flatMap((field) => Object.entries(manifest[field] ?? {}).filter(([name]) => name.startsWith('@aws-lambda-powertools/')));
    expect(powertools.length).toBeGreaterThan(1);
    expect(new Set(powertools.map(([, version]) => version)).size).toBe(1);
    const commons = Object.entries(lockfile.packages).filter(([path]) => path.endsWith('node_modules/@aws-lambda-powertools/commons'));
    expect(commons.map(([, entry]) => entry.version)).toEqual([powertools[0]![1]]);
  });
});
