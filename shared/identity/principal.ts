import type { Scope } from './scopes';

export type PrincipalMode = 'SYSTEM' | 'USER' | 'INTERACTIVE';
import type { RateLimit, RatePlan } from '../platform/rate-limit';
import type { CursorCaller } from '../platform/cursor';

export type { RateLimit, RatePlan };

/** Who a request runs as: resolved by the authorizer from the token and the client registry. */
export interface Principal {
  clientId: string;
  mode: PrincipalMode;
  /** The client's organization (SYSTEM, USER); null for interactive sessions. */
  organizationId: string | null;
  /** Ancestor path of organizationId ("root/child/..."): the reach of a system client is this subtree. */
  organizationPath: string | null;
  /** The person authorization runs as; null for SYSTEM. */
  userId: string | null;
  /** INTERACTIVE: every organization the person belongs to; empty for SYSTEM and USER. */
  organizationIds: string[];
  scopes: Scope[];
  plan: RatePlan;
  /** A custom limit an operator set for the client in place of its plan's. */
  rateLimit?: RateLimit;
}

/**
 * The authorizer's context as API Gateway hands it to handlers (requestContext.authorizer.lambda).
 * Values are flat strings/booleans so they survive API Gateway unchanged.
 */
export type AuthorizerContext =
  | {
      authenticated: true;
      clientId: string;
      mode: PrincipalMode;
      organizationId: string;
      organizationPath: string;
      userId: string;
      /** Space-separated organization ids (INTERACTIVE). */
      organizationIds: string;
      scopes: string;
      plan: RatePlan;
      /** A custom limit as "perMinute/burst"; empty when the plan's applies. */
      rateLimit: string;
    }
  /** `unavailable`: the token could not be checked (the key set or the registry did not answer): nothing about it is known to be wrong. */
  | { authenticated: false; failure: string; unavailable?: boolean };

/**
 * Whose rate limit and idempotency keys a request uses: the client, or for an interactive session
 * the person within the client (every person signs in through the same few public clients).
 */
export const callerKey = (principal: Principal): string =>
  principal.mode === 'INTERACTIVE' && principal.userId ? `${principal.clientId}/${principal.userId}` : principal.clientId;

/** The caller a list's cursors are bound to: another person's cursor is refused, even through the same public client. */
export const cursorCaller = (principal: Principal, operationId: string): CursorCaller => ({ caller: callerKey(principal), operationId });

/** An administrator acting in an organization (the admin tooling and the demo seed). */
export const administratorOf = (organization: { id: string; path: string }, actor: string, scopes: Scope[]): Principal => ({
  clientId: actor,
  mode: 'SYSTEM',
  organizationId: organization.id,
  organizationPath: organization.path,
  userId: null,
  organizationIds: [],
  scopes,
  plan: 'premium',
});

export const toAuthorizerContext = (principal: Principal): AuthorizerContext => ({
  authenticated: true,
  clientId: principal.clientId,
  mode: principal.mode,
  organizationId: principal.organizationId ?? '',
  organizationPath: principal.organizationPath ?? '',
  userId: principal.userId ?? '',
  organizationIds: principal.organizationIds.join(' '),
  scopes: principal.scopes.join(' '),
  plan: principal.plan,
  rateLimit: principal.rateLimit ? `${principal.rateLimit.perMinute}/${principal.rateLimit.burst}` : '',
});

export const fromAuthorizerContext = (context: Extract<AuthorizerContext, { authenticated: true }>): Principal => ({
  clientId: context.clientId,
  mode: context.mode,
  organizationId: context.organizationId || null,
  organizationPath: context.organizationPath || null,
  userId: context.userId || null,
  organizationIds: context.organizationIds ? context.organizationIds.split(' ') : [],
  scopes: (context.scopes ? context.scopes.split(' ') : []) as Scope[],
  plan: context.plan,
  ...(context.rateLimit && { rateLimit: parseRateLimit(context.rateLimit) }),
});

const parseRateLimit = (text: string): RateLimit => {
  const [perMinute, burst] = text.split('/').map(Number);
  return { perMinute: perMinute!, burst: burst! };
};
