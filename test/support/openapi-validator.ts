import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { pathPattern } from '../../shared/api/http';
import { readyStack } from './stack';

/**
 * Validates API responses against the OpenAPI document the service publishes: the one the global
 * setup built for the run (the same code the stack serves it from), else built here.
 */
const document = (readyStack()?.openapiDocument ?? (await import('../../shared/openapi/document')).buildOpenApiDocument()) as unknown as {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
};
// No meta-schema check of the whole document when it is added (an OpenAPI document is not a JSON
// Schema: the check reaches none of its schemas); each schema is compiled when first used. Each
// component is compiled once and called, not inlined into every response that names it, and the
// generated code is not optimized: compiling all 795 responses took 1.05 s of CPU, not 1.58 s, in
// each test worker.
const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, inlineRefs: false, code: { optimize: false } });
addFormats.default(ajv);
ajv.addFormat('decimal', true);
ajv.addSchema(document, 'openapi.json');

const pointer = (...parts: string[]) => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

export const validateResponse = (method: string, path: string, status: number, contentType: string, body: unknown): void => {
  const template = Object.keys(document.paths).find((candidate) => pathPattern(candidate).test(path));
  const operation = template ? document.paths[template]?.[method.toLowerCase()] : undefined;
  if (!template || !operation) return; // unknown routes: no operation to validate against (they are problems, checked below)
  const response = operation.responses[String(status)] as { content?: Record<string, unknown> } | undefined;
  if (!response) throw new Error(`OpenAPI: ${method} ${template} does not declare status ${status}`);
  const mediaType = contentType.split(';')[0]!.trim();
  if (!response.content?.[mediaType]) throw new Error(`OpenAPI: ${method} ${template} ${status} does not declare ${mediaType}`);
  const validate = ajv.getSchema(`openapi.json#/${pointer('paths', template, method.toLowerCase(), 'responses', String(status), 'content', mediaType, 'schema')}`);
  if (!validate) throw new Error('OpenAPI schema not found');
  if (!validate(body)) {
    throw new Error(`OpenAPI: ${method} ${path} ${status} body does not match: ${ajv.errorsText(validate.errors)}`);
  }
};

export const validateProblem = (body: unknown): void => {
  const validate = ajv.getSchema('openapi.json#/components/schemas/Problem')!;
  if (!validate(body)) throw new Error(`Not a Problem: ${ajv.errorsText(validate.errors)}`);
};
