import { isLosslessNumber } from 'lossless-json';
import { Decimal, maxImportDecimals, parseAmount } from '../platform/money';
import { z } from '../platform/zod';

/**
 * Field schemas for import bodies. Import bodies are parsed with lossless-json, so every JSON
 * number arrives as its source text (LosslessNumber): amounts are judged on that text, never on
 * a float, and integers are checked to be exact.
 */
export const amountSchema = z
  .unknown()
  .transform((value, ctx): Decimal => {
    const amount = parseAmount(value);
    if (!amount) {
      ctx.addIssue({ code: 'custom', message: 'must be a decimal amount (a string like "1250.50" or a JSON number)' });
      return z.NEVER;
    }
    if (amount.decimalPlaces() > maxImportDecimals) {
      ctx.addIssue({ code: 'custom', message: `must have at most ${maxImportDecimals} decimals` });
      return z.NEVER;
    }
    return amount;
  })
  .openapi({
    type: 'string',
    format: 'decimal',
    description: 'Decimal string (preferred) or JSON number, at most 4 decimals; judged on its source text',
    example: '1250.50',
  });

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

export const yearSchema = integerSchema(1900, 2999).openapi({ description: 'Accounting year', example: 2025 });
export const periodSchema = integerSchema(1, 12).openapi({ description: 'Accounting period 1 to 12', example: 3 });

/** The integrator's own stable row id: lines are merged by it; it must not contain ':'. */
export const sourceIdSchema = z
  .string()
  .min(1)
  .max(200)
  .refine((id) => !id.includes(':'), "must not contain ':'")
  .openapi({ description: "The integrator's stable id of the row (no ':')" });

/** Keys of dimensions and sub-ledgers: the integrator's, stable, unique per company. */
export const keySchema = z.string().trim().min(1).max(200);

export const accountCodeSchema = z.string().trim().min(1).max(20).regex(/^[^#\s]+$/, 'must not contain spaces or #').openapi({ example: '1920' });

export const dateSchema = z.iso.date().openapi({ format: 'date', example: '2025-03-31' });

/** Most rows any import request may hold (spec: Limits). */
export const maxImportRows = 10_000;
