/**
 * Well-formed text: no lone UTF-16 surrogate (half of a pair), which has no UTF-8 encoding and
 * makes encodeURIComponent throw. With the u flag a pair is one code point, so \p{Cs} matches
 * only a lone half. (String.prototype.isWellFormed is ES2024, beyond this project's lib.)
 */
const loneSurrogate = /\p{Cs}/u;
const loneSurrogates = /\p{Cs}/gu;

export const isWellFormed = (text: string): boolean => !loneSurrogate.test(text);

/** The text with each lone surrogate replaced by U+FFFD, as String.prototype.toWellFormed does. */
export const toWellFormed = (text: string): string => text.replace(loneSurrogates, '\uFFFD');

/** `text` cut to at most `max` characters, the last of them an ellipsis when cut. */
export const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * Orders strings by UTF-16 code units, as a plain sort() does: the same order on every machine.
 * localeCompare follows the runtime's locale, and its first call in a process costs about 6 ms of
 * CPU (ICU builds its collator), paid by the first request of a cold start.
 */
export const compareCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
