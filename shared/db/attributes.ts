import { NumberValue } from '@aws-sdk/lib-dynamodb';

/** Keys and items of the table, as the document client reads and writes them. */
export type Key = { PK: string; SK: string };
export type Item = Record<string, unknown>;

/** One string per key, for maps of items by key. */
export const keyId = (key: Key) => `${key.PK}\u0000${key.SK}`;

/** Reading stored attributes: a string attribute, or null when it is absent (or not a string). */
export const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * A stored integer (counts, versions, periods, years, epoch milliseconds) as a JS number, whether
 * read with wrapNumbers (NumberValue) or not; 0 when absent. Money is never read with this
 * (shared/platform/money.ts fromStoredNumber keeps it decimal).
 */
export const storedInteger = (value: unknown): number => {
  if (value === undefined || value === null) return 0;
  return Number(value instanceof NumberValue ? value.toString() : String(value));
};

/** As storedInteger, but null when the attribute is absent. */
export const storedIntegerOrNull = (value: unknown): number | null => (value === undefined || value === null ? null : storedInteger(value));

/** A month or period number as two digits, as sort keys hold it. */
export const pad2 = (n: number) => String(n).padStart(2, '0');
