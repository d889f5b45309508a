import { lazySchema } from './lazy-schema';
import { fieldOf } from './messages';
import { problems } from './problem';
import { isWellFormed } from './text';
import * as z from './zod';

/**
 * Limits of what integrators send and of what the API answers, in one place. Every string has a
 * length limit, every array an item limit, every integer a range (OWASP API4: unrestricted
 * resource consumption); the OpenAPI document states them (npm run openapi).
 */
export const limits = {
  /** A UUID in its canonical form. */
  uuid: 36,
  /** The integrator's own ids and keys: line ids, dimension and sub-ledger keys, voucher ids. */
  integratorId: 200,
  /** Names: companies, policies, accounts, dimension and sub-ledger values. */
  name: 200,
  /** Free-text descriptions. */
  description: 1000,
  /** Short notes and reasons. */
  note: 500,
  /** An instant in ISO 8601 (2026-03-02T08:15:00.000Z, or with an offset). */
  timestamp: 35,
  /** A date in ISO 8601 (YYYY-MM-DD). */
  date: 10,
  url: 2048,
  email: 320,
  /** Machine-readable codes and names the API defines (error codes, event types, scope names). */
  code: 100,
  /** Ids the service mints that are not UUIDs (client ids, event ids, line ids). */
  serviceId: 128,
  /** Sentences the API writes: messages, problem details, reasons. */
  message: 2000,
  /** Items of a page (page_size at most). */
  pageItems: 200,
  /** Rows of one import request (spec: Limits). */
  importRows: 10_000,
  /** An opaque page cursor. */
  cursor: 4096,
  /** Entries of `inUse` in a 409 (the first ones). */
  inUse: 100,
  /** A whole answer: AWS Lambda answers at most 6 MB. */
  responseBody: 6 * 1024 * 1024,
  /** Counts and other non-negative whole numbers of answers (int32). */
  count: 2_147_483_647,
} as const;

/**
 * The character rule of free text (names, descriptions, notes, file names): well-formed UTF-16 (no
 * lone surrogates), no C0 or C1 control characters (U+0000-U+001F, U+007F-U+009F; multi-line text
 * allows tab, line feed and carriage return), no bidirectional override or isolate characters
 * (U+202A-U+202E, U+2066-U+2069). Leading and trailing whitespace is trimmed; what is left must not
 * be empty unless `blank` allows it.
 */
// eslint-disable-next-line no-control-regex -- the rule: control characters are refused
const singleLineControls = /[\u0000-\u001F\u007F-\u009F]/;
// eslint-disable-next-line no-control-regex -- the rule: control characters other than tab and line breaks are refused
const multiLineControls = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
const bidiControls = /[\u202A-\u202E\u2066-\u2069]/;

const refusedCharacters = (multiline: boolean) =>
  `\\u0000-${multiline ? '\\u0008\\u000B\\u000C\\u000E-' : ''}\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069`;

/**
 * The document's pattern of the rule (lone surrogates aside, which a JSON Schema pattern cannot
 * name); `refuse` adds characters a field refuses besides (e.g. ':' in line ids).
 */
export const textPattern = (options: { multiline?: boolean; blank?: boolean; refuse?: string } = {}) =>
  `^${options.blank ? '' : '(?=[\\s\\S]*\\S)'}[^${options.refuse ?? ''}${refusedCharacters(options.multiline ?? false)}]*$`;

/** What breaks the character rule in a value, as a message; undefined when nothing does. */
export const textRuleProblem = (value: string, multiline = false): string | undefined => {
  if (!isWellFormed(value)) return 'must be well-formed Unicode text (no lone surrogates)';
  if ((multiline ? multiLineControls : singleLineControls).test(value)) {
    return multiline
      ? 'must not contain control characters (U+0000-U+001F, U+007F-U+009F) other than tab and line breaks'
      : 'must not contain control characters (U+0000-U+001F, U+007F-U+009F)';
  }
  if (bidiControls.test(value)) return 'must not contain bidirectional override or isolate characters (U+202A-U+202E, U+2066-U+2069)';
  return undefined;
};

