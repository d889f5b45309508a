import type { Decimal } from './money';

/**
 * A decimal.js instance, of any Decimal constructor (clones too), known without loading decimal.js
 * (functions that never handle an amount do not bundle it): each carries the tag on its prototype.
 * A symbol, so no parsed JSON can pass for one (decimal.js's own isDecimal also takes a plain
 * `toStringTag` property).
 */
const isDecimal = (value: unknown): value is Decimal =>
  typeof value === 'object' && value !== null && (value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === 'Decimal';

/**
 * JSON for responses. Decimal values are written as JSON numbers with explicit decimals
 * (1250 -> 1250.00, 0.1234 -> 0.1234), which JSON.stringify cannot do: they pass through a marker string
 * that is then unquoted. No amount is ever a JS number on the way.
 */
const marker = '\u0000decimal:';
const markerPattern = /"\\u0000decimal:(-?\d+(?:\.\d+)?)"/g;

/** Amounts on reads carry at least two decimals, and every further decimal they have (imports allow four). */
export const amountScale = 2;

export const stringifyJson = (value: unknown): string =>
  JSON.stringify(value, function replacer(this: unknown, key: string, item: unknown) {
    const original = (this as Record<string, unknown>)[key];
    if (isDecimal(original)) return `${marker}${formatAmount(original)}`;
    return item;
  }).replace(markerPattern, '$1');

/** Fixed-point text of an amount with at least `minimumScale` decimals, exact: decimal.js, never floats. */
export const formatAmount = (amount: Decimal, minimumScale = amountScale): string =>
  amount.toFixed(Math.max(minimumScale, amount.decimalPlaces()));

/** JSON.rawJSON (Node.js 21 and later): a value that JSON.stringify writes as exactly the text it was given. */
const { rawJSON } = JSON as unknown as { rawJSON?: (text: string) => object };

/**
 * Parses JSON and keeps every number as it was written: each becomes a raw JSON value that
 * JSON.stringify writes back verbatim (999999999999999.99 and 1250.00 stay so, where a JS number
 * would give 1000000000000000 and 1250). For answers passed on as objects to a serializer that is
 * not ours (the MCP SDK's structuredContent). The numbers are opaque objects until written.
 */
export const parseJsonKeepingNumbers = (text: string): unknown => {
  if (!rawJSON) throw new Error(`JSON.rawJSON is missing (Node.js ${process.version}): amounts would lose digits; run on Node.js 22`);
  return JSON.parse(text, (_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && context?.source !== undefined ? rawJSON(context.source) : value,
  );
};
