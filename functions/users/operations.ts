import { userContracts as contracts } from '../../shared/access/contracts';
import { explainAccess, userAccess } from '../../shared/access/service';
import { defineOperations } from '../../shared/composition/operations';
import { listUsers, toUser } from '../../shared/people/service';

/** People (system clients, users:read): the runner resolves {userId} to a person within reach. */
export const userOperations = defineOperations('users', contracts, {
  listUsers: async ({ principal, query }) => ({ status: 200, body: await listUsers(principal, query) }),
  getUser: async ({ owner }) => ({ status: 200, body: toUser(owner) }),
  getUserAccess: async ({ principal, params, query }) => ({ status: 200, body: await userAccess(principal, params.userId, query) }),
  explainUserAccess: async ({ principal, params, query }) => ({
    status: 200,
    body: await explainAccess(principal, params.userId, query.company_id, query.action),
  }),
});
