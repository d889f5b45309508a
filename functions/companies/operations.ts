import { companyContracts as contracts } from '../../shared/companies/contracts';
import {
  createCompany,
  deleteCompany,
  getCompany,
  listCompanies,
  restoreCompany,
  setCompanyStatus,
  updateCompany,
} from '../../shared/companies/service';
import { defineOperations } from '../../shared/composition/operations';

/** Companies (companies:read / companies:write); the runner resolves {companyId} within reach and hands it over as `owner`. */
export const companyOperations = defineOperations('companies', contracts, {
  listCompanies: async ({ principal, query }) => ({
    status: 200,
    body: await listCompanies(principal, { pageSize: query.page_size, cursor: query.cursor }),
  }),
  createCompany: async ({ principal, body }) => {
    const company = await createCompany(principal, body);
    return { status: 201, body: company, headers: { Location: `/v1/companies/${company.id}` } };
  },
  getCompany: async ({ owner: company }) => ({ status: 200, body: getCompany(company) }),
  updateCompany: async ({ owner: company, body }) => ({
    status: 200,
    body: await updateCompany(company, body),
  }),
  deleteCompany: async ({ principal, owner: company, body }) => ({
    status: 200,
    body: await deleteCompany(principal, company, body?.reason),
  }),
  disableCompany: async ({ owner: company }) => ({
    status: 200,
    body: await setCompanyStatus(company, 'disabled'),
  }),
  enableCompany: async ({ owner: company }) => ({
    status: 200,
    body: await setCompanyStatus(company, 'active'),
  }),
  restoreCompany: async ({ owner: company }) => ({ status: 200, body: await restoreCompany(company) }),
});
