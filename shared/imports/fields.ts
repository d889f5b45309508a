import { lazySchema } from '../platform/lazy-schema';
import { isLosslessNumber } from 'lossless-json';
import { type Decimal, decimalStringPattern, maxImportDecimals, maxImportIntegerDigits, readAmount, type AmountProblem } from '../platform/money';
import { identifier, limits, text, textPattern, withTextRule, YearSchema } from '../platform/schemas';
import * as z from '../platform/zod';

/**
 * Field schemas for import bodies. Import bodies are parsed with lossless-json, so every JSON
 * number arrives as its source text (LosslessNumber): amounts are judged on that text, never on
 * a float, and integers are checked to be exact.
 */

/** The OpenAPI 3.0.3 shape of an imported decimal: a decimal string (preferred) or a JSON number. */
export const decimalInputOpenApi = (options: { description: string; example: string; nullable?: boolean; range?: DecimalRange }) => ({
  oneOf: [
    {
      type: 'string' as const,
      format: 'decimal',
      pattern: decimalStringPattern,
      maxLength: maxDecimalTextLength,
      description: 'Decimal string (preferred), e.g. "1250.50": an optional minus, digits, and optionally a point with 1 to 4 digits; no +, blanks or exponent',
      ...(options.nullable && { nullable: true }),
    },
    {
      type: 'number' as const,
      description: 'JSON number, judged on its source text (an exponent is allowed: 1e-5 is 0.00001)',
      ...(options.range && { minimum: options.range.min, maximum: options.range.max }),
    },
  ],
  description: options.description,
  example: options.example,
});

/** Bounds of a decimal beyond the general ones (a percentage: 0 to 100). */
export interface DecimalRange {
  min: number;
  max: number;
}

/**
 * A decimal of an import (general rule 5): a decimal string (the grammar of
 * shared/platform/money.ts) or a JSON number, with at most `decimals` decimals (spec Limits: 4)
 * and at most 18 digits before the decimal point (this service's bound, so every amount is
 * storable), within `range` when given. Failures are structural, like more than four decimals:
 * 422 with errors[] naming the row and the field.
 */
export const importDecimal = (decimals: number, range?: DecimalRange) =>
  z.unknown().transform((value, ctx): Decimal => checkDecimal(value, decimals, ctx, range));

/**
 * An optional decimal: omitted or null means none. (Not `.nullish()`: the OpenAPI generator would
 * put `nullable` beside `oneOf` without a `type`, which OpenAPI 3.0.3 does not allow; the string
 * alternative carries `nullable` instead.)
 */
export const optionalImportDecimal = (decimals: number, range?: DecimalRange) =>
  z
    .unknown()
    .transform((value, ctx): Decimal | null => (value === null ? null : checkDecimal(value, decimals, ctx, range)))
    .optional();

/** Longest decimal string taken (leading zeros, trailing zeros and spaces included). */
export const maxDecimalTextLength = 64;

const amountMessages = (decimals: number): Record<AmountProblem, string> => ({
  not_a_decimal: 'must be a decimal amount (a string like "1250.50" or a JSON number)',
  exponent_in_string: 'must be a decimal string in decimal notation (like "1250.50"), without an exponent',
  too_many_decimals: `must have at most ${decimals} decimals`,
  too_many_integer_digits: `must have at most ${maxImportIntegerDigits} digits before the decimal point`,
});

const checkDecimal = (value: unknown, decimals: number, ctx: z.core.$RefinementCtx, range?: DecimalRange): Decimal => {
  if (typeof value === 'string' && value.length > maxDecimalTextLength) {
    ctx.addIssue({ code: 'custom', message: `must be a decimal string of at most ${maxDecimalTextLength} characters` });
    return z.NEVER;
  }
  const read = readAmount(value, decimals);
  if ('problem' in read) {
    ctx.addIssue({ code: 'custom', message: amountMessages(decimals)[read.problem] });
    return z.NEVER;
  }
  if (range && (read.amount.lessThan(range.min) || read.amount.greaterThan(range.max))) {
    ctx.addIssue({ code: 'custom', message: `must be between ${range.min} and ${range.max}` });
    return z.NEVER;
  }
  return read.amount;
};

export const amountDescription = `Decimal string (preferred) or JSON number; at most ${maxImportDecimals} decimals and ${maxImportIntegerDigits} digits before the decimal point (|amount| < 10^${maxImportIntegerDigits}); a string is an optional minus, digits, and optionally a point with 1 to ${maxImportDecimals} digits (no +, blanks or exponent)`;

export const amountSchema = /* @__PURE__ */ lazySchema(() => importDecimal(maxImportDecimals).openapi(decimalInputOpenApi({ description: amountDescription, example: '1250.50' })));

/** A tax percentage: a decimal like an amount, from 0 to 100. */
export const percentageRange: DecimalRange = { min: 0, max: 100 };

/** An integer given as a JSON number (or a numeric string), exact. */
export const integerSchema = (min: number, max: number) =>
  z
    .unknown()
    .transform((value, ctx): number => {
      const text = isLosslessNumber(value) ? value.value : typeof value === 'number' ? String(value) : undefined;
      if (text === undefined || !/^-?\d+$/.test(text)) {
        ctx.addIssue({ code: 'custom', message: 'must be an integer' });
        return z.NEVER;
      }
      const number = Number(text);
      if (number < min || number > max) {
        ctx.addIssue({ code: 'custom', message: `must be between ${min} and ${max}` });
        return z.NEVER;
      }
      return number;
    })
    .openapi({ type: 'integer', minimum: min, maximum: max });

export const yearSchema = /* @__PURE__ */ lazySchema(() => integerSchema(1900, 2999).openapi({ description: 'Accounting year', example: 2025 }));
export const periodSchema = /* @__PURE__ */ lazySchema(() => integerSchema(1, 12).openapi({ description: 'Accounting period 1 to 12', example: 3 }));

/** The integrator's own stable row id: lines are merged by it; it must not contain ':'. */
export const sourceIdSchema = /* @__PURE__ */ lazySchema(() => identifier({ max: limits.integratorId, refuse: { characters: ':', message: "must not contain ':'" } }).openapi({
  description: "The integrator's stable id of the row (no ':')",
}));

/** Keys of dimensions and sub-ledgers: the integrator's, stable, unique per company. */
export const keySchema = /* @__PURE__ */ lazySchema(() => text({ max: limits.integratorId }));

export const accountCodeSchema = /* @__PURE__ */ lazySchema(() => withTextRule(
  z
    .string()
    .trim()
    .min(1)
    .max(20)
    .regex(/^[^#\s]+$/, 'must not contain spaces or #'),
).openapi({ pattern: textPattern({ refuse: '#\\s' }), example: '1920' }));

/**
 * A date of an import (GL transactionDate; open items' documentDate, dueDate, matchDate): a
 * calendar date whose year YearSchema takes (1900 to 2999), as every year of the ledger.
 */
export const dateSchema = /* @__PURE__ */ lazySchema(() => {
  const { minValue: first, maxValue: last } = YearSchema;
  return z.iso
    .date()
    .max(limits.date)
    // A value that is no date at all has its format problem only.
    .refine((value) => !/^\d{4}-/.test(value) || YearSchema.safeParse(Number(value.slice(0, 4))).success, `must be a date from year ${first} to ${last}`)
    .openapi({ format: 'date', example: '2025-03-31', description: `A date from year ${first} to ${last}` });
});

/** Most rows any import request may hold (spec: Limits). */
export const maxImportRows = limits.importRows;
/** How many ids an import's result.unknown lists; result.unknownCount counts them all. */
export const maxUnknownListed = 1000;
