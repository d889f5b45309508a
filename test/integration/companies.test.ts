import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createOrganization, deleteOrganization } from '../../shared/administration/service';
import { localCredentialIssuer } from '../../shared/identity/credential-issuers';
import { localPersonDirectory } from '../../shared/identity/person-directories';
import { companyRepository } from '../../shared/companies/repository';
import { createCompany, deleteCompany, setCompanyStatus } from '../../shared/companies/service';
import { organizationRepository } from '../../shared/identity/organization-repository';
import { administratorOf } from '../../shared/identity/principal';
import { dynamo } from '../../shared/platform/aws';
import { ProblemError } from '../../shared/platform/problem';
import { observingCalls } from '../support/sdk-calls';
import { eventsOfCompany } from '../../shared/outbox/repository';
import { api, expectProblem, listAll } from '../support/api';
import { newFirm } from '../support/people';
import { seededClient, seededCompanies, testStack } from '../support/stack';

const orgId = (name: string) => seededClient(name).organizationId;
const newCompany = async (as = 'a-system', extra: Record<string, unknown> = {}) => {
  const response = await api('POST', '/v1/companies', {
    as,
    body: { displayName: `Test ${randomUUID().slice(0, 8)} AS`, accountingSystem: 'Api', ...extra },
  });
  expect(response.status).toBe(201);
  return response.body as { id: string; name: string; status: string; organizationId: string; organizationNumber: string | null };
};

describe('GET /v1/companies (reach)', () => {
  it('a system client sees its organization and every descendant, nothing else', async () => {
    const a = orgId('a-system');
    const a1 = orgId('a1-system');
    const ids = (await listAll<{ id: string }>('/v1/companies?page_size=200', { as: 'a-system' })).map((c) => c.id);
    for (const company of [...seededCompanies(a), ...seededCompanies(a1)]) expect(ids).toContain(company.id);
    for (const company of seededCompanies(orgId('b-system'))) expect(ids).not.toContain(company.id);
  });

  it('a child organization does not see its parent', async () => {
    const response = await api('GET', '/v1/companies?page_size=200', { as: 'a1-system' });
    const organizations = new Set(response.body.data.map((c: { organizationId: string }) => c.organizationId));
    expect([...organizations]).toEqual([orgId('a1-system')]);
  });

  it('answers 404, never 403, for a company outside the reach, unknown or malformed', async () => {
    const foreign = seededCompanies(orgId('b-system'))[0]!.id;
    expectProblem(await api('GET', `/v1/companies/${foreign}`, { as: 'a-system' }), 404, 'not_found');
    expectProblem(await api('GET', `/v1/companies/${randomUUID()}`, { as: 'a-system' }), 404, 'not_found');
    expectProblem(await api('GET', '/v1/companies/not-a-uuid', { as: 'a-system' }), 404, 'not_found');
    const parent = seededCompanies(orgId('a-system'))[0]!.id;
    expectProblem(await api('GET', `/v1/companies/${parent}`, { as: 'a1-system' }), 404, 'not_found');
  });

  it('needs companies:read', async () => {
    // every seeded client holds companies:read; a read-only client may read but not write
    expect((await api('GET', '/v1/companies', { as: 'a-readonly' })).status).toBe(200);
    const company = seededCompanies(orgId('a-system'))[0]!.id;
    const response = await api('PATCH', `/v1/companies/${company}`, { as: 'a-readonly', body: { displayName: 'Nope' } });
    expectProblem(response, 403, 'insufficient_scope');
    expect(response.headers.get('www-authenticate')).toContain('companies:write');
  });
});

