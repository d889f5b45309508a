import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeOpenApiDocument } from '../../infra/tools/openapi';

/**
 * Spectral (`spectral:oas` and the OWASP API Security ruleset, as configured in .spectral.yaml)
 * over the document `npm run openapi` writes, with the URLs of a deployment (HTTPS only). One
 * Spectral run lints the document and a copy of one of its paths broken on purpose, which shows
 * the lint can fail.
 */
interface Finding {
  code: string;
  message: string;
  path: string[];
  severity: number;
  source?: string;
}

const severities = ['error', 'warning', 'info', 'hint'];
const cli = join(dirname(createRequire(import.meta.url).resolve('@stoplight/spectral-cli/package.json')), 'dist/index.js');
const ruleset = resolve('.spectral.yaml');

let folder: string;
let findings: Finding[];
const documentFile = () => join(folder, 'openapi.json');
const brokenFile = () => join(folder, 'broken.json');
const of = (file: string) => findings.filter((finding) => finding.source === file);
const show = (finding: Finding) => `${severities[finding.severity]} ${finding.code} at ${finding.path.join('.')}: ${finding.message}`;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  writeOpenApiDocument(documentFile(), { serverUrl: 'https://api.example.com', tokenUrl: 'https://auth.example.com/oauth2/token' });
  const broken = JSON.parse(readFileSync(documentFile(), 'utf8'));
  const listCompanies = broken.paths['/v1/companies'].get;
  delete listCompanies.responses['200'].headers['RateLimit-Limit'];
  delete listCompanies.responses['429'];
  delete broken.components.schemas.CreateCompanyRequest.properties.displayName.maxLength;
  broken.servers[0].url = 'http://api.example.com';
  // Only the broken path beside the components: the lint of the copy then costs a third of the document's.
  writeFileSync(brokenFile(), JSON.stringify({ ...broken, paths: { '/v1/companies': broken.paths['/v1/companies'] } }));
  // Spectral exits non-zero when it finds something; the JSON on stdout says what.
  const run = await promisify(execFile)(process.execPath, [cli, 'lint', '--ruleset', ruleset, '--format', 'json', '--quiet', documentFile(), brokenFile()], {
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string }) => {
    if (!error.stdout) throw new Error(`spectral failed: ${error.stderr ?? String(error)}`);
    return { stdout: error.stdout };
  });
  findings = JSON.parse(run.stdout) as Finding[];
}, 300_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('OpenAPI lint (Spectral, .spectral.yaml)', () => {
  it('the published document has no error and no warning', () => {
    const serious = of(documentFile()).filter((finding) => finding.severity <= 1);
    expect(serious.map(show)).toEqual([]);
  });

  it('the lint fails a document without RateLimit headers, a 429 answer, a string limit or HTTPS', () => {
    const codes = of(brokenFile()).map((finding) => `${finding.code} ${finding.path.join('.')}`);
    expect(codes).toEqual(
      expect.arrayContaining([
        'rate-limit-headers paths./v1/companies.get.responses.200.headers',
        'token-operations-define-429 paths./v1/companies.get.responses',
        'owasp:api4:2023-string-limit components.schemas.CreateCompanyRequest.properties.displayName',
        'owasp:api8:2023-no-server-http servers.0.url',
      ]),
    );
  });
});
