/**
 * The values of the one character rule of free text (shared/platform/schemas.ts `text`) the tests
 * send: test/unit/text-rule.test.ts judges every one on each field's schema,
 * test/integration/text-rule.test.ts sends a sample of them over HTTP.
 */
export const refused: Record<string, string> = {
  'NUL (U+0000)': 'a\u0000b',
  'a C0 control (U+0007)': 'a\u0007b',
  'DEL (U+007F)': 'a\u007Fb',
  'a C1 control (U+0085)': 'a\u0085b',
  'a C1 control (U+009B)': 'a\u009Bb',
  'a lone surrogate (U+D800)': 'a\uD800b',
  'a lone low surrogate (U+DC00)': 'a\uDC00b',
  'a bidi override (U+202E)': 'a\u202Eb',
  'a bidi embedding (U+202A)': 'a\u202Ab',
  'a bidi isolate (U+2066)': 'a\u2066b',
  'a bidi isolate end (U+2069)': 'a\u2069b',
};
/** Refused only where the text is one line. */
export const refusedOnOneLine: Record<string, string> = {
  'a tab inside': 'a\tb',
  'a line feed inside': 'a\nb',
};
export const blanks = [' ', '   ', '\u00A0\u2003'];

/** Over HTTP: one of each class, and the two the JSON transport carries as escapes (NUL, a lone surrogate). */
const sample = (values: Record<string, string>, names: string[]) => Object.fromEntries(names.map((name) => [name, values[name]!]));
export const refusedOverHttp = sample(refused, ['NUL (U+0000)', 'a C1 control (U+0085)', 'a lone surrogate (U+D800)', 'a bidi override (U+202E)', 'a bidi isolate (U+2066)']);
export const refusedOnOneLineOverHttp = sample(refusedOnOneLine, ['a tab inside', 'a line feed inside']);
