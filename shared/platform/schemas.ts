import { z } from './zod';

/** Shared shapes of the specification (Resources: Shared shapes). */
export const FieldErrorSchema = z
  .object({
    index: z.number().int().optional().openapi({ description: '0-based index into the request array, where the input is an array' }),
    field: z.string(),
    message: z.string(),
  })
  .openapi('FieldError');

export const ProblemSchema = z
  .object({
    type: z.string().openapi({ format: 'uri' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    error: z.string().openapi({ description: 'Machine-readable code; branch on it (and on reason when present)' }),
    requestId: z.string(),
    reason: z.string().optional(),
    errors: z.array(FieldErrorSchema).max(100).optional(),
    jobId: z.string().uuid().optional(),
    inUse: z
      .array(z.looseObject({ id: z.string() }).openapi({ additionalProperties: true }))
      .optional()
      .openapi({ description: "The integrator's ids that are in use, each with what depends on it" }),
    accountCodes: z.array(z.string()).optional().openapi({ description: 'unknown_account_codes: the codes missing from that year\'s chart' }),
  })
  .openapi('Problem', { description: 'RFC 9457 problem document (application/problem+json)' });

export const PaginationSchema = z
  .object({
    next_cursor: z.string().nullable(),
    has_more: z.boolean(),
  })
  .openapi('Pagination');

export const pageOf = <T extends z.ZodType>(item: T, name: string) =>
  z.object({ data: z.array(item), pagination: PaginationSchema }).openapi(name);

export const PageQuerySchema = z.object({
  cursor: z.string().min(1).optional().openapi({ description: 'Opaque cursor from pagination.next_cursor of the previous page' }),
  page_size: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .default(50)
    .openapi({ type: 'integer', minimum: 1, maximum: 200, default: 50 }),
});

export const UuidSchema = z.string().uuid();

/** What an omitted `year` means on the reads of a year's books. */
export const currentYearNote =
  'omitted means the current accounting year: the year containing today when it has a chart of accounts, else the latest year before today that has one, else this calendar year';

/** A `year` query parameter (a string on the wire): an integer year, described per use. */
export const yearQueryParam = (description: string) =>
  z.coerce.number().int().min(1900).max(2999).openapi({ type: 'integer', minimum: 1900, maximum: 2999, description });
