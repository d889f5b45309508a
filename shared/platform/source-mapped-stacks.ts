import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Stack traces that name the TypeScript source, read from the bundle's source map only when a
 * stack is first formatted. Node.js's `--enable-source-maps` reads every map when the bundle loads
 * (6-17 ms of each cold start's CPU, docs/performance.md); here that cost falls on the first error
 * a Lambda environment formats, and on none where no stack is ever read. Every Lambda bundle
 * installs it first (source-mapped-stacks-install.ts, esbuild `inject` in
 * infra/stacks/bundled-assets.ts). Where Node.js maps stacks itself (`--enable-source-maps`), it
 * changes nothing.
 */

/** A bundle's map by the bundle's path; null where it has none (a frame of Node.js itself, a file without a map). */
const maps = new Map<string, SourceMap | null>();

const mapOf = (file: string): SourceMap | null => {
  let map = maps.get(file);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
    } catch {
      map = null;
    }
    maps.set(file, map);
  }
  return map;
};

const pathOf = (fileName: string): string => (fileName.startsWith('file://') ? fileURLToPath(fileName) : fileName);

/** One frame as V8 writes it, its bundle position replaced by the source's (when the map knows it). */
const mappedFrame = (callSite: NodeJS.CallSite): string => {
  const text = callSite.toString();
  const fileName = callSite.getFileName();
  const line = callSite.getLineNumber();
  const column = callSite.getColumnNumber();
  if (!fileName || line === null || column === null || callSite.isNative() || fileName.startsWith('node:')) return text;
  const path = pathOf(fileName);
  const map = mapOf(path);
  if (!map) return text;
  const entry = map.findEntry(line - 1, column - 1) as Partial<{ originalSource: string; originalLine: number; originalColumn: number }>;
  if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return text;
  const source = pathOf(new URL(entry.originalSource, pathToFileURL(path)).href);
  const position = `${fileName}:${line}:${column}`;
  const at = text.lastIndexOf(position);
  return at < 0 ? text : `${text.slice(0, at)}${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}${text.slice(at + position.length)}`;
};

/** A frame as V8 writes it where mapping fails: a stack trace must never hide the error it describes. */
const frameText = (callSite: NodeJS.CallSite): string => {
  try {
    return mappedFrame(callSite);
  } catch {
    return callSite.toString();
  }
};

/** The header V8 writes (`Name: message`), then one `    at` line a frame. */
const formatMappedStack = (error: unknown, callSites: NodeJS.CallSite[]): string => {
  let header: string;
  try {
    header = Error.prototype.toString.call(error);
  } catch {
    header = 'Error';
  }
  return [header, ...callSites.map((callSite) => `    at ${frameText(callSite)}`)].join('\n');
};

/** Formats stacks with formatMappedStack in place of Node.js's default (the same text), unless Node.js maps them itself. */
export const installSourceMappedStacks = (): void => {
  if (!process.sourceMapsEnabled) Error.prepareStackTrace = formatMappedStack;
};