describe('pagination', () => {
  it('walks every company once with page_size 1, following signed cursors', async () => {
    // An organization of this test's own: its list changes only here.
    const firm = await newFirm('Pagination');
    const created = [await firm.company(), await firm.company(), await firm.company(firm.child), await firm.company(), await firm.company(firm.child)];
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const query: string = cursor ? `?page_size=1&cursor=${encodeURIComponent(cursor)}` : '?page_size=1';
      const response = await api('GET', `/v1/companies${query}`, { token: firm.systemToken });
      expect(response.status).toBe(200);
      expect(response.body.data.length).toBeLessThanOrEqual(1);
      seen.push(...response.body.data.map((c: { id: string }) => c.id));
      expect(response.body.pagination.has_more).toBe(response.body.pagination.next_cursor !== null);
      cursor = response.body.pagination.next_cursor;
      if (!cursor) break;
    }
    expect(cursor).toBeNull();
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...created].sort());
  });

  it('defaults to 50 and reports the last page with a null cursor', async () => {
    const response = await api('GET', '/v1/companies', { as: 'b-system' });
    expect(response.body.pagination).toEqual({ next_cursor: null, has_more: false });
  });

  it.each(['0', '201', 'abc', '1.5', '-1'])('rejects page_size=%s with 400 validation_failed naming page_size', async (size) => {
    const response = await api('GET', `/v1/companies?page_size=${size}`, { as: 'a-system' });
    expectProblem(response, 400, 'validation_failed');
    expect(response.body.detail).toContain('page_size');
    expect(response.body.errors[0].field).toBe('page_size');
  });

  it('rejects unknown query parameters', async () => {
    const response = await api('GET', '/v1/companies?pagesize=10', { as: 'a-system' });
    expectProblem(response, 400, 'validation_failed');
    expect(response.body.errors).toEqual([{ field: 'pagesize', message: 'Unknown field' }]);
  });

  it('rejects a tampered, a garbage and a foreign cursor with 400 invalid_cursor', async () => {
    const first = await api('GET', '/v1/companies?page_size=1', { as: 'a-system' });
    const cursor: string = first.body.pagination.next_cursor;
    expect(cursor).toBeTruthy();
    const [payload, signature] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), GSI1SK: 'x' })).toString('base64url');
    for (const bad of [`${forged}.${signature}`, 'garbage', `${payload}.${signature}x`, '']) {
      const response = await api('GET', `/v1/companies?page_size=1&cursor=${encodeURIComponent(bad)}`, { as: 'a-system' });
      if (bad === '') expectProblem(response, 400, 'validation_failed');
      else expectProblem(response, 400, 'invalid_cursor');
    }
    // bound to the client: another client of the same organization cannot use it
    const foreign = await api('GET', `/v1/companies?page_size=1&cursor=${encodeURIComponent(cursor)}`, { as: 'a-readonly' });
    expectProblem(foreign, 400, 'invalid_cursor');
  });
});

