import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

/** Import z from here: every schema is also an OpenAPI schema. */
extendZodWithOpenApi(z);

export { z };