/** Applies the character rule to a string schema (each broken rule is one issue naming the field). */
export const withTextRule = (schema: z.ZodString, multiline = false) =>
  schema.check((ctx) => {
    const problem = textRuleProblem(ctx.value, multiline);
    if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
  });

/**
 * Free text an integrator sends: trimmed (unless `trim` is false: imported ledger text is kept
 * as sent), then bounded, not blank (unless `blank`), and the character rule.
 */
export const text = (options: { max: number; multiline?: boolean; blank?: boolean; trim?: boolean }) => {
  const multiline = options.multiline ?? false;
  const base = options.trim === false ? z.string() : z.string().trim();
  return withTextRule((options.blank ? base : base.min(1, 'must not be blank')).max(options.max), multiline).openapi({
    pattern: textPattern({ multiline, ...(options.blank !== undefined && { blank: options.blank }) }),
  });
};

/**
 * An id or key the integrator chooses (line ids, voucher ids): taken exactly as sent (not
 * trimmed), not blank, bounded, and the character rule.
 */
export const identifier = (options: { max: number; refuse?: { characters: string; message: string } }) => {
  const refuse = options.refuse;
  const base = withTextRule(
    z
      .string()
      .min(1)
      .max(options.max)
      .refine((value) => value.trim() !== '', 'must not be blank'),
  );
  return (refuse ? base.refine((value) => ![...refuse.characters].some((character) => value.includes(character)), refuse.message) : base).openapi({
    pattern: textPattern(refuse ? { refuse: refuse.characters.replace(/[\\\]^-]/g, '\\$&') } : {}),
  });
};

/** Text the API answers: bounded, characters as stored. */
export const textOut = (max: number) => z.string().max(max);

export const UuidSchema = /* @__PURE__ */ lazySchema(() => z.string().uuid().max(limits.uuid));

/** An instant the API answers (ISO 8601). */
export const TimestampSchema = /* @__PURE__ */ lazySchema(() => z.string().max(limits.timestamp).openapi({ format: 'date-time' }));

/** A date the API answers (YYYY-MM-DD). */
export const DateSchema = /* @__PURE__ */ lazySchema(() => z.string().max(limits.date).openapi({ format: 'date' }));

/** A count or another non-negative whole number of an answer. */
export const CountSchema = /* @__PURE__ */ lazySchema(() => z.number().int().min(0).max(limits.count));

/** An accounting year (1900 to 2999). */
export const YearSchema = /* @__PURE__ */ lazySchema(() => z.number().int().min(1900).max(2999));

/** An accounting period (1 to 12). */
export const PeriodSchema = /* @__PURE__ */ lazySchema(() => z.number().int().min(1).max(12));

/** Shared shapes of the specification (Resources: Shared shapes). */
export const FieldErrorSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    index: z.number().int().min(0).max(limits.count).optional().openapi({ description: '0-based index into the request array, where the input is an array' }),
    field: textOut(limits.message).openapi({ description: 'The field, as a dotted path within the item (e.g. `amount`, `dimensionKeys.0`)' }),
    message: textOut(limits.message).openapi({ description: 'What is wrong with the field, as a sentence' }),
  })
  .openapi('FieldError', { description: 'One problem with one field of the request' }));

export const ProblemSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    type: textOut(limits.url).openapi({ format: 'uri' }).openapi({ description: 'URL of a page explaining this kind of problem (GET /problems/{error})' }),
    title: textOut(limits.name).openapi({ description: 'Short summary of the kind of problem' }),
    status: z.number().int().min(400).max(599).openapi({ description: 'The HTTP status code' }),
    detail: textOut(limits.message).openapi({ description: 'What went wrong with this request, as a sentence for people' }),
    error: textOut(limits.code).openapi({ description: 'Machine-readable code; branch on it (and on reason when present)' }),
    requestId: textOut(limits.serviceId).openapi({ description: 'Identifies the request (as X-Request-Id); quote it to support' }),
    reason: textOut(limits.code).optional().openapi({ description: 'Refines `error` (e.g. job_in_flight, company_not_api_managed); branch on it where present' }),
    errors: z.array(FieldErrorSchema).max(100).optional().openapi({ description: 'validation_failed: one entry per problem, at most 100' }),
    jobId: UuidSchema.optional().openapi({ description: 'job_in_flight: the job of the import that holds the lane' }),
    inUse: z
      .array(z.looseObject({ id: textOut(limits.integratorId).openapi({ description: 'The integrator\'s id that is in use' }) }).openapi({ additionalProperties: true }))
      .max(limits.inUse)
      .optional()
      .openapi({ description: "The integrator's ids that are in use, each with what depends on it" }),
    accountCodes: z
      .array(textOut(limits.integratorId))
      .max(limits.importRows)
      .optional()
      .openapi({ description: "unknown_account_codes: the codes missing from that year's chart" }),
  })
  .openapi('Problem', { description: 'RFC 9457 problem document (application/problem+json)' }));

