import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import type { DocumentedContract } from '../../shared/api/operation';
import { parseJsonKeepingNumbers } from '../../shared/platform/json';
import { authorizerEntry, functionGroups, routeKey, routes, type FunctionGroup, type RouteDefinition } from '../../shared/routes';
import type { StackInfo } from '../local/stack';
import { lambdaContext, loadHandler } from '../local/gateway';
import { applyStackEnv, defaultStackFile, isConnectionRefused, noStackMessage, readStackFile, ToolError, valueAtPath } from './stack-env';

/**
 * `npm run invoke -- <function> <event file>`: runs one Lambda handler in-process exactly as
 * Lambda would (API Gateway HTTP API payload 2.0, with the production authorizer in front of
 * token routes, as infra/local/gateway.ts does), against the local stack.
 */
export interface ToolIo {
  out(line: string): void;
  err(line: string): void;
}

const authorizerFunction = 'authorizer';
const functionNames = [...(Object.keys(functionGroups) as FunctionGroup[]), authorizerFunction] as const;
type FunctionName = (typeof functionNames)[number];

/** Lambda's own limit for the authorizer (infra/local/gateway.ts uses the same). */
const authorizerTimeoutSeconds = 10;

export const invokeUsage = (): string =>
  [
    'Usage: npm run invoke -- <function> <event file> [flags]',
    '',
    'Runs one Lambda handler in-process as Lambda would, against the local stack (npm start), and prints',
    'its result: status line, headers and the body (JSON pretty-printed).',
    '',
    'Functions:',
    ...Object.entries(functionGroups).map(([name, group]) => `  ${name.padEnd(11)} ${group.description} (API Gateway HTTP API payload 2.0 events)`),
    `  ${authorizerFunction.padEnd(11)} The Lambda authorizer (REQUEST authorizer events, payload 2.0)`,
    '',
    'For an event of a route that needs a token, the production authorizer runs first on an authorizer',
    'event built from it and its context becomes requestContext.authorizer.lambda (unless the event file',
    'already has requestContext.authorizer).',
    '',
    'Placeholders, in any string of the event file (samples: events/<function>/<operationId>.json):',
    '  {{token:CLIENT}}   an access token of a client of the stack file (a-system, a-readonly, a1-system,',
    '                     b-system), fetched from the stack\'s token endpoint',
    '  {{uuid}}           a fresh UUID at every occurrence (idempotency keys, request ids)',
    '  {{NAME}}           the value given with --set NAME=VALUE',
    '  {{PATH}}           a dotted path into the stack file: {{companies.0.id}}, {{organizations.1.id}}',
    '  {{A ?? B}}         the first of A, B that has a value, e.g. {{companyId ?? companies.0.id}}',
    '',
    'The events that change one company (update, delete, disable, enable, restore) act on {{companyId}}:',
    'create a company first and pass its id, e.g.',
    '  npm run invoke -- companies events/companies/createCompany.json          (201, note the "id")',
    '  npm run invoke -- companies events/companies/disableCompany.json --set companyId=<id>',
    '',
    'A new route gets its sample derived from the route table and its contract\'s request example:',
    '  npm run invoke -- --write-sample <operationId>   writes events/<function>/<operationId>.json (never overwrites)',
    '',
    'Flags:',
    '  --set NAME=VALUE   define a placeholder variable (repeatable); it wins over stack file paths.',
    '                     VALUE @last.PATH takes a dotted path of the previous invocation\'s JSON answer',
    '                     (kept in .local/invoke-last.json), e.g. --set companyId=@last.id, --set jobId=@last.jobId',
    '  --as CLIENT        fill every {{token:...}} with a token of CLIENT (a client of the stack file) instead',
    `  --stack FILE       the local stack file (default ${defaultStackFile})`,
    '  --json             print the handler\'s raw result as JSON instead',
    '  --verbose          also print the resolved event and the authorizer\'s answer on stderr',
    '  --help             this text',
    '',
    'The result goes to stdout; the function\'s logs and the tool\'s notes go to stderr.',
    'Exit codes: 0 invoked (whatever the HTTP status), 1 invocation error, 2 usage error.',
  ].join('\n');

// ---------------------------------------------------------------------------------------------
// Sample events

const sampleHost = 'local.execute-api.eu-north-1.amazonaws.com';
const sampleAgent = 'ledger-invoke-sample/1.0';

/**
 * The sample event of a route (API Gateway HTTP API payload 2.0), derived from the route table:
 * path parameters as placeholders ({{companyId ?? companies.0.id}}: the first seeded company),
 * a system client's token on token routes, an idempotency key on mutations, the contract's request
 * example as body.
 */
