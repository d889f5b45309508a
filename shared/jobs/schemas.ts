import { UuidSchema } from '../platform/schemas';
import { z } from '../platform/zod';

const instant = z.string().openapi({ format: 'date-time' });

export const jobStatuses = ['queued', 'running', 'succeeded', 'failed'] as const;

export const JobSchema = z
  .object({
    id: UuidSchema,
    type: z.string().openapi({ description: 'What the job does, e.g. import:general_ledger_lines' }),
    scope: z.object({ companyId: UuidSchema, lane: z.string() }).openapi({ description: 'One job per (type, scope) is in flight at a time' }),
    status: z.enum(jobStatuses),
    createdAt: instant,
    startedAt: instant.nullable(),
    finishedAt: instant.nullable(),
    resultUrl: z.string().openapi({ description: 'Where the job result is read (the import record)' }),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  })
  .openapi('Job');

export type Job = z.infer<typeof JobSchema>;
export type JobStatus = (typeof jobStatuses)[number];
