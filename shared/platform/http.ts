import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEventV2WithLambdaAuthorizer, Context } from 'aws-lambda';
import { parseLosslessJson as parseLossless } from './lossless-json';
import { z } from 'zod';
import { fromAuthorizerContext, type AuthorizerContext, type Principal } from '../identity/principal';
import { routeKey, routes, routesOfGroup, type FunctionGroup, type RouteDefinition } from '../routes';
import {
  claimIdempotencyKey,
  releaseIdempotencyKey,
  requestFingerprint,
  storeIdempotentResponse,
  validateIdempotencyKey,
  type StoredResponse,
} from './idempotency';
import { stringifyJson } from './json';
import { logger } from './logger';
import type { Operation, OperationResult } from './operation';
import { ProblemError, problemBody, problems } from './problem';
import { consumeRateLimit } from './rate-limit';
import { decodeRequestBody } from './request-body';
import { parseInput } from './validation';

export type HttpEvent = APIGatewayProxyEventV2WithLambdaAuthorizer<AuthorizerContext>;
export type HttpResponse = StoredResponse;

/**
 * The one request pipeline of every endpoint group: route -> principal and scope -> rate limit
 * -> idempotency (mutations) -> input validation -> operation -> JSON or problem+json.
 * Handlers only declare their operations.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const httpHandler = (group: FunctionGroup, operations: Record<string, Operation<any>>) => {
  const routeByKey = routeMapOf(group, operations);
  const handle = async (event: HttpEvent): Promise<HttpResponse> => {
    const started = Date.now();
    const response = await respond(event);
    logger.info('request completed', {
      routeKey: event.routeKey,
      path: event.rawPath,
      status: response.statusCode,
      durationMs: Date.now() - started,
    });
    return response;
  };
  const respond = async (event: HttpEvent): Promise<HttpResponse> => {
    const requestId = event.requestContext.requestId;
    logger.appendKeys({ requestId });
    let rateHeaders: Record<string, string> = {};
    try {
      const route = routeByKey.get(event.routeKey);
      if (!route) throw problems.routeNotFound(event.rawPath);
      const operation = operations[route.operationId]!;
      const principal = route.auth === 'token' ? authorize(route, event) : undefined;
      if (principal) {
        logger.appendKeys({ clientId: principal.clientId, organizationId: principal.organizationId ?? undefined });
        rateHeaders = await consumeRateLimit(principal.clientId, principal.plan);
      }
      const run = () => execute(operation, route, event, principal, requestId);
      const response = route.mutation && principal ? await idempotent(principal.clientId, event, run) : await run();
      return finalize(response, requestId, rateHeaders);
    } catch (error) {
      return finalize(renderError(error, requestId), requestId, rateHeaders);
    }
  };
  return middy<HttpEvent, HttpResponse, Error, Context>(handle).use(injectLambdaContext(logger, { resetKeys: true }));
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const routeMapOf = (group: FunctionGroup, operations: Record<string, Operation<any>>) => {
  const groupRoutes = routesOfGroup(group);
  const missing = groupRoutes.filter((route) => !operations[route.operationId]).map((route) => route.operationId);
  const unrouted = Object.keys(operations).filter((id) => !groupRoutes.some((route) => route.operationId === id));
  if (missing.length || unrouted.length) {
    throw new Error(`Group ${group}: operations without implementation [${missing}] or without route [${unrouted}]`);
  }
  return new Map(groupRoutes.map((route) => [routeKey(route), route]));
};

const authorize = (route: RouteDefinition, event: HttpEvent): Principal => {
  const context = event.requestContext.authorizer?.lambda;
  if (!context || !context.authenticated) {
    throw problems.unauthorized(`A valid bearer access token is required (${context?.failure ?? 'missing bearer token'}).`);
  }
  const principal = fromAuthorizerContext(context);
  if (route.scope && !principal.scopes.includes(route.scope)) throw problems.insufficientScope(route.scope);
  return principal;
};

const idempotent = async (clientId: string, event: HttpEvent, run: () => Promise<HttpResponse>): Promise<HttpResponse> => {
  const key = validateIdempotencyKey(event.headers['idempotency-key']);
  const fingerprint = requestFingerprint(event.requestContext.http.method, event.rawPath, event.rawQueryString, bodyText(event));
  const claim = await claimIdempotencyKey(clientId, key, fingerprint);
  if (claim.kind === 'replay') {
    return { ...claim.response, headers: { ...claim.response.headers, 'Idempotency-Replayed': 'true' } };
  }
  let response: HttpResponse;
  try {
    response = await run();
  } catch (error) {
    await releaseIdempotencyKey(clientId, key, fingerprint);
    throw error;
  }
  if (response.statusCode >= 500) await releaseIdempotencyKey(clientId, key, fingerprint);
  else await storeIdempotentResponse(clientId, key, fingerprint, response);
  return response;
};

/** Validates input, runs the operation, renders its result; problems become responses (so they can be stored). */
const execute = async (
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  operation: Operation<any>,
  route: RouteDefinition,
  event: HttpEvent,
  principal: Principal | undefined,
  requestId: string,
): Promise<HttpResponse> => {
  try {
    const { contract } = operation;
    const params = contract.params ? parsePathParameters(contract.params, event.pathParameters ?? {}) : undefined;
    const query = parseInput(contract.query ?? z.strictObject({}), event.queryStringParameters ?? {}, 'query');
    const body = parseBody(contract, event);
    const result = await operation.run({
      params,
      query,
      body,
      get principal(): Principal {
        if (!principal) throw new Error(`${route.operationId} is public and has no principal`);
        return principal;
      },
      requestId,
      operationId: route.operationId,
    });
    return renderResult(result);
  } catch (error) {
    if (error instanceof ProblemError) return renderProblem(error, requestId);
    throw error;
  }
};

