import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { queues } from '../../shared/queues';
import { resetConfig } from '../../shared/platform/config';
import { applyLocalAwsEnv } from '../local/aws-env';
import type { StackInfo } from '../local/stack';

/**
 * Shared by the developer tools (admin, invoke): find the local stack's contract file and point
 * this process's shared/ modules at the same stand-ins, as the local stack does for its handlers.
 */
export const defaultStackFile = '.local/stack.json';

export const noStackMessage = 'Start the local stack with npm start first';

/** A failure the tools report as one line (exit 1), never with a stack trace. */
export class ToolError extends Error {}

/** A command line a tool cannot read, reported with the tool's usage (exit 2). */
export class ToolUsageError extends ToolError {}

/** node:util's parseArgs, whose refusal (an unknown option, a missing value, a stray argument) is a ToolUsageError ending with `usage`. */
export const parseToolArgs = <T extends ParseArgsConfig>(config: T, usage: string): ReturnType<typeof parseArgs<T>> => {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new ToolUsageError(`${(error as Error).message}\n\n${usage}`);
  }
};

/** Ends a tool that failed: a ToolError as its message alone (after `prefix`), exit 2 for a command line it cannot read, else 1; anything else in full. */
export const failTool = (error: unknown, prefix = ''): never => {
  console.error(error instanceof ToolError ? `${prefix}${error.message}` : error);
  return process.exit(error instanceof ToolUsageError ? 2 : 1);
};

export const readStackFile = (file: string = defaultStackFile): StackInfo => {
  const path = resolve(file);
  if (!existsSync(path)) throw new ToolError(`No stack file at ${path}. ${noStackMessage}.`);
  let info: StackInfo;
  try {
    info = JSON.parse(readFileSync(path, 'utf8')) as StackInfo;
  } catch (error) {
    throw new ToolError(`${path} is not valid JSON (${(error as Error).message}). ${noStackMessage}.`);
  }
  if (!info || typeof info !== 'object' || !info.internal?.tableName || !info.internal.dynamodbEndpoint) {
    throw new ToolError(`${path} does not look like a local stack file (no internal.tableName / dynamodbEndpoint).`);
  }
  return info;
};

/** The environment the local stack gives its in-process handlers (infra/local/stack.ts). */
export const stackEnv = (info: StackInfo): Record<string, string> => ({
  TABLE_NAME: info.internal.tableName,
  // A stack file written before the control table existed has none; the request pipeline then says so.
  ...(info.internal.controlTableName && { CONTROL_TABLE_NAME: info.internal.controlTableName }),
  // Likewise before the outbox table existed: writing an event then says so.
  ...(info.internal.outboxTableName && { OUTBOX_TABLE_NAME: info.internal.outboxTableName }),
  BUCKET_NAME: info.internal.bucketName,
  DYNAMODB_ENDPOINT: info.internal.dynamodbEndpoint,
  S3_ENDPOINT: info.internal.s3Endpoint,
  SQS_ENDPOINT: info.internal.sqsEndpoint,
  JWT_ISSUER: info.internal.jwtIssuer,
  JWKS_URI: info.internal.jwksUri,
  SCOPE_PREFIX: info.internal.scopePrefix,
  CURSOR_SECRET: info.internal.cursorSecret,
  // A stack file written before stored secrets were sealed has none; sealing then says so.
  ...(info.internal.secretsKey && { LOCAL_SECRETS_KEY: info.internal.secretsKey }),
  TOKEN_URL: info.authUrl,
  API_BASE_URL: info.baseUrl,
  IMPORT_INDEX_WRITES_PER_PARTITION_PER_SECOND: '0', // as the local stack's handlers (unpaced)
  ...Object.fromEntries(
    queues.flatMap((queue) => {
      const local = info.internal.queues?.[queue.name];
      return [...(local?.url ? [[queue.urlEnv, local.url]] : []), ...(queue.dlqUrlEnv && local?.dlqUrl ? [[queue.dlqUrlEnv, local.dlqUrl]] : [])];
    }),
  ),
});

/**
 * Sets the local stack's environment on this process (AWS region and fake credentials included)
 * and drops the cached service config (the DynamoDB client follows it).
 */
export const applyStackEnv = (info: StackInfo, env: NodeJS.ProcessEnv = process.env): void => {
  applyLocalAwsEnv(env);
  if (info.internal.region) env.AWS_REGION = info.internal.region;
  Object.assign(env, stackEnv(info));
  resetConfig();
};

/** Looks up a dotted path ("companies.0.id") in a value; undefined when any step is missing. */
export const valueAtPath = (root: unknown, path: string): unknown => {
  let current: unknown = root;
  for (const step of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
};

/** True when an error (or its cause chain / AggregateError members) is a refused connection. */
export const isConnectionRefused = (error: unknown): boolean => {
  const seen = new Set<unknown>();
  const visit = (candidate: unknown): boolean => {
    if (!candidate || typeof candidate !== 'object' || seen.has(candidate)) return false;
    seen.add(candidate);
    const value = candidate as { code?: unknown; cause?: unknown; errors?: unknown; message?: unknown };
    if (value.code === 'ECONNREFUSED') return true;
    if (typeof value.message === 'string' && value.message.includes('ECONNREFUSED')) return true;
    if (Array.isArray(value.errors) && value.errors.some(visit)) return true;
    return visit(value.cause);
  };
  return visit(error);
};

/**
 * The command line with each value flag joined to its value (`--password=-x`), so that a value may
 * start with a dash (a password, a client secret); parseArgs would take it for a flag.
 */
export const withValuesJoined = (argv: readonly string[], valueFlags: readonly string[]): string[] => {
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (valueFlags.includes(flag) && i + 1 < argv.length) joined.push(`${flag}=${argv[++i]}`);
    else joined.push(flag);
  }
  return joined;
};
