import { buildOpenApiDocument } from '../../shared/openapi/document';
import { httpHandler } from '../../shared/platform/http';
import { defineOperation } from '../../shared/platform/operation';
import { contracts } from '../../shared/openapi/document';

let document: ReturnType<typeof buildOpenApiDocument> | undefined;

export const handler = httpHandler('openapi', {
  getOpenApiDocument: defineOperation(contracts.getOpenApiDocument!, async () => {
    document ??= buildOpenApiDocument();
    return { status: 200, body: document };
  }),
});
