import fc from 'fast-check';
import { isLosslessNumber, parse as losslessParse } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { parseJson, parseLosslessJson } from '../../shared/platform/lossless-json';

/** Either the parsed value or that it threw: the fast parser must agree with lossless-json on both. */
const outcome = (parse: (text: string) => unknown, text: string) => {
  try {
    return { value: parse(text) };
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return { refused: true };
  }
};

const expectSame = (text: string) => {
  const expected = outcome(losslessParse, text);
  const actual = outcome(parseLosslessJson, text);
  expect(actual, text).toEqual(expected);
};

/** Text from JSON's own alphabet, so most of it is almost JSON. */
const almostJson = fc
  .array(fc.constantFrom('{', '}', '[', ']', '"', ',', ':', ' ', '\n', '0', '1', '9', '-', '+', '.', 'e', 'E', 'true', 'false', 'null', 'nul', '\\', '\\u00e6', '\\x', 'a', '"k"', '\u0001', 'æ'), { maxLength: 30 })
  .map((tokens) => tokens.join(''));

describe('parseLosslessJson (the fast lossless parse of request bodies)', () => {
  it('agrees with lossless-json on generated JSON, numbers as LosslessNumber with their source text', () => {
    fc.assert(fc.property(fc.json({ maxDepth: 4 }), (text) => expectSame(text)), { numRuns: 2000 });
  });

  it('agrees with lossless-json on almost-JSON text: the same values, the same refusals', () => {
    fc.assert(fc.property(almostJson, (text) => expectSame(text)), { numRuns: 20000 });
  });

  it('keeps source text of numbers, refuses repeated keys with different values, and takes __proto__ as a plain key', () => {
    const parsed = parseLosslessJson('{"a": 12345678901234.5678, "b": [1e-5, -0, 1E+2], "c": "x\\"y\\u00e6"}') as Record<string, unknown>;
    expect(isLosslessNumber(parsed.a) && (parsed.a as { value: string }).value).toBe('12345678901234.5678');
    expect((parsed.b as { value: string }[]).map((n) => n.value)).toEqual(['1e-5', '-0', '1E+2']);
    expect(parsed.c).toBe('x"yæ');
    for (const text of ['{"a":1,"a":2}', '{"a":1,"a":1.0}', '{"a":[1],"a":[2]}', '01', '1.', '.5', '+1', '"\u0001"', '{"a":1,}', '[1,]', '', ' ', 'nul', '"\\x"', '{1:2}', '[1 2]', '"abc"1']) {
      expectSame(text);
      expect(() => parseLosslessJson(text), text).toThrow(SyntaxError);
    }
    for (const text of ['{"a":1,"a":1}', '{"a":{"b":[1,"x"]},"a":{"b":[1,"x"]}}', '{"__proto__":{"polluted":1}}', ' [ ] ', '{ }', '"\\ud800"']) expectSame(text);
    expect(Object.getPrototypeOf(parseLosslessJson('{"__proto__":{"polluted":1}}'))).toBe(Object.prototype);
  });

  // Its speed is a goal of `npm run bench` (the 202 of a 10,000-line import, parse and validation included), not timed here.
  it('parses a 10 MB import with 1,000-character descriptions', () => {
    const description = 'Long description of the line, as some ledgers keep them. '.repeat(17).slice(0, 1000);
    const lines = Array.from({ length: 10_000 }, (_, i) => ({ id: `L${i}`, accountCode: '1920', amount: `${i}.25`, period: 1, description }));
    const text = JSON.stringify({ year: 2025, lines });
    const parsed = parseLosslessJson(text) as { lines: { description: string }[] };
    expect(parsed.lines).toHaveLength(10_000);
    expect(parsed.lines[9_999]!.description).toBe(description);
  });
});

describe('parseJson (request bodies checked against a schema)', () => {
  it("answers JSON.parse's value, and refuses what JSON.parse refuses", () => {
    fc.assert(fc.property(fc.json({ maxDepth: 4 }), (text) => {
      expect(parseJson(text)).toEqual(JSON.parse(text));
    }), { numRuns: 2000 });
    fc.assert(
      fc.property(almostJson, (text) => {
        const expected = outcome(JSON.parse, text);
        const actual = outcome(parseJson, text);
        if ('refused' in expected) expect(actual, text).toEqual(expected);
        else if ('value' in actual) expect(actual.value, text).toEqual(expected.value);
        else expect(text, 'refused only for a repeated key').toMatch(/"k"\s*:[^]*"k"\s*:/);
      }),
      { numRuns: 20000 },
    );
  });

  it('refuses a key repeated with another value, where JSON.parse keeps the last', () => {
    expect(() => parseJson('{"displayName":"A AS","displayName":"B AS"}')).toThrow(/Duplicate key 'displayName'/);
    expect(() => parseJson('{"a":{"b":1,"b":2}}')).toThrow(/Duplicate key 'b'/);
    expect(parseJson('{"a":1,"a":1.0}')).toEqual({ a: 1 });
    expect(Object.getPrototypeOf(parseJson('{"__proto__":{"polluted":1}}'))).toBe(Object.prototype);
  });
});
