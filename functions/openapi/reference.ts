import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The rendered API reference (GET /docs): Redoc's standalone bundle, vendored from node_modules
 * (copied beside the Lambda bundle at synth, infra/stacks/bundled-assets.ts; read from
 * node_modules locally), renders the document of GET /v1/openapi.json. Nothing is loaded from
 * the internet: no CDN, no web fonts.
 */
const scriptName = 'redoc.standalone.js';

const remoteLogo = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const inlineLogo = 'data:image/svg+xml,%3Csvg xmlns=%27http://www.w3.org/2000/svg%27 width=%2716%27 height=%2716%27/%3E';

let script: string | undefined;

export const redocScript = (): string => {
  if (script !== undefined) return script;
  const here = dirname(fileURLToPath(import.meta.url));
  const beside = join(here, scriptName);
  // The package name is built at run time so that esbuild leaves the lookup alone.
  const packageName = ['re', 'doc'].join('');
  const file = existsSync(beside) ? beside : createRequire(import.meta.url).resolve(`${packageName}/bundles/${scriptName}`);
  // The one remote resource of the bundle, the footer's logo, becomes an inline image: the page makes no request beyond the API.
  script = readFileSync(file, 'utf8').replaceAll(remoteLogo, inlineLogo);
  return script;
};

/** The page; relative URLs, so it works behind any base URL (stage $default at the root). */
export const referencePage = (): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Accounting Ledger Integration Service - API reference</title>
<link rel="icon" href="data:,">
<style>body{margin:0;padding:0}</style>
</head>
<body>
<div id="redoc-container"></div>
<script src="docs/${scriptName}"></script>
<script>
Redoc.init('v1/openapi.json', {
  expandResponses: '200,201,202',
  jsonSampleExpandLevel: 3,
  pathInMiddlePanel: true,
  hideDownloadButton: false,
  disableSearch: false,
  theme: { typography: { fontFamily: 'system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif', headings: { fontFamily: 'system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif' }, code: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' } } }
}, document.getElementById('redoc-container'));
</script>
</body>
</html>
`;
