import { isAllowed, noAccess, type EffectiveAccess } from './access-evaluator';
import { accessRepository } from './access-repository';
import type { Scope } from './scopes';
import type { Principal } from './principal';

/** What reach is decided on: where a resource sits in the organization tree, and its company. */
export interface ReachTarget {
  organizationPath: string;
  companyId: string | null;
}

/** A principal with what reach needs loaded: the person's effective access for USER and INTERACTIVE. */
export type ReachingPrincipal = Principal & { access?: EffectiveAccess };

/** Is `path` the organization `ancestor` or below it? */
export const within = (path: string, ancestor: string) => path === ancestor || path.startsWith(`${ancestor}/`);

/**
 * Loads, once per request, what canReach decides on: the person's materialized effective access
 * (one strongly consistent read). Never cached across requests: a revocation holds at once.
 */
export const loadReach = async (principal: Principal): Promise<ReachingPrincipal> => {
  if (principal.mode === 'SYSTEM') return principal;
  const access = principal.userId ? await accessRepository.effectiveAccess(principal.userId) : undefined;
  return { ...principal, access: access ?? noAccess(principal.userId ?? '') };
};

/**
 * The one reach decision (general rule 2): may this principal act on this resource with this action
 * (the route's scope; undefined for routes any valid token may call: any action will do)? A system
 * client reaches its organization and every descendant. A per-user client (USER) reaches what its
 * person's effective access allows, within the client's organization; an interactive session what
 * the person's effective access allows (within the person's organizations). Outside the reach
 * answers 404, never 403.
 */
export const canReach = (principal: ReachingPrincipal, target: ReachTarget, action?: Scope): boolean => {
  const own = principal.organizationPath;
  if (principal.mode === 'SYSTEM') return own !== null && within(target.organizationPath, own);
  if (principal.mode === 'USER' && (!own || !within(target.organizationPath, own))) return false;
  return principal.access !== undefined && isAllowed(principal.access, target, action);
};

/**
 * Would the runner let the principal run this route on this target: system clients only where the
 * route says so, reach with the route's action (canReach), and the token's scope. Reads that repeat
 * a route's figures elsewhere (the context tools' pictures) decide with it, never by hand.
 */
/** What reach reads of a route (shared/routes.ts): the scope it needs and whether only system clients may call it. */
export interface RouteRule {
  scope?: Scope;
  systemOnly?: boolean;
}

export const mayRun = (principal: ReachingPrincipal, route: RouteRule, target: ReachTarget): boolean =>
  !refusesCaller(route, principal) && holdsScope(route, principal) && canReach(principal, target, route.scope);

/** A route for system clients only, called by anyone else (the runner's 403 system_client_required). */
export const refusesCaller = (route: Pick<RouteRule, 'systemOnly'>, principal: Pick<Principal, 'mode'>): boolean =>
  route.systemOnly === true && principal.mode !== 'SYSTEM';

/** The token holds the route's scope, if it names one (else the runner's 403 insufficient_scope). */
export const holdsScope = (route: Pick<RouteRule, 'scope'>, principal: Pick<Principal, 'scopes'>): boolean =>
  !route.scope || principal.scopes.includes(route.scope);
