import type { StackInfo } from '../local/stack';
import { applyStackEnv, defaultStackFile, readStackFile, ToolError } from './stack-env';

/** What the admin CLI's commands share: its flags, how they are read, and how a command prints. */

export const options = {
  name: { type: 'string' },
  parent: { type: 'string' },
  id: { type: 'string' },
  organization: { type: 'string' },
  'accounting-system': { type: 'string' },
  'organization-number': { type: 'string' },
  scopes: { type: 'string' },
  plan: { type: 'string' },
  'rate-limit': { type: 'string' },
  'client-id': { type: 'string' },
  company: { type: 'string' },
  file: { type: 'string' },
  'gl-account': { type: 'string' },
  year: { type: 'string' },
  period: { type: 'string' },
  status: { type: 'string' },
  by: { type: 'string' },
  email: { type: 'string' },
  password: { type: 'string' },
  user: { type: 'string' },
  queue: { type: 'string' },
  max: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'older-than': { type: 'string' },
  yes: { type: 'boolean' },
  'resource-prefix': { type: 'string' },
  stack: { type: 'string' },
  table: { type: 'string' },
  'outbox-table': { type: 'string' },
  'user-pool-id': { type: 'string' },
  region: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The target and output options every command takes (--stack, --table, --json, ...). */
type CommonOption = 'resource-prefix' | 'stack' | 'table' | 'outbox-table' | 'user-pool-id' | 'region' | 'json' | 'help';

/** A flag a command may require or take (CommandSpec in admin.ts). */
export type Flag = Exclude<keyof typeof options, CommonOption>;

export class UsageError extends Error {}

/** A destructive command on AWS without --yes: refused (exit 2) in one line saying what it would do, before AWS is touched. */
export class ConfirmationError extends Error {}

/** A failure of a deletion that had started (delete-organization, delete-user): running the command again finishes it. */
export class StoppedPartWay extends Error {
  readonly failure: unknown;
  constructor(failure: unknown) {
    super('the deletion stopped part-way');
    this.failure = failure;
  }
}

export type Values = { [K in keyof typeof options]?: (typeof options)[K]['type'] extends 'boolean' ? boolean : string };

export const requireFlag = (values: Values, flag: Flag): string => {
  const value = values[flag];
  if (typeof value !== 'string') throw new UsageError(`--${flag} is required`);
  return value;
};

export const nonBlank = (value: string, flag: Flag): string => {
  const trimmed = value.trim();
  if (!trimmed) throw new ToolError(`--${flag} must not be blank`);
  return trimmed;
};

export const table = (header: string[], rows: string[][]): string[] => {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)];
};

export const shortTime = (iso: string | undefined): string => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '');

export interface Printer {
  json(value: unknown): void;
  lines(...lines: string[]): void;
  /** A progress line on stderr (not with --json's stdout). */
  progress(line: string): void;
}

export const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The id flags and the ids the service gives: UUIDs (randomUUID), and client ids as Cognito
 * takes them ([\w+]{1,128}; the local issuer's are 26 of a-z0-9). Checked before any lookup, so
 * a malformed one is a one-line refusal, not a DynamoDB or Cognito error.
 */
const idFlags: { flag: Flag; what: string; format: RegExp }[] = [
  { flag: 'id', what: 'an organization id (a UUID)', format: uuid },
  { flag: 'parent', what: 'an organization id (a UUID)', format: uuid },
  { flag: 'organization', what: 'an organization id (a UUID)', format: uuid },
  { flag: 'company', what: 'a company id (a UUID)', format: uuid },
  { flag: 'user', what: 'a user id (a UUID)', format: uuid },
  { flag: 'client-id', what: 'a client id (up to 128 letters, digits, _ and +)', format: /^[\w+]{1,128}$/ },
];

/** A flag value in a message: quoted, at most 40 characters, control and format characters escaped. */
const shownValue = (value: string): string => {
  const quoted = JSON.stringify(value.length > 40 ? `${value.slice(0, 39)}…` : value).replace(/[\p{Cc}\p{Cf}]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
  return value.length > 40 ? `${quoted} (${value.length} characters)` : quoted;
};

export const checkIdFlags = (values: Values): void => {
  for (const { flag, what, format } of idFlags) {
    const value = values[flag];
    if (typeof value === 'string' && !format.test(value)) throw new ToolError(`--${flag} must be ${what}, not ${shownValue(value)}`);
  }
};

export const integerFlag = (values: Values, flag: Flag, min: number, max: number): number => {
  const text = requireFlag(values, flag);
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) throw new ToolError(`--${flag} must be an integer from ${min} to ${max}, not ${text}`);
  return value;
};

/** The local stack of --stack (or .local/stack.json), its environment applied; without a stack file, says to start one or to pass `instead`. */
export const useLocalStack = (values: Values, instead: string): StackInfo => {
  let info: StackInfo;
  try {
    info = readStackFile(values.stack ?? defaultStackFile);
  } catch (error) {
    if (error instanceof ToolError && !values.stack && /^No stack file/.test(error.message)) {
      throw new ToolError(`Start the local stack with npm start first, or pass ${instead}`);
    }
    throw error;
  }
  applyStackEnv(info);
  return info;
};
