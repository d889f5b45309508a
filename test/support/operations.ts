import { owners } from '../../shared/composition/owners';
import type { Principal } from '../../shared/identity/principal';
import type { Operation, OperationRequest } from '../../shared/api/operation';
import { resolveOwner } from '../../shared/api/runner';
import { routes } from '../../shared/routes';

/**
 * Runs one operation in-process the way the runner does after authentication: the reach step
 * resolves the resource its path names (404 outside the reach), then the operation runs on
 * already-parsed input, so tests can look at the operation's own result values.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any operation, whatever its input type
export const runWithReach = async <O extends Operation<any>>(
  operation: O,
  request: { params: Record<string, string>; query: unknown; body?: unknown; principal: Principal; requestId?: string; operationId: string },
) => {
  const route = routes.find((candidate) => candidate.operationId === request.operationId);
  if (!route) throw new Error(`No route for ${request.operationId}`);
  const owner = await resolveOwner(owners, route, operation, request.params, request.principal);
  return operation.run({ body: undefined, requestId: 'test', ...request, owner } as OperationRequest<O['contract']>);
};