/** Path ids that are not well-formed cannot name anything: 404, as for any unknown id. */
const parsePathParameters = (schema: z.ZodType, value: Record<string, string | undefined>) => {
  const result = schema.safeParse(value);
  if (!result.success) throw problems.notFound();
  return result.data;
};

const bodyText = (event: HttpEvent): string | undefined => decodeRequestBody(event.headers, event.body, event.isBase64Encoded);

const jsonMediaType = /^application\/([a-z0-9.+-]*\+)?json\s*(;.*)?$/i;

const parseBody = (contract: Operation['contract'], event: HttpEvent): unknown => {
  const text = bodyText(event);
  const present = text !== undefined && text.trim() !== '';
  if (!present) {
    if (contract.body && !contract.bodyOptional) {
      throw problems.validation('A JSON request body is required.', [{ field: '(body)', message: 'Required' }]);
    }
    return undefined;
  }
  const contentType = event.headers['content-type'] ?? '';
  if (!jsonMediaType.test(contentType)) {
    throw problems.unsupportedMediaType(`Request bodies must be application/json; got ${contentType || 'no Content-Type'}.`);
  }
  let parsed: unknown;
  try {
    parsed = contract.bodyParsing === 'lossless-json' ? parseLossless(text) : JSON.parse(text);
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

const renderResult = (result: OperationResult): HttpResponse => ({
  statusCode: result.status,
  headers: { ...(result.body !== undefined && { 'Content-Type': 'application/json' }), ...result.headers },
  body: result.body === undefined ? '' : stringifyJson(result.body),
});

export const renderProblem = (error: ProblemError, requestId: string): HttpResponse => ({
  statusCode: error.problem.status,
  headers: { 'Content-Type': 'application/problem+json', ...error.headers },
  body: stringifyJson(problemBody(error.problem, requestId)),
});

export const renderError = (error: unknown, requestId: string): HttpResponse => {
  if (error instanceof ProblemError) return renderProblem(error, requestId);
  logger.error('Unhandled error', error as Error);
  return renderProblem(problems.internal(), requestId);
};

export const finalize = (response: HttpResponse, requestId: string, extraHeaders: Record<string, string> = {}): HttpResponse => ({
  ...response,
  headers: { ...response.headers, ...extraHeaders, 'X-Request-Id': requestId, 'Cache-Control': 'no-store' },
});

/** For the $default route: 405 with Allow when the path exists under other methods, else 404. */
export const unmatchedRouteProblem = (method: string, path: string): ProblemError => {
  const allowed = routes.filter((route) => pathPattern(route.path).test(path)).map((route) => route.method);
  return allowed.length ? problems.methodNotAllowed(method, path, [...new Set(allowed)]) : problems.routeNotFound(path);
};

/** Matches a concrete path against an API Gateway path template; exposes named parameters. */
export const pathPattern = (template: string): RegExp =>
  new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`);
