import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayRequestAuthorizerEventV2, Context } from 'aws-lambda';
import { authorizerEntry, functionGroups, routeKey, routes, type FunctionGroup, type RouteDefinition } from '../../shared/routes';
import { finalize, pathPattern } from '../../shared/api/http';
import { renderProblem } from '../../shared/api/runner';
import { withRequestBaseUrl } from '../../shared/platform/config';
import { problems, type ProblemError } from '../../shared/platform/problem';
import { requestBodyTooLarge } from '../../shared/platform/request-body';
import { timed } from '../../shared/platform/stage-timing';
import { readBoundedBody } from './http-body';
import type { AccessEntry } from './log-format';
import { listenOnLoopback } from './ports';
import { lambdaContext } from './lambda-context';
import { runAs } from './iam';
import { authorizerDynamoGrants, dynamoGrants, groupPermissions } from '../stacks/permissions';

/**
 * The local API Gateway (HTTP API, payload 2.0): it matches the route table, runs the production
 * authorizer, builds the same event API Gateway would, and invokes the handler modules in-process.
 */
type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

interface LambdaResult {
  statusCode?: number;
  headers?: Record<string, string | number | boolean>;
  body?: string;
  isBase64Encoded?: boolean;
  cookies?: string[];
}

export interface Gateway {
  baseUrl: string;
  stop(): Promise<void>;
}

const repositoryRoot = resolve(import.meta.dirname, '../..');

/** Handler modules as Lambda would load them: once per "execution environment" (here, per process). */
export const loadHandler = async (entry: string): Promise<LambdaHandler> => {
  const module = (await import(pathToFileURL(resolve(repositoryRoot, entry)).href)) as { handler: LambdaHandler };
  return module.handler;
};

export { lambdaContext };

/** Content types API Gateway passes as text; anything else arrives base64-encoded. */
const textual = /^(text\/|application\/([a-z0-9.+-]*\+)?(json|xml|x-www-form-urlencoded|javascript))/i;

/** A body with a content coding (gzip) is binary whatever its media type: base64-encoded too. */
const encoded = (contentEncoding: string | undefined) => (contentEncoding ?? '').split(',').some((coding) => !['', 'identity'].includes(coding.trim().toLowerCase()));

/**
 * What the AWS path can carry: API Gateway takes payloads up to 10 MB, and the synchronous Lambda
 * invocation behind it takes events up to 6 MB. Beyond them API Gateway answers with its own
 * non-problem body; here the service's 413 problem (shared/platform/request-body.ts) answers, as
 * the function does for bodies beyond its own, smaller limit.
 */
const apiGatewayPayloadBytes = 10 * 1024 * 1024;
const lambdaEventBytes = 6 * 1024 * 1024;

/** Whether every percent-encoding of a path decodes, as UTF-8 (API Gateway decodes the path before routing). */
const decodablePath = (path: string): boolean => {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
};

const joinHeaders = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers)
      .filter(([name, value]) => value !== undefined && name !== 'cookie')
      .map(([name, value]) => [name.toLowerCase(), Array.isArray(value) ? value.join(',') : String(value)]),
  );

const queryParameters = (search: URLSearchParams): Record<string, string> | undefined => {
  const result: Record<string, string> = {};
  for (const [name, value] of search) result[name] = name in result ? `${result[name]},${value}` : value;
  return Object.keys(result).length ? result : undefined;
};

const matchRoute = (method: string, path: string): { route: RouteDefinition; pathParameters: Record<string, string> } | undefined => {
  for (const route of routes) {
    if (route.method !== method) continue;
    const match = pathPattern(route.path).exec(path);
    if (match) return { route, pathParameters: Object.fromEntries(Object.entries(match.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)])) };
  }
  return undefined;
};

export interface GatewayOptions {
  port: number;
  onRequest?: (entry: AccessEntry) => void;
}

