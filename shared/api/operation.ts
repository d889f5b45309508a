import type { z } from 'zod';
import type { Principal } from '../identity/principal';

/** What one operation reads and answers; drives validation, typing and the OpenAPI document. */
export interface OperationContract<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  /**
   * What the operation does, the rules that govern it and the errors to branch on (CommonMark): the
   * one home of its reference text, beside the route's summary. Every route's contract has one
   * (`DocumentedContract`, shared/openapi/document.ts).
   */
  description?: string;
  /** The request example of the reference (else one is built from the body schema). */
  requestExample?: unknown;
  /** The response example of the reference (else one is built from the schema, shared/openapi/examples.ts). */
  responseExample?: unknown;
  params?: P;
  /** Request headers the operation reads beyond the platform's (documented; e.g. If-Match). */
  headers?: z.ZodObject;
  query?: Q;
  body?: B;
  /** When the body schema is given but a body may be omitted (e.g. DELETE's optional body). */
  bodyOptional?: boolean;
  /**
   * 'lossless-json': the body is parsed keeping every number's source text (LosslessNumber) and
   * handed over unvalidated; the operation validates it in stages (imports: 413, then 422).
   * The body schema still documents it.
   * 'text': the body is handed over as its text, unparsed (empty when absent): the operation parses
   * and validates it (MCP answers malformed JSON with a JSON-RPC error, not a problem document).
   */
  bodyParsing?: 'schema' | 'lossless-json' | 'text';
  /** The success answer shows a secret (once): the idempotency record keeps its body sealed (shared/platform/idempotency.ts). */
  secretInAnswer?: boolean;
  /** Success responses: status -> description and schema (none for an empty body); mediaType defaults to application/json. */
  responses: Record<number, { description: string; schema?: z.ZodType; mediaType?: string }>;
  /** Problem statuses this operation answers beyond the platform's common ones (400, 401, 403, 404, 429, 500...). */
  problems?: Record<number, string>;
}

/** A contract with its reference text: what every route's contract is. */
export type DocumentedContract = OperationContract & { description: string };

type Infer<T> = T extends z.ZodType ? z.infer<T> : undefined;

export interface OperationRequest<C extends OperationContract, Owner = unknown> {
  params: Infer<C['params']>;
  query: Infer<C['query']>;
  body: Infer<C['body']>;
  /** Present on every route with auth 'token'. */
  principal: Principal;
  /**
   * The resource the path names ({companyId} -> the company record, {jobId} -> the job), resolved
   * by the runner's reach step before the operation runs; undefined for routes that name none.
   * Typed by the path's first owned parameter (shared/composition/operations.ts).
   */
  owner: Owner;
  /** The If-Match request header, as sent (optimistic concurrency of replacements). */
  ifMatch?: string;
  requestId: string;
  operationId: string;
  /** Request headers, lower-case names; empty when the transport has none. */
  headers: Record<string, string | undefined>;
  /** A mutation's Idempotency-Key and the fingerprint of its request, as the runner keeps them (e.g. for a key kept beyond the runner's 24 h). */
  idempotency?: { key: string; fingerprint: string };
}

export interface OperationResult {
  status: number;
  body?: unknown;
  /** A body sent as is instead of JSON (HTML, YAML, JavaScript); the operation sets its Content-Type. */
  text?: string;
  headers?: Record<string, string>;
}

/** `Operation<C>`: an operation of contract C, whatever owner its path names. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the default owner: code that handles operations of any path
export interface Operation<C extends OperationContract = OperationContract, Owner = any> {
  contract: C;
  run: (request: OperationRequest<C, Owner>) => Promise<OperationResult>;
}

/** Pairs a contract with its implementation, so the implementation is typed by the contract. */
export const defineOperation = <C extends OperationContract, Owner = unknown>(contract: C, run: Operation<C, Owner>['run']): Operation<C, Owner> => ({ contract, run });
