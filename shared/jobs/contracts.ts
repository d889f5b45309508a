import type { OperationContract } from '../api/operation';
import { UuidSchema } from '../platform/schemas';
import { z } from '../platform/zod';
import { JobSchema } from './schemas';

export const jobContracts = {
  getJob: { params: z.object({ jobId: UuidSchema }), responses: { 200: { description: 'The job', schema: JobSchema } } },
} satisfies Record<string, OperationContract>;
