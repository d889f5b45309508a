import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context } from 'aws-lambda';
import { logger } from './logger';
import { publishingMetrics, type MetricMetadata } from './metrics';
import { tracingMiddleware } from './tracer';

/**
 * Every function's handler, wired once: Powertools logger context, the X-Ray handler subsegment
 * (no response captured: bodies stay out of traces; no middleware where tracing is surely off, see
 * tracer.ts) and the invocation's metrics, published when it ends. `metadata` names the invocation in its EMF lines (the API's request id).
 */
export const lambdaHandler = <Event, Result>(handler: (event: Event, context: Context) => Promise<Result>, metadata?: (event: Event) => MetricMetadata) =>
  middy<Event, Result, Error, Context>(publishingMetrics(handler, metadata))
    .use(tracingMiddleware)
    .use(injectLambdaContext(logger, { resetKeys: true }));
