import { stringify as toYaml } from 'yaml';
import { buildOpenApiDocument, contracts } from '../../shared/openapi/document';
import { problemPage, problemTypeEntry } from '../../shared/openapi/problem-catalogue';
import { defineOperation } from '../../shared/api/operation';
import { problems } from '../../shared/platform/problem';
import { redocScript, referencePage } from './reference';

let document: ReturnType<typeof buildOpenApiDocument> | undefined;
let yaml: string | undefined;

const openApiDocument = () => (document ??= buildOpenApiDocument());

/** The public documentation routes: the document (JSON, YAML), the rendered reference, the problem pages; built once per execution environment. */
export const openApiOperations = {
  getOpenApiDocument: defineOperation(contracts.getOpenApiDocument!, async () => ({ status: 200, body: openApiDocument() })),
  getOpenApiYaml: defineOperation(contracts.getOpenApiYaml!, async () => {
    yaml ??= toYaml(openApiDocument(), { aliasDuplicateObjects: false, lineWidth: 0 });
    return { status: 200, text: yaml, headers: { 'Content-Type': 'application/yaml; charset=utf-8' } };
  }),
  getApiReference: defineOperation(contracts.getApiReference!, async () => ({
    status: 200,
    text: referencePage(),
    headers: { 'Content-Type': 'text/html; charset=utf-8' },
  })),
  getApiReferenceScript: defineOperation(contracts.getApiReferenceScript!, async () => ({
    status: 200,
    text: redocScript(),
    headers: { 'Content-Type': 'text/javascript; charset=utf-8' },
  })),
  getProblemType: defineOperation(contracts.getProblemType!, async (request) => {
    const { code } = request.params as { code: string };
    const entry = problemTypeEntry(code);
    if (!entry) throw problems.notFound('problem type');
    return { status: 200, text: problemPage(code, entry), headers: { 'Content-Type': 'text/html; charset=utf-8' } };
  }),
};
