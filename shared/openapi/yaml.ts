import { Document, isScalar, visit } from 'yaml';
import { placeholderTexts } from './prebuilt';

/**
 * The OpenAPI document as YAML (GET /v1/openapi.yaml, `npm run openapi -- FILE.yaml`): no anchors for
 * repeated objects, no folded lines. A string that holds a placeholder of the document generated
 * at build time is written double-quoted, so that the served file's placeholders are filled inside
 * a double-quoted scalar, escaped as in JSON (shared/openapi/prebuilt.ts, fillPlaceholders).
 */
export const documentYaml = (document: unknown): string => {
  const yaml = new Document(document, { aliasDuplicateObjects: false });
  visit(yaml, {
    Scalar(_key, node) {
      if (isScalar(node) && typeof node.value === 'string' && placeholderTexts.some((placeholder) => (node.value as string).includes(placeholder))) node.type = 'QUOTE_DOUBLE';
    },
  });
  return yaml.toString({ lineWidth: 0 });
};
