import { describe, expect, it } from 'vitest';
import { api, expectProblem, type ApiResponse } from '../support/api';
import { newFirm } from '../support/people';
import { blanks, refusedOnOneLineOverHttp as refusedOnOneLine, refusedOverHttp as refused } from '../support/text-rule';

/**
 * The one character rule of free text (shared/platform/schemas.ts `text`): well-formed Unicode, no
 * C0/C1 control characters (multi-line text allows tab and line breaks), no bidirectional override
 * or isolate characters, not blank where a value is required, leading and trailing whitespace
 * trimmed. Over HTTP, on a representative set of fields, with a sample of the refused values (one of
 * each class; test/unit/text-rule.test.ts judges every value on these fields' schemas); each
 * refusal is 400 (422 on imports) naming the field, and nothing is written.
 */

const fieldsOf = (response: ApiResponse) => (response.body.errors as { field: string }[]).map((error) => error.field);

const firm = newFirm('text-rule');
const setup = (async () => {
  const { systemToken, company } = await firm;
  return { token: systemToken, companyId: await company() };
})();

/** Each refused value in its own request; every answer names the field. */
const expectRefused = async (send: (value: string) => Promise<ApiResponse>, field: string, values: Record<string, string>, status = 400) => {
  for (const [what, value] of Object.entries(values)) {
    const response = await send(value);
    expectProblem(response, status, 'validation_failed');
    expect(fieldsOf(response), `${field} with ${what}`).toContain(field);
    expect(response.body.detail, `${field} with ${what}`).toContain(field);
  }
};

describe('single-line text: company displayName, policy name, file name, dimension value', () => {
  it('POST /v1/companies refuses each character class and a blank displayName (400 naming displayName); nothing is created', async () => {
    const { token } = await setup;
    const before = (await api('GET', '/v1/companies?page_size=200', { token })).body.data.length;
    const send = (displayName: string) => api('POST', '/v1/companies', { token, body: { displayName, accountingSystem: 'Api' } });
    await expectRefused(send, 'displayName', { ...refused, ...refusedOnOneLine, ...Object.fromEntries(blanks.map((blank) => [`blank ${JSON.stringify(blank)}`, blank])) });
    expect((await api('GET', '/v1/companies?page_size=200', { token })).body.data.length).toBe(before);
  });

  it('PATCH refuses them too, and leaves the company as it was', async () => {
    const { token, companyId } = await setup;
    const before = (await api('GET', `/v1/companies/${companyId}`, { token })).body;
    await expectRefused((displayName) => api('PATCH', `/v1/companies/${companyId}`, { token, body: { displayName } }), 'displayName', { ...refused, 'only a space': ' ' });
    expect((await api('GET', `/v1/companies/${companyId}`, { token })).body.name).toBe(before.name);
  });

  it('trims leading and trailing whitespace, and takes any other character (emoji, Norwegian letters, right-to-left letters)', async () => {
    const { token } = await setup;
    const created = await api('POST', '/v1/companies', { token, body: { displayName: '  Blåbær 😀 שלום AS \t', accountingSystem: 'Api' } });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe('Blåbær 😀 שלום AS');
  });

  it('a document file name refuses U+0085 and the other classes (400 naming fileName); nothing is declared', async () => {
    const { token, companyId } = await setup;
    const declare = (fileName: string) =>
      api('POST', `/v1/companies/${companyId}/documents`, {
        token,
        body: { fileName, contentType: 'application/pdf', sizeBytes: 10, sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' },
      });
    await expectRefused(declare, 'fileName', { ...refused, ...refusedOnOneLine, 'only a space': ' ', 'report\u0085.pdf': 'report\u0085.pdf' });
    expect((await api('GET', `/v1/companies/${companyId}/documents`, { token })).body.data).toEqual([]);
  });

  it('an access policy name refuses them (400 naming name)', async () => {
    const { token, companyId } = await setup;
    const create = (name: string) =>
      api('POST', '/v1/access/policies', { token, body: { name, rules: [{ effect: 'allow', actions: ['ledger:read'], resources: { companies: [companyId] } }] } });
    await expectRefused(create, 'name', { ...refused, ...refusedOnOneLine, 'only spaces': '   ' });
    expect((await api('GET', '/v1/access/policies', { token })).body.data).toEqual([]);
  });

  it('an imported dimension value refuses them (422 naming the row and value); nothing is imported', async () => {
    const { token, companyId } = await setup;
    for (const [what, value] of Object.entries({ ...refused, ...refusedOnOneLine })) {
      const response = await api('POST', `/v1/companies/${companyId}/imports/dimensions`, {
        token,
        body: { dimensions: [{ key: 'ok', value: 'Salg', type: 'department' }, { key: 'bad', value, type: 'department' }] },
      });
      expectProblem(response, 422, 'validation_failed');
      expect(response.body.errors, what).toEqual([expect.objectContaining({ index: 1, field: 'value' })]);
    }
    expect((await api('GET', `/v1/companies/${companyId}/dimensions`, { token })).body.data).toEqual([]);
  });
});

describe('multi-line text: descriptions', () => {
  it('a policy description takes tab and line breaks but refuses the other classes (400 naming description)', async () => {
    const { token, companyId } = await setup;
    const rules = [{ effect: 'allow', actions: ['ledger:read'], resources: { companies: [companyId] } }];
    await expectRefused((description) => api('POST', '/v1/access/policies', { token, body: { name: 'Revisor', description, rules } }), 'description', refused);
    const created = await api('POST', '/v1/access/policies', { token, body: { name: 'Revisor', description: 'Line one\n\tLine two\r\n', rules } });
    expect(created.status).toBe(201);
    expect(created.body.description).toBe('Line one\n\tLine two');
    expect((await api('DELETE', `/v1/access/policies/${created.body.id}`, { token })).status).toBe(200);
  });

  it('a GL line description refuses them (422 naming the row and description); an empty one stays allowed', async () => {
    const { token, companyId } = await setup;
    const line = (id: string, description: string) => ({ id, accountCode: '1920', amount: '10.00', period: 1, description });
    for (const [what, value] of Object.entries(refused)) {
      const response = await api('POST', `/v1/companies/${companyId}/imports/general-ledger-lines`, {
        token,
        body: { year: 2025, lines: [line('ok', ''), line('bad', value)] },
      });
      expectProblem(response, 422, 'validation_failed');
      expect(response.body.errors, what).toEqual([expect.objectContaining({ index: 1, field: 'description' })]);
    }
  });

  it('a webhook subscription description refuses them (400 naming description)', async () => {
    const { token } = await setup;
    const create = (description: string) =>
      api('POST', '/v1/webhooks/subscriptions', { token, body: { url: 'https://example.com/hook', eventTypes: ['job.succeeded'], description } });
    await expectRefused(create, 'description', refused);
    expect((await api('GET', '/v1/webhooks/subscriptions', { token })).body.data).toEqual([]);
  });
});