export const PaginationSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    next_cursor: textOut(limits.cursor).nullable().openapi({ description: 'Send as `cursor` to read the next page; null on the last page' }),
    has_more: z.boolean().openapi({ description: 'true when another page follows' }),
  })
  .openapi('Pagination', { description: 'Cursor pagination: page_size 1 to 200 (default 50); cursors are opaque, signed and bound to the caller (the client, and the person of an interactive session) and the filters' }));

/**
 * A page of items: at most page_size (200). A small bounded list answers everything in one page:
 * its bound, or null where nothing bounds it (the lint names those in .spectral.yaml).
 */
export const pageOf = <T extends z.ZodType>(item: T, name: string, maxItems: number | null = limits.pageItems) =>
  z.object({ data: maxItems === null ? z.array(item) : z.array(item).max(maxItems), pagination: PaginationSchema }).openapi(name);

/**
 * An integer query parameter (a string on the wire) in plain decimal digits: Number() would also
 * take `1e2`, `007`, `0x10`, `+7`, ` 5 ` and `5.0`, which are refused here naming the parameter.
 */
export const queryInteger = (minimum: number, maximum: number) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,15})$/, { error: (issue) => `${fieldOf(issue)} must be a whole number from ${minimum} to ${maximum} in plain digits (no sign, spaces, exponent or leading zeros).` })
    .transform(Number)
    .pipe(z.number().int().min(minimum).max(maximum))
    .openapi({ type: 'integer', minimum, maximum });

export const PageQuerySchema = /* @__PURE__ */ lazySchema(() => z.object({
  cursor: z
    .string()
    .min(1)
    .max(limits.cursor)
    .optional()
    .openapi({ pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$', description: 'Opaque cursor from pagination.next_cursor of the previous page' }),
  page_size: queryInteger(1, limits.pageItems).default(50).openapi({ type: 'integer', minimum: 1, maximum: limits.pageItems, default: 50 }),
}));

/**
 * The paging parameters of a list answered whole, in one page (spec: small bounded lists return
 * everything in one page with a null next_cursor), so that a pager sending them to every list
 * works: `page_size` is taken under the rule of every list (plain digits, 1 to 200; anything else
 * is 400 validation_failed naming it) and ignored; `cursor` is refused 400 invalid_cursor, as on a
 * paged list given a cursor it did not issue: these lists issue none. Spread its shape into the
 * list's strict query object (other unknown parameters stay refused).
 */
export const OnePageQuerySchema = /* @__PURE__ */ lazySchema(() => z.object({
  page_size: queryInteger(1, limits.pageItems)
    .optional()
    .openapi({ type: 'integer', minimum: 1, maximum: limits.pageItems, description: 'Accepted for uniform pagers; this list is always one page' }),
  cursor: z
    .string()
    .min(1)
    .max(limits.cursor)
    .transform((): never => {
      throw problems.invalidCursor('This list is answered whole in one page and issues no cursor; send the request without a cursor.');
    })
    .optional()
    .openapi({
      type: 'string',
      minLength: 1,
      maxLength: limits.cursor,
      pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
      description: 'Never issued by this list (next_cursor is always null): any cursor answers 400 invalid_cursor',
    }),
}));

/** What an omitted `year` means on the reads of a year's books. */
export const currentYearNote =
  'omitted means the current accounting year: the year containing today when it has a chart of accounts, else the latest year before today that has one, else this calendar year';

/** A `year` query parameter (a string on the wire): an integer year, described per use. */
export const yearQueryParam = (description: string) =>
  queryInteger(1900, 2999).openapi({ description });
