import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { Browser, isConsentPage, isLoginPage, submit } from '../../infra/tools/interactive-sign-in';
import { createPerson, loopbackRedirect } from '../support/sign-in';
import { testStack } from '../support/stack';

/** What an off-the-shelf MCP client keeps: registration, tokens, the PKCE verifier; it sends the person to the authorization URL. */
class MemoryOAuthProvider implements OAuthClientProvider {
  readonly redirectUrl = loopbackRedirect(testStack().interactive.redirectUris[0]);
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP test client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    } as OAuthClientMetadata;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.client = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe('MCP sign-in: from the 401 challenge to a tool call', () => {
  it('discovers the metadata, registers, signs the person in with PKCE and calls a tool with an MCP-bound token', async () => {
    const bakery = testStack().companies[0]!;
    const person = await createPerson(bakery.organizationId, 'Kari Regnskap');
    const provider = new MemoryOAuthProvider();
    const requested: string[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : input.toString());
      requested.push(`${init?.method ?? 'GET'} ${url.origin}${url.pathname}`);
      return fetch(input, init);
    };
    const mcpUrl = new URL(`${testStack().baseUrl}/mcp`);

    // 1. No token: 401 with the challenge; the client follows it to the metadata, registers and sends the person to sign in.
    const first = new Client({ name: 'ledger-mcp-sign-in-test', version: '1.0.0' });
    await expect(first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: recordingFetch }))).rejects.toThrow(/Unauthorized/);
    const { baseUrl } = testStack();
    const issuer = testStack().interactive.issuer;
    expect(requested.slice(0, 2)).toEqual([`POST ${baseUrl}/mcp`, `GET ${baseUrl}/.well-known/oauth-protected-resource/mcp`]);
    expect(requested).toContain(`POST ${testStack().interactive.registrationUrl}`);
    expect(requested.some((entry) => entry.startsWith(`GET ${issuer}/.well-known/`))).toBe(true);
    expect(provider.client?.client_id).toBeTruthy();

    const authorization = provider.authorizationUrl!;
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('resource')).toBe(`${baseUrl}/mcp`);
    expect(authorization.searchParams.get('scope')).toContain(`${testStack().internal.scopePrefix}context:read`);

    // 2. The person signs in on the login page and allows on the consent page (plain HTML forms).
    const browser = new Browser();
    let landing = await browser.navigate(authorization.toString(), {}, provider.redirectUrl);
    expect(isLoginPage(landing)).toBe(true);
    landing = await submit(browser, landing, { email: person.email, password: person.password }, provider.redirectUrl);
    expect(isConsentPage(landing)).toBe(true);
    landing = await submit(browser, landing, { decision: 'allow' }, provider.redirectUrl);
    if (landing.kind !== 'callback') throw new Error('expected the callback');
    const code = landing.url.searchParams.get('code')!;

    // 3. The code for a token bound to the MCP endpoint, then a tool call.
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: recordingFetch });
    await transport.finishAuth(code);
    const claims = JSON.parse(Buffer.from(provider.saved!.access_token.split('.')[1]!, 'base64url').toString()) as { aud: string; username: string };
    expect(claims).toMatchObject({ aud: `${baseUrl}/mcp`, username: person.userId });

    const client = new Client({ name: 'ledger-mcp-sign-in-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const identity = (await client.callTool({ name: 'get_caller_identity', arguments: {} })) as CallToolResult;
      expect(identity.isError).toBeFalsy();
      expect(identity.structuredContent).toMatchObject({ mode: 'INTERACTIVE', userId: person.userId });
      expect((identity.structuredContent as { scopes: string[] }).scopes).toContain('context:read');
      // The context tools take the interactive session's context:read: a company that does not exist is not found.
      const unknown = (await client.callTool({ name: 'get_company_context', arguments: { companyId: '00000000-0000-4000-8000-000000000000' } })) as CallToolResult;
      expect(unknown.isError).toBe(true);
      expect((unknown.content[0] as { text: string }).text).toMatch(/^not found: /);
      const invalid = (await client.callTool({ name: 'get_account_context', arguments: { companyId: bakery.id } })) as CallToolResult;
      expect((invalid.content[0] as { text: string }).text).toMatch(/^validation_failed: accountNumber/);
    } finally {
      await client.close();
    }

    // The same token is refused by the REST API: it is bound to the MCP endpoint.
    const rest = await fetch(`${baseUrl}/v1/whoami`, { headers: { authorization: `Bearer ${provider.saved!.access_token}` } });
    expect(rest.status).toBe(401);
  });
});
