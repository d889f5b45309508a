import { describe, expect, it } from 'vitest';
import { accessContracts } from '../../shared/access/contracts';
import type { CompanyRecord } from '../../shared/companies/repository';
import { defineOperations, type OwnerOf } from '../../shared/composition/operations';
import type { DeliveryOwner, DocumentOwner } from '../../shared/composition/owners';
import { importContracts } from '../../shared/composition/import-contracts';
import type { AssignmentRecord, PolicyRecord } from '../../shared/identity/access-repository';
import type { JobRecord } from '../../shared/jobs/repository';
import { operationContracts } from '../../shared/openapi/document';
import { importSubmissions } from '../../shared/imports/catalogue';
import type { ReachablePerson } from '../../shared/people/service';
import { routes, routesOfGroup, type OperationId } from '../../shared/routes';
import type { SubscriptionRecord } from '../../shared/webhooks/repository';
import { accessOperations } from '../../functions/access/operations';
import { importOperations } from '../../functions/imports/operations';

/**
 * What the compiler checks about operation ids and owners (tsc runs these lines: each
 * `@ts-expect-error` fails the type check when the error it expects is gone), and the runtime
 * shapes that follow from them.
 */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(): T => true as T;

describe('typed operation ids and owners', () => {
  it('types the owner by the first owned parameter of the path', () => {
    expect([
      assertType<Equal<OwnerOf<'getAccessPolicy'>, PolicyRecord>>(),
      assertType<Equal<OwnerOf<'deleteAccessAssignment'>, AssignmentRecord>>(),
      assertType<Equal<OwnerOf<'getCompany'>, CompanyRecord>>(),
      assertType<Equal<OwnerOf<'listBankTransactions'>, CompanyRecord>>(),
      assertType<Equal<OwnerOf<'getJob'>, JobRecord>>(),
      assertType<Equal<OwnerOf<'getDocument'>, DocumentOwner>>(),
      assertType<Equal<OwnerOf<'getUser'>, ReachablePerson>>(),
      assertType<Equal<OwnerOf<'getWebhookSubscription'>, SubscriptionRecord>>(),
      assertType<Equal<OwnerOf<'getWebhookDelivery'>, DeliveryOwner>>(),
      assertType<Equal<OwnerOf<'getAccountContext'>, CompanyRecord>>(),
      assertType<Equal<OwnerOf<'listCompanies'>, undefined>>(),
    ]).not.toContain(false);
  });

  it('refuses a group without an operation for each of its routes, or with one for a route it does not have', () => {
    const run = async () => ({ status: 200 });
    const rest = { listAccessPolicies: run, getAccessPolicy: run, replaceAccessPolicy: run, deleteAccessPolicy: run, createAccessAssignment: run, listAccessAssignments: run, deleteAccessAssignment: run };
    // @ts-expect-error createAccessPolicy is missing
    expect(() => defineOperations('access', accessContracts, rest)).not.toThrow();
    // @ts-expect-error getCompany is not a route of the access group
    expect(() => defineOperations('access', accessContracts, { createAccessPolicy: run, ...rest, getCompany: run })).not.toThrow();
    // @ts-expect-error the owner of {policyId} is a policy, not a company
    expect(() => defineOperations('access', accessContracts, { createAccessPolicy: run, ...rest, getAccessPolicy: async ({ owner }: { owner: CompanyRecord }) => ({ status: 200, body: owner.name }) })).not.toThrow();
    expect(Object.keys(accessOperations).sort()).toEqual(routesOfGroup('access').map((route) => route.operationId).sort());
  });

  it('keys the documented contracts by the route ids: one per route, none else, each with its description', () => {
    const ids: OperationId[] = routes.map((route) => route.operationId);
    expect(Object.keys(operationContracts).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(operationContracts[id].description.length, id).toBeGreaterThan(20);
    // @ts-expect-error no route has this id
    expect(operationContracts.getNothing).toBeUndefined();
  });

  it('maps the import catalogue onto routes, contracts, operations and docs', () => {
    for (const entry of importSubmissions) {
      const route = routes.find((candidate) => candidate.operationId === entry.operationId)!;
      expect(route).toMatchObject({ method: 'POST', path: `/v1/companies/{companyId}/imports/${entry.path}`, group: 'imports', summary: entry.summary, mutation: true, systemOnly: true });
      expect(importContracts[entry.operationId].bodyParsing).toBe('lossless-json');
      expect(importOperations[entry.operationId].contract).toBe(importContracts[entry.operationId]);
      expect(importContracts[entry.operationId].description).toContain(entry.about);
    }
  });
});
