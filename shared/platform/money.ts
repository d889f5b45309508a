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

const decimalText = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * An imported amount: a decimal string, or a JSON number judged on its source text (parsed with
 * lossless-json), never through a JS float. Returns undefined when it is not a decimal.
 */
export const parseAmount = (value: unknown): Decimal | undefined => {
  const text = isLosslessNumber(value) ? value.value : typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined || !decimalText.test(text)) return undefined;
  return new Decimal(text);
};

/** For DynamoDB: a Number attribute carrying the exact decimal text. */
export const toStoredNumber = (amount: Decimal): NumberValue => NumberValue.from(amount.toString());

/** From DynamoDB (read with wrapNumbers, or a plain number/string from older items). */
export const fromStoredNumber = (value: unknown): Decimal => {
  if (value === undefined || value === null) return new Decimal(0);
  if (value instanceof NumberValue) return new Decimal(value.toString());
  return new Decimal(String(value));
};
