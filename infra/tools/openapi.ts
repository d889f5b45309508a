import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildOpenApiDocument } from '../../shared/openapi/document';

/** `npm run openapi [-- FILE]`: writes the OpenAPI document the API serves (default .local/openapi.json). */
export const defaultOpenApiFile = '.local/openapi.json';

const httpMethods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

export interface OpenApiSummary {
  file: string;
  paths: number;
  operations: number;
  schemas: number;
}

export const writeOpenApiDocument = (file: string = defaultOpenApiFile): OpenApiSummary => {
  const document = buildOpenApiDocument() as unknown as {
    paths?: Record<string, Record<string, unknown>>;
    components?: { schemas?: Record<string, unknown> };
  };
  const path = resolve(file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(document, null, 2)}\n`);
  const paths = Object.values(document.paths ?? {});
  return {
    file: path,
    paths: paths.length,
    operations: paths.reduce((count, item) => count + Object.keys(item).filter((key) => httpMethods.has(key)).length, 0),
    schemas: Object.keys(document.components?.schemas ?? {}).length,
  };
};

export const openApiUsage = 'Usage: npm run openapi [-- FILE]   (default FILE: .local/openapi.json)';

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  if (args.length > 1 || args.some((arg) => arg.startsWith('-'))) {
    const help = args.length === 1 && (args[0] === '--help' || args[0] === '-h');
    if (help) console.log(openApiUsage);
    else console.error(openApiUsage);
    process.exitCode = help ? 0 : 2;
  } else {
    try {
      const summary = writeOpenApiDocument(args[0]);
      const shown = relative(process.cwd(), summary.file);
      console.log(`Wrote ${shown && !shown.startsWith('..') && !isAbsolute(shown) ? shown : summary.file}`);
      console.log(`  ${summary.paths} paths, ${summary.operations} operations, ${summary.schemas} schemas`);
    } catch (error) {
      console.error(`error: ${(error as Error).message}`);
      process.exitCode = 1;
    }
  }
}
