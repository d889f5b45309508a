import * as z from 'zod';
import { callerKey, type Principal } from '../identity/principal';
import { holdsScope, loadReach, refusesCaller, type ReachingPrincipal } from '../identity/reach';
import { routes, type OperationDefinition, type RouteDefinition } from '../routes';
import {
  claimIdempotencyKey,
  releaseIdempotencyKey,
  requestFingerprint,
  storedIdempotentResponse,
  storeIdempotentResponse,
  validateIdempotencyKey,
  type Claim,
  type StoredResponse,
} from '../platform/idempotency';
import { stringifyJson } from '../platform/json';
import { publicBaseUrl } from '../platform/config';
import { logger } from '../platform/logger';
import { countMetric } from '../platform/metrics';
import { parseJson, parseLosslessJson as parseLossless } from '../platform/lossless-json';
import type { Operation, OperationResult } from './operation';
import { isAwsUnavailable, ProblemError, problemBody, problems, unavailableRetryAfterSeconds } from '../platform/problem';
import { consumeRateLimit, rateLimitOf } from '../platform/rate-limit';
import { parseInput } from '../platform/validation';
import { timed } from '../platform/stage-timing';

/** A rendered answer: what HTTP sends and what idempotency stores and replays. */
export type OperationResponse = StoredResponse;

/** Who is calling, as the transport learnt it (the authorizer on HTTP). */
export type Authentication = { authenticated: true; principal: Principal } | { authenticated: false; failure: string; unavailable?: boolean };

/** One call of one operation, free of any transport. */
export interface OperationCall<Id extends string = string> {
  operationId: Id;
  authentication?: Authentication;
  /** Raw path parameters, query parameters and body text, as the caller sent them. */
  params: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
  body?: { text: string; contentType: string };
  /** The transport could not decode the body (too large, unknown encoding): answered once reach and scope have passed. */
  bodyProblem?: ProblemError;
  /** The query as sent (part of the idempotency fingerprint); defaults to the query parameters in order. */
  rawQuery?: string;
  idempotencyKey?: string;
  /** The If-Match header (replacements with optimistic concurrency). */
  ifMatch?: string;
  requestId: string;
  /** Request headers, lower-case names (operations that speak a protocol of their own read them: MCP). */
  headers?: Record<string, string | undefined>;
}

/**
 * The resource a route's path names, resolved against the caller's reach: undefined when it does
 * not exist or is out of reach (both answer 404, general rule 2).
 */
export interface OwnerResolver {
  /** The noun of the 404 ("company", "job"). */
  noun: string;
  resolve: (id: string, principal: Principal, route: OperationDefinition) => Promise<unknown>;
}

/** Path parameter name -> resolver of the resource it names ({companyId} -> the company). */
export type OwnerResolvers = Record<string, OwnerResolver>;

/** What a resolver hands the operation when the resource is within reach. */
export type ResolvedOwner<R> = R extends { resolve: (...args: never[]) => Promise<infer T> } ? Exclude<T, undefined> : never;

type FirstOwned<Names extends readonly string[], Owned> = Names extends readonly [infer Head extends string, ...infer Tail extends readonly string[]]
  ? Head extends Owned
    ? Head
    : FirstOwned<Tail, Owned>
  : never;

/**
 * The owner the runner resolves for parameters named in this order (as `resolveOwner` picks it:
 * the first owned one), or undefined when none is owned.
 */
export type OwnerOfParameters<Names extends readonly string[], Resolvers> =
  [FirstOwned<Names, keyof Resolvers>] extends [never] ? undefined : ResolvedOwner<Resolvers[FirstOwned<Names, keyof Resolvers> & keyof Resolvers]>;

export interface IdempotencyStore {
  claim: (clientId: string, key: string, fingerprint: string) => Promise<Claim>;
  /** The answer of an earlier completed request with this key and fingerprint, without claiming. */
  stored: (clientId: string, key: string, fingerprint: string) => Promise<StoredResponse | undefined>;
  store: (clientId: string, key: string, fingerprint: string, response: OperationResponse, options?: { seal?: boolean }) => Promise<void>;
  release: (clientId: string, key: string, fingerprint: string) => Promise<void>;
}

export interface RunnerDependencies {
  owners: OwnerResolvers;
  /**
   * The declarations of the operations (auth, scope, mutation, parameters): the API's route table by
   * default, or another table (the MCP-only operations).
   */
  routes?: readonly OperationDefinition[];
  rateLimit?: (principal: Principal) => Promise<Record<string, string>>;
  idempotency?: IdempotencyStore;
}

