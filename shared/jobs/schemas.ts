import { lazySchema } from '../platform/lazy-schema';
import { limits, pageOf, PageQuerySchema, textOut, TimestampSchema, UuidSchema } from '../platform/schemas';
import * as z from '../platform/zod';

const instant = TimestampSchema;

export const jobStatuses = ['queued', 'running', 'succeeded', 'failed'] as const;

export const JobSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    id: UuidSchema.openapi({ description: 'The job (UUID)' }),
    type: textOut(limits.code).openapi({ description: 'What the job does, e.g. import:general_ledger_lines' }),
    scope: z.object({ companyId: UuidSchema.openapi({ description: 'The company the job works on' }), lane: textOut(limits.code).openapi({ description: 'The import lane: one import per lane and company runs at a time' }) }).openapi({ description: 'One job per (type, scope) is in flight at a time' }),
    status: z.enum(jobStatuses).openapi({ description: 'queued, running, succeeded or failed; poll until succeeded or failed' }),
    createdAt: instant,
    startedAt: instant.nullable().openapi({ description: 'When the worker started it, or null; UTC timestamp (ISO 8601)' }),
    finishedAt: instant.nullable().openapi({ description: 'When it succeeded or failed, or null; UTC timestamp (ISO 8601)' }),
    resultUrl: textOut(limits.url).openapi({ description: 'Where the job result is read (the import record)' }),
    error: z.object({ code: textOut(limits.code).openapi({ description: 'The failure reason (as the import\'s failureReason)' }), message: textOut(limits.message).openapi({ description: 'More about the failure, for people' }) }).nullable().openapi({ description: 'Why the job failed; null unless failed' }),
  })
  .openapi('Job', { description: 'The background work of an import; poll until succeeded or failed' }));

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

export const JobPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(JobSchema, 'JobPage'));

export const JobListQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject({
  status: z.enum(jobStatuses).optional().openapi({ description: 'Only jobs in this status', example: 'failed' }),
  type: z.enum(jobTypes).optional().openapi({ description: 'Only jobs of this type (import:<lane>)', example: 'import:general_ledger_lines' }),
  company_id: UuidSchema.optional().openapi({
    description: 'Only jobs of this company. A company outside your reach, unknown or deleted matches no job (an empty page, not 404)',
    example: '3f2b8c1e-5d4a-4e7b-9c0d-1a2b3c4d5e6f',
  }),
  ...PageQuerySchema.shape,
}));

export type Job = z.infer<typeof JobSchema>;
export type JobListQuery = z.infer<typeof JobListQuerySchema>;
export type JobStatus = (typeof jobStatuses)[number];
