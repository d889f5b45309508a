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
/** The same document as YAML (shared/openapi/yaml.ts): the openapi function serves it, filled, without a YAML writer. */
export const prebuiltYamlFile = 'openapi.yaml';

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

/** Each text the built files hold in place of a setting (the authorization URL is derived from the token URL), with its setting. */
const placeholderValues = (settings: DocumentSettings): [string, string][] => [
  [documentPlaceholders.problemTypeBase, settings.problemTypeBase],
  [authorizationUrlOf(documentPlaceholders.tokenUrl), authorizationUrlOf(settings.tokenUrl)],
  [documentPlaceholders.tokenUrl, settings.tokenUrl],
  [documentPlaceholders.serverUrl, settings.serverUrl],
];

/** The texts fillPlaceholders replaces. */
export const placeholderTexts: readonly string[] = placeholderValues(documentPlaceholders).map(([placeholder]) => placeholder);

/**
 * A built file's text with its placeholders replaced, each value escaped as inside a JSON string:
 * in openapi.json every placeholder is inside a JSON string, in openapi.yaml inside a double-quoted
 * scalar, whose escapes include JSON's.
 */
export const fillPlaceholders = (text: string, settings: DocumentSettings): string => {
  const inJson = (value: string) => JSON.stringify(value).slice(1, -1);
  let filled = text;
  for (const [placeholder, value] of placeholderValues(settings)) filled = filled.replaceAll(inJson(placeholder), inJson(value));
  return filled;
};

/** The built JSON file's text, filled. */
export const fillDocument = (text: string, settings: DocumentSettings): Record<string, unknown> => JSON.parse(fillPlaceholders(text, settings)) as Record<string, unknown>;

const templates = new Map<string, string>();
const template = (file: string): string => {
  let text = templates.get(file);
  if (text === undefined) templates.set(file, (text = readFileSync(join(dirname(fileURLToPath(import.meta.url)), file), 'utf8')));
  return text;
};

/** The document from openapi.json beside the bundle, filled for this environment (and this request's base URL). */
export const readPrebuiltDocument = (): Record<string, unknown> => fillDocument(template(prebuiltDocumentFile), currentDocumentSettings());

/** The document as YAML from openapi.yaml beside the bundle, filled likewise. */
export const readPrebuiltYaml = (): string => fillPlaceholders(template(prebuiltYamlFile), currentDocumentSettings());