export const sampleEvent = (route: RouteDefinition, contract: Pick<DocumentedContract, 'body' | 'requestExample'> | undefined, requestExample: unknown = contract?.requestExample) => {
  const value = (name: string) => (name === 'companyId' ? `{{companyId ?? companies.0.id}}` : `{{${name}}}`);
  const rawPath = route.path.replace(/\{(\w+)\}/g, (_, name: string) => value(name));
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const key = routeKey(route);
  const withBody = route.mutation || contract?.body !== undefined;
  return {
    version: '2.0',
    routeKey: key,
    rawPath,
    rawQueryString: '',
    headers: {
      accept: 'application/json',
      ...(route.auth === 'token' && { authorization: 'Bearer {{token:a-system}}' }),
      ...(withBody && { 'content-type': 'application/json' }),
      host: sampleHost,
      ...(route.mutation && { 'idempotency-key': '{{uuid}}' }),
      'user-agent': sampleAgent,
      'x-forwarded-for': '203.0.113.10',
      'x-forwarded-port': '443',
      'x-forwarded-proto': 'https',
    },
    ...(names.length && { pathParameters: Object.fromEntries(names.map((name) => [name, value(name)])) }),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: sampleHost,
      domainPrefix: 'local',
      http: { method: route.method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.10', userAgent: sampleAgent },
      requestId: '{{uuid}}',
      routeKey: key,
      stage: '$default',
      time: '22/Nov/2025:09:30:00 +0000',
      timeEpoch: 1763803800000,
    },
    ...(withBody && requestExample !== undefined && { body: JSON.stringify(requestExample) }),
    isBase64Encoded: false,
  };
};

/**
 * Writes events/<group>/<operationId>.json from the route table, unless it exists; answers its
 * path. The contracts (every group's schemas) load here only: an invocation does not need them.
 */
export const writeSampleEvent = async (operationId: string, eventsDir = resolve(import.meta.dirname, '../../events')): Promise<string> => {
  const route = routes.find((candidate) => candidate.operationId === operationId);
  if (!route) throw new ToolError(`no route has the operationId ${operationId}`);
  const file = join(eventsDir, route.group, `${operationId}.json`);
  if (existsSync(file)) throw new ToolError(`${file} exists; edit it, or delete it to derive it again`);
  mkdirSync(dirname(file), { recursive: true });
  const { contracts } = await import('../../shared/openapi/document');
  writeFileSync(file, `${JSON.stringify(sampleEvent(route, contracts[route.operationId]), null, 2)}\n`);
  return file;
};

// ---------------------------------------------------------------------------------------------
// Placeholders

const placeholder = /\{\{\s*([^{}]+?)\s*\}\}/g;
const variableName = /^[A-Za-z_][\w-]*$/;

interface Resolver {
  resolve(value: unknown): Promise<unknown>;
}

