import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultStackFile, readStackFile, failTool, parseToolArgs, ToolError } from './stack-env';

/**
 * `eval "$(npm run -s stack:env)"`: sets the shell variables the documentation's commands use,
 * read from the local stack's file (LEDGER_STACK_FILE, else .local/stack.json), so the commands
 * work whatever ports the stack listens on.
 */
const usage = [
  'Usage: eval "$(npm run -s stack:env [-- --client NAME] [--stack-file F])"',
  '',
  'Prints shell lines that set, from the local stack file ($LEDGER_STACK_FILE, else .local/stack.json):',
  '  STACK              the stack file',
  '  API                the API base URL (paths start with /v1)',
  '  TOKEN_URL          the OAuth 2.0 token endpoint',
  '  CLIENT_ID, CLIENT_SECRET   a seeded system client (default a-system)',
  '  DEMO_COMPANY       Bakeriet Solsiden AS, the company with the demo books',
  '  DEMO_BANK_ACCOUNT  its bank account',
  '  json               a function: pretty-prints JSON from stdin losslessly (json .path prints one value)',
].join('\n');

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

const main = () => {
  const { values } = parseToolArgs({ options: { client: { type: 'string', default: 'a-system' }, 'stack-file': { type: 'string' }, help: { type: 'boolean', default: false } } }, usage);
  if (values.help) return console.log(usage);
  const file = values['stack-file'] ?? (process.env.LEDGER_STACK_FILE || defaultStackFile);
  const info = readStackFile(file);
  const client = info.clients.find((candidate) => candidate.name === values.client);
  if (!client) throw new ToolError(`No client ${values.client} in ${file}`);
  const variables: Record<string, string> = {
    STACK: resolve(file),
    API: info.baseUrl,
    TOKEN_URL: info.authUrl,
    CLIENT_ID: client.clientId,
    CLIENT_SECRET: client.clientSecret,
    DEMO_COMPANY: info.companies[0]?.id ?? '',
    DEMO_BANK_ACCOUNT: info.bankAccounts[0]?.id ?? '',
  };
  for (const [name, value] of Object.entries(variables)) console.log(`export ${name}=${quote(value)}`);
  console.log(`json() { node ${quote(fileURLToPath(new URL('./json.mjs', import.meta.url)))} "$@"; }`);
};

try {
  main();
} catch (error) {
  failTool(error);
}
