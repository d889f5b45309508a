import { lazySchema } from '../platform/lazy-schema';
import { limits, textOut, UuidSchema } from '../platform/schemas';
import * as z from '../platform/zod';
import { allScopes } from './scopes';

export const WhoamiSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    clientId: textOut(limits.serviceId).openapi({ description: 'The OAuth client id of the credential' }),
    mode: z.enum(['SYSTEM', 'USER', 'INTERACTIVE']).openapi({ description: 'SYSTEM (an integration\'s client credentials), USER or INTERACTIVE' }),
    organizationId: UuidSchema.nullable().openapi({ description: 'null for interactive sessions' }),
    userId: UuidSchema.nullable().openapi({ description: 'The person authorization runs as; null for SYSTEM' }),
    organizationIds: z.array(UuidSchema).optional().openapi({ description: 'Interactive sessions only' }),
    scopes: z.array(textOut(limits.code)).max(allScopes.length).openapi({ description: 'Scopes the credential holds; an operation needs the scope named in its security requirement' }),
  })
  .openapi('Whoami', { description: 'The credential the request was made with' }));
