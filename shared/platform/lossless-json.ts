import { LosslessNumber } from 'lossless-json';

/**
 * JSON parsing that keeps every number's source text (a LosslessNumber), as lossless-json's
 * `parse` does, with the same results and the same refusals (invalid JSON, a key repeated with a
 * different value), but about fifty times faster on bodies with long strings: lossless-json
 * builds every string one character at a time (about 9 s for a 10 MB import with 1,000-character
 * descriptions, in the imports function and again in the worker); here a sticky regular
 * expression finds each token and the engine's JSON.parse decodes strings that have escapes.
 * Node 20 has no JSON.parse with source text, which would make this unnecessary.
 */

const whitespace = /[ \t\n\r]*/y;
/** A JSON string literal: no raw control characters, only JSON's escapes. */
// eslint-disable-next-line no-control-regex -- JSON forbids raw control characters in strings
const stringLiteral = /"[^"\\\u0000-\u001f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\u0000-\u001f]*)*"/y;
const numberLiteral = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

type JsonValue = string | LosslessNumber | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Numbers as LosslessNumber (their source text kept); the other results and refusals are JSON.parse's. */
export const parseLosslessJson = (text: string): unknown => parseRefusingRepeatedKeys(text, (literal) => new LosslessNumber(literal));

/**
 * JSON.parse's result (numbers as JS numbers), but a key repeated in an object with a different
 * value is refused, as parseLosslessJson refuses it: JSON.parse keeps the last one silently, so a
 * body would mean one thing to a proxy that reads the first and another to the service.
 */
export const parseJson = (text: string): unknown => parseRefusingRepeatedKeys(text, Number);

const parseRefusingRepeatedKeys = (text: string, toNumber: (literal: string) => LosslessNumber | number): unknown => {
  let i = 0;

  const fail = (expected: string): never => {
    if (i >= text.length) throw new SyntaxError(`Unexpected end of JSON, expected ${expected} at position ${i}`);
    throw new SyntaxError(`Unexpected character ${JSON.stringify(text[i])}, expected ${expected} at position ${i}`);
  };
  const skipWhitespace = () => {
    whitespace.lastIndex = i;
    whitespace.test(text);
    i = whitespace.lastIndex;
  };
  const match = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = i;
    const found = pattern.exec(text);
    if (!found) return undefined;
    i = pattern.lastIndex;
    return found[0];
  };
  const parseString = (): string | undefined => {
    if (text.charCodeAt(i) !== 0x22) return undefined;
    const literal = match(stringLiteral);
    if (literal === undefined) return fail('a valid string');
    return literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
  };
  const parseValue = (): JsonValue => {
    skipWhitespace();
    const code = text.charCodeAt(i);
    let value: JsonValue;
    if (code === 0x22) value = parseString()!;
    else if (code === 0x7b) value = parseObject();
    else if (code === 0x5b) value = parseArray();
    else if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
      const literal = match(numberLiteral);
      if (literal === undefined) return fail('a number');
      value = toNumber(literal);
    } else if (text.startsWith('true', i)) {
      i += 4;
      value = true;
    } else if (text.startsWith('false', i)) {
      i += 5;
      value = false;
    } else if (text.startsWith('null', i)) {
      i += 4;
      value = null;
    } else return fail('a JSON value');
    skipWhitespace();
    return value;
  };
  const parseObject = (): { [key: string]: JsonValue } => {
    i++; // {
    const object: { [key: string]: JsonValue } = {};
    skipWhitespace();
    if (text.charCodeAt(i) === 0x7d) {
      i++;
      return object;
    }
    for (;;) {
      skipWhitespace();
      const position = i;
      const key = parseString();
      if (key === undefined) return fail('an object key');
      skipWhitespace();
      if (text.charCodeAt(i) !== 0x3a) return fail("':'");
      i++;
      const value = parseValue();
      if (Object.prototype.hasOwnProperty.call(object, key)) {
        if (!sameValue(object[key]!, value)) throw new SyntaxError(`Duplicate key '${key}' encountered at position ${position}`);
      } else if (key === '__proto__') {
        Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
      } else {
        object[key] = value;
      }
      const next = text.charCodeAt(i);
      i++;
      if (next === 0x7d) return object;
      if (next !== 0x2c) {
        i--;
        return fail("',' or '}'");
      }
    }
  };
  const parseArray = (): JsonValue[] => {
    i++; // [
    const array: JsonValue[] = [];
    skipWhitespace();
    if (text.charCodeAt(i) === 0x5d) {
      i++;
      return array;
    }
    for (;;) {
      array.push(parseValue());
      const next = text.charCodeAt(i);
      i++;
      if (next === 0x5d) return array;
      if (next !== 0x2c) {
        i--;
        return fail("',' or ']'");
      }
    }
  };

  const value = parseValue();
  if (i < text.length) fail('the end of the JSON');
  return value;
};

/** lossless-json's notion of a repeated key that is not an error: the same value again. */
const sameValue = (a: JsonValue, b: JsonValue): boolean => {
  if (a instanceof LosslessNumber || b instanceof LosslessNumber) {
    return a instanceof LosslessNumber && b instanceof LosslessNumber && a.value === b.value;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => sameValue(item, b[index]!));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && sameValue(a[key]!, b[key]!));
  }
  return a === b;
};
