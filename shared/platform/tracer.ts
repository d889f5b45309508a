import { Tracer } from '@aws-lambda-powertools/tracer';
import { metricServiceName } from './metric-catalogue';

/**
 * X-Ray tracing through Powertools Tracer. It is on only in Lambda with active tracing; elsewhere
 * (the local stack, tools, tests: no AWS_EXECUTION_ENV, or POWERTOOLS_TRACE_ENABLED=false) every
 * call below is a no-op and the SDK clients stay as built.
 */
export const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? metricServiceName });

/** An AWS SDK v3 client whose calls are traced as subsegments (a no-op when tracing is off). */
export const traced = <Client>(client: Client): Client => tracer.captureAWSv3Client(client);

/** The `operation` annotation of the invocation's trace: the operation id, searchable in X-Ray. */
export const annotateOperation = (operationId: string): void => tracer.putAnnotation('operation', operationId);
