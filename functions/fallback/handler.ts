import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { finalize, requestBaseUrlOf, unmatchedRouteProblem, withoutTrailingSlash, type HttpEvent, type HttpResponse } from '../../shared/api/http';
import { logger } from '../../shared/platform/logger';
import { renderProblem } from '../../shared/api/runner';
import { withRequestBaseUrl } from '../../shared/platform/config';

/**
 * API Gateway's $default route: a GET of a route's path with a trailing slash answers 308 to the
 * route; other unknown paths answer 404 and known paths with another method 405, as problem+json.
 */
export const handler = middy(async (event: HttpEvent): Promise<HttpResponse> => {
  const requestId = event.requestContext.requestId;
  const bare = withoutTrailingSlash(event.requestContext.http.method, event.rawPath);
  if (bare) {
    const location = `${requestBaseUrlOf(event)}${bare}${event.rawQueryString ? `?${event.rawQueryString}` : ''}`;
    return finalize({ statusCode: 308, headers: { Location: location }, body: '' }, requestId);
  }
  const problem = unmatchedRouteProblem(event.requestContext.http.method, event.rawPath);
  return withRequestBaseUrl(requestBaseUrlOf(event), () => finalize(renderProblem(problem, requestId), requestId));
}).use(injectLambdaContext(logger, { resetKeys: true }));