describe('POST /v1/companies', () => {
  it('creates a company in the caller organization: 201, Location, readable afterwards', async () => {
    const response = await api('POST', '/v1/companies', {
      as: 'a-system',
      body: { displayName: '  Fjellbekk Kraft AS ', accountingSystem: 'Fiken', organizationNumber: '923609016' },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      name: 'Fjellbekk Kraft AS',
      status: 'active',
      organizationId: orgId('a-system'),
      organizationNumber: '923609016',
      accountingSystem: 'Fiken',
    });
    expect(response.headers.get('location')).toBe(`/v1/companies/${response.body.id}`);
    const read = await api('GET', `/v1/companies/${response.body.id}`, { as: 'a-system' });
    expect(read.body).toEqual(response.body);
  });

  it('creates in a descendant organization, but not outside the reach (404)', async () => {
    const child = await newCompany('a-system', { organizationId: orgId('a1-system') });
    expect(child.organizationId).toBe(orgId('a1-system'));
    expect((await api('GET', `/v1/companies/${child.id}`, { as: 'a1-system' })).status).toBe(200);
    const response = await api('POST', '/v1/companies', {
      as: 'a1-system',
      body: { displayName: 'Sneaky AS', accountingSystem: 'Api', organizationId: orgId('a-system') },
    });
    expectProblem(response, 404, 'not_found');
  });

  it.each([
    ['blank displayName', { displayName: '   ', accountingSystem: 'Api' }, 'displayName'],
    ['missing displayName', { accountingSystem: 'Api' }, 'displayName'],
    ['bad organization number check digit', { displayName: 'X AS', accountingSystem: 'Api', organizationNumber: '923609017' }, 'organizationNumber'],
    ['unknown accounting system', { displayName: 'X AS', accountingSystem: 'Excel' }, 'accountingSystem'],
    ['unknown field', { displayName: 'X AS', accountingSystem: 'Api', colour: 'blue' }, 'colour'],
    ['malformed organizationId', { displayName: 'X AS', accountingSystem: 'Api', organizationId: 'x' }, 'organizationId'],
  ])('answers 400 validation_failed for %s, naming the field', async (_case, body, field) => {
    const response = await api('POST', '/v1/companies', { as: 'a-system', body });
    expectProblem(response, 400, 'validation_failed');
    expect(response.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(response.body.detail).toContain(field);
  });

  it('answers 404 and writes nothing when its organization is deleted between the reach check and the commit (the deletion lists the companies after marking the organization)', async () => {
    testStack();
    const organization = await createOrganization({ name: `Closing ${randomUUID().slice(0, 6)}` });
    const principal = administratorOf(organization, 'test', ['companies:write']);
    const refused = await observingCalls(
      dynamo(),
      async (commandName) => {
        if (commandName === 'TransactWriteItemsCommand') await organizationRepository.markDeleted(organization.id, new Date().toISOString());
      },
      () => createCompany(principal, { displayName: 'Late AS', accountingSystem: 'Api' }).then(() => undefined, (error: unknown) => error),
    );
    expect(refused).toBeInstanceOf(ProblemError);
    expect((refused as ProblemError).problem).toMatchObject({ status: 404, error: 'not_found' });
    expect(await companyRepository.allInSubtree(organization.rootId, organization.path)).toEqual([]);
  });

  it('answers malformed JSON, a wrong content type, a non-object and a missing body with problems', async () => {
    expectProblem(await api('POST', '/v1/companies', { as: 'a-system', rawBody: '{"displayName": ', headers: { 'content-type': 'application/json' } }), 400, 'malformed_json');
    expectProblem(await api('POST', '/v1/companies', { as: 'a-system', rawBody: 'displayName=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported_media_type');
    expectProblem(await api('POST', '/v1/companies', { as: 'a-system', body: [1, 2] }), 400, 'validation_failed');
    expectProblem(await api('POST', '/v1/companies', { as: 'a-system' }), 400, 'validation_failed');
  });

  it('refuses a body that names a field twice with different values, and writes nothing', async () => {
    const [first, second] = [`Dup ${randomUUID()}`, `Dup ${randomUUID()}`];
    const json = { 'content-type': 'application/json' };
    const created = await api('POST', '/v1/companies', { as: 'a-system', rawBody: `{"displayName":"${first}","displayName":"${second}","accountingSystem":"Api"}`, headers: json });
    expectProblem(created, 400, 'malformed_json');
    expect(created.body.detail).toMatch(/Duplicate key 'displayName'/);
    const company = await newCompany('a-system');
    const patched = await api('PATCH', `/v1/companies/${company.id}`, { as: 'a-system', rawBody: `{"displayName":"${first}","displayName":"${second}"}`, headers: json });
    expectProblem(patched, 400, 'malformed_json');
    const names = (await listAll<{ name: string }>('/v1/companies', { as: 'a-system' })).map((listed) => listed.name);
    expect(names).toContain(company.name);
    expect(names.filter((name) => name === first || name === second)).toEqual([]);
  });
});

describe('PATCH /v1/companies/{id}', () => {
  it('has patch semantics: absent fields stay, null clears organizationNumber', async () => {
    const company = await newCompany('a-system', { organizationNumber: '923609016' });
    const renamed = await api('PATCH', `/v1/companies/${company.id}`, { as: 'a-system', body: { displayName: 'Renamed AS' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed AS', organizationNumber: '923609016', accountingSystem: 'Api' });
    const cleared = await api('PATCH', `/v1/companies/${company.id}`, { as: 'a-system', body: { organizationNumber: null } });
    expect(cleared.body).toMatchObject({ name: 'Renamed AS', organizationNumber: null });
    const unchanged = await api('PATCH', `/v1/companies/${company.id}`, { as: 'a-system', body: {} });
    expect(unchanged.body).toEqual(cleared.body);
  });

  it('refuses a blank displayName and leaves the company unchanged', async () => {
    const company = await newCompany();
    const response = await api('PATCH', `/v1/companies/${company.id}`, { as: 'a-system', body: { displayName: '' } });
    expectProblem(response, 400, 'validation_failed');
    expect(response.body.errors[0]).toMatchObject({ field: 'displayName' });
    expect((await api('GET', `/v1/companies/${company.id}`, { as: 'a-system' })).body.name).toBe(company.name);
  });

  it('answers 404 for a company of another organization, and changes nothing there', async () => {
    const foreign = seededCompanies(orgId('b-system'))[0]!;
    expectProblem(await api('PATCH', `/v1/companies/${foreign.id}`, { as: 'a-system', body: { displayName: 'Mine now' } }), 404, 'not_found');
    expect((await api('GET', `/v1/companies/${foreign.id}`, { as: 'b-system' })).body.name).toBe(foreign.name);
  });
});

describe('vatFrequency', () => {
  it('defaults to bimonthly, can be set on create and changed with PATCH (patch semantics)', async () => {
    const plain = await newCompany();
    expect(plain).toMatchObject({ vatFrequency: 'bimonthly' });
    const annual = await newCompany('a-system', { vatFrequency: 'annual' });
    expect(annual).toMatchObject({ vatFrequency: 'annual' });
    expect((await api('GET', `/v1/companies/${annual.id}`, { as: 'a-system' })).body.vatFrequency).toBe('annual');

    const renamed = await api('PATCH', `/v1/companies/${annual.id}`, { as: 'a-system', body: { displayName: 'Årlig AS' } });
    expect(renamed.body).toMatchObject({ name: 'Årlig AS', vatFrequency: 'annual' });
    const bimonthly = await api('PATCH', `/v1/companies/${annual.id}`, { as: 'a-system', body: { vatFrequency: 'bimonthly' } });
    expect(bimonthly.body).toMatchObject({ name: 'Årlig AS', vatFrequency: 'bimonthly' });
    const list = await listAll<{ id: string }>('/v1/companies?page_size=200', { as: 'a-system' });
    expect(list.find((c) => c.id === annual.id)).toMatchObject({ vatFrequency: 'bimonthly' });
  });

  it.each([['monthly'], [null], [6], ['']])('refuses vatFrequency %j on create and update with 400 naming the field', async (value) => {
    const created = await api('POST', '/v1/companies', { as: 'a-system', body: { displayName: 'X AS', accountingSystem: 'Api', vatFrequency: value } });
    expectProblem(created, 400, 'validation_failed');
    expect(created.body.errors.map((e: { field: string }) => e.field)).toEqual(['vatFrequency']);
    const company = await newCompany('a-system', { vatFrequency: 'annual' });
    const updated = await api('PATCH', `/v1/companies/${company.id}`, { as: 'a-system', body: { vatFrequency: value } });
    expectProblem(updated, 400, 'validation_failed');
    expect(updated.body.detail).toContain('vatFrequency');
    expect((await api('GET', `/v1/companies/${company.id}`, { as: 'a-system' })).body.vatFrequency).toBe('annual');
  });
});

describe('status transitions', () => {
  it('disable and enable are idempotent; a disabled company stays readable', async () => {
    const company = await newCompany();
    const disabled = await api('POST', `/v1/companies/${company.id}/actions/disable`, { as: 'a-system' });
    expect(disabled.body.status).toBe('disabled');
    expect((await api('POST', `/v1/companies/${company.id}/actions/disable`, { as: 'a-system' })).body.status).toBe('disabled');
    expect((await api('GET', `/v1/companies/${company.id}`, { as: 'a-system' })).body.status).toBe('disabled');
    const enabled = await api('POST', `/v1/companies/${company.id}/actions/enable`, { as: 'a-system' });
    expect(enabled.body.status).toBe('active');
    expect((await api('POST', `/v1/companies/${company.id}/actions/enable`, { as: 'a-system' })).body.status).toBe('active');
  });

  it('of two disables that read the company active, one disables it: one company.disabled event', async () => {
    const company = await newCompany();
    testStack();
    const readBefore = (await companyRepository.get(company.id))!;
    expect((await api('POST', `/v1/companies/${company.id}/actions/disable`, { as: 'a-system' })).body.status).toBe('disabled');
    // The second as the function runs it, with the company as read before the first changed it.
    expect(await setCompanyStatus(readBefore, 'disabled')).toMatchObject({ id: company.id, status: 'disabled' });
    expect((await eventsOfCompany(company.id)).map((event) => event.type)).toEqual(['company.created', 'company.disabled']);
  });

  it('an action takes no body: an empty object is tolerated, anything else refused', async () => {
    const company = await newCompany();
    expect((await api('POST', `/v1/companies/${company.id}/actions/disable`, { as: 'a-system', body: {} })).status).toBe(200);
    expectProblem(await api('POST', `/v1/companies/${company.id}/actions/enable`, { as: 'a-system', body: { now: true } }), 400, 'validation_failed');
  });

  it('soft delete: 404 afterwards, gone from lists, idempotent, restore brings back the prior status', async () => {
    const company = await newCompany();
    await api('POST', `/v1/companies/${company.id}/actions/disable`, { as: 'a-system' });
    const deleted = await api('DELETE', `/v1/companies/${company.id}`, { as: 'a-system', body: { reason: 'Client left the firm' } });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: company.id, deleted: true, cause: 'direct', reason: 'Client left the firm' });

    expectProblem(await api('GET', `/v1/companies/${company.id}`, { as: 'a-system' }), 404, 'not_found');
    expectProblem(await api('PATCH', `/v1/companies/${company.id}`, { as: 'a-system', body: { displayName: 'X' } }), 404, 'not_found');
    expectProblem(await api('POST', `/v1/companies/${company.id}/actions/enable`, { as: 'a-system' }), 404, 'not_found');
    const list = await listAll<{ id: string }>('/v1/companies?page_size=200', { as: 'a-system' });
    expect(list.map((c) => c.id)).not.toContain(company.id);

    const again = await api('DELETE', `/v1/companies/${company.id}`, { as: 'a-system' });
    expect(again.status).toBe(200);
    expect(again.body.deletedAt).toBe(deleted.body.deletedAt);

    const restored = await api('POST', `/v1/companies/${company.id}/restore`, { as: 'a-system' });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id: company.id, status: 'disabled' });
    expect((await api('GET', `/v1/companies/${company.id}`, { as: 'a-system' })).status).toBe(200);
    const restoredAgain = await api('POST', `/v1/companies/${company.id}/restore`, { as: 'a-system' });
    expect(restoredAgain.body.status).toBe('disabled');
  });

  it('a disable that commits while a delete is being written is kept: the restore brings the company back disabled', async () => {
    const company = await newCompany();
    const read = (await companyRepository.get(company.id))!; // the delete's read: active
    const organization = (await organizationRepository.get(company.organizationId))!;
    let disabled = false;
    const deletion = await observingCalls(
      dynamo(),
      async (commandName) => {
        if (commandName !== 'TransactWriteItemsCommand' || disabled) return;
        disabled = true;
        expect((await api('POST', `/v1/companies/${company.id}/actions/disable`, { as: 'a-system' })).body.status).toBe('disabled');
      },
      () => deleteCompany(administratorOf(organization, 'test', ['companies:write']), read, undefined),
    );
    expect(deletion).toMatchObject({ id: company.id, deleted: true });
    const restored = await api('POST', `/v1/companies/${company.id}/restore`, { as: 'a-system' });
    expect(restored.body).toMatchObject({ id: company.id, status: 'disabled' });
    expect((await eventsOfCompany(company.id)).map((event) => event.type).sort()).toEqual(['company.created', 'company.deleted', 'company.disabled', 'company.restored']);
  });

  it('a delete without body works; restore of a company outside the reach is 404', async () => {
    const company = await newCompany();
    expect((await api('DELETE', `/v1/companies/${company.id}`, { as: 'a-system' })).status).toBe(200);
    expectProblem(await api('POST', `/v1/companies/${company.id}/restore`, { as: 'b-system' }), 404, 'not_found');
    expectProblem(await api('DELETE', `/v1/companies/${company.id}`, { as: 'b-system' }), 404, 'not_found');
  });

  it('restore answers 409 when the deletion was part of an organization cascade', async () => {
    testStack();
    const organization = await createOrganization({ name: 'Short-lived branch', parentId: orgId('a-system') });
    const company = await newCompany('a-system', { organizationId: organization.id });
    const { companiesDeleted } = await deleteOrganization(organization.id, 'test', { issuer: localCredentialIssuer, directory: localPersonDirectory });
    expect(companiesDeleted).toBe(1);
    expectProblem(await api('GET', `/v1/companies/${company.id}`, { as: 'a-system' }), 404, 'not_found');
    const deletion = await api('DELETE', `/v1/companies/${company.id}`, { as: 'a-system' });
    expect(deletion.body.cause).toBe('organization_cascade');
    const response = await api('POST', `/v1/companies/${company.id}/restore`, { as: 'a-system' });
    expectProblem(response, 409, 'conflict');
    expect(response.body.reason).toBe('deleted_by_organization_cascade');
  });

  it('restore answers 409 for a company deleted on its own before its organization was deleted', async () => {
    testStack();
    const organization = await createOrganization({ name: 'Closed branch', parentId: orgId('a-system') });
    const company = await newCompany('a-system', { organizationId: organization.id });
    expect((await api('DELETE', `/v1/companies/${company.id}`, { as: 'a-system' })).body.cause).toBe('direct');
    await deleteOrganization(organization.id, 'test', { issuer: localCredentialIssuer, directory: localPersonDirectory });
    const response = await api('POST', `/v1/companies/${company.id}/restore`, { as: 'a-system' });
    expectProblem(response, 409, 'conflict');
    expect(response.body.reason).toBe('deleted_by_organization_cascade');
    expect((await listAll<{ id: string }>('/v1/companies?page_size=200', { as: 'a-system' })).map((c) => c.id)).not.toContain(company.id);
  });
});
