import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The import graph of the service's code. A room is a folder of shared/ with its subfolders (a
 * file directly in shared/ is a room of its own; a feature's contracts.ts is a room above it), or
 * functions/ as one room.
 * Rooms must form floors: no circle between rooms, so every import runs down (or sideways to a
 * lower floor), never back up; and no circle between files.
 */
const root = resolve('.');

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });

const files = [...sourceFiles(join(root, 'shared')), ...sourceFiles(join(root, 'functions'))];
const known = new Set(files);

/** Relative imports of a file (static, dynamic and type-only: a type import is a dependency too). */
const importsOf = (file: string): string[] => {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => match[1]!);
  return specifiers
    .map((specifier) => resolve(dirname(file), specifier))
    .map((target) => [`${target}.ts`, join(target, 'index.ts'), target].find((candidate) => known.has(candidate)))
    .filter((target): target is string => target !== undefined);
};

const roomOf = (file: string): string => {
  const path = relative(root, file).split('/');
  if (path[0] === 'functions') return 'functions';
  // A feature's contracts (its HTTP shapes and texts) stand above the operation platform they use.
  if (path.at(-1) === 'contracts.ts') return `shared/${path[1]}/contracts`;
  // shared/<room>/... or shared/<file>.ts
  return `shared/${path[1]!.replace(/\.ts$/, '')}`;
};

const fileGraph = new Map(files.map((file) => [file, importsOf(file)]));
const roomGraph = new Map<string, Set<string>>();
for (const [file, targets] of fileGraph) {
  const from = roomOf(file);
  if (!roomGraph.has(from)) roomGraph.set(from, new Set());
  for (const target of targets) if (roomOf(target) !== from) roomGraph.get(from)!.add(roomOf(target));
}

/** Each cycle found by a depth-first walk, as the path that closes it. */
const cycles = (graph: Map<string, Iterable<string>>): string[][] => {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
};

/** Floor of a room: 0 when it imports no other room, else one above the highest room it imports. */
const floors = (): Map<string, number> => {
  const floor = new Map<string, number>();
  const of = (room: string): number => {
    if (floor.has(room)) return floor.get(room)!;
    floor.set(room, 0);
    const value = Math.max(-1, ...[...(roomGraph.get(room) ?? [])].map(of)) + 1;
    floor.set(room, value);
    return value;
  };
  for (const room of roomGraph.keys()) of(room);
  return floor;
};

describe('layers', () => {
  it('reads the code (a sanity check of the walk)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(roomGraph.get('functions')?.size).toBeGreaterThan(5);
  });

  it('no circle between rooms: every import between rooms runs down to a lower floor', () => {
    const found = cycles(roomGraph);
    expect(found.map((cycle) => cycle.join(' -> '))).toEqual([]);
    const floor = floors();
    for (const [room, targets] of roomGraph) for (const target of targets) expect(floor.get(target)!, `${room} -> ${target}`).toBeLessThan(floor.get(room)!);
  });

  it('no circle between files', () => {
    const found = cycles(fileGraph);
    expect(found.map((cycle) => cycle.map((file) => relative(root, file)).join(' -> '))).toEqual([]);
  });

  it('shared/ never imports the functions', () => {
    const upward = [...fileGraph].filter(([file]) => roomOf(file) !== 'functions').flatMap(([file, targets]) => targets.filter((target) => roomOf(target) === 'functions').map((target) => `${relative(root, file)} -> ${relative(root, target)}`));
    expect(upward).toEqual([]);
  });
});
