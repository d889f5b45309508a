import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import { integratorMessage } from './messages';

/**
 * Import z from here, as a namespace (`import * as z`): every schema is also an OpenAPI
 * schema. A namespace import used only as `z.object(...)` lets esbuild keep just
 * the parts of zod the schemas use; zod's `{ z }` object, or z passed as a value, would keep all of
 * it (its 40 locales alone are about 260 KiB of every bundle). The extension reads only ZodType.
 */
extendZodWithOpenApi({ ZodType: z.ZodType } as unknown as Parameters<typeof extendZodWithOpenApi>[0]);

// Validation messages are sentences naming the field (shared/platform/messages.ts); a schema's own message wins.
z.config({ customError: integratorMessage });

export * from 'zod';
