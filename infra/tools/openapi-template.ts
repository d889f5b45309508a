import { writeDocumentTemplates } from '../stacks/bundled-assets';

/**
 * `tsx infra/tools/openapi-template.ts FILE...`: writes the OpenAPI document as the openapi and mcp
 * Lambda bundles read it (shared/openapi/prebuilt.ts), with placeholders for the URLs known only
 * when it is served: a FILE ending in .json as JSON, in .yaml as YAML. Run by their bundling at
 * synth (infra/stacks/bundled-assets.ts).
 */
const files = process.argv.slice(2);
if (files.length === 0) throw new Error('Usage: tsx infra/tools/openapi-template.ts FILE.json|FILE.yaml...');
await writeDocumentTemplates(files);
