import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { integratorMessage } from './messages';

/** Import z from here: every schema is also an OpenAPI schema. */
extendZodWithOpenApi(z);

// Validation messages are sentences naming the field (shared/platform/messages.ts); a schema's own message wins.
z.config({ customError: integratorMessage });

export { z };
