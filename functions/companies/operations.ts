import { companyContracts as contracts } from '../../shared/companies/contracts';
import { defineCompanyOperation } from '../../shared/companies/operation';
import {
  createCompany,
  deleteCompany,
  getCompany,
  listCompanies,
  restoreCompany,
  setCompanyStatus,
  updateCompany,
} from '../../shared/companies/service';
import { defineOperation } from '../../shared/api/operation';

/** Companies (companies:read / companies:write); the runner resolves {companyId} within reach. */
export const companyOperations = {
  listCompanies: defineOperation(contracts.listCompanies, async ({ principal, query }) => ({
    status: 200,
    body: await listCompanies(principal, { pageSize: query.page_size, cursor: query.cursor }),
  })),
  createCompany: defineOperation(contracts.createCompany, async ({ principal, body }) => {
    const company = await createCompany(principal, body);
    return { status: 201, body: company, headers: { Location: `/v1/companies/${company.id}` } };
  }),
  getCompany: defineCompanyOperation(contracts.getCompany, async ({ company }) => ({ status: 200, body: getCompany(company) })),
  updateCompany: defineCompanyOperation(contracts.updateCompany, async ({ company, body }) => ({
    status: 200,
    body: await updateCompany(company, body),
  })),
  deleteCompany: defineCompanyOperation(contracts.deleteCompany, async ({ principal, company, body }) => ({
    status: 200,
    body: await deleteCompany(principal, company, body?.reason),
  })),
  disableCompany: defineCompanyOperation(contracts.disableCompany, async ({ company }) => ({
    status: 200,
    body: await setCompanyStatus(company, 'disabled'),
  })),
  enableCompany: defineCompanyOperation(contracts.enableCompany, async ({ company }) => ({
    status: 200,
    body: await setCompanyStatus(company, 'active'),
  })),
  restoreCompany: defineCompanyOperation(contracts.restoreCompany, async ({ company }) => ({ status: 200, body: await restoreCompany(company) })),
};
