import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
import { interactiveScopes } from '../../shared/identity/scopes';
import { mcpResource } from '../../shared/identity/resources';
import { loopbackRedirect, signInWithPassword } from './interactive-sign-in';
import { defaultStackFile, readStackFile, failTool, isConnectionRefused, parseToolArgs, ToolError, ToolUsageError, withValuesJoined } from './stack-env';

/**
 * `npm run sign-in -- --email <e> --password <p>`: signs a person in to the local stack through
 * its login and consent pages (authorization code + PKCE, the seeded public client) and prints the
 * access token, for scripts: TOKEN=$(npm run -s sign-in -- --email ... --password ...).
 */
export const signInUsage = (): string =>
  [
    'Usage: npm run -s sign-in -- --email <address> --password <password> [flags]',
    '',
    'Signs a person in to the local stack (npm start) as a browser would: authorization code with PKCE',
    'through the login and consent pages, with the public client the stack seeds (.local/stack.json',
    '"interactive"). Prints the access token; --json prints the whole token response (refresh token too).',
    '',
    'Flags:',
    `  --scope a,b        scopes to ask for (default: every scope an interactive session may hold:`,
    `                     ${interactiveScopes.join(', ')})`,
    '  --mcp              bind the token to the MCP endpoint (<api>/mcp) instead of the REST API',
    '  --json             print the token response as JSON',
    `  --stack-file F     the local stack's contract file (default ${defaultStackFile})`,
    '  --help, -h         this text',
  ].join('\n');

const main = async () => {
  const { values } = parseToolArgs({
    args: withValuesJoined(process.argv.slice(2), ['--email', '--password', '--scope', '--stack-file']),
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      scope: { type: 'string' },
      mcp: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      'stack-file': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }, signInUsage());
  if (values.help) return console.log(signInUsage());
  if (!values.email || !values.password) throw new ToolUsageError(`--email and --password are required\n\n${signInUsage()}`);
  const info = readStackFile(values['stack-file']);
  const prefix = info.internal.scopePrefix;
  const scopes = values.scope ? values.scope.split(',').map((s) => s.trim()).filter(Boolean) : [...interactiveScopes];
  const tokens = await signInWithPassword(
    info.interactive,
    { email: values.email, password: values.password },
    {
      redirectUri: loopbackRedirect(info.interactive.redirectUris[0]),
      scopes: scopes.map((scope) => `${prefix}${scope}`),
      resource: values.mcp ? mcpResource(info.baseUrl) : info.baseUrl,
    },
  ).catch((error: unknown) => {
    // A refused connection is a bare "fetch failed": say what it most likely means.
    if (isConnectionRefused(error)) throw new ToolError(`Cannot reach ${new URL(info.interactive.authorizationUrl).origin}: is the local stack still running? Start it with npm start.`);
    throw new ToolError((error as Error).message);
  });
  console.log(values.json ? JSON.stringify(tokens, null, 2) : tokens.access_token);
};

main().catch((error: unknown) => failTool(error));
