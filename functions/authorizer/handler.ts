import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { authenticate } from '../../shared/identity/authorizer';
import type { AuthorizerContext } from '../../shared/identity/principal';
import { lambdaHandler } from '../../shared/platform/lambda-handler';

/**
 * HTTP API Lambda authorizer (simple responses). It always lets the request through and tells
 * the handler who the caller is, or why it is not authenticated, so that the handler answers a
 * missing or bad token with a problem+json 401 (API Gateway's own 401/403 bodies are not problems).
 */
export const handler = lambdaHandler(
  async (event: APIGatewayRequestAuthorizerEventV2): Promise<{ isAuthorized: true; context: AuthorizerContext }> => ({
    isAuthorized: true,
    context: await authenticate(event.headers?.authorization, event.rawPath),
  }),
  (event) => ({ requestId: event.requestContext.requestId }),
);
