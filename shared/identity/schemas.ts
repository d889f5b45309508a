import { z } from '../platform/zod';

export const WhoamiSchema = z
  .object({
    clientId: z.string(),
    mode: z.enum(['SYSTEM', 'USER', 'INTERACTIVE']),
    organizationId: z.string().uuid().nullable().openapi({ description: 'null for interactive sessions' }),
    userId: z.string().uuid().nullable().openapi({ description: 'The person authorization runs as; null for SYSTEM' }),
    organizationIds: z.array(z.string().uuid()).optional().openapi({ description: 'Interactive sessions only' }),
    scopes: z.array(z.string()).openapi({ description: 'Scopes the credential holds; an operation needs the scope named in its security requirement' }),
  })
  .openapi('Whoami');

export const identityContracts = {
  whoami: { responses: { 200: { description: 'The caller', schema: WhoamiSchema } } },
};