const dynamoIdempotency: IdempotencyStore = {
  claim: claimIdempotencyKey,
  stored: storedIdempotentResponse,
  store: storeIdempotentResponse,
  release: releaseIdempotencyKey,
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a group holds operations of many input types
export type Operations = Record<string, Operation<any, any>>;

/**
 * The one pipeline of every operation, whatever carried the call (HTTP, MCP):
 * principal (401) -> rate limit (429) -> system clients only (403) -> reach (404) -> scope (403) -> idempotency (mutations)
 * -> input validation (400/415/422) -> operation -> answer or problem+json.
 * Reach comes before scope and before anything about the request is judged, so a resource
 * outside the reach answers 404 whatever else is wrong with the request.
 */
export const createOperationRunner = <Ops extends Operations>(operations: Ops, dependencies: RunnerDependencies) => {
  const rateLimit = dependencies.rateLimit ?? ((principal: Principal) => consumeRateLimit(callerKey(principal), rateLimitOf(principal)));
  const idempotency = dependencies.idempotency ?? dynamoIdempotency;
  const routeOf = new Map((dependencies.routes ?? routes).filter((route) => operations[route.operationId]).map((route) => [route.operationId, route]));

  /** Runs one call; its operationId is one of the operations given (a typed id, where the table is typed). */
  return async (call: OperationCall<Extract<keyof Ops, string>>): Promise<OperationResponse> => {
    let rateHeaders: Record<string, string> = {};
    try {
      const route = routeOf.get(call.operationId);
      const operation = operations[call.operationId];
      if (!route || !operation) throw new Error(`Unknown operation ${call.operationId}`);
      const principal = route.auth === 'token' ? authenticate(call.authentication, route) : undefined;
      let owner: unknown;
      let reaching: ReachingPrincipal | undefined;
      if (principal) {
        logger.appendKeys({ clientId: principal.clientId, organizationId: principal.organizationId ?? undefined });
        const systemClientRequired = refusesCaller(route, principal);
        // Reach only reads, so it runs alongside the rate limit's write (one round trip, not two);
        // its answer counts only once the rate limit has let the request through (429 before 404).
        const reach = systemClientRequired
          ? Promise.resolve(undefined)
          : timed('runner: reach (owner resolution)', async () => {
              const loaded = route.decidesNoReach ? principal : await loadReach(principal);
              return { loaded, owner: await resolveOwner(dependencies.owners, route, operation, call.params, loaded) };
            });
        reach.catch(() => undefined); // a 429 leaves it unobserved
        let reached: Awaited<typeof reach>;
        try {
          reached = await timed('runner: rate limit + reach (side by side)', async () => {
            rateHeaders = await timed('runner: rate limit', () => rateLimit(principal));
            if (systemClientRequired) throw problems.systemClientRequired();
            return reach;
          });
        } catch (error) {
          // A retried mutation whose resource is gone since (a DELETE whose answer was lost, or a later deletion) replays its answer: a key's answer never changes.
          const replay = route.mutation && error instanceof ProblemError && error.problem.status === 404 ? await storedReplay(idempotency, callerKey(principal), route, call) : undefined;
          if (replay) return withHeaders(replay, rateHeaders);
          throw error;
        }
        reaching = reached?.loaded;
        owner = reached?.owner;
      }
      if (principal && !holdsScope(route, principal)) throw problems.insufficientScope(route.scope!);
      if (call.bodyProblem) throw call.bodyProblem;
      const execute = (keyed?: { key: string; fingerprint: string }) => timed('runner: operation', () => executeOperation(operation, route, call, reaching, owner, keyed));
      const response = route.mutation && principal ? await idempotent(idempotency, callerKey(principal), route, call, execute, operation.contract.secretInAnswer === true) : await execute();
      return withHeaders(response, rateHeaders);
    } catch (error) {
      return withHeaders(renderError(error, call.requestId), rateHeaders);
    }
  };
};

const authenticate = (authentication: Authentication | undefined, route: OperationDefinition): Principal => {
  if (!authentication?.authenticated) {
    // The authorizer could not check the token (it logged why): a 500 the client may retry, not a 401 it must not.
    if (authentication?.unavailable) throw problems.internal();
    const failure = authentication?.failure ?? 'missing bearer token';
    const resourceMetadata = route.resourceMetadataPath && `${publicBaseUrl() ?? ''}${route.resourceMetadataPath}`;
    throw problems.unauthorized(`A valid bearer access token is required (${failure}).`, resourceMetadata ? { resourceMetadata, tokenSent: failure !== 'missing bearer token' } : undefined);
  }
  return authentication.principal;
};

/** Path parameter names of a route template, in order ("/v1/companies/{companyId}/x/{id}" -> [companyId, id]). */
export const pathParameterNames = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);

