import type { buildOpenApiDocument } from '../../shared/openapi/document';
import { defaultTokenUrl, docsContracts as contracts } from '../../shared/openapi/docs-contracts';
import { readPrebuiltDocument, readPrebuiltYaml } from '../../shared/openapi/prebuilt';
import { landingPage, problemIndexPage, problemPage, problemTypeEntry } from '../../shared/openapi/problem-catalogue';
import { defineOperations } from '../../shared/composition/operations';
import { problems } from '../../shared/platform/problem';
import { redocScript, referencePage } from './reference';

const html = { 'Content-Type': 'text/html; charset=utf-8' };

let document: Promise<ReturnType<typeof buildOpenApiDocument>> | undefined;
let yaml: Promise<string> | undefined;

/**
 * The document: in the Lambda bundle the one generated at build time (shared/openapi/prebuilt.ts),
 * elsewhere generated on the first request for it (the generator and every contract it reads are
 * imported then, not at init). Likewise the YAML: in the bundle the file written at build time
 * (no YAML writer bundled), elsewhere written on the first request for it.
 */
const openApiDocument = () =>
  (document ??=
    typeof OPENAPI_DOCUMENT_PREBUILT !== 'undefined' && OPENAPI_DOCUMENT_PREBUILT
      ? Promise.resolve(readPrebuiltDocument() as unknown as ReturnType<typeof buildOpenApiDocument>)
      : import('../../shared/openapi/document').then(({ buildOpenApiDocument }) => buildOpenApiDocument()));

/** The public documentation routes: the document (JSON, YAML), the rendered reference, the problem pages; built once per execution environment. */
export const openApiOperations = defineOperations('openapi', contracts, {
  getOpenApiDocument: async () => ({ status: 200, body: await openApiDocument() }),
  getOpenApiYaml: async () => {
    yaml ??=
      typeof OPENAPI_DOCUMENT_PREBUILT !== 'undefined' && OPENAPI_DOCUMENT_PREBUILT
        ? Promise.resolve(readPrebuiltYaml())
        : Promise.all([import('../../shared/openapi/yaml'), openApiDocument()]).then(([{ documentYaml }, built]) => documentYaml(built));
    return { status: 200, text: await yaml, headers: { 'Content-Type': 'application/yaml; charset=utf-8' } };
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
