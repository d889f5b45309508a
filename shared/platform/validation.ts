import type { z } from 'zod';
import './zod'; // installs the integrator-facing validation messages
import { problems, type FieldError } from './problem';
import { clip } from './text';

/** Where a value came from, for the detail text and field names of validation problems. */
export type InputPart = 'body' | 'query' | 'path' | 'header';

/** The longest field name or message a validation problem repeats (an unknown key may be any length). */
const maxEchoed = 200;
const maxDetail = 2000;

/** Text cut to `max` characters, ending with an ellipsis when cut. */

/** zod issues as the Problem's errors[]: field is the dotted path after an array index, index the array position. */
export const toFieldErrors = (issues: readonly z.core.$ZodIssue[], arrayField?: string): FieldError[] =>
  issues.flatMap(expandUnknownKeys).slice(0, 100).map((issue) => {
    const path = issue.path.map(String);
    if (arrayField && path[0] === arrayField && /^\d+$/.test(path[1] ?? '')) {
      return { index: Number(path[1]), field: clip(path.slice(2).join('.') || arrayField, maxEchoed), message: clip(issue.message, maxDetail) };
    }
    return { field: clip(path.join('.') || '(root)', maxEchoed), message: clip(issue.message, maxDetail) };
  });

/** Validates one part of a request; failures are 400 validation_failed naming each field. */
export const parseInput = <S extends z.ZodType>(schema: S, value: unknown, part: InputPart): z.infer<S> => {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = toFieldErrors(result.error.issues);
  const fields = [...new Set(errors.map((e) => e.field))].join(', ');
  throw problems.validation(clip(`Invalid ${part}: ${fields}.`, maxDetail), errors);
};

/** One error per unknown field, each naming the field, instead of one nameless issue. */
const expandUnknownKeys = (issue: z.core.$ZodIssue): z.core.$ZodIssue[] =>
  issue.code === 'unrecognized_keys'
    ? issue.keys.map((key) => ({ ...issue, path: [...issue.path, key], message: 'Unknown field' }))
    : [issue];