/** The parameters of an operation in order: a route's from its path, an MCP-only operation's as declared. */
export const parameterNames = (definition: OperationDefinition): readonly string[] =>
  'path' in definition ? pathParameterNames((definition as RouteDefinition).path) : ((definition as { parameters?: readonly string[] }).parameters ?? []);

/** The first path parameter that names an owned resource decides reach; ids that are not well-formed name nothing (404). */
export const resolveOwner = async (
  owners: OwnerResolvers,
  route: OperationDefinition,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any operation of a group
  operation: Operation<any, any>,
  params: Record<string, string | undefined>,
  principal: Principal,
): Promise<unknown> => {
  const name = parameterNames(route).find((parameter) => owners[parameter]);
  if (!name) return undefined;
  const resolver = owners[name]!;
  const id = params[name];
  const paramSchema = (operation.contract.params as z.ZodObject | undefined)?.shape?.[name] as z.ZodType | undefined;
  if (!id || (paramSchema && !paramSchema.safeParse(id).success)) throw problems.notFound(resolver.noun);
  const owner = await resolver.resolve(id, principal, route);
  if (owner === undefined) throw problems.notFound(resolver.noun);
  return owner;
};

/** The stored answer of this very request (same client, key, method, path, query and body), marked replayed; undefined when none. */
const storedReplay = async (store: IdempotencyStore, clientId: string, route: OperationDefinition, call: OperationCall): Promise<OperationResponse | undefined> => {
  if (!('path' in route) || call.idempotencyKey === undefined) return undefined;
  let key: string;
  try {
    key = validateIdempotencyKey(call.idempotencyKey);
  } catch {
    return undefined;
  }
  const { method, path } = route as RouteDefinition;
  const stored = await store.stored(clientId, key, requestFingerprint(method, concretePath(path, call.params), rawQueryOf(call), call.body?.text));
  return stored && { ...stored, headers: { ...stored.headers, 'Idempotency-Replayed': 'true' } };
};

const idempotent = async (
  store: IdempotencyStore,
  clientId: string,
  route: OperationDefinition,
  call: OperationCall,
  execute: (keyed: { key: string; fingerprint: string }) => Promise<OperationResponse>,
  seal: boolean,
): Promise<OperationResponse> => {
  const key = validateIdempotencyKey(call.idempotencyKey);
  if (!('path' in route)) throw new Error(`${route.operationId}: a mutation needs an HTTP route`);
  const { method, path } = route as RouteDefinition;
  const fingerprint = requestFingerprint(method, concretePath(path, call.params), rawQueryOf(call), call.body?.text);
  const claim = await store.claim(clientId, key, fingerprint);
  if (claim.kind === 'replay') {
    return { ...claim.response, headers: { ...claim.response.headers, 'Idempotency-Replayed': 'true' } };
  }
  let response: OperationResponse;
  try {
    response = await execute({ key, fingerprint });
  } catch (error) {
    await store.release(clientId, key, fingerprint);
    throw error;
  }
  // A 5xx is released so that a retry runs again; so are a 409 and a 412: they answer the state of
  // the moment (a job in flight, a concurrent change, a newer version), change nothing, and their
  // action is to send the request again once that state has changed; and a 428, whose action is to
  // add If-Match. If-Match is not part of the fingerprint, so a stored 412 or 428 would refuse the
  // corrected request under the same key for 24 hours.
  if (response.statusCode >= 500 || response.statusCode === 409 || response.statusCode === 412 || response.statusCode === 428) {
    await store.release(clientId, key, fingerprint);
    return response;
  }
  try {
    await store.store(clientId, key, fingerprint, response, { seal: seal && response.statusCode < 300 });
  } catch (error) {
    // The effect has happened: answer it. A 500 now would invite a retry that, once the claim's
    // lease ran out, would do it again.
    logger.error('The answer of a mutation could not be stored for its Idempotency-Key; answered anyway', { error: error as Error, idempotencyKey: key });
  }
  return response;
};

export const concretePath = (template: string, params: Record<string, string | undefined>): string =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? '');

