import type { z } from 'zod';
import './zod'; // installs the integrator-facing validation messages
import { problems, type FieldError } from './problem';

/** Where a value came from, for the detail text and field names of validation problems. */
export type InputPart = 'body' | 'query' | 'path' | 'header';

/** zod issues as the Problem's errors[]: field is the dotted path after an array index, index the array position. */
export const toFieldErrors = (issues: readonly z.core.$ZodIssue[], arrayField?: string): FieldError[] =>
  issues.flatMap(expandUnknownKeys).slice(0, 100).map((issue) => {
    const path = issue.path.map(String);
    if (arrayField && path[0] === arrayField && /^\d+$/.test(path[1] ?? '')) {
      return { index: Number(path[1]), field: path.slice(2).join('.') || arrayField, message: issue.message };
    }
    return { field: path.join('.') || '(root)', message: issue.message };
  });

/** Validates one part of a request; failures are 400 validation_failed naming each field. */
export const parseInput = <S extends z.ZodType>(schema: S, value: unknown, part: InputPart): z.infer<S> => {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = toFieldErrors(result.error.issues);
  const fields = [...new Set(errors.map((e) => e.field))].join(', ');
  throw problems.validation(`Invalid ${part}: ${fields}.`, errors);
};

/** One error per unknown field, each naming the field, instead of one nameless issue. */
const expandUnknownKeys = (issue: z.core.$ZodIssue): z.core.$ZodIssue[] =>
  issue.code === 'unrecognized_keys'
    ? issue.keys.map((key) => ({ ...issue, path: [...issue.path, key], message: 'Unknown field' }))
    : [issue];
