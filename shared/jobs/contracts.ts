import { lazySchema } from '../platform/lazy-schema';
import type { OperationContract } from '../api/operation';
import { UuidSchema } from '../platform/schemas';
import * as z from '../platform/zod';
import { JobListQuerySchema, JobPageSchema, JobSchema } from './schemas';

export const jobContracts = {
  getJob: {
    description: 'A job (the background work of an import): poll until `succeeded` or `failed`. Any valid token; **404** outside the reach.',
    params: /* @__PURE__ */ lazySchema(() => z.object({ jobId: UuidSchema })),
    responses: { 200: { description: 'The job', schema: JobSchema } },
  },
  listJobs: {
    description:
      'The jobs of the live companies within the caller\'s reach, newest first; filters `status`, `type` and `company_id` (a company outside the reach matches nothing). Filtered pages may be shorter than `page_size`: follow `pagination.next_cursor` while `has_more`. Any valid token. An interactive session (no organization of its own) lists the jobs of one company at a time: without `company_id` its page is empty.',
    query: JobListQuerySchema,
    responses: {
      200: {
        description:
          'A page of the jobs of the companies within your reach (not deleted), newest first; filters status, type, company_id. A filtered page may be shorter than page_size: follow pagination.next_cursor while has_more',
        schema: JobPageSchema,
      },
    },
  },
} satisfies Record<string, OperationContract>;
