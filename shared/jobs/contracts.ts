import type { OperationContract } from '../api/operation';
import { UuidSchema } from '../platform/schemas';
import { z } from '../platform/zod';
import { JobListQuerySchema, JobPageSchema, JobSchema } from './schemas';

export const jobContracts = {
  getJob: { params: z.object({ jobId: UuidSchema }), responses: { 200: { description: 'The job', schema: JobSchema } } },
  listJobs: {
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
