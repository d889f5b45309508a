import { lazySchema } from '../platform/lazy-schema';
import type { OperationContract } from '../api/operation';
import { limits } from '../platform/schemas';
import * as z from '../platform/zod';
import type { OperationIdOfGroup } from '../routes';

/** A whole document the API serves (HTML, YAML, a script). */
const wholeDocument = () => z.string().max(limits.responseBody);

/** The local stack's default listeners (npm start), named when nothing else says where the API runs. */
export const defaultServerUrl = 'http://127.0.0.1:3000';
export const defaultTokenUrl = 'http://127.0.0.1:3001/oauth2/token';

/**
 * Contracts of the public documentation routes (group openapi): the openapi function imports
 * only these, and the document's generator (with every other contract) on its first request.
 */
export const docsContracts = {
  getOpenApiDocument: {
    description: 'This OpenAPI 3.0.3 document, generated from the schemas the API validates with. Public: no token needed. Also served as YAML at `GET /v1/openapi.yaml` and rendered at `GET /docs`.',
    responses: { 200: { description: 'This document', schema: /* @__PURE__ */ lazySchema(() => z.looseObject({ openapi: z.literal('3.0.3').openapi({ description: 'The OpenAPI version of the document (3.0.3)' }) }).openapi({ additionalProperties: true })) } },
  },
  getOpenApiYaml: {
    description:
      'The same document as `GET /v1/openapi.json`, serialized as YAML for tools that prefer it. Public: no token needed.',
    responses: { 200: { description: 'This document in YAML', schema: /* @__PURE__ */ lazySchema(() => wholeDocument().openapi({ description: 'OpenAPI 3.0.3 document (YAML 1.2)', example: "openapi: 3.0.3\ninfo:\n  title: Accounting Ledger Integration Service\n" })), mediaType: 'application/yaml' } },
  },
  getApiReference: {
    description:
      'The API reference rendered from this document with Redoc, served by the API itself: the renderer is vendored at build time and the page loads nothing from the internet. Public: no token needed.',
    responses: { 200: { description: 'The reference page', schema: /* @__PURE__ */ lazySchema(() => wholeDocument().openapi({ description: 'An HTML document', example: '<!doctype html>...' })), mediaType: 'text/html' } },
  },
  getApiReferenceScript: {
    description:
      'The Redoc standalone bundle the reference page loads (vendored from the redoc package at build time). Public.',
    responses: { 200: { description: 'The script', schema: /* @__PURE__ */ lazySchema(() => wholeDocument().openapi({ description: 'JavaScript', example: '/*! Redoc */' })), mediaType: 'text/javascript' } },
  },
  getLandingPage: {
    description:
      'A small page for a person who opens the API\'s address in a browser: what the service is and links to the rendered reference (`/docs`), the OpenAPI document (JSON and YAML), the problem types (`/problems`), the OAuth 2.0 token endpoint and the MCP endpoint. Public: no token needed.',
    responses: { 200: { description: 'The landing page', schema: /* @__PURE__ */ lazySchema(() => wholeDocument().openapi({ description: 'An HTML document', example: '<!doctype html>...' })), mediaType: 'text/html' } },
  },
  listProblemTypes: {
    description:
      'Every problem `error` code the API answers, with its HTTP status and when it is answered, each linking to its page (`GET /problems/{code}`). Public: no token needed.',
    responses: { 200: { description: 'The index of problem types', schema: /* @__PURE__ */ lazySchema(() => wholeDocument().openapi({ description: 'An HTML document', example: '<!doctype html>...' })), mediaType: 'text/html' } },
  },
  getProblemType: {
    description:
      'Every problem document\'s `type` is the URL of this page for its `error` code: when the API answers it, and what to do about it. Unknown codes answer 404 `not_found`. Public: no token needed.',
    params: /* @__PURE__ */ lazySchema(() => z.object({ code: z.string().max(64).regex(/^[a-z_]{1,64}$/).openapi({ description: 'A problem `error` code, e.g. `validation_failed`', example: 'validation_failed' }) })),
    responses: { 200: { description: 'The page of the problem type', schema: /* @__PURE__ */ lazySchema(() => wholeDocument().openapi({ description: 'An HTML document', example: '<!doctype html>...' })), mediaType: 'text/html' } },
  },
} satisfies Record<OperationIdOfGroup<'openapi'>, OperationContract>;
