import { writeFileSync } from 'node:fs';
import { buildDocumentTemplate } from '../../shared/openapi/document';

/**
 * `tsx infra/tools/openapi-template.ts FILE`: writes the OpenAPI document as the openapi and mcp
 * Lambda bundles read it (shared/openapi/prebuilt.ts); run by their bundling at synth
 * (infra/stacks/bundled-assets.ts).
 */
const file = process.argv[2];
if (!file) throw new Error('Usage: tsx infra/tools/openapi-template.ts FILE');
writeFileSync(file, buildDocumentTemplate());