const createResolver = (
  stack: StackInfo | undefined,
  stackFile: string,
  variables: Map<string, string>,
  asClient: string | undefined,
): Resolver => {
  const tokens = new Map<string, Promise<string>>();
  const needStack = (what: string): StackInfo => {
    if (!stack) throw new ToolError(`${what} needs the local stack, but there is no stack file at ${resolve(stackFile)}. ${noStackMessage}.`);
    return stack;
  };

  const fetchToken = async (clientName: string): Promise<string> => {
    const info = needStack(`{{token:${clientName}}}`);
    const client = info.clients.find((candidate) => candidate.name === clientName);
    if (!client) {
      throw new ToolError(`{{token:${clientName}}}: no client ${clientName} in the stack file; known: ${info.clients.map((c) => c.name).join(', ')}`);
    }
    let response: Response;
    try {
      response = await fetch(info.authUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const reason = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new ToolError(`Cannot reach the token endpoint ${info.authUrl} (${reason}): is the local stack running? ${noStackMessage}.`);
    }
    const text = await response.text();
    if (response.status !== 200) throw new ToolError(`The token endpoint answered ${response.status} for client ${clientName}: ${text}`);
    return (JSON.parse(text) as { access_token: string }).access_token;
  };

  const alternative = async (expression: string): Promise<string | undefined> => {
    if (variables.has(expression)) return variables.get(expression);
    if (expression === 'uuid') return randomUUID();
    if (expression.startsWith('token:')) {
      const clientName = asClient ?? expression.slice('token:'.length).trim();
      if (!tokens.has(clientName)) tokens.set(clientName, fetchToken(clientName));
      return tokens.get(clientName);
    }
    if (variableName.test(expression) && !(stack && expression in stack)) return undefined; // an unset variable
    const value = valueAtPath(needStack(`{{${expression}}}`), expression);
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
    return undefined;
  };

  const expression = async (text: string): Promise<string> => {
    const alternatives = text.split('??').map((part) => part.trim());
    for (const candidate of alternatives) {
      const value = await alternative(candidate);
      if (value !== undefined) return value;
    }
    const unset = alternatives.filter((candidate) => variableName.test(candidate) && candidate !== 'uuid');
    if (unset.length) throw new ToolError(`Unresolved placeholder {{${text}}}: pass --set ${unset[0]}=VALUE`);
    throw new ToolError(`Unresolved placeholder {{${text}}}: no such value in the stack file`);
  };

  const resolveString = async (text: string): Promise<string> => {
    const parts: (string | Promise<string>)[] = [];
    let last = 0;
    for (const match of text.matchAll(placeholder)) {
      parts.push(text.slice(last, match.index), expression(match[1]!));
      last = match.index + match[0].length;
    }
    parts.push(text.slice(last));
    return (await Promise.all(parts)).join('');
  };

  const walk = async (value: unknown): Promise<unknown> => {
    if (typeof value === 'string') return resolveString(value);
    if (Array.isArray(value)) return Promise.all(value.map(walk));
    if (value && typeof value === 'object') {
      const entries = await Promise.all(Object.entries(value).map(async ([key, inner]) => [await resolveString(key), await walk(inner)] as const));
      return Object.fromEntries(entries);
    }
    return value;
  };

  return { resolve: walk };
};

// ---------------------------------------------------------------------------------------------
// Invocation

type LambdaHandler = Awaited<ReturnType<typeof loadHandler>>;

interface HttpEventShape {
  version?: string;
  routeKey?: string;
  rawPath?: string;
  rawQueryString?: string;
  cookies?: string[];
  headers?: Record<string, string>;
  queryStringParameters?: Record<string, string>;
  pathParameters?: Record<string, string>;
  requestContext?: { http?: { method?: string }; authorizer?: unknown; [key: string]: unknown };
  type?: string;
}

interface LambdaResult {
  statusCode?: number;
  headers?: Record<string, string | number | boolean>;
  multiValueHeaders?: Record<string, (string | number | boolean)[]>;
  cookies?: string[];
  body?: string;
  isBase64Encoded?: boolean;
}

/** Invokes with Lambda's timeout: a handler still running then is "Task timed out". */
const invokeWithTimeout = async (handler: LambdaHandler, event: unknown, functionName: string, timeoutSeconds: number): Promise<unknown> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ToolError(`Task timed out after ${timeoutSeconds.toFixed(2)} seconds`)), timeoutSeconds * 1000);
    timer.unref();
  });
  try {
    return await Promise.race([handler(event, lambdaContext(functionName, timeoutSeconds)), timeout]);
  } finally {
    clearTimeout(timer);
  }
};

/** The authorizer's REQUEST event for an HTTP event, as infra/local/gateway.ts builds it. */
const authorizerEventFor = (event: HttpEventShape): APIGatewayRequestAuthorizerEventV2 => {
  const method = event.requestContext?.http?.method ?? event.routeKey?.split(' ')[0] ?? 'GET';
  return {
    version: '2.0',
    type: 'REQUEST',
    routeArn: `arn:aws:execute-api:${process.env.AWS_REGION}:000000000000:local/$default/${method}${event.rawPath ?? '/'}`,
    identitySource: [], // the HTTP API authorizer has no identity source (infra/stacks/api-stack.ts)
    routeKey: event.routeKey ?? '$default',
    rawPath: event.rawPath ?? '/',
    rawQueryString: event.rawQueryString ?? '',
    cookies: event.cookies ?? [],
    headers: event.headers ?? {},
    queryStringParameters: event.queryStringParameters ?? {},
    requestContext: event.requestContext as unknown as APIGatewayRequestAuthorizerEventV2['requestContext'],
    pathParameters: event.pathParameters ?? {},
    stageVariables: {},
  };
};

const textual = /^(text\/|application\/([a-z0-9.+-]*\+)?(json|xml|x-www-form-urlencoded|javascript))/i;

