/** Reading stored attributes: a string attribute, or null when it is absent (or not a string). */
export const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);
