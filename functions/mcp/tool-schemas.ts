import { readPrebuiltDocument } from '../../shared/openapi/prebuilt';
import { routes, type OperationId } from '../../shared/routes';

/** A JSON Schema (2020-12, the MCP default dialect) as plain data. */
export type JsonSchema = Record<string, unknown>;

interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface OpenApiOperation {
  parameters?: OpenApiParameter[];
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** Keywords of OpenAPI 3.0 schemas that are not JSON Schema, or say nothing a validator needs. */
const dropped = new Set(['example', 'examples', 'nullable', 'xml', 'externalDocs', 'discriminator', 'readOnly', 'writeOnly']);
/** Formats JSON Schema validators know; OpenAPI's own (`decimal`, `int32`) go, the description says what they meant. */
const knownFormats = new Set(['date', 'date-time', 'time', 'email', 'uri', 'uuid']);

/**
 * An OpenAPI 3.0.3 schema as JSON Schema: references inlined, `nullable` as a null type,
 * OpenAPI-only keywords dropped. The REST contract stays the one source of the shapes.
 */
export const toJsonSchema = (schema: unknown, components: Record<string, JsonSchema>): JsonSchema => {
  const node = schema as JsonSchema;
  if (typeof node.$ref === 'string') {
    const name = node.$ref.replace('#/components/schemas/', '');
    const target = components[name];
    if (!target) throw new Error(`Unresolved schema reference ${node.$ref}`);
    return toJsonSchema(target, components);
  }
  const result: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (dropped.has(key) || key.startsWith('x-')) continue;
    if (key === 'format' && !knownFormats.has(value as string)) continue;
    if (key === 'properties') {
      result.properties = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, property]) => [name, toJsonSchema(property, components)]));
    } else if (key === 'items' || key === 'additionalProperties' || key === 'not') {
      result[key] = typeof value === 'object' ? toJsonSchema(value, components) : value;
    } else if (key === 'oneOf' || key === 'anyOf' || key === 'allOf') {
      result[key] = (value as unknown[]).map((item) => toJsonSchema(item, components));
    } else {
      result[key] = value;
    }
  }
  if (node.nullable === true) {
    if (typeof result.type === 'string') {
      result.type = [result.type, 'null'];
      if (Array.isArray(result.enum)) result.enum = [...result.enum, null];
    } else {
      return { anyOf: [result, { type: 'null' }] };
    }
  }
  return result;
};

/**
 * The most items a tool's page holds (`page_size`, and its default): a page of 200 GL lines is
 * about 90 KB of JSON, some 25-30k tokens, more than an assistant's host takes from one tool
 * (Claude Code cuts tool output at 25k tokens); 50 is also REST's default.
 */
export const mcpMaxPageSize = 50;

export interface TwinSchemas {
  /** The path and query parameters of the REST twin as one object (its names as REST has them); `page_size` at most mcpMaxPageSize. */
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema: JsonSchema & { type: 'object' };
  pathParameters: string[];
  /** The query parameters (the filters and paging of a list). */
  queryParameters: string[];
  /** The page size REST takes when none is sent (undefined: the operation has no page_size default). */
  restDefaultPageSize: number | undefined;
}

let document: OpenApiDocument | undefined;

/**
 * Loads the OpenAPI document the tool schemas are read from (before twinSchemas): in the Lambda
 * bundle the one generated at build time (shared/openapi/prebuilt.ts), elsewhere generated from
 * the zod schemas on first use.
 */
export const loadToolSchemas = async (): Promise<void> => {
  document ??= (
    typeof OPENAPI_DOCUMENT_PREBUILT !== 'undefined' && OPENAPI_DOCUMENT_PREBUILT
      ? readPrebuiltDocument()
      : (await import('../../shared/openapi/document')).buildOpenApiDocument()
  ) as unknown as OpenApiDocument;
};

/**
 * The input and output schemas of a tool that runs a REST operation, read from the OpenAPI
 * document the API publishes (built from the same zod schemas the runner validates with).
 */
export const twinSchemas = (operationId: OperationId): TwinSchemas => {
  if (!document) throw new Error('twinSchemas before loadToolSchemas');
  const route = routes.find((candidate) => candidate.operationId === operationId);
  const operation = route && document.paths[route.path]?.[route.method.toLowerCase()];
  if (!route || !operation) throw new Error(`No REST operation ${operationId}`);
  const components = document.components?.schemas ?? {};
  const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path' || parameter.in === 'query');
  const output = operation.responses['200']?.content?.['application/json']?.schema;
  if (!output) throw new Error(`${operationId} answers no JSON body`);
  const outputSchema = toJsonSchema(output, components);
  if (outputSchema.type !== 'object') throw new Error(`${operationId} does not answer an object`);
  const properties: Record<string, JsonSchema> = Object.fromEntries(
    parameters.map((parameter) => [parameter.name, { ...toJsonSchema(parameter.schema ?? {}, components), ...(parameter.description && { description: parameter.description }) }]),
  );
  const pageSize = properties.page_size;
  const restDefaultPageSize = typeof pageSize?.default === 'number' ? pageSize.default : undefined;
  // A tool's page: at most mcpMaxPageSize items (callTwin holds the runner to it), by default too.
  if (pageSize) {
    properties.page_size = {
      ...pageSize,
      maximum: typeof pageSize.maximum === 'number' ? Math.min(pageSize.maximum, mcpMaxPageSize) : mcpMaxPageSize,
      ...(restDefaultPageSize !== undefined && { default: Math.min(restDefaultPageSize, mcpMaxPageSize) }),
    };
  }
  return {
    inputSchema: {
      type: 'object',
      properties,
      required: parameters.filter((parameter) => parameter.required || parameter.in === 'path').map((parameter) => parameter.name),
      additionalProperties: false,
    },
    outputSchema: outputSchema as TwinSchemas['outputSchema'],
    pathParameters: parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name),
    queryParameters: parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
    restDefaultPageSize,
  };
};
