import type { OperationContract } from '../api/operation';
import { limits } from '../platform/schemas';
import { z } from '../platform/zod';
import type { OperationIdOfGroup } from '../routes';

/** A whole document the API serves (HTML, YAML, a script). */
const wholeDocument = () => z.string().max(limits.responseBody);

/** Contracts of the public documentation routes (group openapi) beside the JSON document. */
export const docsContracts = {
  getOpenApiYaml: {
    responses: { 200: { description: 'This document in YAML', schema: wholeDocument().openapi({ description: 'OpenAPI 3.0.3 document (YAML 1.2)', example: "openapi: 3.0.3\ninfo:\n  title: Accounting Ledger Integration Service\n" }), mediaType: 'application/yaml' } },
  },
  getApiReference: {
    responses: { 200: { description: 'The reference page', schema: wholeDocument().openapi({ description: 'An HTML document', example: '<!doctype html>...' }), mediaType: 'text/html' } },
  },
  getApiReferenceScript: {
    responses: { 200: { description: 'The script', schema: wholeDocument().openapi({ description: 'JavaScript', example: '/*! Redoc */' }), mediaType: 'text/javascript' } },
  },
  getProblemType: {
    params: z.object({ code: z.string().max(64).regex(/^[a-z_]{1,64}$/).openapi({ description: 'A problem `error` code, e.g. `validation_failed`', example: 'validation_failed' }) }),
    responses: { 200: { description: 'The page of the problem type', schema: wholeDocument().openapi({ description: 'An HTML document', example: '<!doctype html>...' }), mediaType: 'text/html' } },
  },
} satisfies Record<Exclude<OperationIdOfGroup<'openapi'>, 'getOpenApiDocument'>, OperationContract>;
