import { countRequest, finalize, requestBaseUrlOf, requestMetadata, unmatchedRouteProblem, withoutTrailingSlash, type HttpEvent, type HttpResponse } from '../../shared/api/http';
import { lambdaHandler } from '../../shared/platform/lambda-handler';
import { renderProblem } from '../../shared/api/runner';
import { withRequestBaseUrl } from '../../shared/platform/config';

/**
 * API Gateway's $default route: a GET of a route's path with a trailing slash answers 308 to the
 * route; other unknown paths answer 404 and known paths with another method 405, as problem+json.
 */
export const handler = lambdaHandler(async (event: HttpEvent): Promise<HttpResponse> => {
  const requestId = event.requestContext.requestId;
  const bare = withoutTrailingSlash(event.requestContext.http.method, event.rawPath);
  if (bare) {
    const location = `${requestBaseUrlOf(event)}${bare}${event.rawQueryString ? `?${event.rawQueryString}` : ''}`;
    return countRequest(undefined, 'fallback', finalize({ statusCode: 308, headers: { Location: location }, body: '' }, requestId));
  }
  const problem = unmatchedRouteProblem(event.requestContext.http.method, event.rawPath);
  return countRequest(undefined, 'fallback', withRequestBaseUrl(requestBaseUrlOf(event), () => finalize(renderProblem(problem, requestId), requestId)));
}, requestMetadata);
