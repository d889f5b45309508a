import { parse as parseLossless } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { importKinds } from '../../shared/composition/import-kinds';
import { contracts } from '../../shared/openapi/document';
import { blanks, refused, refusedOnOneLine } from '../support/text-rule';

/**
 * The one character rule of free text, every value of the table on every field that
 * test/integration/text-rule.test.ts sends a sample of over HTTP: the same schemas the operations
 * validate with (the operation contracts' bodies; an import kind's body schema, on the body as the
 * import pipeline parses it), each refusal an issue naming the field.
 */
const companyId = '00000000-0000-4000-8000-000000000001';
const bodyOf = (operationId: string) => contracts[operationId]!.body!;
const kind = (name: string) => importKinds.find((candidate) => candidate.name === name)!.bodySchema as z.ZodType;
const lossless = (body: unknown) => parseLossless(JSON.stringify(body));

const fields: { field: string; schema: z.ZodType; body: (value: string) => unknown; path: (string | number)[]; refuses: Record<string, string> }[] = [
  {
    field: 'company displayName (create)',
    schema: bodyOf('createCompany'),
    body: (displayName) => ({ displayName, accountingSystem: 'Api' }),
    path: ['displayName'],
    refuses: { ...refused, ...refusedOnOneLine, ...Object.fromEntries(blanks.map((blank) => [`blank ${JSON.stringify(blank)}`, blank])) },
  },
  { field: 'company displayName (update)', schema: bodyOf('updateCompany'), body: (displayName) => ({ displayName }), path: ['displayName'], refuses: { ...refused, ...refusedOnOneLine, 'only a space': ' ' } },
  {
    field: 'document fileName',
    schema: bodyOf('declareDocumentUpload'),
    body: (fileName) => ({ fileName, contentType: 'application/pdf', sizeBytes: 10, sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' }),
    path: ['fileName'],
    refuses: { ...refused, ...refusedOnOneLine, 'only a space': ' ', 'report\u0085.pdf': 'report\u0085.pdf' },
  },
  {
    field: 'access policy name',
    schema: bodyOf('createAccessPolicy'),
    body: (name) => ({ name, rules: [{ effect: 'allow', actions: ['ledger:read'], resources: { companies: [companyId] } }] }),
    path: ['name'],
    refuses: { ...refused, ...refusedOnOneLine, 'only spaces': '   ' },
  },
  {
    field: 'imported dimension value',
    schema: kind('dimensions'),
    body: (value) => lossless({ dimensions: [{ key: 'ok', value: 'Salg', type: 'department' }, { key: 'bad', value, type: 'department' }] }),
    path: ['dimensions', 1, 'value'],
    refuses: { ...refused, ...refusedOnOneLine },
  },
  {
    field: 'access policy description (multi-line)',
    schema: bodyOf('createAccessPolicy'),
    body: (description) => ({ name: 'Revisor', description, rules: [{ effect: 'allow', actions: ['ledger:read'], resources: { companies: [companyId] } }] }),
    path: ['description'],
    refuses: refused,
  },
  {
    field: 'GL line description (multi-line)',
    schema: kind('general_ledger_lines'),
    body: (description) =>
      lossless({ year: 2025, lines: [{ id: 'ok', accountCode: '1920', amount: '10.00', period: 1, description: '' }, { id: 'bad', accountCode: '1920', amount: '10.00', period: 1, description }] }),
    path: ['lines', 1, 'description'],
    refuses: refused,
  },
  {
    field: 'webhook subscription description (multi-line)',
    schema: bodyOf('createWebhookSubscription'),
    body: (description) => ({ url: 'https://example.com/hook', eventTypes: ['job.succeeded'], description }),
    path: ['description'],
    refuses: refused,
  },
];

describe('the character rule of free text, field by field', () => {
  it.each(fields.map((entry) => [entry.field, entry] as const))('%s refuses every value of the table, naming the field', (_, { schema, body, path, refuses }) => {
    expect(schema.safeParse(body('Plain text AS')).success).toBe(true);
    for (const [what, value] of Object.entries(refuses)) {
      const result = schema.safeParse(body(value));
      expect(result.success, what).toBe(false);
      expect(result.error!.issues.map((issue) => issue.path), what).toContainEqual(path);
    }
  });

  it('single-line text is trimmed and takes any other character (emoji, Norwegian letters, right-to-left letters)', () => {
    const parsed = bodyOf('createCompany').parse({ displayName: '  Blåbær 😀 שלום AS \t', accountingSystem: 'Api' }) as { displayName: string };
    expect(parsed.displayName).toBe('Blåbær 😀 שלום AS');
  });

  it('multi-line text takes tab and line breaks, and is trimmed', () => {
    const parsed = bodyOf('createAccessPolicy').parse({ name: 'Revisor', description: 'Line one\n\tLine two\r\n', rules: [{ effect: 'allow', actions: ['ledger:read'], resources: { companies: [companyId] } }] }) as { description: string };
    expect(parsed.description).toBe('Line one\n\tLine two');
  });
});
