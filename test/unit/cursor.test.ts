import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../shared/platform/cursor';
import { resetConfig } from '../../shared/platform/config';

const changed = { TABLE_NAME: 'unit', JWT_ISSUER: 'http://issuer', CURSOR_SECRET: 'unit-test-secret' };
const before = Object.fromEntries(Object.keys(changed).map((name) => [name, process.env[name]]));
beforeAll(() => {
  Object.assign(process.env, changed);
  resetConfig();
});
// One worker runs many unit files: leave the environment as it was.
afterAll(() => {
  for (const [name, value] of Object.entries(before)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetConfig();
});

const binding = { caller: 'client-a', operationId: 'listThings', filters: { year: 2025, account: '1920' } };
const startKey = { PK: 'COMPANY#1', SK: 'LINE#00042' };

describe('signed cursors', () => {
  it('round-trips the start key for the same caller, operation and filters (filter order irrelevant)', async () => {
    const cursor = await encodeCursor(startKey, binding);
    expect(await decodeCursor(cursor, { ...binding, filters: { account: '1920', year: 2025 } })).toEqual(startKey);
  });

  it.each([
    ['another client', { ...binding, caller: 'client-b' }],
    ['another person of the same client', { ...binding, caller: 'client-a/person-b' }],
    ['another operation', { ...binding, operationId: 'listOther' }],
    ['a changed filter', { ...binding, filters: { year: 2024, account: '1920' } }],
    ['an added filter', { ...binding, filters: { ...binding.filters, period: 3 } }],
  ])('refuses it for %s with invalid_cursor', async (_case, other) => {
    const cursor = await encodeCursor(startKey, binding);
    await expect(decodeCursor(cursor, other)).rejects.toMatchObject({ problem: { status: 400, error: 'invalid_cursor' } });
  });

  it('is opaque: the key is not readable as plain text', async () => {
    const cursor = await encodeCursor(startKey, binding);
    expect(cursor).not.toContain('COMPANY');
  });
});
