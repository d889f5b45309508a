import type { Tracer } from '@aws-lambda-powertools/tracer';
import { metricServiceName } from './metric-catalogue';

/**
 * X-Ray tracing through Powertools Tracer. It is on only in Lambda with active tracing; elsewhere
 * (the local stack, tools, tests: no AWS_EXECUTION_ENV, or POWERTOOLS_TRACE_ENABLED=false) every
 * call below is a no-op and the SDK clients stay as built.
 *
 * Where Powertools would surely turn tracing off (the two cases above), the Tracer and the X-Ray
 * SDK it loads are not imported at all (8-14 ms of CPU at each such cold start); elsewhere the Tracer
 * decides, as before. The bundle keeps them, evaluated only by this import.
 */
const mayTrace = (process.env.AWS_EXECUTION_ENV ?? '') !== '' && process.env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() !== 'false';

/** The Powertools Tracer, unless tracing is surely off (then the handler needs no tracing middleware). */
export const powertoolsTracer: Tracer | undefined = mayTrace
  ? new (await import('@aws-lambda-powertools/tracer')).Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? metricServiceName })
  : undefined;

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
