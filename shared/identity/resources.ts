/**
 * The protected resources an interactive access token can be bound to (RFC 8707): the REST API
 * itself, or its MCP endpoint. A token is accepted only by the resource named in its `aud`.
 */
export const apiResource = (apiBaseUrl: string): string => apiBaseUrl.replace(/\/+$/, '');

export const mcpPath = '/mcp';

export const mcpResource = (apiBaseUrl: string): string => `${apiResource(apiBaseUrl)}${mcpPath}`;

/** Whether a request path is the MCP endpoint (its path and below). */
export const isMcpPath = (path: string): boolean => path === mcpPath || path.startsWith(`${mcpPath}/`);

/** The resource a request is for: the MCP endpoint (its path and below) or the REST API. */
export const resourceOfPath = (apiBaseUrl: string, path: string): string => (isMcpPath(path) ? mcpResource(apiBaseUrl) : apiResource(apiBaseUrl));
