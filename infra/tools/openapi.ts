import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildOpenApiDocument, defaultServerUrl, defaultTokenUrl, type DocumentUrls } from '../../shared/openapi/document';
import { documentYaml } from '../../shared/openapi/yaml';

/**
 * `npm run openapi [-- FILE] [--server URL] [--token-url URL]`: writes the OpenAPI document the
 * API serves (default .local/openapi.json; a FILE ending in .yaml or .yml is written as YAML).
 * The document names absolute URLs: --server and --token-url, else those of the running local
 * stack (.local/stack.json), else the local stack's defaults (http://127.0.0.1:3000, :3001).
 */
export const defaultOpenApiFile = '.local/openapi.json';

const httpMethods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

export interface OpenApiSummary {
  file: string;
  paths: number;
  operations: number;
  schemas: number;
  serverUrl: string;
  tokenUrl: string;
}

/** The URLs of the running local stack, if .local/stack.json names them. */
export const localStackUrls = (stackFile = '.local/stack.json'): DocumentUrls => {
  if (!existsSync(stackFile)) return {};
  try {
    const info = JSON.parse(readFileSync(stackFile, 'utf8')) as { baseUrl?: string; authUrl?: string };
    return { ...(info.baseUrl && { serverUrl: info.baseUrl }), ...(info.authUrl && { tokenUrl: info.authUrl }) };
  } catch {
    return {};
  }
};

export const writeOpenApiDocument = (file: string = defaultOpenApiFile, urls: DocumentUrls = {}): OpenApiSummary => {
  const chosen = { ...localStackUrls(), ...urls };
  const serverUrl = chosen.serverUrl ?? defaultServerUrl;
  const tokenUrl = chosen.tokenUrl ?? defaultTokenUrl;
  for (const [name, url] of Object.entries({ '--server': serverUrl, '--token-url': tokenUrl })) {
    if (!/^https?:\/\/[^/]/.test(url)) throw new Error(`${name} must be an absolute http(s) URL, got ${url}`);
  }
  const document = buildOpenApiDocument({ serverUrl, tokenUrl }) as unknown as {
    paths?: Record<string, Record<string, unknown>>;
    components?: { schemas?: Record<string, unknown> };
  };
  const path = resolve(file);
  mkdirSync(dirname(path), { recursive: true });
  const yaml = /\.ya?ml$/i.test(path);
  writeFileSync(path, yaml ? documentYaml(document) : `${JSON.stringify(document, null, 2)}\n`);
  const paths = Object.values(document.paths ?? {});
  return {
    file: path,
    paths: paths.length,
    operations: paths.reduce((count, item) => count + Object.keys(item).filter((key) => httpMethods.has(key)).length, 0),
    schemas: Object.keys(document.components?.schemas ?? {}).length,
    serverUrl,
    tokenUrl,
  };
};

export const openApiUsage =
  'Usage: npm run openapi [-- FILE] [--server URL] [--token-url URL]   (default FILE: .local/openapi.json; .yaml/.yml writes YAML; URLs default to the running local stack, else http://127.0.0.1:3000 and http://127.0.0.1:3001/oauth2/token)';

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let parsed: ReturnType<typeof parseArgs<{ options: { server: { type: 'string' }; 'token-url': { type: 'string' }; help: { type: 'boolean'; short: 'h' } }; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: process.argv.slice(2), options: { server: { type: 'string' }, 'token-url': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true });
  } catch (error) {
    console.error(`${(error as Error).message}\n${openApiUsage}`);
    process.exit(2);
  }
  if (parsed.values.help) {
    console.log(openApiUsage);
  } else if (parsed.positionals.length > 1) {
    console.error(openApiUsage);
    process.exitCode = 2;
  } else {
    try {
      const summary = writeOpenApiDocument(parsed.positionals[0], {
        ...(parsed.values.server && { serverUrl: parsed.values.server }),
        ...(parsed.values['token-url'] && { tokenUrl: parsed.values['token-url'] }),
      });
      const shown = relative(process.cwd(), summary.file);
      console.log(`Wrote ${shown && !shown.startsWith('..') && !isAbsolute(shown) ? shown : summary.file}`);
      console.log(`  ${summary.paths} paths, ${summary.operations} operations, ${summary.schemas} schemas`);
      console.log(`  server ${summary.serverUrl}, token URL ${summary.tokenUrl}`);
    } catch (error) {
      console.error(`error: ${(error as Error).message}`);
      process.exitCode = 1;
    }
  }
}
