import type { Scope } from './scopes';
import type { Principal } from './principal';

/** What reach is decided on: where a resource sits in the organization tree, and its company. */
export interface ReachTarget {
  organizationPath: string;
  companyId: string | null;
}

/**
 * The one reach decision (general rule 2): may this principal act on this resource with this action
 * (the route's scope; undefined for routes any valid token may call)? A system client reaches its
 * organization and every descendant. Outside the reach answers 404, never 403.
 */
export const canReach = (principal: Principal, target: ReachTarget, _action?: Scope): boolean => {
  const own = principal.organizationPath;
  if (!own) return false;
  return target.organizationPath === own || target.organizationPath.startsWith(`${own}/`);
};
