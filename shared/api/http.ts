import type { APIGatewayProxyEventV2WithLambdaAuthorizer } from 'aws-lambda';
import { fromAuthorizerContext, type AuthorizerContext } from '../identity/principal';
import { routeKey, routes, routesOfGroup, type FunctionGroup, type OperationId } from '../routes';
import { withRequestBaseUrl } from '../platform/config';
import { lambdaHandler } from '../platform/lambda-handler';
import { logger } from '../platform/logger';
import { countMetric, statusClassOf, type MetricMetadata } from '../platform/metrics';
import { ProblemError, problems } from '../platform/problem';
import { decodeRequestBody } from '../platform/request-body';
import { annotateOperation } from '../platform/tracer';
import { createOperationRunner, renderProblem, type Authentication, type OperationCall, type OperationResponse, type Operations, type OwnerResolvers } from './runner';

export type HttpEvent = APIGatewayProxyEventV2WithLambdaAuthorizer<AuthorizerContext>;
export type HttpResponse = OperationResponse;

/**
 * The API Gateway adapter over the operation runner: event -> call -> runner -> response with
 * X-Request-Id. Handlers only name their group and hand over their operations.
 */
export const httpAdapter = (group: FunctionGroup, operations: Operations, owners: OwnerResolvers) => {
  const routeByKey = routeMapOf(group, operations);
  const run = createOperationRunner(operations, { owners });
  const handle = async (event: HttpEvent): Promise<HttpResponse> => {
    const started = Date.now();
    const requestId = event.requestContext.requestId;
    logger.appendKeys({ requestId });
    const route = routeByKey.get(event.routeKey);
    if (route) annotateOperation(route.operationId);
    const response = route ? await run(callOf(route.operationId, event)) : renderProblem(problems.routeNotFound(event.rawPath), requestId);
    logger.info('request completed', {
      routeKey: event.routeKey,
      path: event.rawPath,
      status: response.statusCode,
      durationMs: Date.now() - started,
    });
    return countRequest(route?.operationId, group, finalize(response, requestId));
  };
  return lambdaHandler((event: HttpEvent) => withRequestBaseUrl(requestBaseUrlOf(event), () => handle(event)), requestMetadata);
};

/** An API invocation's EMF lines carry the request id (X-Request-Id), to find the request of a metric. */
export const requestMetadata = (event: Pick<HttpEvent, 'requestContext'>): MetricMetadata => ({ requestId: event.requestContext.requestId });

/**
 * Counts one answered request by operation (`$default` for the fallback route) and status class,
 * and by function group (`fallback` for the fallback route); answers the response.
 */
export const countRequest = (operationId: OperationId | undefined, group: FunctionGroup | 'fallback', response: HttpResponse): HttpResponse => {
  const statusClass = statusClassOf(response.statusCode);
  countMetric('requests', { operation: operationId ?? '$default', statusClass });
  countMetric('groupRequests', { group, statusClass });
  return response;
};

/** The base URL the caller used: https://<API Gateway domain>; plain http only on the loopback (the local gateway). */
export const requestBaseUrlOf = (event: Pick<HttpEvent, 'requestContext'>): string => {
  const domain = event.requestContext.domainName;
  return `${/^(127\.0\.0\.1|localhost)(:\d+)?$/.test(domain) ? 'http' : 'https'}://${domain}`;
};

const routeMapOf = (group: FunctionGroup, operations: Operations) => {
  const groupRoutes = routesOfGroup(group);
  const missing = groupRoutes.filter((route) => !operations[route.operationId]).map((route) => route.operationId);
  const unrouted = Object.keys(operations).filter((id) => !groupRoutes.some((route) => route.operationId === id));
  if (missing.length || unrouted.length) {
    throw new Error(`Group ${group}: operations without implementation [${missing.join(',')}] or without route [${unrouted.join(',')}]`);
  }
  return new Map(groupRoutes.map((route) => [routeKey(route), route]));
};

const callOf = (operationId: OperationId, event: HttpEvent): OperationCall => {
  let text: string | undefined;
  let bodyProblem: ProblemError | undefined;
  try {
    text = bodyText(event);
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    bodyProblem = error;
  }
  return {
    ...(bodyProblem && { bodyProblem }),
    operationId,
    authentication: authenticationOf(event),
    params: event.pathParameters ?? {},
    query: event.queryStringParameters ?? {},
    ...(text !== undefined && { body: { text, contentType: event.headers['content-type'] ?? '' } }),
    rawQuery: event.rawQueryString,
    idempotencyKey: event.headers['idempotency-key'],
    ...(event.headers['if-match'] !== undefined && { ifMatch: event.headers['if-match'] }),
    requestId: event.requestContext.requestId,
    headers: event.headers,
  };
};

const authenticationOf = (event: HttpEvent): Authentication => {
  const context = event.requestContext.authorizer?.lambda;
  if (!context) return { authenticated: false, failure: 'missing bearer token' };
  if (!context.authenticated) return { authenticated: false, failure: context.failure, ...(context.unavailable && { unavailable: true }) };
  return { authenticated: true, principal: fromAuthorizerContext(context) };
};

const bodyText = (event: HttpEvent): string | undefined => decodeRequestBody(event.headers, event.body, event.isBase64Encoded);

export const finalize = (response: HttpResponse, requestId: string): HttpResponse => ({
  ...response,
  headers: { ...response.headers, 'X-Request-Id': requestId, 'Cache-Control': 'no-store' },
});

/**
 * For the $default route: 405 with Allow when the path exists under other methods, else 404.
 * Allow names the methods of the most specific template the path matches (literal segments win
 * over {parameters}, left to right, as API Gateway selects routes): PUT .../imports/accounts
 * allows POST only, not the GET of .../imports/{importId}.
 */
export const unmatchedRouteProblem = (method: string, path: string) => {
  const matching = routes.filter((route) => pathPattern(route.path).test(path));
  if (!matching.length) return problems.routeNotFound(path);
  const best = matching.map((route) => route.path).sort(bySpecificity)[0];
  const allowed = matching.filter((route) => route.path === best).map((route) => route.method);
  return problems.methodNotAllowed(method, path, [...new Set(allowed)]);
};

/** A GET (or HEAD) of a path with trailing slashes whose bare form is a GET route: that route (/docs/ -> /docs). */
export const withoutTrailingSlash = (method: string, path: string): string | undefined => {
  if ((method !== 'GET' && method !== 'HEAD') || path.length < 2 || !path.endsWith('/')) return undefined;
  const bare = path.replace(/\/+$/, '');
  return bare && routes.some((route) => route.method === 'GET' && pathPattern(route.path).test(bare)) ? bare : undefined;
};

/** Orders templates most specific first: at the first segment where they differ, a literal beats a {parameter}. */
const bySpecificity = (a: string, b: string): number => {
  const left = a.split('/');
  const right = b.split('/');
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const literalA = !(left[i] ?? '').startsWith('{');
    const literalB = !(right[i] ?? '').startsWith('{');
    if (literalA !== literalB) return literalA ? -1 : 1;
  }
  return 0;
};

const pathPatterns = new Map<string, RegExp>();

/** Matches a concrete path against an API Gateway path template; exposes named parameters. Compiled once per template (no g/y flag: no state between uses). */
export const pathPattern = (template: string): RegExp => {
  let pattern = pathPatterns.get(template);
  if (!pattern) {
    pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`);
    pathPatterns.set(template, pattern);
  }
  return pattern;
};
