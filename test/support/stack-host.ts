/** What the global setup loads into the run's main process, in one module graph (tsx's, see global-setup.ts). */
export { startLocalStack } from '../../infra/local/stack';
export { buildOpenApiDocument } from '../../shared/openapi/document';
export { denials } from '../../infra/local/iam';
export { suiteRateLimit } from './clients';