const rawQueryOf = (call: OperationCall): string =>
  call.rawQuery ??
  new URLSearchParams(Object.entries(call.query).filter((entry): entry is [string, string] => entry[1] !== undefined)).toString();

/** Validates input, runs the operation, renders its result; problems become responses (so they can be stored). */
const executeOperation = async (
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any operation of a group
  operation: Operation<any, any>,
  route: OperationDefinition,
  call: OperationCall,
  principal: Principal | undefined,
  owner: unknown,
  idempotency?: { key: string; fingerprint: string },
): Promise<OperationResponse> => {
  try {
    const { contract } = operation;
    const params = contract.params ? parsePathParameters(contract.params, call.params) : undefined;
    const query = parseInput(contract.query ?? z.strictObject({}), call.query, 'query');
    const body = parseBody(contract, call.body);
    const result = await operation.run({
      params,
      query,
      body,
      get principal(): Principal {
        if (!principal) throw new Error(`${route.operationId} is public and has no principal`);
        return principal;
      },
      owner,
      ...(call.ifMatch !== undefined && { ifMatch: call.ifMatch }),
      requestId: call.requestId,
      operationId: route.operationId,
      headers: call.headers ?? {},
      ...(idempotency && { idempotency }),
    });
    return renderResult(result);
  } catch (error) {
    if (error instanceof ProblemError) return renderProblem(error, call.requestId);
    throw error;
  }
};

/** Path ids that are not well-formed cannot name anything: 404, as for any unknown id. */
const parsePathParameters = (schema: z.ZodType, value: Record<string, string | undefined>) => {
  const result = schema.safeParse(value);
  if (!result.success) throw problems.notFound();
  return result.data;
};

const jsonMediaType = /^application\/([a-z0-9.+-]*\+)?json\s*(;.*)?$/i;

const parseBody = (contract: Operation['contract'], body: OperationCall['body']): unknown => {
  const text = body?.text;
  const present = text !== undefined && text.trim() !== '';
  if (!present && contract.bodyParsing === 'text') return text ?? '';
  if (!present) {
    if (contract.body && !contract.bodyOptional) {
      throw problems.validation('A JSON request body is required.', [{ field: '(body)', message: 'Required' }]);
    }
    return undefined;
  }
  const contentType = body!.contentType;
  if (!jsonMediaType.test(contentType)) {
    throw problems.unsupportedMediaType(`Request bodies must be application/json; got ${contentType || 'no Content-Type'}.`);
  }
  if (contract.bodyParsing === 'text') return text;
  let parsed: unknown;
  try {
    parsed = contract.bodyParsing === 'lossless-json' ? parseLossless(text) : parseJson(text);
  } catch (error) {
    throw problems.malformedJson(`The request body is not valid JSON: ${(error as Error).message}`);
  }
  if (contract.bodyParsing === 'lossless-json') return parsed;
  if (!contract.body) {
    // Operations without a body tolerate an empty object, which some HTTP clients always send.
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && Object.keys(parsed).length === 0) return undefined;
    throw problems.validation('This operation takes no request body.', [{ field: '(body)', message: 'Must be empty' }]);
  }
  return parseInput(contract.body, parsed, 'body');
};

const renderResult = (result: OperationResult): OperationResponse => ({
  statusCode: result.status,
  headers: { ...(result.body !== undefined && { 'Content-Type': 'application/json' }), ...result.headers },
  body: result.text ?? (result.body === undefined ? '' : stringifyJson(result.body)),
});

/** Every problem+json answer passes here: it is counted by its code. */
export const renderProblem = (error: ProblemError, requestId: string): OperationResponse => {
  countMetric('problems', { code: error.problem.error });
  return {
    statusCode: error.problem.status,
    headers: { 'Content-Type': 'application/problem+json', ...error.headers },
    body: stringifyJson(problemBody(error.problem, requestId)),
  };
};

export const renderError = (error: unknown, requestId: string): OperationResponse => {
  if (error instanceof ProblemError) return renderProblem(error, requestId);
  if (isAwsUnavailable(error)) {
    logger.error('An AWS service was busy or failing: answered 503', error as Error);
    return renderProblem(problems.serviceUnavailable(unavailableRetryAfterSeconds), requestId);
  }
  logger.error('Unhandled error', error as Error);
  return renderProblem(problems.internal(), requestId);
};

const withHeaders = (response: OperationResponse, headers: Record<string, string>): OperationResponse =>
  Object.keys(headers).length ? { ...response, headers: { ...response.headers, ...headers } } : response;
