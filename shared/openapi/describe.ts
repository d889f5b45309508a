/* eslint-disable @typescript-eslint/no-explicit-any -- walks the generated OpenAPI document, whose schema objects are untyped JSON */
import { parameterDescriptions, propertyDescriptionsByName } from './descriptions';

type Schema = Record<string, any>;

const httpMethods = ['get', 'put', 'post', 'delete', 'patch'];

/**
 * Visits every property of a schema with its path (`Schema.outer.inner`): objects' properties,
 * array items and the alternatives of oneOf/anyOf/allOf (which add nothing to the path). `$ref`s
 * are not followed (the component is visited on its own).
 */
export const forEachProperty = (schema: Schema | undefined, path: string, visit: (property: Schema, path: string, name: string) => void): void => {
  if (!schema || typeof schema !== 'object' || schema.$ref) return;
  for (const [name, property] of Object.entries<Schema>(schema.properties ?? {})) {
    visit(property, `${path}.${name}`, name);
    forEachProperty(property, `${path}.${name}`, visit);
  }
  if (schema.items) forEachProperty(schema.items, path, visit);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') forEachProperty(schema.additionalProperties, path, visit);
  for (const key of ['oneOf', 'anyOf', 'allOf']) for (const alternative of schema[key] ?? []) forEachProperty(alternative, path, visit);
};

/** Every schema of the document with the name its paths start with: components by name, inline bodies by operationId. */
export const forEachSchema = (document: Schema, visit: (schema: Schema, name: string) => void): void => {
  for (const [name, schema] of Object.entries<Schema>(document.components?.schemas ?? {})) visit(schema, name);
  for (const item of Object.values<Schema>(document.paths ?? {})) {
    for (const method of httpMethods) {
      const operation = item[method];
      if (!operation) continue;
      for (const media of Object.values<Schema>(operation.requestBody?.content ?? {})) visit(media.schema, operation.operationId);
      for (const response of Object.values<Schema>(operation.responses ?? {})) {
        for (const media of Object.values<Schema>(response.content ?? {})) visit(media.schema, operation.operationId);
      }
    }
  }
};

/** A property is described when it has a description itself (a `$ref` by its component's). */
export const isDescribed = (property: Schema, document: Schema): boolean => {
  if (typeof property.description === 'string' && property.description.trim() !== '') return true;
  const ref: string | undefined = property.$ref ?? (property.allOf?.length === 1 ? property.allOf[0].$ref : undefined);
  if (ref) {
    const component = document.components?.schemas?.[ref.replace('#/components/schemas/', '')];
    return typeof component?.description === 'string' && component.description.trim() !== '';
  }
  return false;
};

/**
 * Fills in the shared terms of shared/openapi/descriptions.ts where the schemas give no description
 * (in place), and names the page components. `used` collects the entries that filled a gap
 * (`name:property`, `parameter:name`): an entry that fills none is dead or repeats the schema's own
 * text (test/integration/docs.test.ts refuses both, so each description has one home).
 */
export const describeDocument = <T>(document: T, used?: Set<string>): T => {
  const doc = document as Schema;
  for (const [name, schema] of Object.entries<Schema>(doc.components?.schemas ?? {})) {
    if (!schema.description && /Page$/.test(name) && schema.properties?.data) {
      schema.description = `One page of ${name.replace(/Page$/, '')} items and where the next page starts`;
    }
  }
  forEachSchema(doc, (schema, name) =>
    forEachProperty(schema, name, (property, path, propertyName) => {
      if (isDescribed(property, doc)) return;
      const text = propertyDescriptionsByName[propertyName];
      if (!text) return;
      used?.add(`name:${propertyName}`);
      if (property.$ref) {
        // OpenAPI 3.0 ignores siblings of $ref: describe through allOf.
        const ref = property.$ref;
        delete property.$ref;
        Object.assign(property, { allOf: [{ $ref: ref }], description: text });
      } else {
        property.description = text;
      }
    }),
  );
  for (const item of Object.values<Schema>(doc.paths ?? {})) {
    for (const method of httpMethods) {
      for (const parameter of item[method]?.parameters ?? []) {
        if (!parameter.description && !parameter.schema?.description && parameterDescriptions[parameter.name]) {
          parameter.description = parameterDescriptions[parameter.name];
          used?.add(`parameter:${parameter.name}`);
        }
      }
    }
  }
  return document;
};

/** What the document leaves without a description: operations, parameters, component schemas and properties (by path). */
export const undescribed = (document: Schema): string[] => {
  const missing: string[] = [];
  for (const [name, schema] of Object.entries<Schema>(document.components?.schemas ?? {})) {
    if (!schema.description?.trim()) missing.push(`schema ${name}`);
  }
  forEachSchema(document, (schema, name) =>
    forEachProperty(schema, name, (property, path) => {
      if (!isDescribed(property, document)) missing.push(`property ${path}`);
    }),
  );
  for (const [path, item] of Object.entries<Schema>(document.paths ?? {})) {
    for (const method of httpMethods) {
      const operation = item[method];
      if (!operation) continue;
      if (!operation.description?.trim()) missing.push(`operation ${method.toUpperCase()} ${path}`);
      for (const parameter of operation.parameters ?? []) {
        if (!parameter.description?.trim() && !parameter.schema?.description?.trim()) missing.push(`parameter ${parameter.name} of ${method.toUpperCase()} ${path}`);
      }
    }
  }
  return [...new Set(missing)];
};
