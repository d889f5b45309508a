import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { finalize, requestBaseUrlOf, unmatchedRouteProblem, type HttpEvent, type HttpResponse } from '../../shared/api/http';
import { logger } from '../../shared/platform/logger';
import { renderProblem } from '../../shared/api/runner';
import { withRequestBaseUrl } from '../../shared/platform/config';

/** API Gateway's $default route: unknown paths answer 404 and known paths with another method 405, as problem+json. */
export const handler = middy(async (event: HttpEvent): Promise<HttpResponse> => {
  const requestId = event.requestContext.requestId;
  const problem = unmatchedRouteProblem(event.requestContext.http.method, event.rawPath);
  return withRequestBaseUrl(requestBaseUrlOf(event), () => finalize(renderProblem(problem, requestId), requestId));
}).use(injectLambdaContext(logger, { resetKeys: true }));
