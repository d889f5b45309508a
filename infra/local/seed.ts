import { createCompany } from '../../shared/companies/service';
import type { DemoBooksResult } from './demo-books';
import { withCheckDigit } from '../../shared/companies/organization-number';
import type { AccountingSystem } from '../../shared/companies/schemas';
import { createApiClient, createOrganization } from '../../shared/administration/service';
import { localCredentialIssuer } from '../../shared/identity/credential-issuers';
import { administratorOf, type RateLimit, type RatePlan } from '../../shared/identity/principal';
import { readOnlyScopes, systemClientScopes, userClientScopes, type Scope } from '../../shared/identity/scopes';
import { createAssignment, createPolicy } from '../../shared/access/service';
import { localPersonDirectory } from '../../shared/identity/person-directories';
import { createUser } from '../../shared/people/service';

/** The demo data of a fresh local stack, as written to .local/stack.json. */
export interface SeedData {
  organizations: { id: string; name: string; parentId: string | null }[];
  companies: { id: string; name: string; organizationId: string; accountingSystem: AccountingSystem }[];
  clients: {
    name: string;
    clientId: string;
    clientSecret: string;
    mode: 'SYSTEM' | 'USER';
    /** USER clients: the person they act for. */
    userId?: string;
    organizationId: string;
    scopes: Scope[];
    plan: RatePlan;
  }[];
  /** The demo people with their login passwords and what they may do (infra/local/seed.ts). */
  people: { name: string; email: string; password: string; userId: string; organizationId: string; access: string }[];
  /** The demo books of the first company (infra/local/demo-books.ts), loaded once the queue workers run. */
  bankAccounts: DemoBooksResult['bankAccounts'];
  reconciliations: DemoBooksResult['reconciliations'];
  autoReconciliation: string | null;
}

/**
 * Two unrelated firms A and B, A1 a child of A; A has an Api company and one bound to another
 * system, A1 and B one Api company each; the four named system clients; the demo people and
 * the accountant's per-user client.
 */
export const seedDemo = async (options: { clientRateLimit?: RateLimit } = {}): Promise<SeedData> => {
  const rateLimit = options.clientRateLimit && { rateLimit: options.clientRateLimit };
  const a = await createOrganization({ name: 'Nordlys Regnskap AS' });
  const a1 = await createOrganization({ name: 'Nordlys Regnskap Bergen', parentId: a.id });
  const b = await createOrganization({ name: 'Fjordtall Revisjon AS' });

  const companySpecs: [typeof a, string, string, AccountingSystem][] = [
    [a, 'Bakeriet Solsiden AS', '91234567', 'Api'],
    [a, 'Tindetopp Transport AS', '92345678', 'Tripletex'],
    [a1, 'Havbris Fiskeri AS', '93456789', 'Api'],
    [b, 'Granlia Gardsbutikk AS', '94567890', 'Api'],
  ];
  const companies: SeedData['companies'] = [];
  for (const [organization, name, digits, accountingSystem] of companySpecs) {
    const seeder = administratorOf(organization, 'seed', ['companies:write']);
    const organizationNumber = withCheckDigit(digits) ?? withCheckDigit(`${digits.slice(0, 7)}1`);
    const company = await createCompany(seeder, { displayName: name, accountingSystem, ...(organizationNumber && { organizationNumber }) });
    companies.push({ id: company.id, name: company.name, organizationId: organization.id, accountingSystem });
  }

  const clientSpecs: [string, typeof a, readonly Scope[], RatePlan][] = [
    ['a-system', a, systemClientScopes, 'premium'],
    ['a-readonly', a, readOnlyScopes, 'standard'],
    ['a1-system', a1, systemClientScopes, 'standard'],
    ['b-system', b, systemClientScopes, 'standard'],
  ];
  const clients: SeedData['clients'] = [];
  for (const [name, organization, scopes, plan] of clientSpecs) {
    const { client, clientSecret } = await createApiClient({ name, organizationId: organization.id, scopes, plan, ...rateLimit }, localCredentialIssuer);
    clients.push({ name, clientId: client.clientId, clientSecret, mode: 'SYSTEM', organizationId: organization.id, scopes: client.scopes, plan });
  }

  const people = await seedPeople(a, b, companies, clients, rateLimit);

  return {
    organizations: [a, a1, b].map(({ id, name, parentId }) => ({ id, name, parentId })),
    companies,
    clients,
    people,
    bankAccounts: [],
    reconciliations: [],
    autoReconciliation: null,
  };
};

/** Demo passwords: fixed, so the README walkthrough can name them (a local stack only). */
const demoPassword = (who: string) => `Demo-${who}-2026!`;

/**
 * The people of the demo: an accountant of A with full access to two of A's companies (the
 * bakery of A and the fishery of A1) and a per-user API client, an auditor of A with read access
 * to the bakery, and a person of B without any policy.
 */
const seedPeople = async (
  a: { id: string; path: string },
  b: { id: string; path: string },
  companies: SeedData['companies'],
  clients: SeedData['clients'],
  rateLimit: { rateLimit: RateLimit } | undefined,
): Promise<SeedData['people']> => {
  const admin = administratorOf({ id: a.id, path: a.path }, 'seed', ['access:manage']);
  const [bakery, , fishery] = companies;
  const full = await createPolicy(admin, {
    name: 'Accountant: full access to two clients',
    description: 'Bookkeeping of Bakeriet Solsiden and Havbris Fiskeri',
    rules: [{ effect: 'allow', actions: ['companies:*', 'ledger:*', 'vat:*', 'bank:*', 'reconciliation:*', 'documents:*', 'context:read'], resources: { companies: [bakery!.id, fishery!.id] } }],
  });
  const read = await createPolicy(admin, {
    name: 'Auditor: read one client',
    description: 'Reads the books of Bakeriet Solsiden',
    rules: [{ effect: 'allow', actions: ['companies:read', 'ledger:read', 'vat:read', 'bank:read', 'reconciliation:read', 'documents:read'], resources: { companies: [bakery!.id] } }],
  });
  const specs: [string, string, string, { id: string }, string, string | null][] = [
    ['Kari Nordmann', 'kari.nordmann@nordlys.example', 'Accountant', a, 'full access to Bakeriet Solsiden AS and Havbris Fiskeri AS', full.id],
    ['Ola Hansen', 'ola.hansen@nordlys.example', 'Auditor', a, 'read access to Bakeriet Solsiden AS', read.id],
    ['Ingrid Berg', 'ingrid.berg@fjordtall.example', 'Member', b, 'no policy yet (organization B)', null],
  ];
  const people: SeedData['people'] = [];
  for (const [name, email, role, organization, access, policyId] of specs) {
    const password = demoPassword(role);
    const { person } = await createUser({ organizationId: organization.id, email, name, password }, localPersonDirectory);
    if (policyId) await createAssignment(admin, { policyId, userId: person.userId });
    people.push({ name, email, password, userId: person.userId, organizationId: organization.id, access });
  }
  const accountant = people[0]!;
  const scopes = userClientScopes;
  const { client, clientSecret } = await createApiClient({ name: 'a-accountant', organizationId: a.id, userId: accountant.userId, scopes, plan: 'standard', ...rateLimit }, localCredentialIssuer);
  clients.push({ name: 'a-accountant', clientId: client.clientId, clientSecret, mode: 'USER', userId: accountant.userId, organizationId: a.id, scopes: client.scopes, plan: 'standard' });
  return people;
};
