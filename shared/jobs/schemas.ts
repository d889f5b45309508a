import { limits, pageOf, PageQuerySchema, textOut, TimestampSchema, UuidSchema } from '../platform/schemas';
import { z } from '../platform/zod';

const instant = TimestampSchema;

export const jobStatuses = ['queued', 'running', 'succeeded', 'failed'] as const;

export const JobSchema = z
  .object({
    id: UuidSchema,
    type: textOut(limits.code).openapi({ description: 'What the job does, e.g. import:general_ledger_lines' }),
    scope: z.object({ companyId: UuidSchema, lane: textOut(limits.code) }).openapi({ description: 'One job per (type, scope) is in flight at a time' }),
    status: z.enum(jobStatuses),
    createdAt: instant,
    startedAt: instant.nullable(),
    finishedAt: instant.nullable(),
    resultUrl: textOut(limits.url).openapi({ description: 'Where the job result is read (the import record)' }),
    error: z.object({ code: textOut(limits.code), message: textOut(limits.message) }).nullable(),
  })
  .openapi('Job');

/** The job types there are; the list's `type` filter takes one of them. */
export const jobTypes = [
  'import:accounts',
  'import:dimensions',
  'import:sub_ledgers',
  'import:opening_balances',
  'import:general_ledger_lines',
  'import:open_items',
  'import:saft',
] as const;

export type JobType = (typeof jobTypes)[number];

export const JobPageSchema = pageOf(JobSchema, 'JobPage');

export const JobListQuerySchema = z.strictObject({
  status: z.enum(jobStatuses).optional().openapi({ description: 'Only jobs in this status', example: 'failed' }),
  type: z.enum(jobTypes).optional().openapi({ description: 'Only jobs of this type (import:<lane>)', example: 'import:general_ledger_lines' }),
  company_id: UuidSchema.optional().openapi({
    description: 'Only jobs of this company. A company outside your reach, unknown or deleted matches no job (an empty page, not 404)',
    example: '3f2b8c1e-5d4a-4e7b-9c0d-1a2b3c4d5e6f',
  }),
  ...PageQuerySchema.shape,
});

export type Job = z.infer<typeof JobSchema>;
export type JobListQuery = z.infer<typeof JobListQuerySchema>;
export type JobStatus = (typeof jobStatuses)[number];