export const startGateway = async (options: GatewayOptions): Promise<Gateway> => {
  const groups = Object.keys(functionGroups) as FunctionGroup[];
  // Each function runs with its own DynamoDB grants, checked as IAM would (infra/local/iam.ts).
  const handlers = Object.fromEntries(
    await Promise.all(
      groups.map(async (group) => {
        const handler = await loadHandler(functionGroups[group].entry);
        const grants = dynamoGrants(groupPermissions[group]);
        const asGroup: LambdaHandler = (event, context) => runAs({ name: group, grants }, () => handler(event, context));
        return [group, asGroup] as const;
      }),
    ),
  ) as Record<FunctionGroup, LambdaHandler>;
  const authorizerHandler = await loadHandler(authorizerEntry);
  const authorizer: LambdaHandler = (event, context) =>
    runAs({ name: 'authorizer', grants: authorizerDynamoGrants }, () => authorizerHandler(event, context));
  type Decision = { isAuthorized: boolean; context?: unknown };
  const baseUrl = `http://127.0.0.1:${options.port}`;

  const server: Server = createServer((request, response) => {
    const received = Date.now();
    let url: URL;
    let target: 'valid' | 'unparsable' = 'valid';
    try {
      url = new URL(request.url ?? '/', baseUrl);
    } catch {
      // An absolute-form target that is no URL (`http://[`): nothing to route; answered 400 below.
      url = new URL('/', baseUrl);
      target = 'unparsable';
    }
    const method = (request.method ?? 'GET').toUpperCase();
    const requestId = randomUUID();
    const answer = (status: number, headers: Record<string, string>, body: string | Buffer) => {
      response.writeHead(status, headers);
      response.end(body);
      options.onRequest?.({ method, path: url.pathname, status, ms: Date.now() - received, requestId });
    };
    timed('gateway: request', async () => {
      /** What the gateway answers itself, as the problem the functions would render. */
      const refuse = (error: ProblemError) => {
        const problem = withRequestBaseUrl(baseUrl, () => finalize(renderProblem(error, requestId), requestId));
        return answer(problem.statusCode, { ...problem.headers, 'Apigw-Requestid': requestId }, problem.body);
      };
      const tooLarge = (bytes: number) => refuse(requestBodyTooLarge(bytes));
      const read = await readBoundedBody(request, apiGatewayPayloadBytes);
      if ('tooLarge' in read) return tooLarge(read.tooLarge);
      if (target === 'unparsable') return refuse(problems.invalidEncoding('The request target is not a valid URL.'));
      if (!decodablePath(url.pathname)) {
        return refuse(problems.invalidEncoding(`The path holds a percent-encoding that does not decode to UTF-8: ${url.pathname.slice(0, 200)}`));
      }
      const raw = read.body;
      const headers = joinHeaders(request.headers);
      // A body that is not UTF-8 cannot travel as text: base64, so the function sees (and refuses) its bytes.
      const isText = textual.test(headers['content-type'] ?? 'application/json') && !encoded(headers['content-encoding']) && isUtf8(raw);
      const matched = matchRoute(method, url.pathname);
      const group: FunctionGroup = matched?.route.group ?? 'fallback';
      const now = new Date();
      const requestContext = {
        accountId: '000000000000',
        apiId: 'local',
        domainName: url.host,
        domainPrefix: '127',
        http: { method, path: url.pathname, protocol: `HTTP/${request.httpVersion}`, sourceIp: request.socket.remoteAddress ?? '127.0.0.1', userAgent: headers['user-agent'] ?? '' },
        requestId,
        routeKey: matched ? routeKey(matched.route) : '$default',
        stage: '$default',
        time: now.toUTCString(),
        timeEpoch: now.getTime(),
      };
      const event: APIGatewayProxyEventV2 & { requestContext: { authorizer?: { lambda: unknown } } } = {
        version: '2.0',
        routeKey: requestContext.routeKey,
        rawPath: url.pathname,
        rawQueryString: url.search.slice(1),
        ...(request.headers.cookie && { cookies: request.headers.cookie.split(/;\s*/) }),
        headers,
        ...(queryParameters(url.searchParams) && { queryStringParameters: queryParameters(url.searchParams) }),
        ...(matched && Object.keys(matched.pathParameters).length && { pathParameters: matched.pathParameters }),
        requestContext,
        ...(raw.length > 0 && { body: isText ? raw.toString('utf8') : raw.toString('base64') }),
        isBase64Encoded: raw.length > 0 && !isText,
      };

      if (Buffer.byteLength(JSON.stringify(event)) > lambdaEventBytes) return tooLarge(raw.length);

      if (matched?.route.auth === 'token') {
        const authorizerEvent: APIGatewayRequestAuthorizerEventV2 = {
          version: '2.0',
          type: 'REQUEST',
          routeArn: `arn:aws:execute-api:${process.env.AWS_REGION}:000000000000:local/$default/${method}${url.pathname}`,
          identitySource: [],
          routeKey: event.routeKey,
          rawPath: event.rawPath,
          rawQueryString: event.rawQueryString,
          cookies: event.cookies ?? [],
          headers,
          queryStringParameters: event.queryStringParameters ?? {},
          requestContext: event.requestContext,
          pathParameters: event.pathParameters ?? {},
          stageVariables: {},
        };
        const decision = await timed('gateway: authorizer', async () => {
          return (await authorizer(authorizerEvent, lambdaContext('authorizer', 10))) as Decision;
        });
        if (!decision.isAuthorized) return answer(403, { 'Content-Type': 'application/json' }, '{"message":"Forbidden"}');
        event.requestContext.authorizer = { lambda: decision.context };
      }

      let result: LambdaResult;
      try {
        result = (await timed('gateway: handler', () => handlers[group](event, lambdaContext(group, functionGroups[group].timeoutSeconds)))) as LambdaResult;
      } catch {
        // What API Gateway answers when the integration fails.
        return answer(500, { 'Content-Type': 'application/json' }, '{"message":"Internal Server Error"}');
      }
      const responseHeaders = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)]));
      if (result.cookies?.length) responseHeaders['Set-Cookie'] = result.cookies.join(', ');
      responseHeaders['Apigw-Requestid'] = requestContext.requestId;
      const body = result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : (result.body ?? '');
      return answer(result.statusCode ?? 200, responseHeaders, body);
    }).catch(() => {
      if (!response.headersSent) answer(500, { 'Content-Type': 'application/json' }, '{"message":"Internal Server Error"}');
    });
  });
  // Idle keep-alive connections stay open a minute (Node's default is 5 s): a client busy longer
  // than that between two requests (a test linting the OpenAPI document on a loaded machine) would
  // otherwise reuse a connection the server is closing and fail with "other side closed".
  server.keepAliveTimeout = 60_000;
  await listenOnLoopback(server, options.port, 'API gateway');
  return {
    baseUrl,
    stop: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
};
