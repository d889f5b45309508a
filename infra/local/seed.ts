import { createCompany } from '../../shared/companies/service';
import type { DemoBooksResult } from './demo-books';
import { withCheckDigit } from '../../shared/companies/organization-number';
import type { AccountingSystem } from '../../shared/companies/schemas';
import { createApiClient, createOrganization } from '../../shared/administration/service';
import { localCredentialIssuer } from '../../shared/identity/credential-issuers';
import { administratorOf, type RatePlan } from '../../shared/identity/principal';
import { readOnlyScopes, systemClientScopes, type Scope } from '../../shared/identity/scopes';

/** The demo data of a fresh local stack, as written to .local/stack.json. */
export interface SeedData {
  organizations: { id: string; name: string; parentId: string | null }[];
  companies: { id: string; name: string; organizationId: string; accountingSystem: AccountingSystem }[];
  clients: {
    name: string;
    clientId: string;
    clientSecret: string;
    mode: 'SYSTEM';
    organizationId: string;
    scopes: Scope[];
    plan: RatePlan;
  }[];
  /** The demo books of the first company (infra/local/demo-books.ts), loaded once the queue workers run. */
  bankAccounts: DemoBooksResult['bankAccounts'];
  reconciliations: DemoBooksResult['reconciliations'];
  autoReconciliation: string | null;
}

/**
 * Two unrelated firms A and B, A1 a child of A; A has an Api company and one bound to another
 * system, A1 and B one Api company each; the four named system clients.
 */
export const seedDemo = async (): Promise<SeedData> => {
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
    const { client, clientSecret } = await createApiClient({ name, organizationId: organization.id, scopes, plan }, localCredentialIssuer);
    clients.push({ name, clientId: client.clientId, clientSecret, mode: 'SYSTEM', organizationId: organization.id, scopes: client.scopes, plan });
  }

  return {
    organizations: [a, a1, b].map(({ id, name, parentId }) => ({ id, name, parentId })),
    companies,
    clients,
    bankAccounts: [],
    reconciliations: [],
    autoReconciliation: null,
  };
};
