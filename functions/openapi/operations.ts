import { buildOpenApiDocument, contracts } from '../../shared/openapi/document';
import { defineOperation } from '../../shared/api/operation';

let document: ReturnType<typeof buildOpenApiDocument> | undefined;

/** GET /v1/openapi.json (public), built once per execution environment. */
export const openApiOperations = {
  getOpenApiDocument: defineOperation(contracts.getOpenApiDocument!, async () => {
    document ??= buildOpenApiDocument();
    return { status: 200, body: document };
  }),
};