const printHttpResult = (result: LambdaResult, io: ToolIo): void => {
  const status = result.statusCode ?? 200;
  io.out(`HTTP ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd());
  const headers = Object.entries(result.headers ?? {});
  for (const [name, value] of headers) io.out(`${name}: ${String(value)}`);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) for (const value of values) io.out(`${name}: ${String(value)}`);
  for (const cookie of result.cookies ?? []) io.out(`Set-Cookie: ${cookie}`);
  const contentType = String(headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '');
  let body = result.body ?? '';
  if (result.isBase64Encoded) {
    const bytes = Buffer.from(body, 'base64');
    if (!textual.test(contentType)) {
      io.out('');
      io.out(`<${bytes.length} bytes of ${contentType || 'binary data'}, base64-encoded>`);
      return;
    }
    body = bytes.toString('utf8');
  }
  if (!body) return;
  io.out('');
  let pretty = body;
  if (/json/i.test(contentType) || /^\s*[{[]/.test(body)) {
    try {
      pretty = JSON.stringify(parseJsonKeepingNumbers(body), null, 2); // amounts as answered: 1250.00, every digit
    } catch {
      // not JSON after all: print as is
    }
  }
  for (const line of pretty.split('\n')) io.out(line);
};

const printJson = (value: unknown, io: ToolIo): void => {
  for (const line of JSON.stringify(value, null, 2).split('\n')) io.out(line);
};

const readEvent = (file: string): unknown => {
  const path = resolve(file);
  if (!existsSync(path)) throw new ToolError(`No event file at ${path}`);
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ToolError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
};

const errorLines = (error: unknown): string[] => {
  const err = error as { name?: string; message?: string; stack?: string };
  const head = `${err?.name ?? 'Error'}: ${err?.message ?? String(error)}`;
  const trace = (err?.stack ?? '').split('\n').slice(1).map((line) => `  ${line.trim()}`);
  return [head, ...trace];
};

// ---------------------------------------------------------------------------------------------
// The previous answer (--set NAME=@last.PATH)

/** Where the JSON body of the last invocation is kept: beside the stack file. */
export const lastAnswerFile = (stackFile: string): string => join(dirname(resolve(stackFile)), 'invoke-last.json');

const keepLastAnswer = (file: string, result: unknown): void => {
  const body = result && typeof result === 'object' && 'body' in result ? (result as LambdaResult).body : undefined;
  if (typeof body !== 'string' || body === '') return;
  try {
    const parsed: unknown = parseJsonKeepingNumbers(body); // amounts as answered: 1250.00, every digit
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(parsed, null, 2)}\n`);
  } catch {
    // not JSON: nothing to take ids from
  }
};

/** `@last.id`, `@last.data.0.id`: a value of the previous invocation's JSON answer. */
export const fromLastAnswer = (file: string, reference: string): string => {
  const match = /^@last(?:\.(.+))?$/.exec(reference);
  if (!match?.[1]) throw new ToolError(`${reference}: write @last.PATH, e.g. @last.id`);
  if (!existsSync(file)) throw new ToolError(`${reference}: no previous answer yet (${file}); invoke something first`);
  // Each number as its text, as answered: `@last.data.0.amount` is 1250.00, every digit (a JS number gives 1250).
  let value: unknown = JSON.parse(readFileSync(file, 'utf8'), (_key, item: unknown, context?: { source?: string }) =>
    typeof item === 'number' && context?.source !== undefined ? context.source : item,
  );
  for (const key of match[1].split('.')) {
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  }
  if (value === undefined || value === null || typeof value === 'object') {
    throw new ToolError(`${reference}: the previous answer has no value at ${match[1]}`);
  }
  return String(value);
};

