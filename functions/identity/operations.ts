import { identityContracts as contracts } from '../../shared/identity/contracts';
import { defineOperations } from '../../shared/composition/operations';

/** GET /v1/whoami (any valid token). */
export const identityOperations = defineOperations('identity', contracts, {
  whoami: async ({ principal }) => ({
    status: 200,
    body: {
      clientId: principal.clientId,
      mode: principal.mode,
      organizationId: principal.organizationId,
      userId: principal.userId,
      ...(principal.mode === 'INTERACTIVE' ? { organizationIds: principal.organizationIds } : {}),
      scopes: principal.scopes,
    },
  }),
});
