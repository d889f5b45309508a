import { createHash, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { contracts } from '../../shared/openapi/document';
import { routes } from '../../shared/routes';
import { api } from '../support/api';
import { requestTo, sendAndCheck } from '../support/fuzz';
import { chartOf } from '../support/ledger';
import { newFirm, newPerson } from '../support/people';
import type { Json } from '../support/json';

/**
 * The property "no 5xx on any input", over HTTP through the local gateway: adversarial path
 * parameters, query values and JSON bodies (test/support/fuzz.ts) against routes of the route
 * table, with a valid token of this file's own organization. Path parameters mostly name real
 * things of that organization (a company, a document, a person, a policy, an import), so inputs
 * get past the reach checks. Bounded and repeatable: a fixed seed (FUZZ_SEED overrides it to
 * explore) and a fixed number of requests (FUZZ_RUNS).
 */
const seed = Number(process.env.FUZZ_SEED ?? 20_260_514);
const numRuns = Number(process.env.FUZZ_RUNS ?? 300);

let token: string;
const known: Record<string, string> = { code: 'validation_failed', accountNumber: '1920', key: 'D-10' };

const created = async (response: Promise<{ status: number; body: Json }>, status = 201) => {
  const answer = await response;
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return answer.body;
};

beforeAll(async () => {
  const firm = await newFirm('fuzz');
  token = firm.systemToken;
  known.companyId = await firm.company();
  const as = { token };
  known.userId = (await newPerson(firm.root.id)).person.userId;
  const rules = [{ effect: 'allow', actions: ['companies:*', 'ledger:*'], resources: { companies: [known.companyId] } }];
  known.policyId = (await created(api('POST', '/v1/access/policies', { ...as, body: { name: 'Fuzz', rules } }))).id;
  known.assignmentId = (await created(api('POST', '/v1/access/assignments', { ...as, body: { policyId: known.policyId, userId: known.userId } }))).id;
  const imported = await created(api('POST', `/v1/companies/${known.companyId}/imports/accounts`, { ...as, body: chartOf(2025, ['1920', '3000']) }), 202);
  known.importId = imported.id;
  known.jobId = imported.id;
  const bytes = Buffer.from('%PDF-1.7\n% fuzz\n%%EOF\n');
  const declaration = { fileName: 'fuzz.pdf', contentType: 'application/pdf', sizeBytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  const declared = await created(api('POST', `/v1/companies/${known.companyId}/documents`, { ...as, body: declaration }), 200);
  expect((await fetch(declared.upload.url, { method: 'PUT', headers: declared.upload.headers, body: bytes })).status).toBe(200);
  known.documentId = (await created(api('POST', `/v1/documents/${declared.documentId}/complete`, as), 200)).id;
  const saft = { fileName: 'fuzz.xml', sizeBytes: 4, sha256: createHash('sha256').update('<a/>').digest('hex') };
  known.saftImportId = (await created(api('POST', `/v1/companies/${known.companyId}/imports/saft`, { ...as, body: saft }))).id;
});

/** Routes that would delete or disable the company every other request needs alive get no real company id. */
const endsTheCompany = new Set(['deleteCompany', 'disableCompany']);

describe('integer query parameters in any form but plain digits', () => {
  it('answer 400 naming the parameter on every route that takes them', async () => {
    const { companyId, ...others } = known;
    const integerParameters = ['page_size', 'year', 'period', 'after'];
    const forms = ['1e1', '010', '+5', '%2012', '0x10', '5.0', '-0', '١٢'];
    let checked = 0;
    for (const route of routes.filter((candidate) => candidate.method === 'GET')) {
      const names = Object.keys((contracts[route.operationId]?.query as { shape?: object } | undefined)?.shape ?? {}).filter((name) => integerParameters.includes(name));
      if (names.length === 0) continue;
      const values: Record<string, string> = { companyId: companyId!, ...others };
      let unknown = false;
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? ((unknown = true), randomUUID()));
      for (const name of names) {
        const form = forms[checked % forms.length]!;
        const answer = await api('GET', `${path}?${name}=${form}`, { token });
        // A path naming nothing real answers 404 first.
        if (unknown && answer.status === 404) continue;
        checked++;
        expect(answer.status, `${route.operationId} ${name}=${form}`).toBe(400);
        expect(answer.body.errors, `${route.operationId} ${name}=${form}`).toEqual([expect.objectContaining({ field: name })]);
      }
    }
    expect(checked).toBeGreaterThan(15);
  });
});

describe('fuzz: no 5xx on any input', () => {
  it(`${numRuns} adversarial requests over the route table answer < 500, problem+json for errors (seed ${seed})`, async () => {
    const request = fc.constantFrom(...routes).chain((route) => {
      const { companyId, ...others } = known;
      return requestTo(route, { known: endsTheCompany.has(route.operationId) ? others : { companyId: companyId!, ...others } });
    });
    await fc.assert(
      fc.asyncProperty(request, (sample) => sendAndCheck(sample, token)),
      { seed, numRuns, endOnFailure: true },
    );
  }, 240_000);
});
