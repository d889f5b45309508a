import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { config } from './config';
import { problems } from './problem';
import { traced } from './tracer';
import { compareCodeUnits } from './text';

/**
 * Opaque page cursors: the DynamoDB start key, signed with HMAC-SHA256 and bound to the caller,
 * the operation and the exact filters. A tampered, foreign or filter-mismatched cursor is
 * answered 400 invalid_cursor.
 */
export interface CursorBinding {
  /** Whose cursor it is: the principal's callerKey (the client; for an interactive session the client and the person). */
  caller: string;
  operationId: string;
  /** Every filter of the list except cursor and page_size. */
  filters: Record<string, unknown>;
}

/** Who lists: the binding without its filters. */
export type CursorCaller = Omit<CursorBinding, 'filters'>;

let secret: Promise<string> | undefined;

const cursorSecret = (): Promise<string> => {
  secret ??= (async () => {
    const { cursorSecret: direct, cursorSecretArn, region } = config();
    if (direct) return direct;
    if (!cursorSecretArn) throw new Error('Neither CURSOR_SECRET nor CURSOR_SECRET_ARN is set');
    const client = traced(new SecretsManagerClient({ region }));
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: cursorSecretArn }));
    if (!SecretString) throw new Error('Cursor secret is empty');
    return SecretString;
  })();
  return secret;
};

const bindingDigest = (binding: CursorBinding): string =>
  createHash('sha256')
    .update(JSON.stringify([binding.caller, binding.operationId, sortedEntries(binding.filters)]))
    .digest('base64url');

const sortedEntries = (filters: Record<string, unknown>) =>
  Object.entries(filters)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => compareCodeUnits(a, b));

const sign = async (payload: string, binding: CursorBinding): Promise<string> =>
  createHmac('sha256', await cursorSecret()).update(`${payload}.${bindingDigest(binding)}`).digest('base64url');

export const encodeCursor = async (startKey: Record<string, unknown>, binding: CursorBinding): Promise<string> => {
  const payload = Buffer.from(JSON.stringify(startKey)).toString('base64url');
  return `${payload}.${await sign(payload, binding)}`;
};

export const decodeCursor = async (cursor: string, binding: CursorBinding): Promise<Record<string, unknown>> => {
  const [payload, signature, extra] = cursor.split('.');
  const restart = 'restart from the first page without a cursor';
  if (!payload || !signature || extra !== undefined) throw problems.invalidCursor(`The cursor is malformed; ${restart}.`);
  const expected = Buffer.from(await sign(payload, binding));
  const actual = Buffer.from(signature);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
    throw problems.invalidCursor(`The cursor does not belong to this caller, operation and filters; ${restart}.`);
  }
  const startKey: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  if (!startKey || typeof startKey !== 'object') throw problems.invalidCursor(`The cursor is malformed; ${restart}.`);
  return startKey as Record<string, unknown>;
};
