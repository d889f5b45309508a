import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { problemTypeBase, publicBaseUrl } from '../platform/config';
import { defaultServerUrl, defaultTokenUrl } from './docs-contracts';

/**
 * The OpenAPI document generated at build time. The Lambda bundles of the openapi and mcp functions
 * are built with OPENAPI_DOCUMENT_PREBUILT defined (infra/stacks/bundled-assets.ts): they read the
 * document from openapi.json beside the bundle instead of running the generator over every zod
 * schema, which is then not bundled at all. Elsewhere (the local stack, tests, tools) the document
 * is generated from the same zod schemas, the one source of truth.
 *
 * The document names URLs known only when it is served (the request's base URL, the token URL,
 * the problem type base): the file holds placeholders, replaced as the generator would fill them.
 */
declare global {
  /** Defined (true) only by the bundler of the Lambda functions. */
  const OPENAPI_DOCUMENT_PREBUILT: boolean | undefined;
}

export const prebuiltDocumentFile = 'openapi.json';

/** The placeholders of the built file: values no real setting has (the .invalid top-level domain). */
export const documentPlaceholders = {
  serverUrl: 'https://server-url.invalid',
  tokenUrl: 'https://token-url.invalid/oauth2/token',
  problemTypeBase: 'https://problem-type-base.invalid/problems/',
} as const;

export interface DocumentSettings {
  serverUrl: string;
  tokenUrl: string;
  problemTypeBase: string;
}

/** What the generator reads when it runs in this environment (shared/openapi/document.ts, shared/platform/config.ts). */
export const currentDocumentSettings = (): DocumentSettings => ({
  serverUrl: publicBaseUrl() ?? defaultServerUrl,
  tokenUrl: process.env.TOKEN_URL ?? defaultTokenUrl,
  problemTypeBase: problemTypeBase(),
});

/** The authorization endpoint the document names beside a token URL (as document.ts derives it). */
const authorizationUrlOf = (tokenUrl: string) => tokenUrl.replace(/\/oauth2\/token$/, '/oauth2/authorize');

/** The built file's text with its placeholders replaced (inside JSON strings: each value JSON-escaped). */
export const fillDocument = (text: string, settings: DocumentSettings): Record<string, unknown> => {
  const inJson = (value: string) => JSON.stringify(value).slice(1, -1);
  const pairs: [string, string][] = [
    [documentPlaceholders.problemTypeBase, settings.problemTypeBase],
    [authorizationUrlOf(documentPlaceholders.tokenUrl), authorizationUrlOf(settings.tokenUrl)],
    [documentPlaceholders.tokenUrl, settings.tokenUrl],
    [documentPlaceholders.serverUrl, settings.serverUrl],
  ];
  let filled = text;
  for (const [placeholder, value] of pairs) filled = filled.replaceAll(inJson(placeholder), inJson(value));
  return JSON.parse(filled) as Record<string, unknown>;
};

let template: string | undefined;

/** The document from openapi.json beside the bundle, filled for this environment (and this request's base URL). */
export const readPrebuiltDocument = (): Record<string, unknown> => {
  template ??= readFileSync(join(dirname(fileURLToPath(import.meta.url)), prebuiltDocumentFile), 'utf8');
  return fillDocument(template, currentDocumentSettings());
};