export const runInvoke = async (argv: string[], io: ToolIo): Promise<number> => {
  const usageError = (message: string) => {
    io.err(`error: ${message}`);
    io.err('');
    for (const line of invokeUsage().split('\n')) io.err(line);
    return 2;
  };

  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        set: { type: 'string', multiple: true },
        as: { type: 'string' },
        stack: { type: 'string' },
        json: { type: 'boolean' },
        'write-sample': { type: 'string' },
        verbose: { type: 'boolean', short: 'v' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    return usageError((error as Error).message.split('\n')[0]!);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    for (const line of invokeUsage().split('\n')) io.out(line);
    return 0;
  }
  if (values['write-sample'] !== undefined) {
    if (positionals.length) return usageError(`unexpected argument ${positionals[0]}`);
    try {
      io.out(`Wrote ${await writeSampleEvent(values['write-sample'])}`);
      return 0;
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      io.err(`error: ${error.message}`);
      return 1;
    }
  }
  const [functionName, eventFile, ...extra] = positionals;
  if (!functionName || !eventFile) return usageError('give a function and an event file');
  if (extra.length) return usageError(`unexpected argument ${extra[0]}`);
  if (!(functionNames as readonly string[]).includes(functionName)) {
    return usageError(`unknown function ${functionName}; one of ${functionNames.join(', ')}`);
  }
  const variables = new Map<string, string>();
  const stackFile = values.stack ?? defaultStackFile;
  const lastFile = lastAnswerFile(stackFile);
  for (const assignment of values.set ?? []) {
    const equals = assignment.indexOf('=');
    const name = equals > 0 ? assignment.slice(0, equals).trim() : '';
    if (!name) return usageError(`--set takes NAME=VALUE, not ${assignment}`);
    const value = assignment.slice(equals + 1);
    try {
      variables.set(name, value.startsWith('@last') ? fromLastAnswer(lastFile, value) : value);
    } catch (error) {
      io.err(`error: ${(error as Error).message}`);
      return 1;
    }
  }
  const fn = functionName as FunctionName;

  try {
    let stack: StackInfo | undefined;
    if (values.stack || existsSync(resolve(stackFile))) {
      stack = readStackFile(stackFile);
      applyStackEnv(stack);
    }

    const template = readEvent(eventFile);
    if (!template || typeof template !== 'object' || Array.isArray(template)) throw new ToolError(`${eventFile}: an event is a JSON object`);
    const event = (await createResolver(stack, stackFile, variables, values.as).resolve(template)) as HttpEventShape;

    if (fn === authorizerFunction) {
      if (event.type !== 'REQUEST') io.err(`warning: ${eventFile} is not a REQUEST authorizer event (type ${String(event.type)})`);
      if (values.verbose) {
        io.err('event:');
        for (const line of JSON.stringify(event, null, 2).split('\n')) io.err(line);
      }
      const authorizer = await loadHandler(authorizerEntry);
      const decision = await invokeWithTimeout(authorizer, event, authorizerFunction, authorizerTimeoutSeconds);
      printJson(decision, io);
      return 0;
    }

    const group = fn;
    if (event.type === 'REQUEST') io.err(`warning: ${eventFile} looks like an authorizer event; invoke it with the authorizer function`);
    const route = routes.find((candidate) => routeKey(candidate) === event.routeKey);
    if (route && route.group !== group) io.err(`warning: ${event.routeKey} is served by the ${route.group} function, not ${group}`);
    if (!route && event.routeKey !== '$default') io.err(`warning: no route ${String(event.routeKey)} in shared/routes.ts; API Gateway would send it to fallback`);

    if (route?.auth === 'token' && event.requestContext && event.requestContext.authorizer === undefined) {
      const authorizer = await loadHandler(authorizerEntry);
      const decision = (await invokeWithTimeout(authorizer, authorizerEventFor(event), authorizerFunction, authorizerTimeoutSeconds)) as {
        isAuthorized: boolean;
        context?: unknown;
      };
      if (values.verbose) {
        io.err('authorizer:');
        for (const line of JSON.stringify(decision, null, 2).split('\n')) io.err(line);
      }
      if (!decision.isAuthorized) {
        // API Gateway answers itself and never invokes the function.
        io.err('The authorizer denied the request; API Gateway answers 403 without invoking the function.');
        const denied = { statusCode: 403, headers: { 'Content-Type': 'application/json' }, body: '{"message":"Forbidden"}' };
        if (values.json) printJson(denied, io);
        else printHttpResult(denied, io);
        return 0;
      }
      event.requestContext.authorizer = { lambda: decision.context };
    }
    if (values.verbose) {
      io.err('event:');
      for (const line of JSON.stringify(event, null, 2).split('\n')) io.err(line);
    }

    const handler = await loadHandler(functionGroups[group].entry);
    const started = performance.now();
    const result = (await invokeWithTimeout(handler, event, group, functionGroups[group].timeoutSeconds)) as LambdaResult;
    if (values.verbose) io.err(`${group}: ${(performance.now() - started).toFixed(0)} ms`);
    if (values.json) printJson(result, io);
    else if (result && typeof result === 'object' && 'statusCode' in result) printHttpResult(result, io);
    else printJson(result, io);
    keepLastAnswer(lastFile, result);
    return 0;
  } catch (error) {
    if (error instanceof ToolError) {
      io.err(`error: ${error.message}`);
      return 1;
    }
    if (isConnectionRefused(error)) {
      io.err(`error: cannot reach the local stack (${(error as Error).message.split('\n')[0]}): is it running? ${noStackMessage}.`);
      return 1;
    }
    io.err('Invocation failed:');
    for (const line of errorLines(error)) io.err(line);
    return 1;
  }
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // As `sam local invoke` does: the result on stdout, the function's own logs (Powertools writes
  // them to process.stdout) on stderr, so the output stays parseable.
  const writeOut = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr);
  const code = await runInvoke(process.argv.slice(2), {
    out: (line) => writeOut(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
  process.exitCode = code;
}
