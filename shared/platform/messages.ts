import type { z } from 'zod';

/**
 * Validation messages for integrators: one sentence naming the field, instead of zod's own text
 * ("Invalid input: expected string, received undefined"). Messages a schema sets itself win.
 */
type Issue = z.core.$ZodRawIssue;

/** The field an issue names, as the messages name it (within an array of rows: what follows the index). */
export const fieldOf = (issue: Issue): string => {
  const path = (issue.path ?? []).map(String);
  // Within an array of rows the index is reported beside the message; the field is what follows it.
  const last = [...path].reverse().findIndex((segment) => /^\d+$/.test(segment));
  const tail = last === -1 ? path : path.slice(path.length - last);
  return tail.length ? tail.join('.') : path.length ? 'the value' : 'the value';
};

const typeName: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'an array',
  date: 'a date',
  bigint: 'a whole number',
  null: 'null',
};

const describeInput = (input: unknown): string => {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'an array';
  if (typeof input === 'number' && Number.isNaN(input)) return 'something that is not a number';
  if (typeof input === 'string') return input.trim() === '' ? 'an empty string' : 'a string';
  if (typeof input === 'object') return 'an object';
  return `a ${typeof input}`;
};

const unit = (origin: string | undefined, count: number | bigint): string => {
  if (origin === 'string') return `${count} character${count === 1 ? '' : 's'}`;
  if (origin === 'array' || origin === 'set') return `${count} item${count === 1 ? '' : 's'}`;
  return String(count);
};

const formatName: Record<string, string> = {
  uuid: 'a UUID',
  guid: 'a UUID',
  email: 'an email address',
  url: 'a URL',
  datetime: 'a date and time in ISO 8601 (e.g. 2026-01-31T12:00:00Z)',
  date: 'a date in ISO 8601 (YYYY-MM-DD)',
  time: 'a time in ISO 8601',
  regex: 'in the expected format',
};

export const integratorMessage = (issue: Issue): string | undefined => {
  const field = fieldOf(issue);
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return `${field} is required.`;
      if (typeof issue.input === 'number' && Number.isNaN(issue.input)) return `${field} must be a number.`;
      const expected = typeName[issue.expected] ?? issue.expected;
      return `${field} must be ${expected}, not ${describeInput(issue.input)}.`;
    }
    case 'too_small': {
      const min = issue.minimum;
      if (issue.origin === 'string' && Number(min) === 1) return `${field} must not be empty.`;
      if (issue.origin === 'array' && Number(min) === 1) return `${field} must hold at least one item.`;
      if (issue.origin === 'string' || issue.origin === 'array' || issue.origin === 'set') {
        return issue.exact ? `${field} must hold exactly ${unit(issue.origin, min)}.` : `${field} must hold at least ${unit(issue.origin, min)}.`;
      }
      return `${field} must be ${issue.inclusive === false ? 'greater than' : 'at least'} ${min}.`;
    }
    case 'too_big': {
      const max = issue.maximum;
      if (issue.origin === 'string' || issue.origin === 'array' || issue.origin === 'set') {
        return issue.exact ? `${field} must hold exactly ${unit(issue.origin, max)}.` : `${field} must hold at most ${unit(issue.origin, max)}.`;
      }
      return `${field} must be ${issue.inclusive === false ? 'less than' : 'at most'} ${max}.`;
    }
    case 'invalid_format': {
      if (issue.format === 'regex') return `${field} is not in the expected format.`;
      if (issue.format === 'starts_with' || issue.format === 'ends_with' || issue.format === 'includes') return `${field} is not in the expected format.`;
      return `${field} must be ${formatName[issue.format] ?? `in the ${issue.format} format`}.`;
    }
    case 'invalid_value': {
      if (issue.input === undefined) return `${field} is required.`;
      const values = issue.values.map((value) => JSON.stringify(value));
      return values.length === 1 ? `${field} must be ${values[0]}.` : `${field} must be one of ${values.join(', ')}.`;
    }
    case 'not_multiple_of':
      return `${field} must be a multiple of ${issue.divisor}.`;
    case 'unrecognized_keys':
      return `Unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}.`;
    case 'invalid_union':
      return `${field} does not have an accepted type or shape.`;
    case 'invalid_key':
      return `${field} has a key that is not accepted.`;
    case 'invalid_element':
      return `${field} holds a value that is not accepted.`;
    default:
      return undefined;
  }
};
