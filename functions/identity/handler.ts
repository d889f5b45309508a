import { identityContracts as contracts } from '../../shared/identity/schemas';
import { httpHandler } from '../../shared/platform/http';
import { defineOperation } from '../../shared/platform/operation';

export const handler = httpHandler('identity', {
  whoami: defineOperation(contracts.whoami, async ({ principal }) => ({
    status: 200,
    body: {
      clientId: principal.clientId,
      mode: principal.mode,
      organizationId: principal.organizationId,
      userId: principal.userId,
      scopes: principal.scopes,
    },
  })),
});
