import { isMcpPath } from './resources';

/**
 * Cognito app clients MCP connectors sign in through (authorization code + PKCE), from
 * MCP_CLIENT_IDS (the authorizer's environment, infra/stacks/permissions.ts). Read per use, as
 * every setting is (shared/platform/config.ts). Unset locally: there tokens carry `aud`.
 */
export const mcpClientIds = (): string[] => (process.env.MCP_CLIENT_IDS ?? '').split(',').filter(Boolean);

/**
 * Why a person's access token without `aud` (Cognito's) may not be used on this path, or
 * undefined when it may. Cognito cannot bind a token to a resource (RFC 8707), so its app client
 * does, as the local provider's `aud` does: a token of an MCP client is for the MCP endpoint only
 * (its scopes are the read scopes the tools need), a token of an interactive (REST) client for the
 * REST API only, as a local token bound to the API is refused on /mcp. A client in both lists is
 * treated as an MCP client (the narrower binding).
 */
export const clientBindingFailure = (
  clientId: string,
  path: string,
  clients: { interactiveClientIds: readonly string[]; mcpClientIds: readonly string[] },
): string | undefined => {
  if (clients.mcpClientIds.includes(clientId)) return isMcpPath(path) ? undefined : 'token issued for another audience';
  if (clients.interactiveClientIds.includes(clientId)) return isMcpPath(path) ? 'token issued for another audience' : undefined;
  return 'not an interactive client';
};
