import { stringify as toYaml } from 'yaml';
import { buildOpenApiDocument, defaultTokenUrl, operationContracts as contracts } from '../../shared/openapi/document';
import { landingPage, problemIndexPage, problemPage, problemTypeEntry } from '../../shared/openapi/problem-catalogue';
import { defineOperations } from '../../shared/composition/operations';
import { problems } from '../../shared/platform/problem';
import { redocScript, referencePage } from './reference';

const html = { 'Content-Type': 'text/html; charset=utf-8' };

let document: ReturnType<typeof buildOpenApiDocument> | undefined;
let yaml: string | undefined;

const openApiDocument = () => (document ??= buildOpenApiDocument());

/** The public documentation routes: the document (JSON, YAML), the rendered reference, the problem pages; built once per execution environment. */
export const openApiOperations = defineOperations('openapi', contracts, {
  getOpenApiDocument: async () => ({ status: 200, body: openApiDocument() }),
  getOpenApiYaml: async () => {
    yaml ??= toYaml(openApiDocument(), { aliasDuplicateObjects: false, lineWidth: 0 });
    return { status: 200, text: yaml, headers: { 'Content-Type': 'application/yaml; charset=utf-8' } };
  },
  getApiReference: async () => ({
    status: 200,
    text: referencePage(),
    headers: { 'Content-Type': 'text/html; charset=utf-8' },
  }),
  getApiReferenceScript: async () => ({
    status: 200,
    text: redocScript(),
    headers: { 'Content-Type': 'text/javascript; charset=utf-8' },
  }),
  getLandingPage: async () => ({ status: 200, text: landingPage(process.env.TOKEN_URL ?? defaultTokenUrl), headers: html }),
  listProblemTypes: async () => ({ status: 200, text: problemIndexPage(), headers: html }),
  getProblemType: async ({ params: { code } }) => {
    const entry = problemTypeEntry(code);
    if (!entry) throw problems.notFound('problem type');
    return { status: 200, text: problemPage(code, entry), headers: html };
  },
});
