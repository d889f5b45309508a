import Decimal from 'decimal.js';
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { isLosslessNumber } from 'lossless-json';

/**
 * Money is decimal.js from the request text to DynamoDB and back. 40 significant digits hold
 * any sum of ledger amounts exactly; plain notation always (no exponents in stored or sent text).
 */
Decimal.set({ precision: 40, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -40, toExpPos: 40 });

export { Decimal };

/** Imports accept at most four decimals. */
export const maxImportDecimals = 4;

/**
 * Imports accept at most 18 digits before the decimal point (|amount| < 10^18). With four
 * decimals that is 22 significant digits: DynamoDB keeps 38, so an amount is always storable and
 * the sums the ledger keeps of them (trial balance, VAT and reconciliation counters) stay exact.
 */
export const maxImportIntegerDigits = 18;
const importAmountBound = new Decimal(10).pow(maxImportIntegerDigits);

/**
 * The one grammar of a decimal in request text (general rule 5: a *decimal* string): an optional
 * minus, digits, and optionally a point with digits. Nothing else: no sign `+`, no blanks, no
 * `.5` or `5.`, no exponent. The digits are then bounded: at most maxImportIntegerDigits before
 * the point and maxImportDecimals after it (decimalStringPattern, for the OpenAPI document).
 */
const decimalStringText = /^-?(\d+)(?:\.(\d+))?$/;
export const decimalStringPattern = `^-?\\d{1,${maxImportIntegerDigits}}(\\.\\d{1,${maxImportDecimals}})?$`;
/** A JSON number's source text (lossless-json has checked its grammar): the exponent is allowed. */
const jsonNumberText = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** Why an imported amount is refused; undefined when it is a decimal. */
export type AmountProblem = 'not_a_decimal' | 'exponent_in_string' | 'too_many_decimals' | 'too_many_integer_digits';

/**
 * An imported amount: a decimal string of the grammar above, or a JSON number judged on its
 * source text (parsed with lossless-json) by value, never through a JS float. A JSON number may
 * be written with an exponent (`1e-5` is judged as 0.00001) or trailing zeros (`1.50000` is 1.5);
 * a string may not (`"1e2"` and `"1.50000"` are refused). Either way at most `decimals` decimals
 * and maxImportIntegerDigits digits before the point.
 */
export const readAmount = (value: unknown, decimals = maxImportDecimals): { amount: Decimal } | { problem: AmountProblem } => {
  if (isLosslessNumber(value)) {
    if (!jsonNumberText.test(value.value)) return { problem: 'not_a_decimal' };
    const amount = new Decimal(value.value);
    if (!amount.isFinite()) return { problem: 'not_a_decimal' };
    if (amount.decimalPlaces() > decimals) return { problem: 'too_many_decimals' };
    return withinImportBound(amount) ? { amount } : { problem: 'too_many_integer_digits' };
  }
  if (typeof value !== 'string') return { problem: 'not_a_decimal' };
  const match = decimalStringText.exec(value);
  if (!match) return { problem: /^-?\d+(\.\d+)?[eE][+-]?\d+$/.test(value) ? 'exponent_in_string' : 'not_a_decimal' };
  if ((match[2]?.length ?? 0) > decimals) return { problem: 'too_many_decimals' };
  if (match[1]!.length > maxImportIntegerDigits) return { problem: 'too_many_integer_digits' };
  return { amount: new Decimal(value) };
};

/** Whether a decimal has at most maxImportIntegerDigits digits before the decimal point. */
export const withinImportBound = (amount: Decimal): boolean => amount.abs().lessThan(importAmountBound);

/** For DynamoDB: a Number attribute carrying the exact decimal text. */
export const toStoredNumber = (amount: Decimal): NumberValue => NumberValue.from(amount.toString());

/** From DynamoDB (read with wrapNumbers, or a plain number/string from older items). */
/** A stored optional amount: null when the attribute is absent. */
export const fromStoredNumberOrNull = (value: unknown): Decimal | null => (value === undefined || value === null ? null : fromStoredNumber(value));

export const fromStoredNumber = (value: unknown): Decimal => {
  if (value === undefined || value === null) return new Decimal(0);
  if (value instanceof NumberValue) return new Decimal(value.toString());
  return new Decimal(String(value));
};
