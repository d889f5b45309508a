import type { Tracer } from '@aws-lambda-powertools/tracer';
import type { MiddlewareObj } from '@middy/core';
import { metricServiceName } from './metric-catalogue';
import type * as Tracing from './tracing';

/**
 * X-Ray tracing through Powertools Tracer. It is on only in Lambda with active tracing; elsewhere
 * (the local stack, tools, tests: no AWS_EXECUTION_ENV, or POWERTOOLS_TRACE_ENABLED=false) every
 * call below is a no-op and the SDK clients stay as built.
 *
 * Where Powertools would surely turn tracing off (the two cases above), the Tracer and the X-Ray
 * SDK it loads are not loaded at all; elsewhere the Tracer decides, as before. In the Lambda
 * bundles they are not even bundled: they are the module tracing.mjs beside the bundle, so a cold
 * start with tracing off does not read their ~120 KiB (shared/platform/tracing.ts).
 */
const mayTrace = (process.env.AWS_EXECUTION_ENV ?? '') !== '' && process.env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() !== 'false';

declare global {
  /** Defined (true) only by the bundler of the Lambda functions: tracing.mjs is beside the bundle. */
  const TRACING_MODULE_BESIDE: boolean | undefined;
}

/** The file name of the tracing module beside each Lambda bundle. */
export const tracingModuleFile = 'tracing.mjs';

const loadTracing = (): Promise<typeof Tracing> =>
  typeof TRACING_MODULE_BESIDE !== 'undefined' && TRACING_MODULE_BESIDE
    ? (import(new URL(`./${tracingModuleFile}`, import.meta.url).href) as Promise<typeof Tracing>)
    : import('./tracing');

const tracing = mayTrace ? await loadTracing() : undefined;

/** The Powertools Tracer, unless tracing is surely off. */
export const powertoolsTracer: Tracer | undefined = tracing && new tracing.Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? metricServiceName });

/** The handler's X-Ray subsegment (no response captured: bodies stay out of traces); none where tracing is surely off. */
export const tracingMiddleware: MiddlewareObj[] = tracing && powertoolsTracer ? [tracing.captureLambdaHandler(powertoolsTracer, { captureResponse: false })] : [];

/** What the service uses of the Tracer: the Tracer, or a stand-in that does nothing. */
export const tracer: Pick<Tracer, 'isTracingEnabled' | 'captureAWSv3Client' | 'putAnnotation'> = powertoolsTracer ?? {
  isTracingEnabled: () => false,
  captureAWSv3Client: (client) => client,
  putAnnotation: () => {},
};

/** An AWS SDK v3 client whose calls are traced as subsegments (a no-op when tracing is off). */
export const traced = <Client>(client: Client): Client => tracer.captureAWSv3Client(client);

/** The `operation` annotation of the invocation's trace: the operation id, searchable in X-Ray. */
export const annotateOperation = (operationId: string): void => tracer.putAnnotation('operation', operationId);
