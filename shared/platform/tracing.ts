/**
 * What tracing loads when it may be on (shared/platform/tracer.ts): the Powertools Tracer, its
 * handler middleware, and through them the X-Ray SDK. The Lambda bundles do not hold it: it is
 * bundled on its own, as tracing.mjs beside each function (infra/stacks/bundled-assets.ts), and
 * read only by a cold start with tracing on.
 */
export { Tracer } from '@aws-lambda-powertools/tracer';
export { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
