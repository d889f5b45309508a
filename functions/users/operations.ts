import { defineOperation } from '../../shared/api/operation';
import { userContracts as contracts } from '../../shared/access/contracts';
import { explainAccess, userAccess } from '../../shared/access/service';
import { listUsers, toUser, type ReachablePerson } from '../../shared/people/service';

/** People (system clients, users:read): the runner resolves {userId} to a person within reach. */
export const userOperations = {
  listUsers: defineOperation(contracts.listUsers, async ({ principal, query }) => ({ status: 200, body: await listUsers(principal, query) })),
  getUser: defineOperation(contracts.getUser, async ({ owner }) => ({ status: 200, body: toUser(owner as ReachablePerson) })),
  getUserAccess: defineOperation(contracts.getUserAccess, async ({ principal, params, query }) => ({ status: 200, body: await userAccess(principal, params.userId, query) })),
  explainUserAccess: defineOperation(contracts.explainUserAccess, async ({ principal, params, query }) => ({
    status: 200,
    body: await explainAccess(principal, params.userId, query.company_id, query.action),
  })),
};
