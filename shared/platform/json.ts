import { Decimal } from './money';

/**
 * JSON for responses. Decimal values are written as JSON numbers with explicit decimals
 * (1250 -> 1250.00), which JSON.stringify cannot do: they pass through a marker string
 * that is then unquoted. No amount is ever a JS number on the way.
 */
const marker = '\u0000decimal:';
const markerPattern = /"\\u0000decimal:(-?\d+(?:\.\d+)?)"/g;

/** Decimal places written for amounts on reads. */
export const amountScale = 2;

export const stringifyJson = (value: unknown): string =>
  JSON.stringify(value, function replacer(this: unknown, key: string, item: unknown) {
    const original = (this as Record<string, unknown>)[key];
    if (Decimal.isDecimal(original)) return `${marker}${formatAmount(original)}`;
    return item;
  }).replace(markerPattern, '$1');

/** Fixed-point text of an amount, rounded half-up to the read scale: decimal.js, never floats. */
export const formatAmount = (amount: Decimal, scale = amountScale): string =>
  amount.toDecimalPlaces(scale, Decimal.ROUND_HALF_UP).toFixed(scale);
